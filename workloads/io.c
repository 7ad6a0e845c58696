/* io: `conns` echo connections over AF_UNIX socketpairs or loopback TCP, non-blocking, one epoll
 * event loop. Client c writes `msgs` messages of `size` bytes and verifies each echo; server c
 * reads and echoes them. A read or write that hits EAGAIN suspends its coroutine until epoll
 * reports readiness. One op = one echoed message.
 * Sockets, epoll registration, buffers and coroutines are made in setup and closed in finish
 * (untimed); run starts every coroutine and runs the event loop until every connection is done. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "impls/closure.h"
#include "impls/coro.h"
#include "impls/net.h"
#include "impls/hook.h"
#include "impls/root.h"
#include "impls/sm.h"
#include "cxx20.h"
#include "lua_family.h"
#include "io_family.h"
#include "workload.h"

enum {
    IO_MAXEVENTS = 256,     /* epoll_wait batch, the same for every family */
    IO_FD_RESERVE = 64,     /* descriptors left to the harness: stdio, pipes, perf counters */
    IO_STALL_MS = 10000,    /* no readiness for this long means a lost wakeup: fail, not hang */
    /* Largest TCP message whose suspension count was reproducible here (loopback, Linux 6.x):
     * at 256 KiB about one run in seven differed by a few short reads. */
    IO_TCP_MAX_SIZE = 131072,
};

static const char *const io_transports[] = {"unix", "tcp", NULL};
static const char *const io_styles[] = {"explicit", "blocking", "prebuilt", NULL};

static const cb_param_def io_params[] = {
    {"conns", CB_PARAM_INT, "64", 1, 1000000, NULL,
     "connections, each a client and a server coroutine with a socket of their own", "8"},
    {"msgs", CB_PARAM_INT, "1000", 1, 100000000, NULL, "messages each client sends and verifies",
     "200"},
    {"size", CB_PARAM_INT, "64", 1, 1048576, NULL,
     "bytes per message (at most 131072 with transport=tcp, see check())", NULL},
    {"transport", CB_PARAM_ENUM, "unix", 0, 0, io_transports,
     "unix: AF_UNIX stream socketpairs; tcp: 127.0.0.1 (ephemeral port, TCP_NODELAY)", NULL},
    {"style", CB_PARAM_ENUM, "explicit", 0, 0, io_styles,
     "explicit: the coroutines call the event loop's non-blocking primitive; blocking (stackful "
     "only): plain blocking read and write, made asynchronous by the interposition layer "
     "(impls/hook.h); prebuilt (stackful only): the same blocking code in a shared library "
     "built apart from corobench (examples/legacy-client/), loaded with dlopen, its calls "
     "through the same hooks",
     NULL},
    {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
};

/* ---- shared by every family: sockets, content, verification, hashing, the event loop -------- */

/* Descriptors one instance holds: two per connection, the epoll fd, the TCP listener in setup. */
static uint64_t io_fds(uint64_t conns) { return 2 * conns + 2; }

static uint64_t io_hard_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_max == RLIM_INFINITY)
        return UINT64_MAX;
    return rl.rlim_max;
}

static int io_check(const cb_params *p, char *err, size_t errlen)
{
    uint64_t conns = (uint64_t)cb_params_int(p, "conns"), hard = io_hard_limit();
    int64_t size = cb_params_int(p, "size");
    if (size > IO_TCP_MAX_SIZE && strcmp(cb_params_str(p, "transport"), "tcp") == 0) {
        snprintf(err, errlen,
                 "io: transport=tcp with size=%lld: how a message arrives in pieces then "
                 "depends on kernel timing, so suspension counts are not reproducible (valid: "
                 "size up to %d with tcp, any size with unix)",
                 (long long)size, IO_TCP_MAX_SIZE);
        return -1;
    }
    if (io_fds(conns) + IO_FD_RESERVE <= hard)
        return 0;
    /* io_fds(conns) is 2 * conns + 2. */
    if (hard < IO_FD_RESERVE + io_fds(1)) {
        snprintf(err, errlen,
                 "io: the file descriptor limit (RLIMIT_NOFILE, ulimit -n) is %llu, and io needs "
                 "%d for the harness plus 2 per connection and 2 more: no io cell fits (valid: "
                 "a limit of at least %llu; conns=%llu needs %llu)",
                 (unsigned long long)hard, IO_FD_RESERVE,
                 (unsigned long long)(IO_FD_RESERVE + io_fds(1)), (unsigned long long)conns,
                 (unsigned long long)(IO_FD_RESERVE + io_fds(conns)));
        return -1;
    }
    uint64_t max_conns = (hard - IO_FD_RESERVE - 2) / 2;
    snprintf(err, errlen,
             "io: conns=%llu needs %llu file descriptors (plus %d kept for the harness); "
             "RLIMIT_NOFILE hard limit is %llu (valid: conns up to %llu here)",
             (unsigned long long)conns, (unsigned long long)io_fds(conns), IO_FD_RESERVE,
             (unsigned long long)hard, (unsigned long long)max_conns);
    return -1;
}

static uint64_t io_max_batch(const cb_params *p)
{
    uint64_t hard = io_hard_limit(), per = io_fds((uint64_t)cb_params_int(p, "conns"));
    if (hard <= IO_FD_RESERVE + per)
        return 1;
    return (hard - IO_FD_RESERVE) / per;
}

static inline uint64_t io_load64(const unsigned char *b)
{
    uint64_t w = 0;
    for (int k = 7; k >= 0; k--)
        w = w << 8 | b[k];
    return w;
}

/* Byte j of message m on connection c: a function of (c, m, j) only. */
void io_fill(io_conn *c, uint64_t m)
{
    uint64_t seed = cb_mix(cb_mix(0x10, c->id), m);
    size_t n = c->in->size;
    for (size_t j = 0; j < n; j += 8) {
        uint64_t w = seed + (j >> 3) * 0x9e3779b97f4a7c15ULL;
        w ^= w >> 29;
        for (size_t k = 0; k < 8 && j + k < n; k++)
            c->tx[j + k] = (unsigned char)(w >> (8 * k));
    }
}

/* Folds a whole message into h, a little-endian word at a time (the same on every host). */
static uint64_t io_hash(uint64_t h, const unsigned char *b, size_t n)
{
    size_t j = 0;
    for (; j + 8 <= n; j += 8)
        h = cb_mix(h, io_load64(b + j));
    uint64_t tail = 0;
    for (size_t k = n; k > j; k--)
        tail = tail << 8 | b[k - 1];
    return cb_mix(h, tail ^ (uint64_t)n << 56);
}

static void io_fail(io_inst *in, const io_fault *f)
{
    if (in->fault.kind == IO_OK)
        in->fault = *f;
}

void io_server_got(io_conn *c) { c->hs = io_hash(c->hs, c->sb, c->in->size); }

/* The client checks the echo byte for byte; 0, or -1 with the fault recorded. */
int io_client_got(io_conn *c, uint64_t m)
{
    size_t n = c->in->size;
    if (memcmp(c->rx, c->tx, n) != 0) {
        size_t at = 0;
        while (c->rx[at] == c->tx[at])
            at++;
        io_fail(c->in, &(io_fault){.kind = IO_MISMATCH, .conn = c->id, .msg = m, .at = at,
                                   .sent = c->tx[at], .got = c->rx[at]});
        return -1;
    }
    c->hc = io_hash(c->hc, c->rx, n);
    return 0;
}

/* The one I/O primitive of every family: move buf[*off, len) with as many calls as succeed.
 * Returns 1 when all of it has moved, 0 when the socket would block (e->want says on what; the
 * caller suspends and tries again when resumed), -1 on failure (recorded). */
int io_pump(io_ep *e, unsigned char *buf, size_t len, size_t *off, int wr)
{
    while (*off < len) {
        ssize_t n = wr ? send(e->fd, buf + *off, len - *off, MSG_NOSIGNAL)
                       : recv(e->fd, buf + *off, len - *off, 0);
        if (n > 0) {
            *off += (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            e->want = wr ? EPOLLOUT : EPOLLIN;
            return 0;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            io_fail(e->c->in, &(io_fault){.kind = n ? IO_SYSCALL : IO_EOF,
                                           .call = wr ? "send" : "recv", .errnum = errno,
                                           .conn = e->c->id});
            return -1;
        }
    }
    return 1;
}

/* The event loop, written once. Coroutines start in a fixed order (server c, then client c);
 * then each epoll_wait batch resumes, in the order returned, every owner suspended on a
 * direction the event reports (error and hang-up wake both, as in Redis' ae_epoll). Every fd is
 * edge-triggered and owned by one coroutine, so a resumed owner always makes progress and the
 * suspensions are those the protocol forces, the same in every family. */
int io_run(void *inst, char *err, size_t errlen)
{
    io_inst *in = inst;
    struct epoll_event ev[IO_MAXEVENTS];
    for (uint32_t c = 0; c < in->conns && in->fault.kind == IO_OK; c++)
        for (int s = 0; s < 2 && in->fault.kind == IO_OK; s++)
            in->live -= (size_t)in->fam->step(&in->conn[c].ep[s], 1);
    /* The rest point (docs/memory.md): every connection open and both its coroutines started and
     * suspended on their sockets (the server on its first read, the client on its first echo),
     * as spawn's are: the memory per connection of claim 25 (thread-per-connection). */
    if (in->fault.kind == IO_OK)
        cb_wl_at_rest(in->live);
    while (in->live && in->fault.kind == IO_OK) {
        int n = epoll_wait(in->epfd, ev, IO_MAXEVENTS, IO_STALL_MS);
        if (n < 0 && errno != EINTR)
            io_fail(in, &(io_fault){.kind = IO_POLL, .errnum = errno});
        if (n == 0)
            io_fail(in, &(io_fault){.kind = IO_STALL});
        for (int i = 0; i < n && in->fault.kind == IO_OK; i++) {
            io_ep *e = ev[i].data.ptr;
            if (!e->want || !(ev[i].events & (e->want | EPOLLERR | EPOLLHUP)))
                continue;
            e->want = 0;
            in->live -= (size_t)in->fam->step(e, 0);
        }
    }
    const io_fault *f = &in->fault;
    switch (f->kind) {
    case IO_OK:
        return 0;
    case IO_SYSCALL:
        snprintf(err, errlen, "io: conn %u: %s: %s", f->conn, f->call, strerror(f->errnum));
        break;
    case IO_EOF:
        snprintf(err, errlen, "io: conn %u: recv: peer closed the connection", f->conn);
        break;
    case IO_MISMATCH:
        snprintf(err, errlen,
                 "io: conn %u msg %llu: echo differs at byte %zu (sent 0x%02x, got 0x%02x)",
                 f->conn, (unsigned long long)f->msg, f->at, f->sent, f->got);
        break;
    case IO_POLL:
        snprintf(err, errlen, "io: epoll_wait: %s", strerror(f->errnum));
        break;
    case IO_STALL:
        snprintf(err, errlen, "io: epoll_wait: no readiness for %d ms with %zu coroutines waiting",
                 IO_STALL_MS, in->live);
        break;
    }
    return -1;
}

/* Frees whatever setup made, in any state; with out, reports the result first. */
int io_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    io_inst *in = inst;
    uint64_t sum = 0;
    for (uint32_t c = 0; in->conn && c < in->conns; c++) {
        io_conn *k = &in->conn[c];
        /* A sum of per-connection hashes: independent of how the connections interleaved. */
        sum += cb_mix(cb_mix(k->id, k->hs), k->hc);
        for (int s = 0; s < 2; s++) {
            in->fam->drop(&k->ep[s]);
            if (k->ep[s].fd >= 0)
                close(k->ep[s].fd);
        }
    }
    if (out) {
        out->ops = (uint64_t)in->conns * in->msgs;
        out->checksum = cb_mix(cb_mix(cb_mix(sum, in->conns), in->msgs), in->size);
    }
    if (in->epfd >= 0)
        close(in->epfd);
    free(in->conn);
    free(in->bufs);
    free(in);
    return 0;
}

static int io_syserr(char *err, size_t errlen, const char *call)
{
    snprintf(err, errlen, "io: %s: %s", call, strerror(errno));
    return -1;
}

/* Sockets, buffers, epoll registration and the family's coroutines. */
void *io_setup(const io_family *fam, const cb_impl *impl, const cb_params *p, char *err,
                      size_t errlen)
{
    if (io_check(p, err, errlen) != 0)
        return NULL;
    io_inst *in = calloc(1, sizeof *in);
    if (!in) {
        io_syserr(err, errlen, "calloc");
        return NULL;
    }
    in->fam = fam;
    in->conns = (uint32_t)cb_params_int(p, "conns");
    in->msgs = (uint64_t)cb_params_int(p, "msgs");
    in->size = (size_t)cb_params_int(p, "size");
    cb_net net = {.lfd = -1};
    in->epfd = -1;
    in->conn = calloc(in->conns, sizeof *in->conn);
    in->bufs = malloc(3 * in->size * in->conns);
    if (!in->conn || !in->bufs) {
        io_syserr(err, errlen, "malloc");
        free(in->conn);
        free(in->bufs);
        free(in);
        return NULL;
    }
    /* Touch every buffer page now, not in the timed run (not with 0: malloc + memset 0 may be
     * turned into calloc, whose pages are faulted lazily). */
    memset(in->bufs, 0xa5, 3 * in->size * in->conns);
    for (uint32_t c = 0; c < in->conns; c++) {
        io_conn *k = &in->conn[c];
        unsigned char *b = in->bufs + 3 * in->size * c;
        *k = (io_conn){.in = in, .id = c, .tx = b, .rx = b + in->size, .sb = b + 2 * in->size};
        for (int s = 0; s < 2; s++)
            k->ep[s] = (io_ep){.fd = -1, .client = s, .c = k};
    }
    if ((in->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        io_syserr(err, errlen, "epoll_create1");
        goto fail;
    }
    if (cb_net_open(&net, strcmp(cb_params_str(p, "transport"), "tcp") == 0, err, errlen))
        goto fail;
    for (uint32_t c = 0; c < in->conns; c++) {
        io_conn *k = &in->conn[c];
        int sv[2], r = cb_net_pair(&net, sv, err, errlen);
        k->ep[0].fd = sv[0];
        k->ep[1].fd = sv[1];
        if (r != 0)
            goto fail;
        for (int s = 0; s < 2; s++) {
            struct epoll_event ee = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = &k->ep[s]};
            if (epoll_ctl(in->epfd, EPOLL_CTL_ADD, k->ep[s].fd, &ee) != 0) {
                io_syserr(err, errlen, "epoll_ctl(EPOLL_CTL_ADD)");
                goto fail;
            }
            if (fam->make(impl, p, &k->ep[s]) != 0) {
                snprintf(err, errlen, "io: cannot create coroutine %u of %u: %s", 2 * c + s + 1,
                         2 * in->conns, cb_stack_strerror(errno));
                goto fail;
            }
        }
    }
    cb_net_close(&net);
    if (cb_net_drain(in->epfd, err, errlen) != 0)
        goto fail;
    in->live = 2 * (size_t)in->conns;
    return in;
fail:
    cb_net_close(&net);
    io_finish(in, NULL, NULL, 0);
    return NULL;
}

/* ---- stackful: the connection code is blocking code; co_read/co_write yield inside ---------- */

static int io_sf_xfer(io_ep *e, unsigned char *buf, size_t len, int wr)
{
    size_t off = 0;
    int r;
    while ((r = io_pump(e, buf, len, &off, wr)) == 0)
        cb_co_yield(0); /* back to the event loop until epoll says e->want */
    return r;
}
static int co_read(io_ep *e, unsigned char *buf, size_t len) { return io_sf_xfer(e, buf, len, 0); }
static int co_write(io_ep *e, unsigned char *buf, size_t len) { return io_sf_xfer(e, buf, len, 1); }

static uintptr_t io_sf_server(void *arg, uintptr_t first)
{
    (void)first;
    io_ep *e = arg;
    io_conn *c = e->c;
    for (uint64_t i = 0; i < c->in->msgs; i++) {
        if (co_read(e, c->sb, c->in->size) < 0)
            break;
        io_server_got(c);
        if (co_write(e, c->sb, c->in->size) < 0)
            break;
    }
    return 0;
}

static uintptr_t io_sf_client(void *arg, uintptr_t first)
{
    (void)first;
    io_ep *e = arg;
    io_conn *c = e->c;
    for (uint64_t i = 0; i < c->in->msgs; i++) {
        io_fill(c, i);
        if (co_write(e, c->tx, c->in->size) < 0 || co_read(e, c->rx, c->in->size) < 0 ||
            io_client_got(c, i) < 0)
            break;
    }
    return 0;
}

static int io_sf_make(const cb_impl *impl, const cb_params *p, io_ep *e)
{
    cb_co_cfg cfg = cb_impl_co_cfg(impl, p);
    e->owner = cb_co_create(&cfg, e->client ? io_sf_client : io_sf_server, e);
    return e->owner ? 0 : -1;
}

static int io_sf_step(io_ep *e, int first)
{
    (void)first;
    cb_co_resume(e->owner, 0);
    return cb_co_done(e->owner);
}

static void io_sf_drop(io_ep *e) { cb_co_destroy(e->owner); }

static const io_family io_sf = {io_sf_make, io_sf_step, io_sf_drop};

/* ---- stackful, style=blocking: unmodified blocking code, made asynchronous by the hooks ---- */

/* What blocking code does to move a whole message: read or write until all of it has moved.
 * Plain read and write; inside the coroutine the hook (impls/hook.c) turns each EAGAIN into a
 * wait on the event loop, which is the suspension io_pump's caller makes by hand. write, not
 * send: a write to a closed peer would raise SIGPIPE, and no peer closes during a run. */
static int io_bl_full(io_ep *e, unsigned char *buf, size_t len, int wr)
{
    for (size_t off = 0; off < len;) {
        ssize_t n = wr ? write(e->fd, buf + off, len - off) : read(e->fd, buf + off, len - off);
        if (n > 0) {
            off += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            io_fail(e->c->in, &(io_fault){.kind = n ? IO_SYSCALL : IO_EOF,
                                           .call = wr ? "write" : "read", .errnum = errno,
                                           .conn = e->c->id});
            return -1;
        }
    }
    return 1;
}

/* The same protocol as io_sf_server and io_sf_client, written as blocking code. */
static uintptr_t io_bl_server(void *arg, uintptr_t first)
{
    (void)first;
    io_ep *e = arg;
    io_conn *c = e->c;
    for (uint64_t i = 0; i < c->in->msgs; i++) {
        if (io_bl_full(e, c->sb, c->in->size, 0) < 0)
            break;
        io_server_got(c);
        if (io_bl_full(e, c->sb, c->in->size, 1) < 0)
            break;
    }
    return 0;
}

static uintptr_t io_bl_client(void *arg, uintptr_t first)
{
    (void)first;
    io_ep *e = arg;
    io_conn *c = e->c;
    for (uint64_t i = 0; i < c->in->msgs; i++) {
        io_fill(c, i);
        if (io_bl_full(e, c->tx, c->in->size, 1) < 0 ||
            io_bl_full(e, c->rx, c->in->size, 0) < 0 || io_client_got(c, i) < 0)
            break;
    }
    return 0;
}

/* The coroutine, and the descriptor handed to the hooks with where its waits go. */
static int io_hooked_make(const cb_impl *impl, const cb_params *p, io_ep *e,
                          uintptr_t (*client)(void *, uintptr_t),
                          uintptr_t (*server)(void *, uintptr_t))
{
    if (cb_hook_fd(e->fd, &e->want) != 0)
        return -1;
    cb_co_cfg cfg = cb_impl_co_cfg(impl, p);
    e->owner = cb_co_create(&cfg, e->client ? client : server, e);
    return e->owner ? 0 : -1;
}

static int io_bl_make(const cb_impl *impl, const cb_params *p, io_ep *e)
{
    return io_hooked_make(impl, p, e, io_bl_client, io_bl_server);
}

static void io_bl_drop(io_ep *e)
{
    cb_hook_unfd(e->fd);
    cb_co_destroy(e->owner);
}

static const io_family io_bl = {io_bl_make, io_sf_step, io_bl_drop};

/* ---- stackful, style=prebuilt: the blocking code in a library built apart ------------------ */

/* Where `make` puts the legacy client library, below the source tree (the Makefile defines it
 * from its BIN). */
#ifndef CB_LEGACY_LIB
#define CB_LEGACY_LIB "bin/examples/liblegacy_client.so"
#endif

/* The library's entry points, declared here as a program that loads a binary declares them
 * (examples/legacy-client/legacy_client.h): 0, or -1 with errno (0: the peer closed). */
static struct {
    int (*send)(int fd, const void *buf, size_t len);
    int (*recv)(int fd, void *buf, size_t len);
    int (*call)(int fd, const void *req, size_t len, void *reply, size_t rlen);
} io_lc;

/* Loads the library once a process (it stays loaded; setup is untimed): 0, or -1 with err. */
static int io_lc_load(char *err, size_t errlen)
{
    if (io_lc.call)
        return 0;
    const char *root = cb_root_dir();
    char path[PATH_MAX];
    if (CB_LEGACY_LIB[0] != '/' && !root) {
        snprintf(err, errlen,
                 IO_PREBUILT_LOAD_ERROR "no source tree above this executable, where %s is built",
                 CB_LEGACY_LIB);
        return -1;
    }
    snprintf(path, sizeof path, "%s%s%s", CB_LEGACY_LIB[0] == '/' ? "" : root,
             CB_LEGACY_LIB[0] == '/' ? "" : "/", CB_LEGACY_LIB);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, IO_PREBUILT_LOAD_ERROR "%s (`make examples` builds it)", dlerror());
        return -1;
    }
    io_lc.send = (int (*)(int, const void *, size_t))dlsym(h, "legacy_send");
    io_lc.recv = (int (*)(int, void *, size_t))dlsym(h, "legacy_recv");
    io_lc.call = (int (*)(int, const void *, size_t, void *, size_t))dlsym(h, "legacy_call");
    if (!io_lc.send || !io_lc.recv || !io_lc.call) {
        snprintf(err, errlen,
                 IO_PREBUILT_LOAD_ERROR "%s lacks legacy_send, legacy_recv or legacy_call", path);
        io_lc.call = NULL;
        dlclose(h);
        return -1;
    }
    return 0;
}

/* A library call failed: its errno says why (0: the peer closed). */
static void io_lc_fail(io_ep *e, const char *call)
{
    io_fail(e->c->in, &(io_fault){.kind = errno ? IO_SYSCALL : IO_EOF, .call = call,
                                   .errnum = errno, .conn = e->c->id});
}

/* The protocol of io_bl_server and io_bl_client, each transfer a call into the library. */
static uintptr_t io_pb_server(void *arg, uintptr_t first)
{
    (void)first;
    io_ep *e = arg;
    io_conn *c = e->c;
    for (uint64_t i = 0; i < c->in->msgs; i++) {
        if (io_lc.recv(e->fd, c->sb, c->in->size) != 0) {
            io_lc_fail(e, "legacy_recv");
            break;
        }
        io_server_got(c);
        if (io_lc.send(e->fd, c->sb, c->in->size) != 0) {
            io_lc_fail(e, "legacy_send");
            break;
        }
    }
    return 0;
}

static uintptr_t io_pb_client(void *arg, uintptr_t first)
{
    (void)first;
    io_ep *e = arg;
    io_conn *c = e->c;
    for (uint64_t i = 0; i < c->in->msgs; i++) {
        io_fill(c, i);
        if (io_lc.call(e->fd, c->tx, c->in->size, c->rx, c->in->size) != 0) {
            io_lc_fail(e, "legacy_call");
            break;
        }
        if (io_client_got(c, i) < 0)
            break;
    }
    return 0;
}

static int io_pb_make(const cb_impl *impl, const cb_params *p, io_ep *e)
{
    return io_hooked_make(impl, p, e, io_pb_client, io_pb_server);
}

static const io_family io_pb = {io_pb_make, io_sf_step, io_bl_drop};

/* ---- sm: one frame per coroutine, the transfer's frame embedded in it ---------------------- */

typedef struct io_sm_xfer {
    unsigned char *buf;
    size_t len, off;
    int wr, res;
} io_sm_xfer;

typedef struct io_sm_frame {
    uint32_t state;
    uint64_t i;
    io_sm_xfer x;
} io_sm_frame;

enum { IO_MSG, IO_WROTE, IO_READ }; /* resume points: before a message, in a write, in a read */

static void io_sm_call(io_sm_xfer *x, unsigned char *buf, size_t len, int wr)
{
    *x = (io_sm_xfer){.buf = buf, .len = len, .wr = wr};
}

static cb_sm_status io_sm_xfer_step(io_ep *e, io_sm_xfer *x)
{
    if ((x->res = io_pump(e, x->buf, x->len, &x->off, x->wr)) == 0)
        return cb_sm_suspend();
    return CB_SM_DONE;
}

static cb_sm_status io_sm_server(io_ep *e, io_sm_frame *f)
{
    io_conn *c = e->c;
    for (;;) {
        switch (f->state) {
        case IO_MSG:
            if (f->i == c->in->msgs)
                return CB_SM_DONE;
            io_sm_call(&f->x, c->sb, c->in->size, 0);
            f->state = IO_READ;
            /* fall through */
        case IO_READ:
            if (io_sm_xfer_step(e, &f->x) == CB_SM_SUSPENDED)
                return CB_SM_SUSPENDED;
            if (f->x.res < 0)
                return CB_SM_DONE;
            io_server_got(c);
            io_sm_call(&f->x, c->sb, c->in->size, 1);
            f->state = IO_WROTE;
            /* fall through */
        case IO_WROTE:
            if (io_sm_xfer_step(e, &f->x) == CB_SM_SUSPENDED)
                return CB_SM_SUSPENDED;
            if (f->x.res < 0)
                return CB_SM_DONE;
            f->i++;
            f->state = IO_MSG;
        }
    }
}

static cb_sm_status io_sm_client(io_ep *e, io_sm_frame *f)
{
    io_conn *c = e->c;
    for (;;) {
        switch (f->state) {
        case IO_MSG:
            if (f->i == c->in->msgs)
                return CB_SM_DONE;
            io_fill(c, f->i);
            io_sm_call(&f->x, c->tx, c->in->size, 1);
            f->state = IO_WROTE;
            /* fall through */
        case IO_WROTE:
            if (io_sm_xfer_step(e, &f->x) == CB_SM_SUSPENDED)
                return CB_SM_SUSPENDED;
            if (f->x.res < 0)
                return CB_SM_DONE;
            io_sm_call(&f->x, c->rx, c->in->size, 0);
            f->state = IO_READ;
            /* fall through */
        case IO_READ:
            if (io_sm_xfer_step(e, &f->x) == CB_SM_SUSPENDED)
                return CB_SM_SUSPENDED;
            if (f->x.res < 0 || io_client_got(c, f->i) < 0)
                return CB_SM_DONE;
            f->i++;
            f->state = IO_MSG;
        }
    }
}

static int io_sm_make(const cb_impl *impl, const cb_params *p, io_ep *e)
{
    (void)impl, (void)p;
    e->owner = cb_sm_alloc(sizeof(io_sm_frame));
    memset(e->owner, 0, sizeof(io_sm_frame));
    return 0;
}

static int io_sm_step(io_ep *e, int first)
{
    (void)first;
    return (e->client ? io_sm_client : io_sm_server)(e, e->owner) == CB_SM_DONE;
}

static void io_sm_drop(io_ep *e) { cb_sm_free(e->owner, sizeof(io_sm_frame)); }

static const io_family io_sm = {io_sm_make, io_sm_step, io_sm_drop};

/* ---- closure: a heap frame per coroutine and per transfer (`await ReadAsync(...)`) ---------- */

typedef struct io_cl_xfer {
    cb_cl_frame h;
    io_ep *e;
    unsigned char *buf;
    size_t len, off;
    int wr;
} io_cl_xfer;

typedef struct io_cl_frame {
    cb_cl_frame h;
    io_ep *e;
    uint64_t i;
} io_cl_frame;

static cb_cl_status io_cl_xfer_fn(cb_cl_frame *fh)
{
    io_cl_xfer *x = (io_cl_xfer *)fh;
    int r = io_pump(x->e, x->buf, x->len, &x->off, x->wr);
    if (r == 0)
        return cb_cl_suspend(fh);
    x->h.result = r > 0; /* 0: failed, the fault is recorded */
    return cb_cl_done(fh);
}

/* The async transfer: a new frame, started at once; its result lands in self->h.awaited. */
static cb_cl_status io_cl_await_xfer(io_cl_frame *self, unsigned char *buf, size_t len, int wr)
{
    io_cl_xfer *x = cb_cl_new(self->h.task, &self->h, io_cl_xfer_fn, sizeof *x);
    x->e = self->e;
    x->buf = buf;
    x->len = len;
    x->off = 0;
    x->wr = wr;
    return cb_cl_await(&self->h, &x->h);
}

static cb_cl_status io_cl_server(cb_cl_frame *fh)
{
    io_cl_frame *f = (io_cl_frame *)fh;
    io_conn *c = f->e->c;
    for (;;) {
        switch (f->h.state) {
        case IO_MSG:
            if (f->i == c->in->msgs)
                return cb_cl_done(&f->h);
            f->h.state = IO_READ;
            if (io_cl_await_xfer(f, c->sb, c->in->size, 0) == CB_CL_SUSPENDED)
                return CB_CL_SUSPENDED;
            /* fall through */
        case IO_READ:
            if (!f->h.awaited)
                return cb_cl_done(&f->h);
            io_server_got(c);
            f->h.state = IO_WROTE;
            if (io_cl_await_xfer(f, c->sb, c->in->size, 1) == CB_CL_SUSPENDED)
                return CB_CL_SUSPENDED;
            /* fall through */
        case IO_WROTE:
            if (!f->h.awaited)
                return cb_cl_done(&f->h);
            f->i++;
            f->h.state = IO_MSG;
        }
    }
}

static cb_cl_status io_cl_client(cb_cl_frame *fh)
{
    io_cl_frame *f = (io_cl_frame *)fh;
    io_conn *c = f->e->c;
    for (;;) {
        switch (f->h.state) {
        case IO_MSG:
            if (f->i == c->in->msgs)
                return cb_cl_done(&f->h);
            io_fill(c, f->i);
            f->h.state = IO_WROTE;
            if (io_cl_await_xfer(f, c->tx, c->in->size, 1) == CB_CL_SUSPENDED)
                return CB_CL_SUSPENDED;
            /* fall through */
        case IO_WROTE:
            if (!f->h.awaited)
                return cb_cl_done(&f->h);
            f->h.state = IO_READ;
            if (io_cl_await_xfer(f, c->rx, c->in->size, 0) == CB_CL_SUSPENDED)
                return CB_CL_SUSPENDED;
            /* fall through */
        case IO_READ:
            if (!f->h.awaited || io_client_got(c, f->i) < 0)
                return cb_cl_done(&f->h);
            f->i++;
            f->h.state = IO_MSG;
        }
    }
}

static int io_cl_make(const cb_impl *impl, const cb_params *p, io_ep *e)
{
    (void)impl; /* the root frame is created when the coroutine starts */
    e->task.use_pool = cb_impl_cl_pool(p);
    return 0;
}

static int io_cl_step(io_ep *e, int first)
{
    if (!first)
        return cb_cl_resume(&e->task) == CB_CL_DONE;
    io_cl_frame *root =
        cb_cl_new(&e->task, NULL, e->client ? io_cl_client : io_cl_server, sizeof *root);
    root->e = e;
    root->i = 0;
    return cb_cl_start(&e->task, &root->h) == CB_CL_DONE;
}

static void io_cl_drop(io_ep *e) { cb_cl_cancel(&e->task); }

static const io_family io_cl = {io_cl_make, io_cl_step, io_cl_drop};

/* ---- the table entry ------------------------------------------------------------------------ */

static void *io_sf_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    const char *style = cb_params_str(p, "style");
    if (strcmp(style, "prebuilt") == 0)
        return io_lc_load(err, errlen) == 0 ? io_setup(&io_pb, impl, p, err, errlen) : NULL;
    return io_setup(strcmp(style, "blocking") == 0 ? &io_bl : &io_sf, impl, p, err, errlen);
}
static void *io_sm_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    return io_setup(&io_sm, impl, p, err, errlen);
}
static void *io_cl_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    return io_setup(&io_cl, impl, p, err, errlen);
}

/* A client and a server per connection. */
static uint64_t io_alive(const cb_params *p) { return 2 * (uint64_t)cb_params_int(p, "conns"); }

/* style=blocking and style=prebuilt run unmodified blocking code inside the coroutines
 * (impls/hook.h). */
static const cb_wl_need io_needs[] = {
    {"style", "blocking", CB_CAP_BLOCKING_CODE},
    {"style", "prebuilt", CB_CAP_BLOCKING_CODE},
    {NULL, NULL, 0},
};

CB_LUA_BODY(io)

/* Small points check-external runs an external program at (harness/run/checkext.c). */
static const char *const check_points[][CB_WL_CHECK_SET] = {
    {"conns", "2", "msgs", "20", "size", "64"},
    {NULL},
};

const cb_workload cb_wl_io = {
    .check_points = check_points,
    .name = "io",
    .description = "echo over `conns` non-blocking socket pairs (AF_UNIX or loopback TCP) driven "
                   "by one epoll loop; a coroutine suspends on EAGAIN until its socket is ready",
    .unit = "message",
    .params = io_params,
    .check = io_check,
    .max_batch = io_max_batch,
    .alive = io_alive,
    .needs = io_needs,
    .family =
        {
            [CB_BODY_STACKFUL] = {io_sf_setup, io_run, io_finish},
            [CB_BODY_SM] = {io_sm_setup, io_run, io_finish},
            [CB_BODY_CLOSURE] = {io_cl_setup, io_run, io_finish},
            [CB_BODY_CXX20] = CB_CXX20_OPS(io),
            [CB_BODY_LUA] = CB_LUA_OPS(io),
            [CB_BODY_CXX20_CLANG] = CB_CXX20_CLANG_OPS(io),
            /* A plain loop over the same sockets would be the event loop without the waiting:
             * its time is the system calls', which every family pays alike, so it adds no
             * baseline that pingpong's direct cell does not already give. */
            [CB_BODY_DIRECT] = {.unsupported = "the work is the sockets' system calls and "
                                                "readiness waits; without a coroutine to suspend "
                                                "there is no plain-call loop that does the same "
                                                "work in the same order"},
        },
};
