/* Loopback connections (net.h): socketpairs or TCP through a listener on 127.0.0.1, and the
 * descriptor limit raised for them. Untimed: every caller makes its connections in setup. */
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

enum { NET_MAXEVENTS = 256 };

static int net_syserr(char *err, size_t errlen, const char *call)
{
    snprintf(err, errlen, "io: %s: %s", call, strerror(errno));
    return -1;
}

/* Raises the soft descriptor limit to the hard one. Unconditionally: the harness may keep several
 * instances alive at once (max_batch plans with the hard limit) and closed listeners leave holes
 * in the fd numbers, so one instance cannot tell whether the soft limit would do. */
static int net_raise_nofile(char *err, size_t errlen)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return net_syserr(err, errlen, "getrlimit(RLIMIT_NOFILE)");
    if (rl.rlim_cur == rl.rlim_max)
        return 0;
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        return net_syserr(err, errlen, "setrlimit(RLIMIT_NOFILE)");
    return 0;
}

static int net_nonblock(int fd) { return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

/* One TCP connection through the listener: a blocking connect (on loopback it completes at
 * once), accept, then both ends non-blocking with Nagle off. Linger 0 makes close send a reset,
 * so repeated runs do not fill the ephemeral port range with TIME_WAIT sockets. */
static int net_tcp_pair(int lfd, const struct sockaddr_in *addr, int sv[2], char *err,
                       size_t errlen)
{
    static const int one = 1;
    static const struct linger rst = {1, 0};
    sv[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sv[1] < 0)
        return net_syserr(err, errlen, "socket(AF_INET)");
    if (connect(sv[1], (const struct sockaddr *)addr, sizeof *addr) != 0)
        return net_syserr(err, errlen, "connect(127.0.0.1)");
    sv[0] = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (sv[0] < 0)
        return net_syserr(err, errlen, "accept4");
    if (net_nonblock(sv[1]) != 0)
        return net_syserr(err, errlen, "fcntl(O_NONBLOCK)");
    for (int s = 0; s < 2; s++)
        if (setsockopt(sv[s], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 ||
            setsockopt(sv[s], SOL_SOCKET, SO_LINGER, &rst, sizeof rst) != 0)
            return net_syserr(err, errlen, "setsockopt(TCP_NODELAY, SO_LINGER)");
    return 0;
}

int cb_net_open(cb_net *net, int tcp, char *err, size_t errlen)
{
    socklen_t len = sizeof net->addr;
    net->tcp = tcp;
    net->lfd = -1;
    if (net_raise_nofile(err, errlen) != 0)
        return -1;
    if (!tcp)
        return 0;
    memset(&net->addr, 0, sizeof net->addr);
    net->addr.sin_family = AF_INET;
    net->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    net->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (net->lfd < 0)
        return net_syserr(err, errlen, "socket(AF_INET)");
    if (bind(net->lfd, (const struct sockaddr *)&net->addr, sizeof net->addr) != 0)
        return net_syserr(err, errlen, "bind(127.0.0.1:0)");
    if (listen(net->lfd, SOMAXCONN) != 0)
        return net_syserr(err, errlen, "listen");
    if (getsockname(net->lfd, (struct sockaddr *)&net->addr, &len) != 0)
        return net_syserr(err, errlen, "getsockname");
    return 0;
}

int cb_net_pair(cb_net *net, int sv[2], char *err, size_t errlen)
{
    sv[0] = sv[1] = -1;
    if (net->tcp)
        return net_tcp_pair(net->lfd, &net->addr, sv, err, errlen);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
        return net_syserr(err, errlen, "socketpair(AF_UNIX)");
    return 0;
}

void cb_net_close(cb_net *net)
{
    if (net->lfd >= 0)
        close(net->lfd);
    net->lfd = -1;
}

int cb_net_drain(int epfd, char *err, size_t errlen)
{
    struct epoll_event ev[NET_MAXEVENTS];
    int n;
    while ((n = epoll_wait(epfd, ev, NET_MAXEVENTS, 0)) > 0)
        ;
    return n < 0 ? net_syserr(err, errlen, "epoll_wait") : 0;
}
