/* forkjoin: a tree of tasks (docs/sched.md, "Workloads"). Every task spawns its children, awaits
 * them all and returns its own value plus the sum of theirs (wrapping), so the root's return, the
 * checksum, is the sum of every node's value whatever the schedule. shape=balanced: every node
 * above `depth` has `fanout` children; shape=unbalanced (UTS-like, a binomial tree cut at
 * `depth`): the root has `fanout` children and any other node above `depth` has `fanout` children
 * iff mix(id) % 1000 < q, else none. A leaf makes `leaf_work` mixing steps. One op = one task.
 * direct is the reference: a plain recursion on one thread, no task, no scheduler.
 * Setup and finish are untimed; run is the whole tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forkjoin.h"
#include "impls/runtime.h"
#include "sched_fiber.h"
#include "sched_omp.h"
#include "impls/tasks.h"
#include "workload.h"

static const char *const fj_shapes[] = {"balanced", "unbalanced", NULL};

static const cb_param_def fj_params[] = {
    {"fanout", CB_PARAM_INT, "2", 1, 1024, NULL, "children of an inner node", NULL},
    {"depth", CB_PARAM_INT, "16", 0, 100000, NULL,
     "levels below the root (a node at level `depth` has no children; balanced: "
     "(fanout^(depth+1) - 1) / (fanout - 1) tasks)",
     NULL},
    {"leaf_work", CB_PARAM_INT, "0", 0, 1000000000, NULL,
     "mixing steps each leaf makes, each depending on the last (docs/sched.md: about 3.6 ns "
     "each here)",
     NULL},
    {"shape", CB_PARAM_ENUM, "balanced", 0, 0, fj_shapes,
     "balanced: every node above `depth` has `fanout` children; unbalanced: the root has "
     "`fanout` children, any other node above `depth` has `fanout` iff mix(id) % 1000 < q",
     NULL},
    {"q", CB_PARAM_INT, "900", 0, 1000, NULL,
     "shape=unbalanced: per mille of the non-root nodes above `depth` that have children "
     "(ignored when balanced)",
     NULL},
    CB_SWL_PARAMS,
    {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
};

/* The most tasks a point may make: a run is one tree. */
#define FJ_MAX_TASKS 2147483648.0


/* The expected number of tasks: exact when balanced; unbalanced, each non-root node above
 * `depth` has fanout * q / 1000 children on average. */
static double fj_expected_tasks(const fj_tree *t)
{
    double m = t->unbalanced ? (double)t->fanout * (double)t->q / 1000 : (double)t->fanout;
    double level = t->depth > 0 ? (double)t->fanout : 0, sum = 1;
    for (int64_t l = 1; l <= t->depth && sum <= FJ_MAX_TASKS; l++, level *= m)
        sum += level;
    return sum;
}

static int fj_check(const cb_params *p, char *err, size_t errlen)
{
    fj_tree t;
    fj_tree_init(&t, p);
    double n = fj_expected_tasks(&t);
    if (n > FJ_MAX_TASKS) {
        snprintf(err, errlen,
                 "forkjoin: fanout=%llu depth=%lld %s makes more than 2^31 tasks%s (valid: a "
                 "smaller depth or fanout%s)",
                 (unsigned long long)t.fanout, (long long)t.depth,
                 t.unbalanced ? "shape=unbalanced" : "shape=balanced",
                 t.unbalanced ? " on average" : "", t.unbalanced ? ", or a smaller q" : "");
        return -1;
    }
    return 0;
}

/* One worker's depth-first descent keeps each level's unstarted children. */
static uint64_t fj_alive(const cb_params *p)
{
    return (uint64_t)cb_params_int(p, "fanout") * (uint64_t)cb_params_int(p, "depth") + 1;
}

/* ---- direct: the reference, a plain recursion ---------------------------------------------- */

typedef struct fj_dr {
    fj_tree t;
    uint64_t tasks, checksum;
} fj_dr;

static uint64_t fj_dr_node(fj_dr *w, uint64_t id, int64_t level)
{
    uint64_t n = fj_nchildren(&w->t, id, level), sum = fj_value(&w->t, id, n);
    w->tasks++;
    for (uint64_t i = 0; i < n; i++)
        sum += fj_dr_node(w, fj_child(&w->t, id, i), level + 1);
    return sum;
}

static void *fj_dr_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    fj_dr *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    fj_tree_init(&w->t, p);
    return w;
}

static int fj_dr_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fj_dr *w = inst;
    w->tasks = 0;
    w->checksum = fj_dr_node(w, 0, 0);
    return 0;
}

static int fj_dr_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fj_dr *w = inst;
    out->ops = w->tasks;
    out->checksum = w->checksum;
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- sm: each task a state machine on the scheduler (impls/sched/sched.h): its first call
 * spawns its children and waits (a suspension), the call after the last child finished sums
 * them; the children's frames are one malloc per inner node, freed by the parent once it has
 * their returns (on whichever worker runs it: glibc's arenas are per thread, and the runtime's
 * heap count, kept by this thread alone, does not see them). ---- */
typedef struct fj_task {
    cb_sched_task t; /* first: the scheduler hands back this pointer */
    const fj_tree *tree;
    uint64_t id, ret;
    int64_t level;
    uint64_t n;           /* children */
    struct fj_task *kids; /* while it waits */
} fj_task;

static cb_sched_status fj_sm_step(cb_sched_task *t, cb_sched_worker *w)
{
    fj_task *x = (fj_task *)t;
    if (x->kids) { /* every child has finished */
        uint64_t sum = fj_value(x->tree, x->id, x->n);
        for (uint64_t i = 0; i < x->n; i++)
            sum += x->kids[i].ret;
        free(x->kids);
        x->kids = NULL;
        x->ret = sum;
        return CB_SCHED_DONE;
    }
    x->n = fj_nchildren(x->tree, x->id, x->level);
    if (x->n == 0) {
        x->ret = fj_value(x->tree, x->id, 0);
        return CB_SCHED_DONE;
    }
    x->kids = malloc(x->n * sizeof *x->kids);
    if (!x->kids)
        abort(); /* a worker has no way to fail the run: as the runtime's own allocator does */
    cb_sched_count_frames(w, x->n, x->n * sizeof *x->kids);
    cb_sched_fork(t, x->n);
    for (uint64_t i = 0; i < x->n; i++) {
        x->kids[i] = (fj_task){.t = {.run = fj_sm_step, .parent = t, .last_worker = -1},
                               .tree = x->tree, .id = fj_child(x->tree, x->id, i),
                               .level = x->level + 1};
        cb_sched_spawn(w, &x->kids[i].t);
    }
    return CB_SCHED_WAIT;
}

typedef struct fj_sm {
    fj_tree t;
    cb_sched *s;
    fj_task root;
    uint64_t tasks;
} fj_sm;

static void *fj_sm_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl;
    cb_sched *s = cb_swl_sched(p, err, errlen);
    if (!s)
        return NULL;
    fj_sm *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    fj_tree_init(&w->t, p);
    w->s = s;
    return w;
}

static int fj_sm_run(void *inst, char *err, size_t errlen)
{
    fj_sm *w = inst;
    w->root = (fj_task){.t = {.run = fj_sm_step, .last_worker = -1}, .tree = &w->t};
    cb_sched_task *root = &w->root.t;
    return cb_swl_run(w->s, &root, 1, &w->tasks, err, errlen);
}

static int fj_sm_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fj_sm *w = inst;
    out->ops = w->tasks;
    out->checksum = w->root.ret;
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- closure: each task an async call's heap frame, as impls/closure.h's runtime and C#'s Tasks
 * have them: one malloc per task, made by its parent when it spawns it, with the task's live
 * locals, its resume point and its continuation (the parent, which the last child to finish makes
 * runnable); the parent frees its children's frames once it has their results. The frame is the
 * scheduler's task. glibc's arenas are per thread, the runtime's heap count (one thread's) does
 * not see these frames: as sm's. ---- */
typedef struct fj_cl_frame {
    cb_sched_task t; /* first */
    const fj_tree *tree;
    uint64_t id, ret, n;
    int64_t level;
    int state;                  /* 0: not started; 1: awaiting its children */
    struct fj_cl_frame *kid[];  /* n: the children it awaits */
} fj_cl_frame;

static cb_sched_status fj_cl_resume(cb_sched_task *t, cb_sched_worker *w);

/* A frame for node id at level, its continuation parent. Aborts when out of memory, as
 * fj_sm_step. */
static fj_cl_frame *fj_cl_new(const fj_tree *tree, uint64_t id, int64_t level,
                              cb_sched_task *parent)
{
    uint64_t n = fj_nchildren(tree, id, level);
    fj_cl_frame *f = malloc(sizeof *f + n * sizeof f->kid[0]);
    if (!f)
        abort();
    f->t = (cb_sched_task){.run = fj_cl_resume, .parent = parent, .last_worker = -1};
    f->tree = tree;
    f->id = id;
    f->level = level;
    f->n = n;
    f->state = 0;
    return f;
}

static cb_sched_status fj_cl_resume(cb_sched_task *t, cb_sched_worker *w)
{
    fj_cl_frame *f = (fj_cl_frame *)t;
    if (f->state == 1) { /* every child has finished */
        uint64_t sum = fj_value(f->tree, f->id, f->n);
        for (uint64_t i = 0; i < f->n; i++) {
            sum += f->kid[i]->ret;
            free(f->kid[i]);
        }
        f->ret = sum;
        return CB_SCHED_DONE;
    }
    if (f->n == 0) {
        f->ret = fj_value(f->tree, f->id, 0);
        return CB_SCHED_DONE;
    }
    cb_sched_fork(t, f->n);
    f->state = 1;
    for (uint64_t i = 0; i < f->n; i++) {
        f->kid[i] = fj_cl_new(f->tree, fj_child(f->tree, f->id, i), f->level + 1, t);
        cb_sched_count_frames(w, 1, sizeof *f->kid[i] + f->kid[i]->n * sizeof f->kid[0]);
        cb_sched_spawn(w, &f->kid[i]->t);
    }
    return CB_SCHED_WAIT;
}

typedef struct fj_cl {
    fj_tree t;
    cb_sched *s;
    fj_cl_frame *root; /* the last run's, freed by the next run or finish */
    uint64_t tasks, checksum;
} fj_cl;

static void *fj_cl_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl;
    cb_sched *s = cb_swl_sched(p, err, errlen);
    if (!s)
        return NULL;
    fj_cl *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    fj_tree_init(&w->t, p);
    w->s = s;
    return w;
}

static int fj_cl_run(void *inst, char *err, size_t errlen)
{
    fj_cl *w = inst;
    free(w->root);
    w->root = fj_cl_new(&w->t, 0, 0, NULL);
    cb_sched_task *root = &w->root->t;
    return cb_swl_run(w->s, &root, 1, &w->tasks, err, errlen);
}

static int fj_cl_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fj_cl *w = inst;
    out->ops = w->tasks;
    out->checksum = w->root ? w->root->ret : 0;
    free(w->root);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- stackful: each task a coroutine of the cell's backend on the scheduler (impls/tasks.h):
 * its body spawns its children, waits for them in the middle of its call (the coroutine suspends,
 * and may be resumed by another worker: it migrates) and sums their returns. The children's
 * frames live on the parent's own stack up to FJ_SF_ON_STACK children (the stackful style: locals
 * survive the suspension where they are), in one malloc beyond. ---- */
enum { FJ_SF_ON_STACK = 16 };

typedef struct fj_sf_task {
    cb_stask x; /* first */
    const fj_tree *tree;
    uint64_t id, ret;
    int64_t level;
} fj_sf_task;

static void fj_sf_body(cb_stask *s)
{
    fj_sf_task *x = (fj_sf_task *)s;
    uint64_t n = fj_nchildren(x->tree, x->id, x->level), sum = fj_value(x->tree, x->id, n);
    if (n) {
        fj_sf_task near[FJ_SF_ON_STACK];
        fj_sf_task *kids = n <= FJ_SF_ON_STACK ? near : malloc(n * sizeof *kids);
        if (!kids)
            abort(); /* as fj_sm_step */
        cb_sched_fork(&s->t, n);
        for (uint64_t i = 0; i < n; i++) {
            cb_stask_make(&kids[i].x, fj_sf_body, &s->t);
            kids[i].tree = x->tree;
            kids[i].id = fj_child(x->tree, x->id, i);
            kids[i].level = x->level + 1;
            cb_sched_spawn(s->w, &kids[i].x.t);
        }
        cb_stask_wait(s);
        for (uint64_t i = 0; i < n; i++)
            sum += kids[i].ret;
        if (kids != near)
            free(kids);
    }
    x->ret = sum;
}

typedef struct fj_sf {
    fj_tree t;
    cb_sched *s;
    fj_sf_task root;
    uint64_t tasks;
} fj_sf;

static int fj_sf_run(void *inst, char *err, size_t errlen)
{
    fj_sf *w = inst;
    memset(&w->root, 0, sizeof w->root);
    cb_stask_make(&w->root.x, fj_sf_body, NULL);
    w->root.tree = &w->t;
    cb_sched_task *root = &w->root.x.t;
    return cb_swl_run(w->s, &root, 1, &w->tasks, err, errlen);
}

static void *fj_sf_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    int fresh;
    cb_sched *s = cb_swl_stackful(impl, p, &fresh, err, errlen);
    if (!s)
        return NULL;
    fj_sf *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    fj_tree_init(&w->t, p);
    w->s = s;
    /* new pools: one untimed run maps the stacks a run needs */
    if (fresh && cb_swl_prime(fj_sf_run, w, err, errlen) != 0) {
        cb_rt_free(w, sizeof *w);
        return NULL;
    }
    return w;
}

static int fj_sf_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    fj_sf *w = inst;
    out->ops = w->tasks;
    out->checksum = w->root.ret;
    cb_rt_free(w, sizeof *w);
    return 0;
}

static const char *const check_points[][CB_WL_CHECK_SET] = {
    {"fanout", "2", "depth", "4"},
    {"fanout", "3", "depth", "6", "shape", "unbalanced", "q", "500"},
    {NULL},
};

const cb_workload cb_wl_forkjoin = {
    .check_points = check_points,
    .name = "forkjoin",
    .description = "a tree of tasks, `fanout` children per inner node, `depth` levels, balanced "
                   "or unbalanced (UTS-like); each task spawns its children on the scheduler, "
                   "awaits them and returns its value plus theirs",
    .unit = "task",
    .params = fj_params,
    .check = fj_check,
    .max_batch = NULL,
    .alive = fj_alive,
    .family =
        {
            [CB_BODY_DIRECT] = {fj_dr_setup, fj_dr_run, fj_dr_finish},
            [CB_BODY_SM] = {fj_sm_setup, fj_sm_run, fj_sm_finish},
            [CB_BODY_STACKFUL] = {fj_sf_setup, fj_sf_run, fj_sf_finish},
            [CB_BODY_CLOSURE] = {fj_cl_setup, fj_cl_run, fj_cl_finish},
            [CB_BODY_FIBER] = CB_FIBER_OPS(forkjoin),
            [CB_BODY_OMP] = CB_OMP_OPS(forkjoin),
        },
};
