/* The legacy client library (legacy_client.h): plain blocking read and write. */
#define _POSIX_C_SOURCE 200809L

#include "legacy_client.h"

#include <errno.h>
#include <unistd.h>

int legacy_send(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = EIO; /* nothing written: not a socket's answer */
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int legacy_recv(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = 0; /* the peer closed the connection */
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int legacy_call(int fd, const void *req, size_t len, void *reply, size_t rlen)
{
    if (legacy_send(fd, req, len) != 0)
        return -1;
    return legacy_recv(fd, reply, rlen);
}
