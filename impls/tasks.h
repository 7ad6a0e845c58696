/* Stackful coroutines as tasks of the scheduler (impls/sched/sched.h; docs/sched.md, "Stackful
 * tasks"): a task's body runs on a stack of its own and suspends in the middle of a call chain,
 * waiting for its children or yielding, and the worker that resumes it may be another than the
 * one it left: the coroutine migrates, stack and all.
 * A body runs on a carrier, a coroutine of the cell's backend (cb_co_cfg: asm, asmjmp, inline,
 * fcontext, ucontext) whose function runs one task's body after another. A task takes a carrier
 * from its worker's pool at its first run and gives it back to the pool of the worker it finishes
 * on, so stacks are mapped once (in setup's priming run, cb_stask_prepare) and reused; the
 * switches between a worker and a carrier go through the backend's jump (the inline backend's
 * asm block inlined here), and the body learns its worker from the resume, never from a
 * thread-local read cached across a switch. */
#ifndef CB_TASKS_H
#define CB_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include "coro.h"
#include "sched/sched.h"

typedef struct cb_stask cb_stask;
typedef struct cb_carrier cb_carrier;

/* Runs a task from its start to its end on the task's own stack; it may call cb_stask_wait and
 * cb_stask_yield any number of times. */
typedef void (*cb_stask_body)(cb_stask *t);

struct cb_stask {
    cb_sched_task t; /* first; t.run is cb_stask_run */
    cb_stask_body body;
    cb_carrier *c;        /* from its first run to its end */
    cb_sched_worker *w;   /* the worker running it now, set at each resumption */
};

/* The run function of every stackful task. */
cb_sched_status cb_stask_run(cb_sched_task *t, cb_sched_worker *w);
/* x, embedded first in a struct of the caller's, becomes a task that runs body with parent as
 * its parent (NULL: a root); spawn &x->t, or make it a root of the run. */
static inline void cb_stask_make(cb_stask *x, cb_stask_body body, cb_sched_task *parent)
{
    *x = (cb_stask){.t = {.run = cb_stask_run, .parent = parent, .last_worker = -1},
                    .body = body};
}

/* From the body, after cb_sched_fork and the spawns: suspends until every child has finished;
 * returns the worker that resumed it (x->w too). */
cb_sched_worker *cb_stask_wait(cb_stask *x);
/* From the body: back on the run queue at once; returns the worker that resumed it. */
cb_sched_worker *cb_stask_yield(cb_stask *x);

/* Untimed, between runs, from the thread that runs the scheduler: the carriers of s are the
 * backend and stack of cfg (a pool made for another cfg is emptied, its carriers destroyed here).
 * 1 when the pools are new (empty: a run would map its stacks, so the caller primes them with an
 * untimed run), 0 when they were prepared for cfg already, or -1 with a one-line reason (a
 * backend that cannot carry tasks: its coroutines are threads, share one stack or are a
 * plugin's). */
int cb_stask_prepare(cb_sched *s, const cb_co_cfg *cfg, char *err, size_t errlen);
/* NULL when cfg's backend can carry tasks, else why not. */
const char *cb_stask_unsupported(const cb_co_cfg *cfg);

/* The carriers alive in this process (made and not destroyed). Between runs only. */
typedef struct cb_stask_counts {
    uint64_t carriers;
} cb_stask_counts;
cb_stask_counts cb_stask_counts_now(void);
/* Heap bytes a carrier of cfg holds besides its stack: the carrier, the coroutine's control
 * block and the backend's contexts. */
size_t cb_stask_carrier_bytes(const cb_co_cfg *cfg);

#endif
