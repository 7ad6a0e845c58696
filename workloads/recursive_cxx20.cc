// recursive with C++20 coroutines: the in-order walk is a task per call, recursing with
// co_await (symmetric transfer into the child and back); each node is yielded through the
// recursive generator (task.hh), straight to the consumer, once per node at any depth.
#include "impls/cxx20/task.hh"

extern "C" {
#include "workloads/cxx20.h"
#include "workloads/recursive.h"
}

namespace {

using cbx::generator;
using cbx::task;

task<int> walk(const rc_shared *sh, generator<uint64_t> *g, uint64_t id, int64_t level)
{
    if (level + 1 < sh->height)
        co_await walk(sh, g, 2 * id, level + 1);
    co_await g->yield(rc_value(id));
    if (level + 1 < sh->height)
        co_await walk(sh, g, 2 * id + 1, level + 1);
    co_return 0;
}

struct rc_cx {
    rc_shared sh;
    generator<uint64_t> gen;
};

} // namespace

extern "C" void *cb_cxx20_recursive_setup(const cb_impl *, const cb_params *p, char *, size_t)
{
    rc_cx *w = new (cb_rt_alloc(sizeof(rc_cx))) rc_cx{};
    w->sh.height = cb_params_int(p, "height");
    return w;
}

extern "C" int cb_cxx20_recursive_run(void *inst, char *, size_t)
{
    rc_cx *w = static_cast<rc_cx *>(inst);
    w->gen.set_root(walk(&w->sh, &w->gen, 1, 0));
    bool more = w->gen.next();
    cb_wl_at_rest(1); // the first node is the leftmost leaf: the deepest point
    for (; more; more = w->gen.next())
        rc_consume(&w->sh, w->gen.value());
    return 0;
}

extern "C" int cb_cxx20_recursive_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rc_cx *w = static_cast<rc_cx *>(inst);
    rc_result(&w->sh, out);
    w->~rc_cx();
    cb_rt_free(w, sizeof(rc_cx));
    return 0;
}
