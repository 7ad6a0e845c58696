/* What the scheduler's claims (26 to 28, docs/report.md; the scheduler: docs/sched.md) share:
 * forkjoin and yieldstorm cells of corobench's own runtimes at one workers value, each beside the
 * same runtime's cell at one parameter changed (workers=1, or another queue), in one file at one
 * point; and the rule of claims 27 and 28, one queue against another. */
#ifndef CB_CLAIMS_SCHED_RULE_H
#define CB_CLAIMS_SCHED_RULE_H

#include "query.h"

/* The workloads that run on the scheduler. */
extern const cb_workload *const cq_sched_wls[2];

/* The CPUs the machine had (machine.logical_cpus), 0 when the file does not say. Workers beyond
 * them share CPUs, so such a point measures neither scaling nor contention. */
long cq_cpus(const ctx *c);

/* Each ok plain cell of one of corobench's own runtimes at workload wl, workers=W and match
 * ("queue=steal"), of a coroutine family (not direct, which runs on one thread whatever its
 * workers and queue), its own parameters at their defaults, as .own, with the cell of the same
 * implementation, file and point but parameter name at value ("workers", "1"; "queue", "ck") as
 * .other; a pair whose two cells did not do the same work (ops and checksum) is left out. *n of
 * them (free() the array). */
cq_pair *cq_sched_pairs(const ctx *c, const cb_workload *wl, long W, const char *match,
                        const char *name, const char *value, size_t *n);

/* The most workers, from 2 up to cpus, at which cq_sched_pairs finds a pair in some workload;
 * 0 when none. */
long cq_sched_workers(const ctx *c, long cpus, const char *match, const char *name,
                      const char *value);

/* Claims 27 and 28: queue a against each of the queues b[0..nb-1] (each a queue= value), every
 * own runtime, workload and point at the most workers from 2 up to the machine's CPUs with
 * such pairs. Each pair's time ratio a/b: faster (its interval below 1/(1 + DIFF)) supports, the
 * same or slower (not above 1 + DIFF's complement: cq_decide's D_SAME or D_SLOWER) contradicts,
 * otherwise inconclusive; the claim is contradicted by one pair, supported by all. On a machine
 * with fewer than min_cpus CPUs it is not measured, and the pairs at its most workers are said
 * as a note. what: the argument's sentence, written before the pairs. */
void cq_sched_queue_rule(const ctx *c, claim *o, long min_cpus, const char *a,
                         const char *const *b, size_t nb, const char *what);

#endif
