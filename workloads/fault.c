/* fault: the harness's self-test, not a benchmark (docs/fault.md). A coroutine suspends once;
 * when it is resumed it commits the fault `kind` names, inside the coroutine:
 *   segv      writes through a null pointer (SIGSEGV)
 *   overflow  recurses without bound: a stackful coroutine runs into the end of its own stack,
 *             a stackless one (whose resume runs on the thread's stack) into the thread's
 *   hang      spins forever (the harness's timeout must end it)
 *   abort     calls abort() (SIGABRT)
 *   exit      calls exit(0): the cell's process ends "successfully" without a result
 * The harness must record each as failed or timeout with a reason naming the fault and go on
 * with the other cells. `all` never selects it (selftest); `--workload fault` does.
 * A family adds its body here, next to the others: setup makes one coroutine that suspends once,
 * run resumes it and the coroutine calls fl_commit(kind) from its second step. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impls/closure.h"
#include "impls/coro.h"
#include "impls/sm.h"
#include "fault.h"
#include "cxx20.h"
#include "lua_family.h"
#include "workload.h"

static const char *const fl_kinds[] = {"segv", "overflow", "hang", "abort", "exit", NULL};

static const cb_param_def fl_params[] = {
    {"kind", CB_PARAM_ENUM, "segv", 0, 0, fl_kinds, "the fault the coroutine commits when resumed",
     NULL},
    {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
};

enum { FL_SEGV, FL_OVERFLOW, FL_HANG, FL_ABORT, FL_EXIT };

int fl_kind(const cb_params *p)
{
    const char *k = cb_params_str(p, "kind");
    for (int i = 0; fl_kinds[i]; i++)
        if (!strcmp(fl_kinds[i], k))
            return i;
    return FL_SEGV;
}

/* A null pointer the compiler cannot see through, so the store is a real one. */
static int *volatile fl_null;
static volatile uint64_t fl_sink, fl_stop; /* fl_stop stays 0: a depth never reached */

/* Unbounded recursion: a frame of live locals per level and work after the call, so it is
 * neither a loop nor a tail call; ends when the stack it runs on does. */
static __attribute__((noinline)) uint64_t fl_recurse(uint64_t n)
{
    volatile uint64_t pad[32];
    pad[n % 32] = n;
    uint64_t r = n + 1 != fl_stop ? fl_recurse(n + 1) : 0;
    return r + pad[(n + 7) % 32];
}

/* Never returns. */
void fl_commit(int kind)
{
    switch (kind) {
    case FL_SEGV: *fl_null = 1; break;
    case FL_OVERFLOW: fl_sink = fl_recurse(0); break;
    case FL_HANG:
        for (;;)
            __asm__ volatile("" ::: "memory");
    case FL_ABORT: abort();
    case FL_EXIT: exit(0);
    }
    abort(); /* a kind that did not fault is a bug of this file */
}

typedef struct fl_shared {
    int kind;
    uint64_t checksum;
} fl_shared;

static void fl_result(const fl_shared *sh, cb_wl_result *out)
{
    out->ops = 1;
    out->checksum = sh->checksum;
}

/* ---- stackful: the fault on the coroutine's own stack --------------------------------------- */

typedef struct fl_sf {
    fl_shared sh;
    cb_co *co;
} fl_sf;

static uintptr_t fl_sf_body(void *arg, uintptr_t first)
{
    fl_shared *sh = arg;
    cb_co_yield(first);
    fl_commit(sh->kind);
    return 0;
}

static void *fl_sf_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    fl_sf *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    w->sh.kind = fl_kind(p);
    cb_co_cfg cfg = cb_impl_co_cfg(impl, p);
    w->co = cb_co_create(&cfg, fl_sf_body, &w->sh);
    if (!w->co) {
        snprintf(err, errlen, "fault: cannot create coroutine: %s", cb_stack_strerror(errno));
        cb_rt_free(w, sizeof *w);
        return NULL;
    }
    return w;
}

static int fl_sf_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fl_sf *w = inst;
    w->sh.checksum = cb_mix(0, cb_co_resume(w->co, 1));
    cb_co_resume(w->co, 2); /* faults */
    return 0;
}

static int fl_sf_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fl_sf *w = inst;
    fl_result(&w->sh, out);
    cb_co_destroy(w->co);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- sm: the fault in the second step of the state machine ---------------------------------- */

typedef struct fl_sm {
    fl_shared sh;
    uint32_t state;
} fl_sm;

static cb_sm_status fl_sm_resume(fl_sm *f)
{
    switch (f->state) {
    case 0:
        f->state = 1;
        return cb_sm_suspend();
    default: fl_commit(f->sh.kind); /* overflow: the resume's recursion on the thread's stack */
    }
    return CB_SM_DONE;
}

static void *fl_sm_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    fl_sm *f = cb_sm_alloc(sizeof *f);
    memset(f, 0, sizeof *f);
    f->sh.kind = fl_kind(p);
    return f;
}

static int fl_sm_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fl_sm *f = inst;
    f->sh.checksum = cb_mix(0, fl_sm_resume(f));
    fl_sm_resume(f); /* faults */
    return 0;
}

static int fl_sm_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fl_sm *f = inst;
    fl_result(&f->sh, out);
    cb_sm_free(f, sizeof *f);
    return 0;
}

/* ---- closure: the fault in a heap frame's continuation; overflow is a synchronous await chain
 * without end (each awaited frame starts inside its caller, on the thread's stack) ------------ */

typedef struct fl_cl_frame {
    cb_cl_frame h;
    fl_shared *sh;
} fl_cl_frame;

typedef struct fl_cl {
    fl_shared sh;
    cb_cl_task task;
} fl_cl;

static cb_cl_status fl_cl_nest(cb_cl_frame *self)
{
    fl_cl_frame *f = (fl_cl_frame *)self;
    fl_cl_frame *child = cb_cl_new(self->task, self, fl_cl_nest, sizeof *child);
    child->sh = f->sh;
    if (cb_cl_await(self, &child->h) == CB_CL_SUSPENDED)
        return CB_CL_SUSPENDED;
    self->result = self->awaited + 1;
    return cb_cl_done(self);
}

static cb_cl_status fl_cl_root(cb_cl_frame *self)
{
    fl_cl_frame *f = (fl_cl_frame *)self;
    switch (self->state) {
    case 0: self->state = 1; return cb_cl_suspend(self);
    default:
        if (f->sh->kind == FL_OVERFLOW) {
            fl_cl_nest(self);
            break;
        }
        fl_commit(f->sh->kind);
    }
    return cb_cl_done(self);
}

static void *fl_cl_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    fl_cl *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    w->sh.kind = fl_kind(p);
    w->task.use_pool = cb_impl_cl_pool(p);
    return w;
}

static int fl_cl_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fl_cl *w = inst;
    fl_cl_frame *root = cb_cl_new(&w->task, NULL, fl_cl_root, sizeof *root);
    root->sh = &w->sh;
    w->sh.checksum = cb_mix(0, cb_cl_start(&w->task, &root->h));
    cb_cl_resume(&w->task); /* faults */
    return 0;
}

static int fl_cl_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fl_cl *w = inst;
    fl_result(&w->sh, out);
    cb_cl_cancel(&w->task);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- direct: the fault in a plain call (overflow on the thread's stack) ---------------------- */

static void *fl_dr_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    fl_shared *sh = cb_rt_alloc(sizeof *sh);
    memset(sh, 0, sizeof *sh);
    sh->kind = fl_kind(p);
    return sh;
}

static int fl_dr_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fl_shared *sh = inst;
    sh->checksum = cb_mix(0, 1);
    fl_commit(sh->kind);
    return 0;
}

static int fl_dr_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fl_result(inst, out);
    cb_rt_free(inst, sizeof(fl_shared));
    return 0;
}

/* The one coroutine that commits the fault. */
static uint64_t fl_alive(const cb_params *p)
{
    (void)p;
    return 1;
}

CB_LUA_BODY(fault)

const cb_workload cb_wl_fault = {
    .name = "fault",
    .description = "a coroutine suspends once and, resumed, commits the fault `kind` names; "
                   "the cell must be recorded as failed or timeout with the reason (docs/fault.md)",
    .unit = "fault",
    .params = fl_params,
    .selftest = 1,
    .alive = fl_alive,
    .family =
        {
            [CB_BODY_STACKFUL] = {fl_sf_setup, fl_sf_run, fl_sf_finish},
            [CB_BODY_SM] = {fl_sm_setup, fl_sm_run, fl_sm_finish},
            [CB_BODY_CLOSURE] = {fl_cl_setup, fl_cl_run, fl_cl_finish},
            [CB_BODY_DIRECT] = {fl_dr_setup, fl_dr_run, fl_dr_finish},
            [CB_BODY_CXX20] = CB_CXX20_OPS(fault),
            [CB_BODY_LUA] = CB_LUA_OPS(fault),
            [CB_BODY_CXX20_CLANG] = CB_CXX20_CLANG_OPS(fault),
        },
};
