/* spawn: `n` coroutines are created; each runs `depth` + 1 nested levels (its body is level 0),
 * every level holding `frame` bytes of live locals, and suspends at the bottom. With all n alive
 * and suspended the driver calls cb_wl_at_rest(n) (the harness measures memory there); then it
 * resumes each to completion and destroys it. One op = one coroutine's whole life.
 * Setup allocates only the driver's handle array (one handle per coroutine, as a run queue holds);
 * run is creation, suspension, resumption and destruction; finish reports and frees. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "impls/closure.h"
#include "impls/coro.h"
#include "impls/sm.h"
#include "workload.h"

static const cb_param_def sp_params[] = {
    {"n", CB_PARAM_INT, "10000", 1, 10000000, NULL, "coroutines alive at once at the rest point"},
    {"depth", CB_PARAM_INT, "0", 0, 100000, NULL,
     "nested call levels below each coroutine's body before it suspends"},
    {"frame", CB_PARAM_INT, "64", 8, 65536, NULL,
     "bytes of live locals per level, kept across the suspension (a multiple of 8)"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* Bound the handle arrays of a batch (set up before the clock starts) to about 2^20 handles. */
enum { SP_BATCH_HANDLES = 1 << 20 };

typedef struct sp_shared {
    uint64_t n;
    int64_t depth;
    size_t words;      /* frame / 8 live 64-bit locals per level */
    uint64_t in, out;  /* the value passed in at resumption, and out at the suspension */
    uint64_t checksum; /* every suspended and returned value, in order */
} sp_shared;

static int sp_check(const cb_params *p, char *err, size_t errlen)
{
    int64_t frame = cb_params_int(p, "frame");
    if (frame % 8) {
        snprintf(err, errlen, "spawn: frame=%lld is not a multiple of 8 (valid: 8, 16, ..., 65536)",
                 (long long)frame);
        return -1;
    }
    return 0;
}

static uint64_t sp_max_batch(const cb_params *p)
{
    uint64_t n = (uint64_t)cb_params_int(p, "n");
    return n >= SP_BATCH_HANDLES ? 1 : SP_BATCH_HANDLES / n;
}

static void sp_shared_init(sp_shared *sh, const cb_params *p)
{
    memset(sh, 0, sizeof *sh);
    sh->n = (uint64_t)cb_params_int(p, "n");
    sh->depth = cb_params_int(p, "depth");
    sh->words = (size_t)cb_params_int(p, "frame") / 8;
}

/* The data path, identical in every family. */
static inline uint64_t sp_word(uint64_t id, int64_t level, size_t k)
{
    return (id << 24 ^ (uint64_t)level << 12 ^ k) * 0x9e3779b97f4a7c15ULL;
}
static inline uint64_t sp_bottom(uint64_t id) { return id * 0xd6e8feb86659fd93ULL + 1; }
static inline uint64_t sp_resume_value(uint64_t id) { return id ^ 0x5bd1e9955bd1e995ULL; }
/* A level's result: what came up from below folded with every one of its locals. */
static inline uint64_t sp_unwind(uint64_t v, int64_t level, const uint64_t *w, size_t words)
{
    uint64_t acc = v + (uint64_t)level;
    for (size_t k = 0; k < words; k++)
        acc = (acc ^ w[k]) * 0x100000001b3ULL;
    return acc;
}

static void sp_result(const sp_shared *sh, cb_wl_result *out)
{
    out->ops = sh->n;
    out->checksum = sh->checksum;
}

/* ---- stackful: plain recursion with a local array per level, cb_co_yield at the bottom ------- */

typedef struct sp_sf {
    sp_shared sh;
    const cb_impl *impl;
    size_t stack;
    cb_co **co; /* n handles */
} sp_sf;

static __attribute__((noinline)) uint64_t sp_sf_level(const sp_shared *sh, uint64_t id,
                                                       int64_t level)
{
    uint64_t loc[sh->words];
    for (size_t k = 0; k < sh->words; k++)
        loc[k] = sp_word(id, level, k);
    /* The locals live in this stack frame across the suspension, as compiled code keeps them;
     * the empty asm says memory is read through loc, so no store is elided. */
    __asm__ volatile("" : : "r"(loc) : "memory");
    uint64_t v = level == sh->depth ? cb_co_yield(sp_bottom(id)) : sp_sf_level(sh, id, level + 1);
    return sp_unwind(v, level, loc, sh->words);
}

static uintptr_t sp_sf_main(void *arg, uintptr_t id) { return sp_sf_level(arg, id, 0); }

static void *sp_sf_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    sp_sf *w = cb_rt_alloc(sizeof *w);
    sp_shared_init(&w->sh, p);
    w->impl = impl;
    w->stack = cb_impl_stack_size(p);
    w->co = cb_rt_alloc(w->sh.n * sizeof *w->co);
    memset(w->co, 0, w->sh.n * sizeof *w->co);
    return w;
}

static int sp_sf_run(void *inst, char *err, size_t errlen)
{
    sp_sf *w = inst;
    sp_shared *sh = &w->sh;
    for (uint64_t i = 0; i < sh->n; i++) {
        cb_co *co = cb_co_create(w->impl->backend, sp_sf_main, sh, w->stack);
        if (!co) {
            snprintf(err, errlen,
                     "spawn: cannot create coroutine %llu of %llu (stack=%zu, stack modes so "
                     "far: %s): %s",
                     (unsigned long long)i + 1, (unsigned long long)sh->n, w->stack,
                     cb_stack_modes_used() ? cb_stack_modes_used() : "none", cb_stack_strerror(errno));
            return -1;
        }
        w->co[i] = co;
        sh->checksum = cb_mix(sh->checksum, cb_co_resume(co, i));
    }
    cb_wl_at_rest(sh->n);
    for (uint64_t i = 0; i < sh->n; i++) {
        uint64_t r = cb_co_resume(w->co[i], sp_resume_value(i));
        sh->checksum = cb_mix(sh->checksum, r);
        cb_co_destroy(w->co[i]);
        w->co[i] = NULL;
    }
    return 0;
}

static void sp_sf_finish(void *inst, cb_wl_result *out)
{
    sp_sf *w = inst;
    sp_result(&w->sh, out);
    for (uint64_t i = 0; i < w->sh.n; i++)
        cb_co_destroy(w->co[i]); /* only after a failed run */
    cb_rt_free(w->co, w->sh.n * sizeof *w->co);
    cb_rt_free(w, sizeof *w);
}

/* ---- sm: one frame per coroutine, the levels' frames embedded in it ------------------------- */

typedef struct sp_sm_level {
    uint32_t state;
    uint64_t ret;
    uint64_t w[]; /* the level's live locals */
} sp_sm_level;

typedef struct sp_sm_co {
    uint64_t id;
    unsigned char levels[]; /* depth + 1 sp_sm_level, `stride` bytes apart */
} sp_sm_co;

typedef struct sp_sm {
    sp_shared sh;
    size_t stride, frame_bytes;
    sp_sm_co **co;
} sp_sm;

static inline sp_sm_level *sp_sm_at(const sp_sm *w, sp_sm_co *c, int64_t level)
{
    return (sp_sm_level *)(c->levels + (size_t)level * w->stride);
}

static cb_sm_status sp_sm_level_fn(sp_sm *w, sp_sm_co *c, int64_t level)
{
    sp_shared *sh = &w->sh;
    sp_sm_level *f = sp_sm_at(w, c, level);
    uint64_t v;
    switch (f->state) {
    case 0:
        for (size_t k = 0; k < sh->words; k++)
            f->w[k] = sp_word(c->id, level, k);
        if (level == sh->depth) {
            sh->out = sp_bottom(c->id);
            f->state = 1;
            return cb_sm_suspend();
        }
        sp_sm_at(w, c, level + 1)->state = 0;
        f->state = 2;
        /* fall through */
    case 2:
        if (sp_sm_level_fn(w, c, level + 1) == CB_SM_SUSPENDED)
            return CB_SM_SUSPENDED;
        v = sp_sm_at(w, c, level + 1)->ret;
        break;
    default: /* 1: resumed at the bottom */
        v = sh->in;
        break;
    }
    f->ret = sp_unwind(v, level, f->w, sh->words);
    return CB_SM_DONE;
}

static void *sp_sm_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    sp_sm *w = cb_rt_alloc(sizeof *w);
    sp_shared_init(&w->sh, p);
    w->stride = sizeof(sp_sm_level) + w->sh.words * sizeof(uint64_t);
    w->frame_bytes = sizeof(sp_sm_co) + (size_t)(w->sh.depth + 1) * w->stride;
    w->co = cb_rt_alloc(w->sh.n * sizeof *w->co);
    memset(w->co, 0, w->sh.n * sizeof *w->co);
    return w;
}

static int sp_sm_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    sp_sm *w = inst;
    sp_shared *sh = &w->sh;
    for (uint64_t i = 0; i < sh->n; i++) {
        sp_sm_co *c = cb_sm_alloc(w->frame_bytes);
        c->id = i;
        sp_sm_at(w, c, 0)->state = 0;
        w->co[i] = c;
        sp_sm_level_fn(w, c, 0); /* runs to its suspension */
        sh->checksum = cb_mix(sh->checksum, sh->out);
    }
    cb_wl_at_rest(sh->n);
    for (uint64_t i = 0; i < sh->n; i++) {
        sp_sm_co *c = w->co[i];
        sh->in = sp_resume_value(i);
        sp_sm_level_fn(w, c, 0); /* runs to completion */
        sh->checksum = cb_mix(sh->checksum, sp_sm_at(w, c, 0)->ret);
        cb_sm_free(c, w->frame_bytes);
        w->co[i] = NULL;
    }
    return 0;
}

static void sp_sm_finish(void *inst, cb_wl_result *out)
{
    sp_sm *w = inst;
    sp_result(&w->sh, out);
    for (uint64_t i = 0; i < w->sh.n; i++)
        if (w->co[i])
            cb_sm_free(w->co[i], w->frame_bytes);
    cb_rt_free(w->co, w->sh.n * sizeof *w->co);
    cb_rt_free(w, sizeof *w);
}

/* ---- closure: one heap frame per level, a task per coroutine ------------------------------ */

typedef struct sp_cl_level {
    cb_cl_frame h;
    sp_shared *sh;
    uint64_t id;
    int64_t level;
    uint64_t w[]; /* the level's live locals */
} sp_cl_level;

typedef struct sp_cl {
    sp_shared sh;
    size_t frame_bytes;
    cb_cl_task *task; /* n tasks: the handle of each coroutine */
} sp_cl;

static cb_cl_status sp_cl_level_fn(cb_cl_frame *fh)
{
    sp_cl_level *f = (sp_cl_level *)fh;
    sp_shared *sh = f->sh;
    uint64_t v;
    switch (f->h.state) {
    case 0:
        for (size_t k = 0; k < sh->words; k++)
            f->w[k] = sp_word(f->id, f->level, k);
        if (f->level == sh->depth) {
            sh->out = sp_bottom(f->id);
            f->h.state = 1;
            return cb_cl_suspend(&f->h);
        } else {
            size_t bytes = sizeof(sp_cl_level) + sh->words * sizeof(uint64_t);
            sp_cl_level *c = cb_cl_new(f->h.task, &f->h, sp_cl_level_fn, bytes);
            c->sh = sh;
            c->id = f->id;
            c->level = f->level + 1;
            f->h.state = 2;
            if (cb_cl_await(&f->h, &c->h) == CB_CL_SUSPENDED)
                return CB_CL_SUSPENDED;
        }
        /* fall through */
    case 2:
        v = f->h.awaited;
        break;
    default: /* 1: resumed at the bottom */
        v = sh->in;
        break;
    }
    f->h.result = sp_unwind(v, f->level, f->w, sh->words);
    return CB_CL_DONE;
}

static void *sp_cl_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    sp_cl *w = cb_rt_alloc(sizeof *w);
    sp_shared_init(&w->sh, p);
    w->frame_bytes = sizeof(sp_cl_level) + w->sh.words * sizeof(uint64_t);
    w->task = cb_rt_alloc(w->sh.n * sizeof *w->task);
    memset(w->task, 0, w->sh.n * sizeof *w->task);
    return w;
}

static int sp_cl_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    sp_cl *w = inst;
    sp_shared *sh = &w->sh;
    for (uint64_t i = 0; i < sh->n; i++) {
        sp_cl_level *root = cb_cl_new(&w->task[i], NULL, sp_cl_level_fn, w->frame_bytes);
        root->sh = sh;
        root->id = i;
        cb_cl_start(&w->task[i], &root->h); /* runs to its suspension */
        sh->checksum = cb_mix(sh->checksum, sh->out);
    }
    cb_wl_at_rest(sh->n);
    for (uint64_t i = 0; i < sh->n; i++) {
        sh->in = sp_resume_value(i);
        cb_cl_resume(&w->task[i]); /* runs to completion and frees the frames */
        sh->checksum = cb_mix(sh->checksum, w->task[i].result);
    }
    return 0;
}

static void sp_cl_finish(void *inst, cb_wl_result *out)
{
    sp_cl *w = inst;
    sp_result(&w->sh, out);
    for (uint64_t i = 0; i < w->sh.n; i++)
        cb_cl_cancel(&w->task[i]); /* frees nothing after a completed run */
    cb_rt_free(w->task, w->sh.n * sizeof *w->task);
    cb_rt_free(w, sizeof *w);
}

const cb_workload cb_wl_spawn = {
    .name = "spawn",
    .description = "n coroutines each call `depth` levels down with `frame` bytes of live locals "
                   "per level and suspend; all n alive at once (the memory rest point), then each "
                   "is resumed to completion and destroyed",
    .unit = "coroutine",
    .params = sp_params,
    .check = sp_check,
    .max_batch = sp_max_batch,
    .family =
        {
            [CB_STYLE_STACKFUL] = {sp_sf_setup, sp_sf_run, sp_sf_finish},
            [CB_STYLE_SM] = {sp_sm_setup, sp_sm_run, sp_sm_finish},
            [CB_STYLE_CLOSURE] = {sp_cl_setup, sp_cl_run, sp_cl_finish},
        },
};
