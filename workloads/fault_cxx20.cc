// fault (the harness's self-test) with C++20 coroutines: a task suspends once and commits the
// fault when the driver resumes it; overflow recurses on the thread's stack, as every stackless
// family's resume does.
#include "impls/cxx20/task.hh"

extern "C" {
#include "workloads/cxx20.h"
#include "workloads/fault.h"
}

namespace {

using cbx::slot;
using cbx::suspend_to;
using cbx::task;

task<int> body(int kind, slot *s)
{
    co_await suspend_to{s};
    fl_commit(kind);
    co_return 0;
}

struct fl_cx {
    int kind;
    uint64_t checksum;
    task<int> t;
    slot s;
};

} // namespace

extern "C" void *cb_cxx20_fault_setup(const cb_impl *, const cb_params *p, char *, size_t)
{
    fl_cx *w = new (cb_rt_alloc(sizeof(fl_cx))) fl_cx{};
    w->kind = fl_kind(p);
    return w;
}

extern "C" int cb_cxx20_fault_run(void *inst, char *, size_t)
{
    fl_cx *w = static_cast<fl_cx *>(inst);
    w->t = body(w->kind, &w->s);
    w->t.start();
    w->checksum = cb_mix(0, 1);
    w->s.innermost.resume(); // faults
    return 0;
}

extern "C" int cb_cxx20_fault_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fl_cx *w = static_cast<fl_cx *>(inst);
    out->ops = 1;
    out->checksum = w->checksum;
    w->~fl_cx();
    cb_rt_free(w, sizeof(fl_cx));
    return 0;
}
