// io with C++20 coroutines: each endpoint (server c, client c) is a top-level task written as
// blocking code; its reads and writes are child tasks that call the shared pump (io_pump) and,
// when the socket would block, suspend to the event loop (io_run) until epoll reports it ready.
// The same syscall order as the C families, so the same checksum and suspensions.
#include "impls/cxx20/task.hh"

extern "C" {
#include "workloads/cxx20.h"
#include "workloads/io_family.h"
}

namespace {

using cbx::slot;
using cbx::suspend_to;
using cbx::task;

struct endpoint {
    task<int> t;
    slot s;
};

task<int> xfer(io_ep *e, slot *s, unsigned char *buf, size_t len, int wr)
{
    size_t off = 0;
    int r;
    while ((r = io_pump(e, buf, len, &off, wr)) == 0)
        co_await suspend_to{s}; // back to the event loop until epoll says e->want
    co_return r;
}

task<int> server(io_ep *e, slot *s)
{
    io_conn *c = e->c;
    for (uint64_t i = 0; i < c->in->msgs; i++) {
        if (co_await xfer(e, s, c->sb, c->in->size, 0) < 0)
            break;
        io_server_got(c);
        if (co_await xfer(e, s, c->sb, c->in->size, 1) < 0)
            break;
    }
    co_return 0;
}

task<int> client(io_ep *e, slot *s)
{
    io_conn *c = e->c;
    for (uint64_t i = 0; i < c->in->msgs; i++) {
        io_fill(c, i);
        if (co_await xfer(e, s, c->tx, c->in->size, 1) < 0 ||
            co_await xfer(e, s, c->rx, c->in->size, 0) < 0 || io_client_got(c, i) < 0)
            break;
    }
    co_return 0;
}

int make(const cb_impl *, const cb_params *, io_ep *e)
{
    endpoint *ep = new (cb_rt_alloc(sizeof(endpoint))) endpoint{};
    ep->t = e->client ? client(e, &ep->s) : server(e, &ep->s);
    e->owner = ep;
    return 0;
}

int step(io_ep *e, int first)
{
    endpoint *ep = static_cast<endpoint *>(e->owner);
    if (first)
        ep->t.start();
    else
        ep->s.innermost.resume();
    return ep->t.done();
}

void drop(io_ep *e)
{
    endpoint *ep = static_cast<endpoint *>(e->owner);
    if (!ep)
        return;
    ep->~endpoint(); // destroys the frames, finished or suspended
    cb_rt_free(ep, sizeof(endpoint));
    e->owner = nullptr;
}

const io_family family = {make, step, drop};

} // namespace

extern "C" void *cb_cxx20_io_setup(const cb_impl *impl, const cb_params *p, char *err,
                                   size_t errlen)
{
    return io_setup(&family, impl, p, err, errlen);
}

extern "C" int cb_cxx20_io_run(void *inst, char *err, size_t errlen)
{
    return io_run(inst, err, errlen);
}

extern "C" int cb_cxx20_io_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    return io_finish(inst, out, err, errlen);
}
