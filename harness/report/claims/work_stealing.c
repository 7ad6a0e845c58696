/* Claim 28 of the report (work-stealing, docs/report.md): work stealing beats a central queue
 * (Go's scheduler, Boost.Fiber's work_stealing and Tokio-style runtimes steal; the alternative is
 * one queue every worker shares). forkjoin and yieldstorm on the scheduler (docs/sched.md): a
 * Chase-Lev deque per worker with random-victim stealing (queue=steal) against each central
 * queue (wfcq, ck), each of corobench's own runtimes at the most workers from 2 up to the
 * machine's CPUs; sched_rule.h's rule. */
#include "sched_rule.h"

/* Its margins (docs/report.md, claim 28): the shared DIFF decides each pair. */
static const struct {
    long cpus; /* the fewest CPUs with two workers to share a queue or steal */
} M = {.cpus = 2};

static void eval(const ctx *c, claim *o)
{
    static const char *const central[] = {"wfcq", "ck"};
    cq_sched_queue_rule(c, o, M.cpus, "steal", central, 2,
                        "The argument: schedulers that steal work (Go's, Boost.Fiber's "
                        "work_stealing, Tokio's) beat one queue that every worker shares. A "
                        "Chase-Lev deque per worker with random-victim stealing (queue=steal) "
                        "against one central queue (wfcq: liburcu's wfcqueue; ck: Concurrency "
                        "Kit's ck_fifo_mpmc):");
}

static const cq_claim row = {
    .number = 28,
    .id = "work-stealing",
    .sentence = "Work stealing beats a central queue.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {NULL},
    .command = {.workloads = {&cb_wl_forkjoin, &cb_wl_yieldstorm},
                CQ_IMPLS(CB_IMPL_ASM, CB_IMPL_SM, CB_IMPL_CLOSURE),
                .params = {"workers=2", "queue=steal,wfcq,ck"}},
};
CQ_CLAIM(row);
