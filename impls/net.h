/* Loopback connections for the I/O workloads, made the same way for every body: the C families'
 * and the Lua runtime's socket module (impls/lua/cb_lua.c). docs/workloads-io.md. Errors read
 * "io: call: reason". */
#ifndef CB_NET_H
#define CB_NET_H

#include <netinet/in.h>
#include <stddef.h>

typedef struct cb_net {
    int tcp;
    int lfd; /* the TCP listener while connections are made, else -1 */
    struct sockaddr_in addr;
} cb_net;

/* Raises the soft descriptor limit to the hard one and, for TCP, listens on 127.0.0.1 at an
 * ephemeral port. 0, or -1 with "io: call: reason" in err. */
int cb_net_open(cb_net *net, int tcp, char *err, size_t errlen);
/* One connection: sv[0] the server's end, sv[1] the client's, both non-blocking (TCP: Nagle
 * off, linger 0). On failure the ends made so far are in sv (-1 otherwise) for the caller to
 * close. */
int cb_net_pair(cb_net *net, int sv[2], char *err, size_t errlen);
/* Closes the listener (no more connections). */
void cb_net_close(cb_net *net);
/* Registration with EPOLLET reports every socket writable once: consume those events so the
 * timed run starts with an empty ready list. */
int cb_net_drain(int epfd, char *err, size_t errlen);

#endif
