/* forkjoin and yieldstorm with no coroutine on W OpenMP threads (docs/sched.md, "Peers": omp),
 * compiled with -fopenmp (the Makefile's OMP rules). forkjoin: every node an OpenMP task per
 * child (`#pragma omp task`, each writing its subtree's result into the parent's array) and a
 * `taskwait`, inside one parallel region of W threads whose `single` thread starts the root;
 * libgomp's threads take tasks from one team queue, and a thread at a taskwait runs other tasks
 * on its own stack meanwhile, so a waiting node is not suspended: like direct, no suspension.
 * yieldstorm: OpenMP has no yield that requeues a task (libgomp's GOMP_taskyield does nothing),
 * so each coroutine's states are computed in turn as direct's, the coroutines shared out over the
 * W threads (`parallel for`, dynamic chunks): direct's work on W threads, no suspension. The
 * team's threads are started in setup by an empty parallel region (untimed) and kept by libgomp
 * between regions. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impls/runtime.h"
#include "workloads/forkjoin.h"
#include "workloads/sched_omp.h"
#include "workloads/workload.h"
#include "workloads/yieldstorm.h"

/* W from p, the team started (a queue other than steal is unsupported before setup:
 * workloads/sched_wl.c, cb_swl_unavailable). */
static int omp_team(const cb_params *p, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    int w = (int)cb_params_int(p, "workers");
    omp_set_dynamic(0);
#pragma omp parallel num_threads(w)
    {
    }
    return w;
}

/* ---- forkjoin ---------------------------------------------------------------------------- */

typedef struct omp_fj {
    fj_tree t;
    int workers;
    uint64_t tasks, sum;
} omp_fj;

typedef struct fj_sub {
    uint64_t sum, tasks;
} fj_sub;

static fj_sub omp_node(const fj_tree *t, uint64_t id, int64_t level)
{
    uint64_t n = fj_nchildren(t, id, level);
    fj_sub r = {fj_value(t, id, n), 1};
    if (n == 0)
        return r;
    fj_sub near[16], *kids = n <= 16 ? near : malloc(n * sizeof *kids);
    if (!kids)
        abort(); /* a task has no way to fail the run */
    for (uint64_t i = 0; i < n; i++) {
#pragma omp task shared(kids) firstprivate(i)
        kids[i] = omp_node(t, fj_child(t, id, i), level + 1);
    }
#pragma omp taskwait
    for (uint64_t i = 0; i < n; i++) {
        r.sum += kids[i].sum;
        r.tasks += kids[i].tasks;
    }
    if (kids != near)
        free(kids);
    return r;
}

void *cb_omp_forkjoin_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl;
    int w = omp_team(p, err, errlen);
    if (w < 0)
        return NULL;
    omp_fj *x = cb_rt_alloc(sizeof *x);
    memset(x, 0, sizeof *x);
    fj_tree_init(&x->t, p);
    x->workers = w;
    return x;
}

int cb_omp_forkjoin_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    omp_fj *x = inst;
    fj_sub r = {0, 0};
#pragma omp parallel num_threads(x->workers)
#pragma omp single
    r = omp_node(&x->t, 0, 0);
    x->sum = r.sum;
    x->tasks = r.tasks;
    return 0;
}

int cb_omp_forkjoin_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    omp_fj *x = inst;
    out->ops = x->tasks;
    out->checksum = x->sum;
    cb_rt_free(x, sizeof *x);
    return 0;
}

/* ---- yieldstorm -------------------------------------------------------------------------- */

typedef struct omp_ys {
    int workers;
    uint64_t coros, yields, sum;
} omp_ys;

void *cb_omp_yieldstorm_setup(const cb_impl *impl, const cb_params *p, char *err,
                              size_t errlen)
{
    (void)impl;
    int w = omp_team(p, err, errlen);
    if (w < 0)
        return NULL;
    omp_ys *x = cb_rt_alloc(sizeof *x);
    x->workers = w;
    x->coros = (uint64_t)cb_params_int(p, "coros");
    x->yields = (uint64_t)cb_params_int(p, "yields");
    x->sum = 0;
    return x;
}

int cb_omp_yieldstorm_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    omp_ys *x = inst;
    uint64_t sum = 0, coros = x->coros, yields = x->yields;
#pragma omp parallel for num_threads(x->workers) schedule(dynamic, 16) reduction(+ : sum)
    for (uint64_t id = 0; id < coros; id++) {
        uint64_t s = ys_start(id);
        for (uint64_t k = 0; k < yields; k++)
            s = ys_step(s, k);
        sum += s;
    }
    x->sum = sum;
    return 0;
}

int cb_omp_yieldstorm_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    omp_ys *x = inst;
    out->ops = x->coros * x->yields;
    out->checksum = x->sum;
    cb_rt_free(x, sizeof *x);
    return 0;
}
