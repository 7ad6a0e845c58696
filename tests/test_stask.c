/* Stackful tasks on the scheduler (impls/tasks.h): coroutines that suspend in the middle of their
 * body and are resumed by another worker. The migration test runs under ThreadSanitizer too (make
 * check-tsan), with the switches told to it as fibers. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "impls/coro.h"
#include "impls/sched/sched.h"
#include "impls/tasks.h"
#include "tests/test.h"

extern const cb_co_backend cb_backend_asm;

enum { MIGRATIONS = 10000, MAX_SECONDS = 120, SPIN_NS = 200000 };

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* A thread-local variable's address, read afresh: the worker's own thread whatever happened
 * before the call. */
static __thread int tls_probe;
static __attribute__((noinline)) int *tls_addr(void)
{
    int *p = &tls_probe;
    __asm__ volatile("" : "+r"(p));
    return p;
}

typedef struct mig_child {
    cb_stask x; /* first */
    _Atomic int started;
    unsigned ran_on;
} mig_child;

typedef struct mig_root {
    cb_stask x; /* first */
    unsigned rounds, resumed_elsewhere;
    uint64_t sum; /* of values kept in the coroutine's frame across every suspension */
    int *tls_seen[2];
    pthread_t thread_of[2];
    int seen[2];
    const char *bad; /* the first broken rule, for the test to report */
} mig_root;

/* Started (on the other worker, by a steal), it holds until its parent's worker has given up
 * the parent's own share of the wait (sched.h), so that its own end is the last and pushes the
 * parent on its worker (up to SPIN_NS). */
static void child_body(cb_stask *s)
{
    mig_child *c = (mig_child *)s;
    c->ran_on = cb_sched_worker_id(s->w);
    atomic_store_explicit(&c->started, 1, memory_order_release);
    for (double end = now_ns() + SPIN_NS;
         atomic_load_explicit(&s->t.parent->pending, memory_order_relaxed) > 1 && now_ns() < end;)
        ;
}

/* On whichever worker runs it now: the resume's worker is the thread's own, and a thread-local
 * address read afresh is the one this worker's thread has had all along. */
static void check_where(mig_root *r, cb_sched_worker *w)
{
    unsigned id = cb_sched_worker_id(w);
    if (id >= 2) {
        r->bad = "a worker id beyond the two workers";
        return;
    }
    if (cb_sched_self() != w && !r->bad)
        r->bad = "the worker the resume named is not the thread's own (cb_sched_self)";
    if (!r->seen[id]) {
        r->seen[id] = 1;
        r->tls_seen[id] = tls_addr();
        r->thread_of[id] = pthread_self();
    } else if ((r->tls_seen[id] != tls_addr() || !pthread_equal(r->thread_of[id], pthread_self()))
               && !r->bad) {
        r->bad = "a thread-local address read after a migration is another thread's";
    }
}

/* Each round forks one child and, before waiting, spins until some worker has started it (up to
 * SPIN_NS): its own worker is busy spinning, so the child runs only if the other worker steals
 * it, and the parent is then made runnable where its child finished, on the other worker, which
 * resumes it unless the first, idle now, steals it back first. */
static void root_body(cb_stask *s)
{
    mig_root *r = (mig_root *)s;
    cb_sched_worker *w = s->w;
    uint64_t sum = 0;
    check_where(r, w);
    for (unsigned i = 0; i < r->rounds; i++) {
        mig_child c;
        cb_stask_make(&c.x, child_body, &s->t);
        atomic_init(&c.started, 0);
        cb_sched_fork(&s->t, 1);
        cb_sched_spawn(w, &c.x.t);
        for (double end = now_ns() + SPIN_NS;
             !atomic_load_explicit(&c.started, memory_order_acquire) && now_ns() < end;)
            ;
        unsigned before = cb_sched_worker_id(w);
        w = cb_stask_wait(s);
        check_where(r, w);
        r->resumed_elsewhere += cb_sched_worker_id(w) != before;
        sum += i;
    }
    r->sum = sum;
}

/* 10,000 migrations or more of one coroutine between two workers: after each, the frame's values
 * are intact, the resume's worker is the thread's own and a thread-local read is that thread's;
 * the runtime counts every one (docs/sched.md, "Stackful tasks"). */
CB_TEST_T(stask_ten_thousand_migrations_keep_frames_and_thread_locals, 300)
{
    char err[256];
    cb_sched *s = cb_sched_create(2, CB_SCHED_STEAL, err, sizeof err);
    if (!s)
        CB_FAIL("%s", err);
    cb_co_cfg cfg = {&cb_backend_asm, 65536, CB_STACK_GUARDED};
    CB_CHECK(cb_stask_prepare(s, &cfg, err, sizeof err) == 1);
    static mig_root r;
    uint64_t migrations = 0, rounds = 0, elsewhere = 0;
    double t0 = now_ns();
    while (migrations < MIGRATIONS && now_ns() < t0 + MAX_SECONDS * 1e9) {
        memset(&r, 0, sizeof r);
        cb_stask_make(&r.x, root_body, NULL);
        r.rounds = 2000;
        cb_sched_task *roots[] = {&r.x.t};
        CB_CHECK_EQ_INT(cb_sched_run(s, roots, 1), 0);
        if (r.bad)
            CB_FAIL("%s (round %llu)", r.bad, (unsigned long long)rounds);
        rounds += r.rounds;
        elsewhere += r.resumed_elsewhere;
        migrations = 0;
        for (unsigned i = 0; i < 2; i++)
            migrations += cb_sched_worker_stats(s, i).migrations;
        CB_CHECK_EQ_U64(r.sum, (uint64_t)r.rounds * (r.rounds - 1) / 2);
    }
    /* the runtime's count is the body's own view of it */
    CB_CHECK_EQ_U64(migrations, elsewhere);
    fprintf(stderr, "  %llu migrations in %llu rounds, %.2f s\n", (unsigned long long)migrations,
            (unsigned long long)rounds, (now_ns() - t0) / 1e9);
    if (migrations < MIGRATIONS)
        CB_FAIL("only %llu migrations in %llu rounds and %d s: the second worker hardly ran (a "
                "machine with one free CPU?)",
                (unsigned long long)migrations, (unsigned long long)rounds, MAX_SECONDS);
    cb_stask_counts n = cb_stask_counts_now();
    /* the root and one child at a time: two carriers, whichever pools they end in */
    CB_CHECK(n.carriers >= 2);
    cb_sched_destroy(s);
}
