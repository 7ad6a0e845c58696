/* await: one task makes `calls` top-level async calls in sequence; each is a chain of `depth`
 * nested async calls (levels 0..depth, level 0 the top-level one), and the innermost awaits a
 * value. Only one call in `suspend_every` finds the value missing and suspends (the driver then
 * delivers it and resumes the task); every other await completes at once, as most awaits in real
 * async code do (a cached read, a buffered socket, a completed Task). One op = one top-level call.
 * Each family takes the fastest path its model allows for an await that completes at once:
 * stackful: plain function calls, a switch only to suspend; sm: callee frames embedded in the
 * task's frame, a completed child returns DONE to its caller without reaching the driver;
 * closure: a heap frame per call, run synchronously inside its caller and freed at once when it
 * completes (the scheduler never sees it); cxx20: a frame per call (operator new), the innermost
 * awaitable's await_ready() true when the value is there; direct: plain calls, no coroutine.
 * Setup (the task) and finish are untimed; run is all the calls. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "await.h"
#include "cxx20.h"
#include "lua_family.h"
#include "impls/closure.h"
#include "impls/coro.h"
#include "impls/sm.h"
#include "workload.h"

#define AW_INLINE static inline __attribute__((always_inline))
#define AW_NOINLINE __attribute__((noinline, noclone))

static const char *const aw_every[] = {"1", "10", "100", "never", NULL};

static const cb_param_def aw_params[] = {
    {"depth", CB_PARAM_INT, "4", 0, 100000, NULL,
     "nested async calls below each top-level call (each awaits the next)", NULL},
    {"suspend_every", CB_PARAM_ENUM, "10", 0, 0, aw_every,
     "one top-level call in K finds the awaited value missing and suspends; the others "
     "complete every await at once (never: none suspends)",
     NULL},
    {"calls", CB_PARAM_INT, "100000", 1, (int64_t)1 << 40, NULL, "top-level calls per run",
     "10000"},
    {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
};

void aw_shared_init(aw_shared *sh, const cb_params *p)
{
    memset(sh, 0, sizeof *sh);
    sh->calls = (uint64_t)cb_params_int(p, "calls");
    sh->depth = cb_params_int(p, "depth");
    const char *k = cb_params_str(p, "suspend_every");
    sh->every = strcmp(k, "never") == 0 ? 0 : (uint64_t)strtoull(k, NULL, 10);
}

void aw_result(const aw_shared *sh, cb_wl_result *out)
{
    out->ops = sh->calls;
    out->checksum = sh->checksum;
}

/* ---- stackful: plain calls; the innermost yields to the driver when the value is missing ---- */

typedef struct aw_sf {
    aw_shared sh;
    cb_co *co;
} aw_sf;

static AW_NOINLINE uint64_t aw_sf_chain(aw_shared *sh, int64_t level, uint64_t v)
{
    if (level < sh->depth)
        return aw_up(aw_sf_chain(sh, level + 1, aw_down(v, level)), level);
    uint64_t got;
    if (aw_suspends(sh, sh->i)) {
        cb_co_yield(0);
        got = sh->ready;
    } else {
        got = aw_value(sh->i);
    }
    return aw_up(v + got, level);
}

static uintptr_t aw_sf_task(void *arg, uintptr_t first)
{
    (void)first;
    aw_shared *sh = arg;
    for (sh->i = 0; sh->i < sh->calls; sh->i++)
        sh->checksum = cb_mix(sh->checksum, aw_sf_chain(sh, 0, aw_arg(sh->i)));
    return 0;
}

static void *aw_sf_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    aw_sf *w = cb_rt_alloc(sizeof *w);
    aw_shared_init(&w->sh, p);
    cb_co_cfg cfg = cb_impl_co_cfg(impl, p);
    w->co = cb_co_create(&cfg, aw_sf_task, &w->sh);
    if (!w->co) {
        snprintf(err, errlen, "await: cannot create coroutine (stack=%zu): %s", cfg.stack_size,
                 cb_stack_strerror(errno));
        cb_rt_free(w, sizeof *w);
        return NULL;
    }
    return w;
}

static int aw_sf_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    aw_sf *w = inst;
    cb_co_resume(w->co, 0);
    while (!cb_co_done(w->co)) {
        aw_deliver(&w->sh);
        cb_co_resume(w->co, 0);
    }
    return 0;
}

static int aw_sf_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    aw_sf *w = inst;
    aw_result(&w->sh, out);
    cb_co_destroy(w->co);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- sm: the task's frame embeds every level's frame ---------------------------------------- */

typedef struct aw_sm_level {
    uint32_t state;
    uint64_t v;   /* argument */
    uint64_t ret; /* result once done */
} aw_sm_level;

typedef struct aw_sm_task {
    uint32_t state;
    aw_shared *sh;
    aw_sm_level chain[]; /* 0..depth */
} aw_sm_task;

typedef struct aw_sm {
    aw_shared sh;
    aw_sm_task *t;
    size_t bytes;
} aw_sm;

static AW_NOINLINE cb_sm_status aw_sm_chain(aw_sm_task *t, int64_t level)
{
    aw_shared *sh = t->sh;
    aw_sm_level *f = &t->chain[level];
    switch (f->state) {
    case 0:
        if (level == sh->depth) {
            if (aw_suspends(sh, sh->i)) {
                f->state = 1;
                return cb_sm_suspend();
            }
            f->ret = aw_up(f->v + aw_value(sh->i), level); /* completed at once */
            return CB_SM_DONE;
        }
        t->chain[level + 1] = (aw_sm_level){0, aw_down(f->v, level), 0};
        f->state = 2;
        /* fall through */
    case 2:
        if (aw_sm_chain(t, level + 1) == CB_SM_SUSPENDED)
            return CB_SM_SUSPENDED;
        f->ret = aw_up(t->chain[level + 1].ret, level);
        return CB_SM_DONE;
    case 1:
        f->ret = aw_up(f->v + sh->ready, level);
        return CB_SM_DONE;
    }
    __builtin_unreachable();
}

static cb_sm_status aw_sm_task_run(aw_sm_task *t)
{
    aw_shared *sh = t->sh;
    switch (t->state) {
    case 0:
        for (sh->i = 0; sh->i < sh->calls; sh->i++) {
            t->chain[0] = (aw_sm_level){0, aw_arg(sh->i), 0};
            t->state = 1;
            /* fall through */
        case 1:
            if (aw_sm_chain(t, 0) == CB_SM_SUSPENDED)
                return CB_SM_SUSPENDED;
            sh->checksum = cb_mix(sh->checksum, t->chain[0].ret);
        }
        return CB_SM_DONE;
    }
    __builtin_unreachable();
}

static void *aw_sm_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    aw_sm *w = cb_rt_alloc(sizeof *w);
    aw_shared_init(&w->sh, p);
    w->bytes = sizeof(aw_sm_task) + (size_t)(w->sh.depth + 1) * sizeof(aw_sm_level);
    w->t = cb_sm_alloc(w->bytes);
    memset(w->t, 0, w->bytes);
    w->t->sh = &w->sh;
    return w;
}

static int aw_sm_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    aw_sm *w = inst;
    while (aw_sm_task_run(w->t) == CB_SM_SUSPENDED)
        aw_deliver(&w->sh);
    return 0;
}

static int aw_sm_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    aw_sm *w = inst;
    aw_result(&w->sh, out);
    cb_sm_free(w->t, w->bytes);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- closure: a heap frame per async call, completed ones freed by their caller ------------- */

typedef struct aw_cl_call {
    cb_cl_frame h;
    aw_shared *sh;
    int64_t level;
    uint64_t v;
} aw_cl_call;

typedef struct aw_cl_root {
    cb_cl_frame h;
    aw_shared *sh;
} aw_cl_root;

typedef struct aw_cl {
    aw_shared sh;
    cb_cl_task task;
} aw_cl;

static cb_cl_status aw_cl_chain(cb_cl_frame *fh);

/* An async call of level `level` with argument v, from frame parent. */
static aw_cl_call *aw_cl_new(cb_cl_frame *parent, aw_shared *sh, int64_t level, uint64_t v)
{
    aw_cl_call *c = cb_cl_new(parent->task, parent, aw_cl_chain, sizeof *c);
    c->sh = sh;
    c->level = level;
    c->v = v;
    return c;
}

static AW_NOINLINE cb_cl_status aw_cl_chain(cb_cl_frame *fh)
{
    aw_cl_call *f = (aw_cl_call *)fh;
    aw_shared *sh = f->sh;
    switch (f->h.state) {
    case 0:
        if (f->level == sh->depth) {
            if (aw_suspends(sh, sh->i)) {
                f->h.state = 1;
                return cb_cl_suspend(&f->h);
            }
            f->h.result = aw_up(f->v + aw_value(sh->i), f->level);
            return cb_cl_done(&f->h);
        }
        f->h.state = 2;
        if (cb_cl_await(&f->h, &aw_cl_new(&f->h, sh, f->level + 1, aw_down(f->v, f->level))->h) ==
            CB_CL_SUSPENDED)
            return CB_CL_SUSPENDED;
        /* fall through */
    case 2:
        f->h.result = aw_up(f->h.awaited, f->level);
        return cb_cl_done(&f->h);
    case 1:
        f->h.result = aw_up(f->v + sh->ready, f->level);
        return cb_cl_done(&f->h);
    }
    __builtin_unreachable();
}

/* The task: the loop of top-level calls. */
static cb_cl_status aw_cl_task(cb_cl_frame *fh)
{
    aw_cl_root *f = (aw_cl_root *)fh;
    aw_shared *sh = f->sh;
    switch (f->h.state) {
    case 0:
        for (sh->i = 0; sh->i < sh->calls; sh->i++) {
            f->h.state = 1;
            if (cb_cl_await(&f->h, &aw_cl_new(&f->h, sh, 0, aw_arg(sh->i))->h) ==
                CB_CL_SUSPENDED)
                return CB_CL_SUSPENDED;
            /* fall through */
        case 1:
            sh->checksum = cb_mix(sh->checksum, f->h.awaited);
        }
        f->h.result = 0;
        return cb_cl_done(&f->h);
    }
    __builtin_unreachable();
}

static void *aw_cl_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    aw_cl *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    aw_shared_init(&w->sh, p);
    w->task.use_pool = cb_impl_cl_pool(p);
    return w;
}

static int aw_cl_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    aw_cl *w = inst;
    aw_cl_root *root = cb_cl_new(&w->task, NULL, aw_cl_task, sizeof *root);
    root->sh = &w->sh;
    cb_cl_status st = cb_cl_start(&w->task, &root->h);
    while (st == CB_CL_SUSPENDED) {
        aw_deliver(&w->sh);
        st = cb_cl_resume(&w->task);
    }
    return 0;
}

static int aw_cl_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    aw_cl *w = inst;
    aw_result(&w->sh, out);
    cb_cl_cancel(&w->task);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- direct: the same calls, no coroutine, no suspension ------------------------------------ */

typedef struct aw_dr {
    aw_shared sh;
} aw_dr;

static AW_NOINLINE uint64_t aw_dr_chain(aw_shared *sh, int64_t level, uint64_t v)
{
    if (level < sh->depth)
        return aw_up(aw_dr_chain(sh, level + 1, aw_down(v, level)), level);
    return aw_up(v + aw_value(sh->i), level);
}

static void *aw_dr_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    aw_dr *w = cb_rt_alloc(sizeof *w);
    aw_shared_init(&w->sh, p);
    return w;
}

static int aw_dr_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    aw_shared *sh = &((aw_dr *)inst)->sh;
    for (sh->i = 0; sh->i < sh->calls; sh->i++)
        sh->checksum = cb_mix(sh->checksum, aw_dr_chain(sh, 0, aw_arg(sh->i)));
    return 0;
}

static int aw_dr_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    aw_dr *w = inst;
    aw_result(&w->sh, out);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* One task coroutine. */
static uint64_t aw_alive(const cb_params *p)
{
    (void)p;
    return 1;
}

CB_LUA_BODY(await)

/* Small points check-external runs an external program at (harness/run/checkext.c). */
static const char *const check_points[][CB_WL_CHECK_SET] = {
    {"calls", "300", "depth", "2", "suspend_every", "10"},
    {NULL},
};

const cb_workload cb_wl_await = {
    .check_points = check_points,
    .name = "await",
    .description = "a task makes top-level async calls, each a chain of `depth` nested ones whose "
                   "innermost await suspends once in `suspend_every` calls and otherwise finds "
                   "its value ready; the fast-path workload",
    .unit = "call",
    .params = aw_params,
    .alive = aw_alive,
    .family =
        {
            [CB_BODY_STACKFUL] = {aw_sf_setup, aw_sf_run, aw_sf_finish},
            [CB_BODY_SM] = {aw_sm_setup, aw_sm_run, aw_sm_finish},
            [CB_BODY_CLOSURE] = {aw_cl_setup, aw_cl_run, aw_cl_finish},
            [CB_BODY_DIRECT] = {aw_dr_setup, aw_dr_run, aw_dr_finish},
            [CB_BODY_CXX20] = CB_CXX20_OPS(await),
            [CB_BODY_CXX20_CLANG] = CB_CXX20_CLANG_OPS(await),
            [CB_BODY_LUA] = CB_LUA_OPS(await),
        },
};
