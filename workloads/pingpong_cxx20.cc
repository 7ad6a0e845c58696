// pingpong with C++20 coroutines: each side is a top-level task whose loop (level 0) awaits a
// chain of `depth` child tasks; the bottom one hands the value over and suspends to the driver,
// which alternates the sides as the closure body's does. Same data path (workloads/pingpong.h),
// so the same checksum and one suspension per switch.
#include "impls/cxx20/task.hh"

extern "C" {
#include "workloads/cxx20.h"
#include "workloads/pingpong.h"
}

namespace {

using cbx::slot;
using cbx::suspend_to;
using cbx::task;

template <uint64_t Salt> task<uint64_t> chain(pp_shared *sh, slot *s, int64_t level, uint64_t v)
{
    if (level == sh->depth) {
        sh->msg = v;
        co_await suspend_to{s};
        co_return pp_receive(sh, sh->msg);
    }
    uint64_t r = co_await chain<Salt>(sh, s, level + 1, pp_down(v, level, Salt));
    co_return pp_up(r, level);
}

template <uint64_t Salt> task<uint64_t> loop(pp_shared *sh, slot *s)
{
    uint64_t v = sh->msg;
    while (sh->remaining) {
        sh->remaining--;
        if (sh->depth == 0) {
            sh->msg = v;
            co_await suspend_to{s};
            v = pp_receive(sh, sh->msg);
        } else {
            v = pp_up(co_await chain<Salt>(sh, s, 1, pp_down(v, 0, Salt)), 0);
        }
    }
    sh->final = v;
    co_return v;
}

// work=none: only the hand-over and the receipt's +1.
template <uint64_t Salt> task<uint64_t> none(pp_shared *sh, slot *s)
{
    uint64_t v = sh->msg;
    while (sh->remaining) {
        sh->remaining--;
        sh->msg = v;
        co_await suspend_to{s};
        v = sh->msg + 1;
    }
    sh->final = v;
    co_return v;
}

struct pp_cx {
    pp_shared sh;
    const cb_params *p;
    task<uint64_t> side[2];
    slot s[2];
};

} // namespace

extern "C" void *cb_cxx20_pingpong_setup(const cb_impl *, const cb_params *p, char *, size_t)
{
    pp_cx *w = new (cb_rt_alloc(sizeof(pp_cx))) pp_cx{};
    pp_shared_init(&w->sh, p);
    w->p = p;
    return w;
}

extern "C" int cb_cxx20_pingpong_run(void *inst, char *, size_t)
{
    pp_cx *w = static_cast<pp_cx *>(inst);
    pp_shared *sh = &w->sh;
    // Each side's top-level task is created when it first runs, as an async call would be.
    bool started[2] = {false, false};
    for (int cur = 0;; cur = !cur) {
        bool b = cur && !sh->same_sites;
        if (!started[cur]) {
            w->side[cur] = sh->none ? (b ? none<PP_SALT_B>(sh, &w->s[cur])
                                         : none<PP_SALT_A>(sh, &w->s[cur]))
                                    : (b ? loop<PP_SALT_B>(sh, &w->s[cur])
                                         : loop<PP_SALT_A>(sh, &w->s[cur]));
            started[cur] = true;
            w->side[cur].start();
        } else {
            w->s[cur].innermost.resume();
        }
        if (w->side[cur].done())
            return 0;
    }
}

extern "C" int cb_cxx20_pingpong_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pp_cx *w = static_cast<pp_cx *>(inst);
    pp_result(&w->sh, w->p, out);
    w->~pp_cx(); // destroys the tasks' frames, finished or suspended
    cb_rt_free(w, sizeof(pp_cx));
    return 0;
}
