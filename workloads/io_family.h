/* io's event-loop families: the C ones in io.c and the C++20 one in workloads/io_cxx20.cc (which
 * includes this inside extern "C"). A family supplies an io_family (make, step, drop per
 * endpoint) and reuses setup, the event loop and finish. */
#ifndef CB_IO_FAMILY_H
#define CB_IO_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "impls/closure.h"
#include "workload.h"

typedef struct io_inst io_inst;
typedef struct io_conn io_conn;

/* One socket and the coroutine that owns it (the only one that reads or writes it). */
typedef struct io_ep {
    int fd;
    uint32_t want;  /* EPOLLIN or EPOLLOUT while its owner is suspended on it, else 0 */
    int client;
    io_conn *c;
    void *owner;    /* cb_co (stackful) or the sm frame; closure owners live in task */
    cb_cl_task task;
} io_ep;

struct io_conn {
    io_ep ep[2];                /* [0] server, [1] client: the start order */
    io_inst *in;
    uint32_t id;
    unsigned char *tx, *rx, *sb; /* client's message and echo, server's message */
    uint64_t hc, hs;            /* what the client and the server read, folded */
};

/* How every error of loading style=prebuilt's library begins (the library missing or not it),
 * which a failed cell's error shows: claim 12 (harness/report/claims/hooks.c) tells it from a
 * failure of the library's calls by it. */
#define IO_PREBUILT_LOAD_ERROR "io: style=prebuilt: "

/* The first failure, recorded inside a coroutine and formatted by run on the main stack (an
 * error path must not need more coroutine stack than the smallest allowed). */
typedef struct io_fault {
    enum { IO_OK, IO_SYSCALL, IO_EOF, IO_MISMATCH, IO_POLL, IO_STALL } kind;
    const char *call;
    int errnum;
    uint32_t conn;
    uint64_t msg;
    size_t at;
    unsigned sent, got;
} io_fault;

/* A family's control flow: create an endpoint's coroutine (setup), start or resume it (run;
 * returns 1 once it has finished), and free it whatever its state (finish). */
typedef struct io_family {
    int (*make)(const cb_impl *impl, const cb_params *p, io_ep *e);
    int (*step)(io_ep *e, int first);
    void (*drop)(io_ep *e);
} io_family;

struct io_inst {
    const io_family *fam;
    int epfd;
    uint32_t conns;
    uint64_t msgs;
    size_t size;
    io_conn *conn;
    unsigned char *bufs;
    size_t live; /* coroutines not yet finished */
    io_fault fault;
};

/* Byte j of message m on connection c: a function of (c, m, j) only. */
void io_fill(io_conn *c, uint64_t m);
/* The server folds what it read; the client checks the echo (0, or -1 with the fault recorded). */
void io_server_got(io_conn *c);
int io_client_got(io_conn *c, uint64_t m);
/* The one I/O primitive of every family: 1 once buf[*off, len) has moved, 0 when the socket
 * would block (the caller suspends and tries again when resumed), -1 on failure (recorded). */
int io_pump(io_ep *e, unsigned char *buf, size_t len, size_t *off, int wr);
/* Setup for a family (untimed), the event loop (timed), finish (untimed). */
void *io_setup(const io_family *fam, const cb_impl *impl, const cb_params *p, char *err,
               size_t errlen);
int io_run(void *inst, char *err, size_t errlen);
int io_finish(void *inst, cb_wl_result *out, char *err, size_t errlen);

#endif
