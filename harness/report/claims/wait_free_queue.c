/* Claim 27 of the report (wait-free-queue, docs/report.md): a wait-free queue beats a CAS-based
 * one under contention (the thread's last answer: wait-free queues, "300 M transactions per
 * second per queue", against CAS-based lock-free ones). forkjoin and yieldstorm on the
 * scheduler's one central queue (docs/sched.md): liburcu's wfcqueue (queue=wfcq: a wait-free
 * enqueue, a dequeue serialised on its head lock, as liburcu ships it) against Concurrency Kit's
 * ck_fifo_mpmc (queue=ck: Michael and Scott's CAS loops), each of corobench's own runtimes at the
 * most workers up to the machine's CPUs; sched_rule.h's rule. Contention needs workers on CPUs of
 * their own: below M.cpus CPUs the claim is not measured and the pairs there are a note. */
#include "sched_rule.h"

/* Its margins (docs/report.md, claim 27): the shared DIFF decides each pair. */
static const struct {
    long cpus; /* the fewest CPUs (and workers) that contend the queue */
} M = {.cpus = 4};

static void eval(const ctx *c, claim *o)
{
    static const char *const ck[] = {"ck"};
    cq_sched_queue_rule(c, o, M.cpus, "wfcq", ck, 1,
                        "The argument (the thread's last answer): wait-free queues beat CAS-based "
                        "lock-free ones. liburcu's wfcqueue (queue=wfcq: its enqueue wait-free, "
                        "its dequeue serialised on the head lock, as liburcu ships it) against "
                        "Concurrency Kit's ck_fifo_mpmc (queue=ck: a CAS loop at each end), as "
                        "the scheduler's one central queue:");
}

static const cq_claim row = {
    .number = 27,
    .id = "wait-free-queue",
    .sentence = "A wait-free queue beats a CAS-based one under contention.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {NULL},
    .command = {.workloads = {&cb_wl_forkjoin, &cb_wl_yieldstorm},
                CQ_IMPLS(CB_IMPL_ASM, CB_IMPL_SM, CB_IMPL_CLOSURE),
                .params = {"workers=4", "queue=wfcq,ck"}},
};
CQ_CLAIM(row);
