/* A legacy client library: blocking request/reply over a connected stream socket, written as such
 * code is, with no knowledge of coroutines or event loops. It is built apart from corobench (the
 * Makefile's rule for bin/examples/liblegacy_client.so: its own flags, no corobench include path,
 * nothing of corobench linked); io style=prebuilt loads it with dlopen (docs/workloads-io.md).
 *
 * Each function calls read or write until the whole buffer has moved and retries only EINTR: on
 * a blocking socket that is all a client needs. It returns 0, or -1 with errno set (0 when the
 * peer closed the connection first). */
#ifndef LEGACY_CLIENT_H
#define LEGACY_CLIENT_H

#include <stddef.h>

/* Sends the whole of buf. */
int legacy_send(int fd, const void *buf, size_t len);
/* Receives exactly len bytes into buf. */
int legacy_recv(int fd, void *buf, size_t len);
/* One call: sends the request, then receives a reply of rlen bytes. */
int legacy_call(int fd, const void *req, size_t len, void *reply, size_t rlen);

#endif
