/* The hooks (hook.h): read, write, connect, accept and accept4 defined here override libc's for
 * the whole process. Pass-through is the raw system call (syscall(2)), so the hook needs no
 * lookup of the next definition and is the same under the sanitizers' own interceptors. */
#include "hook.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "coro.h"
#include "runtime.h"

/* fd -> where its waiting direction goes; NULL: not hooked. Grown on registration only. */
static uint32_t **wants;
static size_t nwants;

int cb_hook_fd(int fd, uint32_t *want)
{
    if (fd < 0)
        return errno = EBADF, -1;
    if ((size_t)fd >= nwants) {
        size_t n = nwants ? nwants : 64;
        while (n <= (size_t)fd)
            n *= 2;
        uint32_t **w = realloc(wants, n * sizeof *w);
        if (!w)
            return errno = ENOMEM, -1;
        for (size_t i = nwants; i < n; i++)
            w[i] = NULL;
        wants = w;
        nwants = n;
    }
    wants[fd] = want;
    return 0;
}

void cb_hook_unfd(int fd)
{
    if (fd >= 0 && (size_t)fd < nwants)
        wants[fd] = NULL;
}

/* Where fd's waiting direction goes when this call should be hooked, else NULL. */
static inline uint32_t *hooked(int fd)
{
    if (fd < 0 || (size_t)fd >= nwants || !wants[fd] || !cb_co_inside())
        return NULL;
    cb_rt.hooked_calls++;
    return wants[fd];
}

/* Back to the event loop until fd reports dir. */
static void wait_for(uint32_t *want, uint32_t dir)
{
    *want = dir;
    cb_co_yield(0);
}

static inline int would_block(ssize_t r) { return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK); }

ssize_t read(int fd, void *buf, size_t n)
{
    uint32_t *w = hooked(fd);
    ssize_t r;
    while (would_block(r = syscall(SYS_read, fd, buf, n)) && w)
        wait_for(w, EPOLLIN);
    return r;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    uint32_t *w = hooked(fd);
    ssize_t r;
    while (would_block(r = syscall(SYS_write, fd, buf, n)) && w)
        wait_for(w, EPOLLOUT);
    return r;
}

/* glibc declares the address arguments as transparent unions under _GNU_SOURCE. */
int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
    uint32_t *w = hooked(fd);
    long r = syscall(SYS_connect, fd, addr.__sockaddr__, len);
    if (r == 0 || !w || errno != EINPROGRESS)
        return (int)r;
    wait_for(w, EPOLLOUT); /* the handshake finishes; its outcome is the socket's error */
    int e = 0;
    socklen_t el = sizeof e;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
        return -1;
    return e ? (errno = e, -1) : 0;
}

int accept4(int fd, __SOCKADDR_ARG addr, socklen_t *restrict len, int flags)
{
    uint32_t *w = hooked(fd);
    long r;
    while (would_block(r = syscall(SYS_accept4, fd, addr.__sockaddr__, len, flags)) && w)
        wait_for(w, EPOLLIN);
    return (int)r;
}

int accept(int fd, __SOCKADDR_ARG addr, socklen_t *restrict len)
{
    return accept4(fd, addr, len, 0);
}
