// await with C++20 coroutines: the task is a top-level coroutine whose loop co_awaits a chain of
// `depth` nested child tasks per call (a frame each, from operator new, transferred into
// symmetrically and back); the innermost awaitable's await_ready() is true when the value is
// there, so only the calls whose value is missing suspend to the driver. Same data path
// (workloads/await.h), so the same checksum and suspensions as the C bodies.
#include "impls/cxx20/task.hh"

extern "C" {
#include "workloads/cxx20.h"
#include "workloads/await.h"
}

namespace {

using cbx::slot;
using cbx::task;

// The innermost await: ready (no suspension) unless this call's value is missing; then it records
// the handle for the driver, which delivers the value and resumes it.
struct value_awaiter {
    aw_shared *sh;
    slot *s;
    bool await_ready() const noexcept { return !aw_suspends(sh, sh->i); }
    void await_suspend(std::coroutine_handle<> h) noexcept
    {
        s->innermost = h;
        cb_rt_count_suspension();
    }
    uint64_t await_resume() const noexcept
    {
        return aw_suspends(sh, sh->i) ? sh->ready : aw_value(sh->i);
    }
};

task<uint64_t> chain(aw_shared *sh, slot *s, int64_t level, uint64_t v)
{
    if (level == sh->depth)
        co_return aw_up(v + co_await value_awaiter{sh, s}, level);
    uint64_t r = co_await chain(sh, s, level + 1, aw_down(v, level));
    co_return aw_up(r, level);
}

task<uint64_t> loop(aw_shared *sh, slot *s)
{
    for (sh->i = 0; sh->i < sh->calls; sh->i++)
        sh->checksum = cb_mix(sh->checksum, co_await chain(sh, s, 0, aw_arg(sh->i)));
    co_return 0;
}

struct aw_cx {
    aw_shared sh;
    task<uint64_t> t;
    slot s;
};

} // namespace

extern "C" void *cb_cxx20_await_setup(const cb_impl *, const cb_params *p, char *, size_t)
{
    aw_cx *w = new (cb_rt_alloc(sizeof(aw_cx))) aw_cx{};
    aw_shared_init(&w->sh, p);
    return w;
}

extern "C" int cb_cxx20_await_run(void *inst, char *, size_t)
{
    aw_cx *w = static_cast<aw_cx *>(inst);
    w->t = loop(&w->sh, &w->s); // created when it first runs, as an async call would be
    w->t.start();
    while (!w->t.done()) {
        aw_deliver(&w->sh);
        w->s.innermost.resume();
    }
    return 0;
}

extern "C" int cb_cxx20_await_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    aw_cx *w = static_cast<aw_cx *>(inst);
    aw_result(&w->sh, out);
    w->~aw_cx(); // destroys the task's frame
    cb_rt_free(w, sizeof(aw_cx));
    return 0;
}
