/* What forkjoin and yieldstorm share (sched_wl.h). */
#include "sched_wl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "impls/runtime.h"

const char *const cb_swl_queues[] = {"steal", "wfcq", "ck", NULL};

static cb_sched *kept;

/* The workers' calls of run functions and the suspensions among them, summed. */
static void counts(const cb_sched *s, uint64_t *calls, uint64_t *susp)
{
    *calls = *susp = 0;
    for (unsigned i = 0; i < cb_sched_workers(s); i++) {
        cb_sched_stats st = cb_sched_worker_stats(s, i);
        *calls += st.tasks;
        *susp += st.suspensions;
    }
}

cb_sched *cb_swl_sched(const cb_params *p, char *err, size_t errlen)
{
    unsigned workers = (unsigned)cb_params_int(p, "workers");
    const char *qn = cb_params_str(p, "queue");
    cb_sched_queue q = CB_SCHED_STEAL;
    while (q < CB_SCHED_NQUEUES && strcmp(cb_sched_queue_name(q), qn))
        q++;
    if (kept && cb_sched_workers(kept) == workers && cb_sched_queue_of(kept) == q)
        return kept;
    cb_sched_destroy(kept);
    kept = cb_sched_create(workers, q, err, errlen);
    return kept;
}

int cb_swl_run(cb_sched *s, cb_sched_task *const *roots, size_t nroots, uint64_t *finished,
               char *err, size_t errlen)
{
    uint64_t c0, s0, c1, s1;
    counts(s, &c0, &s0);
    if (cb_sched_run(s, roots, nroots) != 0) {
        snprintf(err, errlen, "scheduler: %s", strerror(errno));
        return -1;
    }
    counts(s, &c1, &s1);
    cb_rt.suspensions += s1 - s0;
    *finished = (c1 - c0) - (s1 - s0); /* every call that did not suspend finished its task */
    return 0;
}
