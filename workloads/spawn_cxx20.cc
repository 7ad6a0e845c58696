// spawn with C++20 coroutines: each coroutine is a top-level task whose level awaits the next
// (a task per level, `frame` bytes of locals in each coroutine frame, kept across the
// suspension) down to `depth`, where it suspends to the driver. All n alive at the rest point,
// then each resumed at its innermost frame, in the workload's order, run to completion and
// destroyed. layout=offset is unsupported (impls.c says why): the compiler allocates these frames
// through the promise's operator new, which gets the size only.
#include "impls/cxx20/task.hh"

extern "C" {
#include "workloads/cxx20.h"
#include "workloads/spawn.h"
}

namespace {

using cbx::slot;
using cbx::suspend_to;
using cbx::task;

template <size_t B> task<uint64_t> level(sp_shared *sh, uint64_t id, int64_t lvl, slot *s)
{
    if (lvl == 0)
        sp_deep_once(sh, id); // a plain call: on the driver's stack, returned from
    uint64_t loc[B / 8];
    for (size_t k = 0; k < B / 8; k++)
        loc[k] = sp_word(id, lvl, k);
    uint64_t v;
    if (sp_at_bottom(sh, id, lvl)) {
        sh->out = sp_bottom(id);
        co_await suspend_to{s};
        v = sh->in;
    } else {
        v = co_await level<B>(sh, id, lvl + 1, s);
    }
    co_return sp_unwind(v, lvl, loc, B / 8);
}

// locals=dead: the same locals, in scope to the end of the body as a person writes them, but
// folded into one word before the suspension and never read after it (the empty asm sees them
// as the stackful body's are, so the fill is not elided). What the compiler's frame keeps of them
// is what spawn's heap bytes per coroutine show (docs/memory.md).
template <size_t B> task<uint64_t> level_dead(sp_shared *sh, uint64_t id, int64_t lvl, slot *s)
{
    if (lvl == 0)
        sp_deep_once(sh, id);
    uint64_t loc[B / 8];
    for (size_t k = 0; k < B / 8; k++)
        loc[k] = sp_word(id, lvl, k);
    __asm__ volatile("" : : "r"(loc) : "memory");
    uint64_t fold = sp_fold(lvl, loc, B / 8);
    uint64_t v;
    if (sp_at_bottom(sh, id, lvl)) {
        sh->out = sp_bottom(id);
        co_await suspend_to{s};
        v = sh->in;
    } else {
        v = co_await level_dead<B>(sh, id, lvl + 1, s);
    }
    co_return sp_unwind(v, lvl, &fold, 1);
}

using level_fn = task<uint64_t> (*)(sp_shared *, uint64_t, int64_t, slot *);
#define SP_CX_ENTRY(B) level<B>,
const level_fn levels[] = {SP_FRAMES(SP_CX_ENTRY)};
#define SP_CX_DEAD_ENTRY(B) level_dead<B>,
const level_fn levels_dead[] = {SP_FRAMES(SP_CX_DEAD_ENTRY)};

struct sp_cx {
    sp_shared sh;
    level_fn top;
    task<uint64_t> *co; // n handles, as a run queue holds
    slot *s;
};

} // namespace

extern "C" void *cb_cxx20_spawn_setup(const cb_impl *, const cb_params *p, char *, size_t)
{
    sp_cx *w = new (cb_rt_alloc(sizeof(sp_cx))) sp_cx{};
    sp_shared_init(&w->sh, p);
    w->top = (w->sh.dead ? levels_dead : levels)[w->sh.fi];
    w->co = static_cast<task<uint64_t> *>(cb_rt_alloc(w->sh.n * sizeof(task<uint64_t>)));
    w->s = static_cast<slot *>(cb_rt_alloc(w->sh.n * sizeof(slot)));
    for (uint64_t i = 0; i < w->sh.n; i++) {
        new (&w->co[i]) task<uint64_t>();
        new (&w->s[i]) slot();
    }
    return w;
}

extern "C" int cb_cxx20_spawn_run(void *inst, char *, size_t)
{
    sp_cx *w = static_cast<sp_cx *>(inst);
    sp_shared *sh = &w->sh;
    for (uint64_t i = 0; i < sh->n; i++) {
        w->co[i] = w->top(sh, i, 0, &w->s[i]);
        w->co[i].start(); // runs to its suspension
        sh->checksum = cb_mix(sh->checksum, sh->out);
    }
    cb_wl_at_rest(sh->n);
    for (uint64_t j = 0; j < sh->n; j++) {
        uint64_t i = sp_nth(sh, j);
        sh->in = sp_resume_value(i);
        w->s[i].innermost.resume(); // runs to completion
        sh->checksum = cb_mix(sh->checksum, w->co[i].result());
        w->co[i] = task<uint64_t>(); // destroys the finished frames
    }
    return 0;
}

extern "C" int cb_cxx20_spawn_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    sp_cx *w = static_cast<sp_cx *>(inst);
    sp_result(&w->sh, out);
    for (uint64_t i = 0; i < w->sh.n; i++)
        w->co[i].~task(); // frees nothing after a completed run
    cb_rt_free(w->co, w->sh.n * sizeof(task<uint64_t>));
    cb_rt_free(w->s, w->sh.n * sizeof(slot));
    sp_shared_free(&w->sh);
    w->~sp_cx();
    cb_rt_free(w, sizeof(sp_cx));
    return 0;
}
