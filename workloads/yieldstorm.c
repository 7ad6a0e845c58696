/* yieldstorm: `coros` coroutines that each yield `yields` times (docs/sched.md, "Workloads").
 * Coroutine id's state starts at mix(id); after its k-th yield (k from 0) returns, the state
 * becomes mix(state ^ k). The checksum is the wrapping sum of the final states, whatever the
 * order. On the scheduler each yield requeues the coroutine on its worker's run queue (steal: the
 * local deque, where idle workers steal it). One op = one yield. direct is the reference: each
 * coroutine's states computed in turn on one thread, no yield.
 * Setup and finish are untimed; run is every coroutine from its start to its end. */
#include <string.h>

#include "impls/runtime.h"
#include "sched_fiber.h"
#include "sched_omp.h"
#include "impls/tasks.h"
#include "sched_wl.h"
#include "workload.h"
#include "yieldstorm.h"

static const cb_param_def ys_params[] = {
    {"coros", CB_PARAM_INT, "1000", 1, 10000000, NULL, "coroutines, all started at once", NULL},
    {"yields", CB_PARAM_INT, "100", 1, 1000000000, NULL, "yields each coroutine makes", NULL},
    CB_SWL_PARAMS,
    {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
};

static uint64_t ys_alive(const cb_params *p) { return (uint64_t)cb_params_int(p, "coros"); }

/* ---- direct: the reference -------------------------------------------------------------- */

typedef struct ys_dr {
    uint64_t coros, yields, checksum;
} ys_dr;

static void *ys_dr_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    ys_dr *w = cb_rt_alloc(sizeof *w);
    w->coros = (uint64_t)cb_params_int(p, "coros");
    w->yields = (uint64_t)cb_params_int(p, "yields");
    w->checksum = 0;
    return w;
}

static int ys_dr_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    ys_dr *w = inst;
    uint64_t sum = 0;
    for (uint64_t id = 0; id < w->coros; id++) {
        uint64_t s = ys_start(id);
        for (uint64_t k = 0; k < w->yields; k++)
            s = ys_step(s, k);
        sum += s;
    }
    w->checksum = sum;
    return 0;
}

static int ys_dr_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    ys_dr *w = inst;
    out->ops = w->coros * w->yields;
    out->checksum = w->checksum;
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- sm: each coroutine a state machine on the scheduler: a call makes one step and yields
 * (requeued on its worker's deque, or the central queue), the call after its last step
 * finishes it. The tasks are allocated in setup, untimed. ---- */
typedef struct ys_task {
    cb_sched_task t;
    uint64_t state, k, yields;
} ys_task;

static cb_sched_status ys_sm_step(cb_sched_task *t, cb_sched_worker *w)
{
    ys_task *x = (ys_task *)t;
    if (x->k == 0) /* its frame: a slot of setup's array */
        cb_sched_count_frames(w, 1, sizeof *x);
    if (x->k == x->yields)
        return CB_SCHED_DONE;
    x->state = ys_step(x->state, x->k);
    x->k++;
    return CB_SCHED_YIELD;
}

typedef struct ys_sm {
    cb_sched *s;
    uint64_t coros, yields, finished;
    ys_task *task;
    cb_sched_task **roots;
} ys_sm;

static void *ys_sm_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl;
    cb_sched *s = cb_swl_sched(p, err, errlen);
    if (!s)
        return NULL;
    ys_sm *w = cb_rt_alloc(sizeof *w);
    w->s = s;
    w->coros = (uint64_t)cb_params_int(p, "coros");
    w->yields = (uint64_t)cb_params_int(p, "yields");
    w->task = cb_rt_alloc(w->coros * sizeof *w->task);
    w->roots = cb_rt_alloc(w->coros * sizeof *w->roots);
    return w;
}

static int ys_sm_run(void *inst, char *err, size_t errlen)
{
    ys_sm *w = inst;
    for (uint64_t i = 0; i < w->coros; i++) {
        w->task[i] = (ys_task){.t = {.run = ys_sm_step, .last_worker = -1},
                               .state = ys_start(i), .yields = w->yields};
        w->roots[i] = &w->task[i].t;
    }
    return cb_swl_run(w->s, w->roots, w->coros, &w->finished, err, errlen);
}

static int ys_sm_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    ys_sm *w = inst;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < w->coros; i++)
        sum += w->task[i].state;
    out->ops = w->coros * w->yields;
    out->checksum = sum;
    cb_rt_free(w->roots, w->coros * sizeof *w->roots);
    cb_rt_free(w->task, w->coros * sizeof *w->task);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- closure: each coroutine an async call's heap frame (impls/closure.h's model): malloc'd
 * when the run starts it, its locals and resume point in it, each call one step and a yield;
 * freed once it has completed and its result is read, all inside the timed run (the frames are
 * made and freed by the thread that runs the scheduler, the steps run on the workers). ---- */
typedef struct ys_cl_frame {
    cb_sched_task t; /* first */
    uint64_t state, k, yields;
} ys_cl_frame;

static cb_sched_status ys_cl_resume(cb_sched_task *t, cb_sched_worker *w)
{
    ys_cl_frame *f = (ys_cl_frame *)t;
    if (f->k == 0) /* its frame, malloc'd by the run */
        cb_sched_count_frames(w, 1, sizeof *f);
    if (f->k) /* resumed after its yield number k - 1 */
        f->state = ys_step(f->state, f->k - 1);
    if (f->k == f->yields)
        return CB_SCHED_DONE;
    f->k++;
    return CB_SCHED_YIELD;
}

typedef struct ys_cl {
    cb_sched *s;
    uint64_t coros, yields, finished, checksum;
    cb_sched_task **roots;
} ys_cl;

static void *ys_cl_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl;
    cb_sched *s = cb_swl_sched(p, err, errlen);
    if (!s)
        return NULL;
    ys_cl *w = cb_rt_alloc(sizeof *w);
    w->s = s;
    w->coros = (uint64_t)cb_params_int(p, "coros");
    w->yields = (uint64_t)cb_params_int(p, "yields");
    w->checksum = 0;
    w->roots = cb_rt_alloc(w->coros * sizeof *w->roots);
    return w;
}

static int ys_cl_run(void *inst, char *err, size_t errlen)
{
    ys_cl *w = inst;
    for (uint64_t i = 0; i < w->coros; i++) {
        ys_cl_frame *f = malloc(sizeof *f);
        if (!f)
            cb_rt_alloc_failed_(sizeof *f);
        *f = (ys_cl_frame){.t = {.run = ys_cl_resume, .last_worker = -1},
                           .state = ys_start(i), .yields = w->yields};
        w->roots[i] = &f->t;
    }
    int rc = cb_swl_run(w->s, w->roots, w->coros, &w->finished, err, errlen);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < w->coros; i++) {
        ys_cl_frame *f = (ys_cl_frame *)w->roots[i];
        sum += f->state;
        free(f);
    }
    w->checksum = sum;
    return rc;
}

static int ys_cl_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    ys_cl *w = inst;
    out->ops = w->coros * w->yields;
    out->checksum = w->checksum;
    cb_rt_free(w->roots, w->coros * sizeof *w->roots);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- stackful: each coroutine a task of the cell's backend on the scheduler (impls/tasks.h),
 * its loop the reference's with a yield in it: the coroutine suspends mid-loop, is requeued on
 * its worker's run queue and resumed by whichever worker takes it (a migration when another
 * does). The tasks are allocated in setup, and their stacks mapped there by a priming run. ---- */
typedef struct ys_sf_task {
    cb_stask x; /* first */
    uint64_t id, yields, state;
} ys_sf_task;

static void ys_sf_body(cb_stask *s)
{
    ys_sf_task *x = (ys_sf_task *)s;
    uint64_t st = ys_start(x->id);
    for (uint64_t k = 0; k < x->yields; k++) {
        cb_stask_yield(s);
        st = ys_step(st, k);
    }
    x->state = st;
}

typedef struct ys_sf {
    cb_sched *s;
    uint64_t coros, yields, finished;
    ys_sf_task *task;
    cb_sched_task **roots;
} ys_sf;

static int ys_sf_run(void *inst, char *err, size_t errlen)
{
    ys_sf *w = inst;
    for (uint64_t i = 0; i < w->coros; i++) {
        cb_stask_make(&w->task[i].x, ys_sf_body, NULL);
        w->task[i].id = i;
        w->task[i].yields = w->yields;
        w->task[i].state = 0;
        w->roots[i] = &w->task[i].x.t;
    }
    return cb_swl_run(w->s, w->roots, w->coros, &w->finished, err, errlen);
}

static void ys_sf_free(ys_sf *w)
{
    cb_rt_free(w->roots, w->coros * sizeof *w->roots);
    cb_rt_free(w->task, w->coros * sizeof *w->task);
    cb_rt_free(w, sizeof *w);
}

static void *ys_sf_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    int fresh;
    cb_sched *s = cb_swl_stackful(impl, p, &fresh, err, errlen);
    if (!s)
        return NULL;
    ys_sf *w = cb_rt_alloc(sizeof *w);
    w->s = s;
    w->coros = (uint64_t)cb_params_int(p, "coros");
    w->yields = (uint64_t)cb_params_int(p, "yields");
    w->task = cb_rt_alloc(w->coros * sizeof *w->task);
    w->roots = cb_rt_alloc(w->coros * sizeof *w->roots);
    /* new pools: one untimed run maps the stacks a run needs (as many as coroutines alive at
     * once: every one on a central queue, one per worker on steal, where a yield returns) */
    if (fresh && cb_swl_prime(ys_sf_run, w, err, errlen) != 0) {
        ys_sf_free(w);
        return NULL;
    }
    return w;
}

static int ys_sf_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    ys_sf *w = inst;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < w->coros; i++)
        sum += w->task[i].state;
    out->ops = w->coros * w->yields;
    out->checksum = sum;
    ys_sf_free(w);
    return 0;
}

static const char *const check_points[][CB_WL_CHECK_SET] = {
    {"coros", "10", "yields", "5"},
    {"coros", "64", "yields", "3"},
    {NULL},
};

const cb_workload cb_wl_yieldstorm = {
    .check_points = check_points,
    .name = "yieldstorm",
    .description = "`coros` coroutines each yield `yields` times; each yield requeues the "
                   "coroutine on its worker's run queue, where idle workers steal it",
    .unit = "yield",
    .params = ys_params,
    .alive = ys_alive,
    .family =
        {
            [CB_BODY_DIRECT] = {ys_dr_setup, ys_dr_run, ys_dr_finish},
            [CB_BODY_SM] = {ys_sm_setup, ys_sm_run, ys_sm_finish},
            [CB_BODY_STACKFUL] = {ys_sf_setup, ys_sf_run, ys_sf_finish},
            [CB_BODY_CLOSURE] = {ys_cl_setup, ys_cl_run, ys_cl_finish},
            [CB_BODY_FIBER] = CB_FIBER_OPS(yieldstorm),
            [CB_BODY_OMP] = CB_OMP_OPS(yieldstorm),
        },
};
