/* What the scheduler's workloads (forkjoin and yieldstorm, docs/sched.md "Workloads") share: the
 * mixing function their data path and checksum are made of, written out in docs/sched.md so that
 * every port computes the same values, and the two parameters that say how the scheduler runs:
 * `workers` (threads) and `queue` (per-worker deques with stealing, or one central queue). */
#ifndef CB_SCHED_WL_H
#define CB_SCHED_WL_H

#include <stdint.h>

#include "impls/impls.h"
#include "impls/sched/sched.h"
#include "params/params.h"

/* splitmix64's output function applied to x + the golden gamma (Steele, Lea and Flood, "Fast
 * splittable pseudorandom number generators", OOPSLA 2014): a bijection of 64-bit words in which
 * every input bit reaches every output bit; mix(0) is not 0. */
static inline uint64_t cb_swl_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ x >> 27) * 0x94d049bb133111ebULL;
    return x ^ x >> 31;
}

/* queue=: the scheduler's run queues (impls/sched/: steal, the per-worker Chase-Lev deques with
 * random-victim stealing; wfcq and ck, one central FIFO on liburcu's wfcqueue or Concurrency
 * Kit's CAS queue). */
extern const char *const cb_swl_queues[];

/* The rows of `workers` and `queue` in a workload's parameter table. */
#define CB_SWL_PARAMS                                                                             \
    {"workers", CB_PARAM_INT, "1", 1, 1024, NULL,                                                 \
     "worker threads of the scheduler (more than this machine's CPUs run too, time-shared: the " \
     "cell's sched.oversubscribed says so)",                                                      \
     NULL},                                                                                       \
    {                                                                                             \
        "queue", CB_PARAM_ENUM, "steal", 0, 0, cb_swl_queues,                                     \
            "steal: a Chase-Lev deque per worker, idle workers steal from a random victim; "      \
            "wfcq: one central FIFO, liburcu's wfcqueue (wait-free enqueue); ck: one central "    \
            "FIFO, Concurrency Kit's ck_fifo_mpmc (CAS at both ends)",                            \
            NULL                                                                                  \
    }

/* Why impl's body on the scheduler cannot run p here: its queue not built (liburcu or ck missing
 * at build time, as on a cross build), a stackful backend whose coroutines cannot be tasks
 * (impls/tasks.h), closure's alloc=pool, or a queue other than steal for a runtime with run
 * queues of its own (fiber, omp); NULL when it can, or when p has no queue (not a scheduler workload). */
const char *cb_swl_unavailable(const cb_impl *impl, const cb_params *p, char *buf, size_t len);
/* The process's scheduler for p's workers and queue, created (its workers started and parked)
 * at the first call, in a body's untimed setup, and kept for the process: the instances of a
 * batch and the repetitions share it, and a run's time holds no thread creation. Another
 * workers or queue than the kept one's replaces it. NULL with a one-line reason in err. */
cb_sched *cb_swl_sched(const cb_params *p, char *err, size_t errlen);
/* What the kept scheduler's workers have counted so far (between runs only), for the harness
 * around a cell's timed runs (harness/measure/cell.c: the cell's `sched` object): the counts
 * summed over the workers, and the first CB_SWL_LISTED workers' idle time one by one. */
enum { CB_SWL_LISTED = 64 };
typedef struct cb_swl_counts {
    unsigned workers;
    cb_sched_queue queue;
    int pinned;
    cb_sched_stats sum;
    uint64_t idle_ns[CB_SWL_LISTED];
    int cpu[CB_SWL_LISTED]; /* where each is pinned, -1: not */
} cb_swl_counts;
/* 0, or -1 when this process keeps no scheduler (a cell that is not on one). */
int cb_swl_counts_now(cb_swl_counts *out);
/* after - before, counts and idle times (the same scheduler's). */
void cb_swl_counts_sub(cb_swl_counts *after, const cb_swl_counts *before);
/* acc += d. */
void cb_swl_counts_add(cb_swl_counts *acc, const cb_swl_counts *d);

/* cb_swl_sched for a stackful body: the scheduler with its pools of carriers prepared for
 * impl's backend and stack (impls/tasks.h, cb_stask_prepare); *fresh is 1 when they are new
 * (the caller primes them with cb_swl_prime). NULL with a one-line reason in err. */
cb_sched *cb_swl_stackful(const cb_impl *impl, const cb_params *p, int *fresh, char *err,
                          size_t errlen);
/* An untimed run of a body's run function from its setup (mapping a stackful body's stacks),
 * the suspensions it counted taken back. 0, or -1 with run's reason. */
int cb_swl_prime(int (*run)(void *inst, char *err, size_t errlen), void *inst, char *err,
                 size_t errlen);
/* Runs the roots on s and adds the suspensions its workers counted (a WAIT or a YIELD each) to
 * the runtime's count (impls/runtime.h), from this thread: the workers never touch it. The tasks
 * that finished in the run in *finished. 0, or -1 with a reason. */
int cb_swl_run(cb_sched *s, cb_sched_task *const *roots, size_t nroots, uint64_t *finished,
               char *err, size_t errlen);

#endif
