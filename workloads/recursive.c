/* recursive: a generator walks a complete binary tree of height `height` in order (walk left,
 * yield the node, walk right) and a consumer folds what it receives. One op = one yielded node.
 * Stackful: plain recursion on the coroutine's stack. sm: a frame per level embedded in one
 * allocation, every resume re-entering from the root (a compiler's lowering). closure: one heap
 * frame per recursive call, the "stack hidden in the Task chain". direct: no coroutine, an
 * iterator with an explicit stack (the baseline). Nodes are computed, not stored: node i (heap order, root 1) has children 2i and 2i+1.
 * Setup and finish are untimed; run is the whole walk. The first node yielded is the leftmost
 * leaf, so the generator is then at its deepest: the driver calls cb_wl_at_rest(1) there, and the
 * harness measures the stack touched, the live heap frames or the frame array at that depth. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "impls/closure.h"
#include "impls/coro.h"
#include "impls/sm.h"
#include "cxx20.h"
#include "lua_family.h"
#include "recursive.h"
#include "workload.h"

static const cb_param_def rc_params[] = {
    {"height", CB_PARAM_INT, "16", 1, 32, NULL,
     "levels of the complete binary tree (2^height - 1 nodes)", "10"},
    {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
};

void rc_result(const rc_shared *sh, cb_wl_result *out)
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
    cb_co_cfg cfg = cb_impl_co_cfg(impl, p);
    w->gen = cb_co_create(&cfg, rc_sf_gen, &w->sh);
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

static int rc_sf_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rc_sf *w = inst;
    rc_result(&w->sh, out);
    cb_co_destroy(w->gen);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- sm: a recursive async generator as a compiler lowers it -------------------------------- */

/* walk(id, level) is `yield* walk(2id); yield value(id); yield* walk(2id + 1)`. Lowered, each
 * level is a frame with its resume state, and the frame of the level it delegates to is embedded
 * in its own (recursion makes the depth unbounded for a compiler, so the frames of all `height`
 * levels sit in one allocation sized in setup, as a compiler that knows the bound would lay them
 * out). A resume re-enters from the root: every level's resume function switches on its state
 * and calls the next level's, down to the one that yields, and the suspension returns up through
 * all of them (as pingpong's sm, and Rust's nested poll()). So the cost per node grows with the
 * depth of the node, as the stackful and closure generators' does. */

enum { RC_START, RC_LEFT, RC_YIELDED, RC_RIGHT, RC_DONE };

typedef struct rc_sm_frame {
    uint64_t id;
    uint32_t state;
} rc_sm_frame;

typedef struct rc_sm {
    rc_shared sh;
    size_t frames_bytes;
    rc_sm_frame *frames; /* height frames, level l's delegate at l + 1 */
} rc_sm;

#ifdef CB_TEST_EXTRA_WORK
/* The instructions knob of ab's power test (docs/ci.md, "The A/A test"): a build made with
 * CPPFLAGS=-DCB_TEST_EXTRA_WORK=N runs a loop of N nops per node in sm's body, a real change
 * that adds instructions (and a little time) to that one cell and does the same work. */
#define RC_EXTRA_WORK()                                                                            \
    do {                                                                                           \
        for (int extra_ = 0; extra_ < CB_TEST_EXTRA_WORK; extra_++)                                \
            __asm__ volatile("nop");                                                               \
    } while (0)
#else
#define RC_EXTRA_WORK() ((void)0)
#endif

static __attribute__((noinline)) cb_sm_status rc_sm_walk(rc_sm *g, int64_t level)
{
    rc_sm_frame *f = &g->frames[level], *child = f + 1;
    int has_children = level + 1 < g->sh.height;
    switch (f->state) {
    case RC_START:
        f->state = RC_LEFT;
        if (has_children)
            *child = (rc_sm_frame){2 * f->id, RC_START};
        /* fall through */
    case RC_LEFT:
        if (has_children && rc_sm_walk(g, level + 1) == CB_SM_SUSPENDED)
            return CB_SM_SUSPENDED;
        f->state = RC_YIELDED;
        g->sh.out = rc_value(f->id);
        RC_EXTRA_WORK();
        return cb_sm_suspend();
    case RC_YIELDED:
        f->state = RC_RIGHT;
        if (has_children)
            *child = (rc_sm_frame){2 * f->id + 1, RC_START};
        /* fall through */
    case RC_RIGHT:
        if (has_children && rc_sm_walk(g, level + 1) == CB_SM_SUSPENDED)
            return CB_SM_SUSPENDED;
        f->state = RC_DONE;
        /* fall through */
    default:
        return CB_SM_DONE;
    }
}

static void *rc_sm_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    rc_sm *g = cb_rt_alloc(sizeof *g);
    memset(g, 0, sizeof *g);
    g->sh.height = cb_params_int(p, "height");
    g->frames_bytes = (size_t)g->sh.height * sizeof(rc_sm_frame);
    g->frames = cb_sm_alloc(g->frames_bytes);
    g->frames[0] = (rc_sm_frame){1, RC_START};
    return g;
}

static int rc_sm_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rc_sm *g = inst;
    cb_sm_status st = rc_sm_walk(g, 0);
    cb_wl_at_rest(1);
    for (; st == CB_SM_SUSPENDED; st = rc_sm_walk(g, 0))
        rc_consume(&g->sh, g->sh.out);
    return 0;
}

static int rc_sm_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rc_sm *g = inst;
    rc_result(&g->sh, out);
    cb_sm_free(g->frames, g->frames_bytes);
    cb_rt_free(g, sizeof *g);
    return 0;
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

enum { RC_CL_LEFT, RC_CL_YIELD, RC_CL_RIGHT, RC_CL_RETURN };

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
    case RC_CL_LEFT:
        f->h.state = RC_CL_YIELD;
        if (has_children && rc_cl_call(f, 2 * f->id) == CB_CL_SUSPENDED)
            return CB_CL_SUSPENDED;
        /* fall through */
    case RC_CL_YIELD:
        f->h.state = RC_CL_RIGHT;
        f->sh->out = rc_value(f->id);
        return cb_cl_suspend(&f->h);
    case RC_CL_RIGHT:
        f->h.state = RC_CL_RETURN;
        if (has_children && rc_cl_call(f, 2 * f->id + 1) == CB_CL_SUSPENDED)
            return CB_CL_SUSPENDED;
        /* fall through */
    default:
        return cb_cl_done(&f->h);
    }
}

static void *rc_cl_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    rc_cl *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    w->sh.height = cb_params_int(p, "height");
    w->task.use_pool = cb_impl_cl_pool(p);
    return w;
}

static int rc_cl_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rc_cl *w = inst;
    rc_cl_walk *root = cb_cl_new(&w->task, NULL, rc_cl_walk_fn, sizeof *root);
    root->sh = &w->sh;
    root->id = 1;
    root->level = 0;
    cb_cl_status st = cb_cl_start(&w->task, &root->h);
    cb_wl_at_rest(1);
    for (; st == CB_CL_SUSPENDED; st = cb_cl_resume(&w->task))
        rc_consume(&w->sh, w->sh.out);
    return 0;
}

static int rc_cl_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rc_cl *w = inst;
    rc_result(&w->sh, out);
    cb_cl_cancel(&w->task);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- direct: no coroutine, an iterator with an explicit stack ------------------------------- */

/* The same in-order walk as an iterator object: next() keeps an explicit stack of (node, state)
 * and loops, so a node costs O(1) amortised and nothing is re-entered. The consumer calls next()
 * and folds each value, as every generator's consumer does. No suspension happens: this is the
 * baseline the generators are compared with. */

enum { RC_DR_LEFT, RC_DR_YIELD, RC_DR_RIGHT, RC_DR_RETURN };

typedef struct rc_dr {
    rc_shared sh;
    int64_t sp; /* frames in use */
    size_t frames_bytes;
    rc_sm_frame *frames; /* height entries */
} rc_dr;

/* 1 with the next node's value in sh.out, or 0 when the walk is over. */
static int rc_dr_next(rc_dr *g)
{
    while (g->sp > 0) {
        rc_sm_frame *f = &g->frames[g->sp - 1];
        int has_children = g->sp < g->sh.height;
        switch (f->state) {
        case RC_DR_LEFT:
            f->state = RC_DR_YIELD;
            if (has_children)
                g->frames[g->sp++] = (rc_sm_frame){2 * f->id, RC_DR_LEFT};
            break;
        case RC_DR_YIELD:
            f->state = RC_DR_RIGHT;
            g->sh.out = rc_value(f->id);
            return 1;
        case RC_DR_RIGHT:
            f->state = RC_DR_RETURN;
            if (has_children)
                g->frames[g->sp++] = (rc_sm_frame){2 * f->id + 1, RC_DR_LEFT};
            break;
        default:
            g->sp--;
        }
    }
    return 0;
}

static void *rc_dr_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    rc_dr *g = cb_rt_alloc(sizeof *g);
    memset(g, 0, sizeof *g);
    g->sh.height = cb_params_int(p, "height");
    g->frames_bytes = (size_t)g->sh.height * sizeof(rc_sm_frame);
    g->frames = cb_rt_alloc(g->frames_bytes);
    g->frames[0] = (rc_sm_frame){1, RC_DR_LEFT};
    g->sp = 1;
    return g;
}

static int rc_dr_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rc_dr *g = inst;
    int more = rc_dr_next(g);
    cb_wl_at_rest(1);
    for (; more; more = rc_dr_next(g))
        rc_consume(&g->sh, g->sh.out);
    return 0;
}

static int rc_dr_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rc_dr *g = inst;
    rc_result(&g->sh, out);
    cb_rt_free(g->frames, g->frames_bytes);
    cb_rt_free(g, sizeof *g);
    return 0;
}


/* The generator. */
static uint64_t rc_alive(const cb_params *p)
{
    (void)p;
    return 1;
}

CB_LUA_BODY(recursive)

/* Small points check-external runs an external program at (harness/run/checkext.c). */
static const char *const check_points[][CB_WL_CHECK_SET] = {
    {"height", "6"},
    {NULL},
};

const cb_workload cb_wl_recursive = {
    .check_points = check_points,
    .name = "recursive",
    .description = "an in-order generator over a complete binary tree of `height` levels; "
                   "recursion on a stack vs. frames re-entered from the root vs. a heap frame per call",
    .unit = "node",
    .params = rc_params,
    .alive = rc_alive,
    .family =
        {
            [CB_BODY_STACKFUL] = {rc_sf_setup, rc_sf_run, rc_sf_finish},
            [CB_BODY_SM] = {rc_sm_setup, rc_sm_run, rc_sm_finish},
            [CB_BODY_CLOSURE] = {rc_cl_setup, rc_cl_run, rc_cl_finish},
            [CB_BODY_DIRECT] = {rc_dr_setup, rc_dr_run, rc_dr_finish},
            [CB_BODY_CXX20] = CB_CXX20_OPS(recursive),
            [CB_BODY_LUA] = CB_LUA_OPS(recursive),
            [CB_BODY_CXX20_CLANG] = CB_CXX20_CLANG_OPS(recursive),
        },
};
