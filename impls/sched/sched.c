/* The scheduler's workers (sched.h; docs/sched.md, "The runtime"): each loops over its deque (or
 * the central queue), steals from random victims when it is empty, and backs off when nothing is
 * anywhere: 64 rounds with a pause, 64 with sched_yield, then a futex sleep. A run is an epoch: the
 * caller bumps the epoch word and sleeps until the last worker has seen the run's end. */
#include "impls/sched/sched.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "impls/sched/cqueue.h"
#include "impls/sched/deque.h"

enum {
    SPIN_ROUNDS = 64,  /* idle rounds with a pause before yielding the CPU */
    YIELD_ROUNDS = 64, /* then rounds with sched_yield before sleeping */
    PARK_NS = 1000000, /* a sleep's bound: a wake-up lost to a push's store-load window (below)
                        * costs at most this */
    DEQUE_LOG2 = 8,
};

struct cb_sched_worker {
    cb_deque dq; /* first: its own cache lines */
    cb_sched *s;
    unsigned id;
    int cpu; /* the CPU it is pinned to, -1: not pinned */
    uint64_t rng;
    cb_sched_stats st;
    void *slot; /* a task kind's (cb_sched_worker_slot) */
    pthread_t thread;
    _Alignas(64) char pad_;
};

struct cb_sched {
    unsigned n;
    cb_sched_queue q;
    cb_cq *cq;
    int pinned;
    cb_sched_worker *w; /* n of them */
    void (*free_slot)(void *slot);
    /* A run: the epoch word the workers sleep on, the roots and what is left of them. */
    _Alignas(64) _Atomic uint32_t epoch;
    _Atomic int shutdown;
    cb_sched_task *const *roots;
    size_t nroots;
    _Alignas(64) _Atomic uint64_t remaining; /* roots not finished */
    _Atomic uint32_t done;                   /* the run's roots are all finished */
    _Alignas(64) _Atomic uint32_t left;      /* workers that have left the run: the caller's word */
    _Alignas(64) _Atomic uint32_t sleepers;  /* workers parked (or about to) */
    _Atomic uint32_t wake;                   /* the parked workers' futex word */
};

static const char *const queue_names[CB_SCHED_NQUEUES] = {"steal", "wfcq", "ck"};

const char *cb_sched_queue_name(cb_sched_queue q)
{
    return q < CB_SCHED_NQUEUES ? queue_names[q] : "?";
}

const char *cb_sched_queue_unavailable(cb_sched_queue q)
{
    return q == CB_SCHED_STEAL ? NULL : cb_cq_unavailable(q == CB_SCHED_WFCQ ? CB_CQ_WFCQ : CB_CQ_CK);
}

static _Thread_local cb_sched_worker *self_worker;

/* noinline and a memory clobber: every call reads the thread pointer again (sched.h). */
__attribute__((noinline)) cb_sched_worker *cb_sched_self(void)
{
    __asm__ volatile("" ::: "memory");
    return self_worker;
}

unsigned cb_sched_worker_id(const cb_sched_worker *w) { return w->id; }
cb_sched *cb_sched_of(const cb_sched_worker *w) { return w->s; }
unsigned cb_sched_workers(const cb_sched *s) { return s->n; }
cb_sched_worker *cb_sched_worker_at(cb_sched *s, unsigned i) { return &s->w[i]; }
cb_sched_queue cb_sched_queue_of(const cb_sched *s) { return s->q; }
void cb_sched_count_migration(cb_sched_worker *w) { w->st.migrations++; }
void cb_sched_count_frames(cb_sched_worker *w, uint64_t ntasks, uint64_t bytes)
{
    w->st.frames += ntasks;
    w->st.frame_bytes += bytes;
}
void **cb_sched_worker_slot(cb_sched_worker *w) { return &w->slot; }
void cb_sched_set_slot_free(cb_sched *s, void (*free_slot)(void *)) { s->free_slot = free_slot; }
cb_sched_stats cb_sched_worker_stats(const cb_sched *s, unsigned i) { return s->w[i].st; }
int cb_sched_pinned(const cb_sched *s) { return s->pinned; }
int cb_sched_worker_cpu(const cb_sched *s, unsigned i) { return s->w[i].cpu; }

static long futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, (uint32_t *)word, op | FUTEX_PRIVATE_FLAG, val, ts, NULL, 0);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* xorshift64: the victims' order. */
static inline uint64_t next_rand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void wake_one(cb_sched *s)
{
    atomic_fetch_add_explicit(&s->wake, 1, memory_order_release);
    futex(&s->wake, FUTEX_WAKE, 1, NULL);
}

static void wake_all(cb_sched *s)
{
    atomic_fetch_add_explicit(&s->wake, 1, memory_order_release);
    futex(&s->wake, FUTEX_WAKE, INT_MAX, NULL);
}

static void push(cb_sched_worker *w, cb_sched_task *t)
{
    cb_sched *s = w->s;
    int rc = s->q == CB_SCHED_STEAL ? cb_deque_push(&w->dq, t) : cb_cq_enqueue(s->cq, t);
    if (rc) {
        fprintf(stderr, "corobench: scheduler: no memory for a task on worker %u's queue\n",
                w->id);
        abort();
    }
    /* Relaxed, no fence: a sleeper that registered after this push's store drained sees the task
     * in its last look; one whose registration this load misses (the store-load window) wakes at
     * its PARK_NS bound. A fence here would cost every spawn; this costs only that rare case. */
    if (s->n > 1 && atomic_load_explicit(&s->sleepers, memory_order_relaxed))
        wake_one(s);
}

void cb_sched_spawn(cb_sched_worker *w, cb_sched_task *child) { push(w, child); }

/* One round over the queues: own deque, then up to W - 1 random victims (steal), or the central
 * queue. NULL when nothing was found. */
static cb_sched_task *find(cb_sched_worker *w)
{
    cb_sched *s = w->s;
    if (s->q != CB_SCHED_STEAL)
        return cb_cq_dequeue(s->cq);
    cb_sched_task *t = cb_deque_pop(&w->dq);
    if (t || s->n == 1)
        return t;
    for (unsigned k = 0; k + 1 < s->n; k++) {
        unsigned v = (unsigned)(next_rand(&w->rng) % (s->n - 1));
        v += v >= w->id; /* any worker but itself */
        void *got;
        if (cb_deque_steal(&s->w[v].dq, &got) == CB_STEAL_OK) {
            w->st.steals++;
            return got;
        }
        w->st.failed_steals++;
    }
    return NULL;
}

/* Whether any queue holds a task (a parking worker's last look). */
static int any_work(cb_sched *s)
{
    if (s->q != CB_SCHED_STEAL)
        return !cb_cq_empty(s->cq);
    for (unsigned i = 0; i < s->n; i++)
        if (cb_deque_size(&s->w[i].dq) > 0)
            return 1;
    return 0;
}

static void park(cb_sched_worker *w)
{
    cb_sched *s = w->s;
    uint32_t seen = atomic_load_explicit(&s->wake, memory_order_acquire);
    atomic_fetch_add_explicit(&s->sleepers, 1, memory_order_seq_cst);
    if (!any_work(s) && !atomic_load_explicit(&s->done, memory_order_acquire)) {
        struct timespec ts = {0, PARK_NS};
        w->st.parks++;
        futex(&s->wake, FUTEX_WAIT, seen, &ts);
    }
    atomic_fetch_sub_explicit(&s->sleepers, 1, memory_order_relaxed);
}

static void finished(cb_sched_worker *w, cb_sched_task *t)
{
    cb_sched_task *p = t->parent;
    if (p) {
        /* After this, t may be freed by its parent: not touched again. */
        if (atomic_fetch_sub_explicit(&p->pending, 1, memory_order_acq_rel) == 1)
            push(w, p);
        return;
    }
    cb_sched *s = w->s;
    if (atomic_fetch_sub_explicit(&s->remaining, 1, memory_order_acq_rel) == 1) {
        atomic_store_explicit(&s->done, 1, memory_order_release);
        wake_all(s);
    }
}

static void run_task(cb_sched_worker *w, cb_sched_task *t)
{
    w->st.tasks++;
    switch (t->run(t, w)) {
    case CB_SCHED_DONE:
        finished(w, t);
        break;
    case CB_SCHED_YIELD:
        w->st.suspensions++;
        push(w, t);
        break;
    case CB_SCHED_WAIT:
        w->st.suspensions++;
        /* The task's own share of its join count: its last child may have finished already. */
        if (atomic_fetch_sub_explicit(&t->pending, 1, memory_order_acq_rel) == 1)
            push(w, t);
        break;
    }
}

/* The worker's part of one run: its roots (queue steal), then tasks until the run is done. */
static void run_epoch(cb_sched_worker *w)
{
    cb_sched *s = w->s;
    if (s->q == CB_SCHED_STEAL)
        for (size_t i = w->id; i < s->nroots; i += s->n)
            push(w, s->roots[i]);
    unsigned idle = 0;
    uint64_t idle_from = 0;
    while (!atomic_load_explicit(&s->done, memory_order_acquire)) {
        cb_sched_task *t = find(w);
        if (t) {
            if (idle) {
                w->st.idle_ns += now_ns() - idle_from;
                idle = 0;
            }
            run_task(w, t);
            continue;
        }
        w->st.idle_polls++;
        if (idle++ == 0)
            idle_from = now_ns();
        if (idle <= SPIN_ROUNDS)
            cpu_relax();
        else if (idle <= SPIN_ROUNDS + YIELD_ROUNDS)
            sched_yield();
        else
            park(w);
    }
    if (idle)
        w->st.idle_ns += now_ns() - idle_from;
}

static void *worker_main(void *arg)
{
    cb_sched_worker *w = arg;
    cb_sched *s = w->s;
    self_worker = w;
    uint32_t seen = 0;
    for (;;) {
        uint32_t e;
        while ((e = atomic_load_explicit(&s->epoch, memory_order_acquire)) == seen &&
               !atomic_load_explicit(&s->shutdown, memory_order_acquire))
            futex(&s->epoch, FUTEX_WAIT, seen, NULL);
        if (atomic_load_explicit(&s->shutdown, memory_order_acquire))
            break;
        seen = e;
        run_epoch(w);
        if (atomic_fetch_add_explicit(&s->left, 1, memory_order_acq_rel) + 1 == s->n)
            futex(&s->left, FUTEX_WAKE, 1, NULL);
    }
    return NULL;
}

/* Whether this thread may run on one CPU only (a pinned cell's). */
static int pinned_here(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1;
}

cb_sched *cb_sched_create(unsigned workers, cb_sched_queue q, char *err, size_t errlen)
{
    const char *why = q < CB_SCHED_NQUEUES ? cb_sched_queue_unavailable(q) : "no such queue";
    if (why || workers < 1 || workers > CB_SCHED_MAX_WORKERS) {
        snprintf(err, errlen, "scheduler: %u workers on queue %s: %s", workers,
                 cb_sched_queue_name(q), why ? why : "out of range");
        return NULL;
    }
    cb_sched *s = aligned_alloc(64, sizeof *s);
    cb_sched_worker *w = aligned_alloc(64, sizeof *w * workers);
    if (!s || !w) {
        free(s), free(w);
        snprintf(err, errlen, "scheduler: no memory for %u workers", workers);
        return NULL;
    }
    memset(s, 0, sizeof *s);
    memset(w, 0, sizeof *w * workers);
    s->n = workers;
    s->q = q;
    s->w = w;
    if (q != CB_SCHED_STEAL &&
        !(s->cq = cb_cq_create(q == CB_SCHED_WFCQ ? CB_CQ_WFCQ : CB_CQ_CK))) {
        snprintf(err, errlen, "scheduler: queue %s: %s", cb_sched_queue_name(q), strerror(errno));
        free(w), free(s);
        return NULL;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    s->pinned = pinned_here();
    unsigned started = 0;
    for (; started < workers; started++) {
        cb_sched_worker *x = &w[started];
        x->s = s;
        x->id = started;
        x->cpu = -1;
        x->rng = 0x9e3779b97f4a7c15ULL * (started + 1);
        if (cb_deque_init(&x->dq, DEQUE_LOG2) != 0)
            break;
        pthread_attr_t a;
        pthread_attr_init(&a);
        if (s->pinned && ncpu > 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            x->cpu = (int)(started % (unsigned long)ncpu);
            CPU_SET(x->cpu, &set);
            if (pthread_attr_setaffinity_np(&a, sizeof set, &set) != 0)
                x->cpu = -1;
        }
        int rc = pthread_create(&x->thread, &a, worker_main, x);
        pthread_attr_destroy(&a);
        if (rc) {
            cb_deque_destroy(&x->dq);
            errno = rc;
            break;
        }
    }
    if (started < workers) {
        int e = errno;
        atomic_store(&s->shutdown, 1);
        futex(&s->epoch, FUTEX_WAKE, INT_MAX, NULL);
        for (unsigned i = 0; i < started; i++) {
            pthread_join(w[i].thread, NULL);
            cb_deque_destroy(&w[i].dq);
        }
        if (s->cq)
            cb_cq_destroy(s->cq);
        snprintf(err, errlen, "scheduler: worker %u of %u: %s", started + 1, workers,
                 strerror(e));
        free(w), free(s);
        return NULL;
    }
    return s;
}

void cb_sched_destroy(cb_sched *s)
{
    if (!s)
        return;
    atomic_store_explicit(&s->shutdown, 1, memory_order_release);
    /* The epoch moves too: a worker that saw shutdown 0 and is about to sleep on the epoch's old
     * value then finds it changed and does not sleep. A wake alone was lost in that window, and
     * the join below waited for good (1 destroy in 20 x 3000 right after a run). */
    atomic_fetch_add_explicit(&s->epoch, 1, memory_order_release);
    futex(&s->epoch, FUTEX_WAKE, INT_MAX, NULL);
    for (unsigned i = 0; i < s->n; i++) {
        pthread_join(s->w[i].thread, NULL);
        cb_deque_destroy(&s->w[i].dq);
        if (s->w[i].slot && s->free_slot)
            s->free_slot(s->w[i].slot);
    }
    if (s->cq)
        cb_cq_destroy(s->cq);
    free(s->w);
    free(s);
}

int cb_sched_run(cb_sched *s, cb_sched_task *const *roots, size_t nroots)
{
    if (nroots == 0)
        return 0;
    s->roots = roots;
    s->nroots = nroots;
    atomic_store_explicit(&s->remaining, nroots, memory_order_relaxed);
    atomic_store_explicit(&s->done, 0, memory_order_relaxed);
    atomic_store_explicit(&s->left, 0, memory_order_relaxed);
    if (s->q != CB_SCHED_STEAL)
        for (size_t i = 0; i < nroots; i++)
            if (cb_cq_enqueue(s->cq, roots[i]) != 0)
                return -1; /* nothing ran: the workers are still parked */
    atomic_fetch_add_explicit(&s->epoch, 1, memory_order_release);
    futex(&s->epoch, FUTEX_WAKE, INT_MAX, NULL);
    uint32_t l;
    while ((l = atomic_load_explicit(&s->left, memory_order_acquire)) != s->n)
        futex(&s->left, FUTEX_WAIT, l, NULL);
    return 0;
}
