/* What forkjoin and yieldstorm share (sched_wl.h). */
#include "sched_wl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "impls/runtime.h"
#include "impls/tasks.h"

const char *const cb_swl_queues[] = {"steal", "wfcq", "ck", NULL};

static cb_sched *kept;

/* The counts' fields, one by one, for the sums, sub and add. */
#define SWL_FIELDS(X)                                                                           \
    X(tasks) X(suspensions) X(steals) X(failed_steals) X(migrations) X(idle_polls) X(parks)    \
    X(idle_ns) X(frames) X(frame_bytes)

/* s's workers' counts so far, summed, and the first CB_SWL_LISTED workers' idle times and CPUs. */
static void sum_counts(const cb_sched *s, cb_swl_counts *out)
{
    memset(out, 0, sizeof *out);
    out->workers = cb_sched_workers(s);
    out->queue = cb_sched_queue_of(s);
    out->pinned = cb_sched_pinned(s);
    for (unsigned i = 0; i < out->workers; i++) {
        cb_sched_stats st = cb_sched_worker_stats(s, i);
#define SUM(f) out->sum.f += st.f;
        SWL_FIELDS(SUM)
#undef SUM
        if (i < CB_SWL_LISTED) {
            out->idle_ns[i] = st.idle_ns;
            out->cpu[i] = cb_sched_worker_cpu(s, i);
        }
    }
}

/* p's queue; CB_SCHED_NQUEUES when p has none. */
static cb_sched_queue queue_of(const cb_params *p)
{
    const char *qn = NULL;
    for (size_t i = 0; i < p->n && !qn; i++)
        if (!strcmp(p->v[i].def->name, "queue"))
            qn = p->v[i].s;
    cb_sched_queue q = CB_SCHED_STEAL;
    while (qn && q < CB_SCHED_NQUEUES && strcmp(cb_sched_queue_name(q), qn))
        q++;
    return qn ? q : CB_SCHED_NQUEUES;
}

const char *cb_swl_unavailable(const cb_impl *impl, const cb_params *p, char *buf, size_t len)
{
    cb_sched_queue q = queue_of(p);
    if (q == CB_SCHED_NQUEUES)
        return NULL;
    if ((impl->body == CB_BODY_FIBER || impl->body == CB_BODY_OMP) && q != CB_SCHED_STEAL) {
        snprintf(buf, len,
                 "queue=%s: %s runs on its own run queues (%s), so only queue=steal names it",
                 cb_sched_queue_name(q), impl->name,
                 impl->body == CB_BODY_FIBER
                     ? "Boost.Fiber's work_stealing: a ready queue per thread, stealing between "
                       "them"
                     : "libgomp's team queue of tasks");
        return buf;
    }
    const char *why = cb_sched_queue_unavailable(q);
    if (why) {
        snprintf(buf, len, "queue=%s: %s", cb_sched_queue_name(q), why);
        return buf;
    }
    if (impl->body == CB_BODY_CLOSURE && cb_impl_cl_pool(p)) {
        snprintf(buf, len,
                 "alloc=pool keeps a free list per task, which one worker's frames and another's "
                 "cannot share; on the scheduler closure's frames come from malloc (valid here: "
                 "alloc=malloc)");
        return buf;
    }
    if (impl->body == CB_BODY_STACKFUL) {
        cb_co_cfg cfg = cb_impl_co_cfg(impl, p);
        if ((why = cb_stask_unsupported(&cfg))) {
            snprintf(buf, len, "%s's coroutines as the scheduler's tasks: %s", impl->name, why);
            return buf;
        }
    }
    return NULL;
}

cb_sched *cb_swl_sched(const cb_params *p, char *err, size_t errlen)
{
    unsigned workers = (unsigned)cb_params_int(p, "workers");
    cb_sched_queue q = queue_of(p);
    if (kept && cb_sched_workers(kept) == workers && cb_sched_queue_of(kept) == q)
        return kept;
    cb_sched_destroy(kept);
    kept = cb_sched_create(workers, q, err, errlen);
    return kept;
}

int cb_swl_counts_now(cb_swl_counts *out)
{
    memset(out, 0, sizeof *out);
    if (!kept)
        return -1;
    sum_counts(kept, out);
    return 0;
}

void cb_swl_counts_sub(cb_swl_counts *after, const cb_swl_counts *before)
{
#define SUB(f) after->sum.f -= before->sum.f;
    SWL_FIELDS(SUB)
#undef SUB
    for (unsigned i = 0; i < CB_SWL_LISTED; i++)
        after->idle_ns[i] -= before->idle_ns[i];
}

void cb_swl_counts_add(cb_swl_counts *acc, const cb_swl_counts *d)
{
#define ADD(f) acc->sum.f += d->sum.f;
    SWL_FIELDS(ADD)
#undef ADD
    for (unsigned i = 0; i < CB_SWL_LISTED; i++)
        acc->idle_ns[i] += d->idle_ns[i];
    memcpy(acc->cpu, d->cpu, sizeof acc->cpu);
    acc->workers = d->workers;
    acc->queue = d->queue;
    acc->pinned = d->pinned;
}

cb_sched *cb_swl_stackful(const cb_impl *impl, const cb_params *p, int *fresh, char *err,
                          size_t errlen)
{
    cb_sched *s = cb_swl_sched(p, err, errlen);
    if (!s)
        return NULL;
    cb_co_cfg cfg = cb_impl_co_cfg(impl, p);
    *fresh = cb_stask_prepare(s, &cfg, err, errlen);
    return *fresh < 0 ? NULL : s;
}

int cb_swl_prime(int (*run)(void *inst, char *err, size_t errlen), void *inst, char *err,
                 size_t errlen)
{
    uint64_t susp = cb_rt.suspensions;
    int rc = run(inst, err, errlen);
    cb_rt.suspensions = susp;
    return rc;
}

int cb_swl_run(cb_sched *s, cb_sched_task *const *roots, size_t nroots, uint64_t *finished,
               char *err, size_t errlen)
{
    cb_swl_counts a, b;
    sum_counts(s, &a);
    if (cb_sched_run(s, roots, nroots) != 0) {
        snprintf(err, errlen, "scheduler: %s", strerror(errno));
        return -1;
    }
    sum_counts(s, &b);
    cb_swl_counts_sub(&b, &a);
    cb_rt.suspensions += b.sum.suspensions;
    /* every call that did not suspend finished its task */
    *finished = b.sum.tasks - b.sum.suspensions;
    return 0;
}
