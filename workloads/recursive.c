/* recursive: a generator walks a complete binary tree of height `height` in order (walk left,
 * yield the node, walk right) and a consumer folds what it receives. One op = one yielded node.
 * Stackful: plain recursion on the coroutine's stack. sm: an explicit stack of frames, one per
 * level, allocated once. closure: one heap frame per recursive call, the "stack hidden in the Task
 * chain". Nodes are computed, not stored: node i (heap order, root 1) has children 2i and 2i+1.
 * Setup and finish are untimed; run is the whole walk. The first node yielded is the leftmost
 * leaf, so the generator is then at its deepest: the driver calls cb_wl_at_rest(1) there, and the
 * harness measures the stack touched, the live heap frames or the frame array at that depth. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "impls/closure.h"
#include "impls/coro.h"
#include "impls/sm.h"
#include "workload.h"

static const cb_param_def rc_params[] = {
    {"height", CB_PARAM_INT, "16", 1, 32, NULL,
     "levels of the complete binary tree (2^height - 1 nodes)"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

typedef struct rc_shared {
    int64_t height;
    uint64_t checksum;
    uint64_t out; /* the value in flight from generator to consumer */
} rc_shared;

static inline uint64_t rc_value(uint64_t id) { return id * 0x9e3779b97f4a7c15ULL ^ (id >> 3); }

static inline void rc_consume(rc_shared *sh, uint64_t v) { sh->checksum = cb_mix(sh->checksum, v); }

static void rc_result(const rc_shared *sh, cb_wl_result *out)
{
    out->ops = ((uint64_t)1 << sh->height) - 1;
    out->checksum = sh->checksum;
}

/* ---- stackful: recursion, cb_co_yield per node ---------------------------------------------- */

typedef struct rc_sf {
    rc_shared sh;
    cb_co *gen;
} rc_sf;

static __attribute__((noinline)) void rc_sf_walk(const rc_shared *sh, uint64_t id, int64_t level)
{
    if (level + 1 < sh->height)
        rc_sf_walk(sh, 2 * id, level + 1);
    cb_co_yield(rc_value(id));
    if (level + 1 < sh->height)
        rc_sf_walk(sh, 2 * id + 1, level + 1);
}

static uintptr_t rc_sf_gen(void *arg, uintptr_t first)
{
    (void)first;
    rc_sf_walk(arg, 1, 0);
    return 0;
}

static void *rc_sf_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    rc_sf *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    w->sh.height = cb_params_int(p, "height");
    w->gen = cb_co_create(impl->backend, rc_sf_gen, &w->sh, cb_impl_stack_size(p));
    if (!w->gen) {
        snprintf(err, errlen, "recursive: cannot create coroutine (stack=%zu): %s",
                 cb_impl_stack_size(p), cb_stack_strerror(errno));
        cb_rt_free(w, sizeof *w);
        return NULL;
    }
    return w;
}

static int rc_sf_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rc_sf *w = inst;
    uint64_t v = cb_co_resume(w->gen, 0);
    cb_wl_at_rest(1);
    for (; !cb_co_done(w->gen); v = cb_co_resume(w->gen, 0))
        rc_consume(&w->sh, v);
    return 0;
}

static void rc_sf_finish(void *inst, cb_wl_result *out)
{
    rc_sf *w = inst;
    rc_result(&w->sh, out);
    cb_co_destroy(w->gen);
    cb_rt_free(w, sizeof *w);
}

/* ---- sm: an explicit stack of frames, resumed in a loop ------------------------------------ */

enum { RC_LEFT, RC_YIELD, RC_RIGHT, RC_RETURN };

typedef struct rc_sm_frame {
    uint64_t id;
    uint32_t state;
} rc_sm_frame;

typedef struct rc_sm {
    rc_shared sh;
    int64_t sp; /* frames in use */
    size_t frames_bytes;
    rc_sm_frame *frames; /* height frames: the generator's whole "stack" */
} rc_sm;

static cb_sm_status rc_sm_next(rc_sm *g)
{
    while (g->sp > 0) {
        rc_sm_frame *f = &g->frames[g->sp - 1];
        int has_children = g->sp < g->sh.height;
        switch (f->state) {
        case RC_LEFT:
            f->state = RC_YIELD;
            if (has_children)
                g->frames[g->sp++] = (rc_sm_frame){2 * f->id, RC_LEFT};
            break;
        case RC_YIELD:
            f->state = RC_RIGHT;
            g->sh.out = rc_value(f->id);
            return cb_sm_suspend();
        case RC_RIGHT:
            f->state = RC_RETURN;
            if (has_children)
                g->frames[g->sp++] = (rc_sm_frame){2 * f->id + 1, RC_LEFT};
            break;
        default:
            g->sp--;
        }
    }
    return CB_SM_DONE;
}

static void *rc_sm_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    rc_sm *g = cb_rt_alloc(sizeof *g);
    memset(g, 0, sizeof *g);
    g->sh.height = cb_params_int(p, "height");
    g->frames_bytes = (size_t)g->sh.height * sizeof(rc_sm_frame);
    g->frames = cb_sm_alloc(g->frames_bytes);
    g->frames[0] = (rc_sm_frame){1, RC_LEFT};
    g->sp = 1;
    return g;
}

static int rc_sm_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rc_sm *g = inst;
    cb_sm_status st = rc_sm_next(g);
    cb_wl_at_rest(1);
    for (; st == CB_SM_SUSPENDED; st = rc_sm_next(g))
        rc_consume(&g->sh, g->sh.out);
    return 0;
}

static void rc_sm_finish(void *inst, cb_wl_result *out)
{
    rc_sm *g = inst;
    rc_result(&g->sh, out);
    cb_sm_free(g->frames, g->frames_bytes);
    cb_rt_free(g, sizeof *g);
}

/* ---- closure: one heap frame per recursive call --------------------------------------------- */

typedef struct rc_cl_walk {
    cb_cl_frame h;
    rc_shared *sh;
    uint64_t id;
    int64_t level;
} rc_cl_walk;

typedef struct rc_cl {
    rc_shared sh;
    cb_cl_task task;
} rc_cl;

static cb_cl_status rc_cl_walk_fn(cb_cl_frame *fh);

/* Starts walk(id, level) as an async call from f; DONE if it completed synchronously. */
static cb_cl_status rc_cl_call(rc_cl_walk *f, uint64_t id)
{
    rc_cl_walk *c = cb_cl_new(f->h.task, &f->h, rc_cl_walk_fn, sizeof *c);
    c->sh = f->sh;
    c->id = id;
    c->level = f->level + 1;
    return cb_cl_await(&f->h, &c->h);
}

static cb_cl_status rc_cl_walk_fn(cb_cl_frame *fh)
{
    rc_cl_walk *f = (rc_cl_walk *)fh;
    int has_children = f->level + 1 < f->sh->height;
    switch (f->h.state) {
    case RC_LEFT:
        f->h.state = RC_YIELD;
        if (has_children && rc_cl_call(f, 2 * f->id) == CB_CL_SUSPENDED)
            return CB_CL_SUSPENDED;
        /* fall through */
    case RC_YIELD:
        f->h.state = RC_RIGHT;
        f->sh->out = rc_value(f->id);
        return cb_cl_suspend(&f->h);
    case RC_RIGHT:
        f->h.state = RC_RETURN;
        if (has_children && rc_cl_call(f, 2 * f->id + 1) == CB_CL_SUSPENDED)
            return CB_CL_SUSPENDED;
        /* fall through */
    default:
        return CB_CL_DONE;
    }
}

static void *rc_cl_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    rc_cl *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    w->sh.height = cb_params_int(p, "height");
    return w;
}

static int rc_cl_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rc_cl *w = inst;
    rc_cl_walk *root = cb_cl_new(&w->task, NULL, rc_cl_walk_fn, sizeof *root);
    root->sh = &w->sh;
    root->id = 1;
    cb_cl_status st = cb_cl_start(&w->task, &root->h);
    cb_wl_at_rest(1);
    for (; st == CB_CL_SUSPENDED; st = cb_cl_resume(&w->task))
        rc_consume(&w->sh, w->sh.out);
    return 0;
}

static void rc_cl_finish(void *inst, cb_wl_result *out)
{
    rc_cl *w = inst;
    rc_result(&w->sh, out);
    cb_cl_cancel(&w->task);
    cb_rt_free(w, sizeof *w);
}

const cb_workload cb_wl_recursive = {
    .name = "recursive",
    .description = "an in-order generator over a complete binary tree of `height` levels; "
                   "recursion on a stack vs. an explicit frame stack vs. a heap frame per call",
    .unit = "node",
    .params = rc_params,
    .family =
        {
            [CB_STYLE_STACKFUL] = {rc_sf_setup, rc_sf_run, rc_sf_finish},
            [CB_STYLE_SM] = {rc_sm_setup, rc_sm_run, rc_sm_finish},
            [CB_STYLE_CLOSURE] = {rc_cl_setup, rc_cl_run, rc_cl_finish},
        },
};
