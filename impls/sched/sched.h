/* The scheduler layer's runtime (issue 31; docs/sched.md, "The runtime"): W worker threads that
 * run tasks from their run queues, the per-worker Chase-Lev deques of deque.h with random-victim
 * stealing (queue steal) or one central FIFO of cqueue.h (wfcq, ck). A task is a header the
 * caller embeds first in its own struct; its run function returns what the task asks next: it is
 * finished, it yields (requeued at once), or it waits for its children (requeued by the last of
 * them to finish). The scheduler knows nothing of coroutines: impls/tasks.h makes a stackful
 * coroutine a task, the workloads' stackless frames are tasks of their own.
 * Idle workers spin, then yield the CPU, then park on a futex; a run ends when its roots are all
 * finished, and the workers park until the next. Everything here is untimed but run(). */
#ifndef CB_SCHED_SCHED_H
#define CB_SCHED_SCHED_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cb_sched cb_sched;
typedef struct cb_sched_worker cb_sched_worker;
typedef struct cb_sched_task cb_sched_task;

/* What a task's run function asks for. */
typedef enum cb_sched_status {
    CB_SCHED_DONE = 0, /* finished: its parent's count of unfinished children goes down */
    CB_SCHED_YIELD,    /* suspended and runnable: back on the run queue at once */
    CB_SCHED_WAIT,     /* suspended until its children finish (cb_sched_fork) */
} cb_sched_status;

/* Runs (or resumes) t on worker w. */
typedef cb_sched_status (*cb_sched_fn)(cb_sched_task *t, cb_sched_worker *w);

struct cb_sched_task {
    cb_sched_fn run;
    cb_sched_task *parent; /* waits for this task; NULL: a root of the run */
    /* While the task waits: its unfinished children, plus 1 that the worker gives up once the
     * task has returned CB_SCHED_WAIT (so the task cannot run again before it has returned). */
    _Atomic uint64_t pending;
    int32_t last_worker; /* impls/tasks.c: the worker that last ran it (-1: none) */
};

typedef enum cb_sched_queue {
    CB_SCHED_STEAL = 0, /* a Chase-Lev deque per worker, random-victim stealing */
    CB_SCHED_WFCQ,      /* one central FIFO: liburcu's wfcqueue */
    CB_SCHED_CK,        /* one central FIFO: Concurrency Kit's ck_fifo_mpmc */
    CB_SCHED_NQUEUES,
} cb_sched_queue;

/* A worker's counts, over the runs since the scheduler was created. */
typedef struct cb_sched_stats {
    uint64_t tasks;         /* run functions called (a task once per run or resumption) */
    uint64_t suspensions;   /* of those, the ones that returned YIELD or WAIT */
    uint64_t steals;        /* tasks taken from another worker's deque */
    uint64_t failed_steals; /* steal attempts that found the victim empty or lost the race */
    uint64_t migrations;    /* stackful resumptions on another worker than the last (tasks.c) */
    uint64_t idle_polls;    /* rounds over the queues that found no task */
    uint64_t parks;         /* times it slept on the futex */
    uint64_t idle_ns;       /* CLOCK_MONOTONIC time from a failed round to the next task or the
                             * run's end (read only at those edges, never while a task runs) */
    uint64_t frames;        /* tasks given a heap frame here by a task kind (cb_sched_count_frames) */
    uint64_t frame_bytes;   /* the bytes of those frames, as malloc_usable_size says */
} cb_sched_stats;

/* "steal", "wfcq", "ck". */
const char *cb_sched_queue_name(cb_sched_queue q);
/* NULL where q can run in this build, else why not. */
const char *cb_sched_queue_unavailable(cb_sched_queue q);

/* W workers (1..CB_SCHED_MAX_WORKERS) on queue q, started and parked. When this thread is
 * pinned to one CPU (a pinned cell), worker i is pinned to CPU i % (online CPUs); otherwise the
 * workers run where the kernel puts them. NULL with a one-line reason in err. */
enum { CB_SCHED_MAX_WORKERS = 1024 };
cb_sched *cb_sched_create(unsigned workers, cb_sched_queue q, char *err, size_t errlen);
/* Stops and joins the workers, then frees everything. */
void cb_sched_destroy(cb_sched *s);

/* One run, from a thread that is not a worker: the roots are handed out (queue steal: root i to
 * worker i % W's deque; central: enqueued in order) and the call returns once every root has
 * finished. 0, or -1 with errno (ENOMEM when a queue could not take a task). */
int cb_sched_run(cb_sched *s, cb_sched_task *const *roots, size_t nroots);

/* From a task on worker w: sets t's join count for n children, to be called before its children
 * are spawned, and makes t their parent. */
static inline void cb_sched_fork(cb_sched_task *t, uint64_t n)
{
    atomic_store_explicit(&t->pending, n + 1, memory_order_relaxed);
}
/* From a task running on worker w (owner of its deque): makes child runnable (w's deque bottom,
 * or the central queue's tail). Aborts when out of memory. */
void cb_sched_spawn(cb_sched_worker *w, cb_sched_task *child);

/* The worker that runs the calling thread's task, or NULL on another thread. Not inline, with a
 * compiler barrier: a stackful task may have moved to another worker since its last call, and a
 * thread-local address computed before a switch would be the old thread's (docs/sched.md). */
cb_sched_worker *cb_sched_self(void);
unsigned cb_sched_worker_id(const cb_sched_worker *w);
/* Worker i (i < cb_sched_workers(s)). */
cb_sched_worker *cb_sched_worker_at(cb_sched *s, unsigned i);
cb_sched *cb_sched_of(const cb_sched_worker *w);
unsigned cb_sched_workers(const cb_sched *s);
cb_sched_queue cb_sched_queue_of(const cb_sched *s);
/* Counted by a task kind on worker w (its own thread only). */
void cb_sched_count_migration(cb_sched_worker *w);
/* Counted by a stackless task kind on worker w (its own thread only): ntasks tasks given heap
 * frames of bytes in all (memory per live task, docs/sched.md). */
void cb_sched_count_frames(cb_sched_worker *w, uint64_t ntasks, uint64_t bytes);
/* A pointer per worker that a task kind keeps there (its stack pool), with what frees it at
 * destroy (on the destroying thread, the workers joined). One kind per scheduler. */
void **cb_sched_worker_slot(cb_sched_worker *w);
void cb_sched_set_slot_free(cb_sched *s, void (*free_slot)(void *slot));

/* Worker i's counts so far (between runs only). */
cb_sched_stats cb_sched_worker_stats(const cb_sched *s, unsigned i);
/* 1 when the workers are pinned (the creating thread was pinned to one CPU). */
int cb_sched_pinned(const cb_sched *s);
/* The CPU worker i is pinned to, -1 when it is not (or its affinity could not be set). */
int cb_sched_worker_cpu(const cb_sched *s, unsigned i);

#endif
