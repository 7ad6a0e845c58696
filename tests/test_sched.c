/* The scheduler layer's queues under real concurrency (issue 31, docs/sched.md): every task
 * taken exactly once, none lost, none twice, and its contents seen as written. The figures (tasks,
 * steals, seconds) go to stderr, shown by `cbtest -v`. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#include "impls/sched/cqueue.h"
#include "impls/sched/deque.h"
#include "impls/sched/sched.h"
#include "tests/test.h"
#include "workloads/sched_wl.h"

/* A task as a scheduler's would be: memory the pusher wrote before handing it over, which the
 * taker must see (push's release, steal's acquire). */
typedef struct sched_task {
    uint32_t id;
    uint32_t seal; /* id's hash, written before the push, checked by whoever takes the task */
} sched_task;

static uint32_t seal_of(uint32_t id)
{
    return id * 2654435761u ^ 0x5bd1e995u;
}

static sched_task *tasks_new(uint32_t n)
{
    sched_task *t = calloc(n, sizeof *t);
    CB_CHECK(t != NULL);
    return t;
}

/* Counts a taken task in the taker's own array (one byte per id: 0, 1, or more is a duplicate). */
static void take(uint8_t *seen, const sched_task *t, uint32_t n)
{
    if (t->id >= n || t->seal != seal_of(t->id))
        CB_FAIL("a task taken with id %u seal %#x: its contents were not seen as written", t->id,
                t->seal);
    if (seen[t->id] < 255)
        seen[t->id]++;
}

/* Every id taken once over the takers' arrays. */
static void check_exactly_once(uint8_t *const *seen, int ntakers, uint32_t n)
{
    uint32_t lost = 0, twice = 0, first_bad = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        unsigned c = 0;
        for (int k = 0; k < ntakers; k++)
            c += seen[k][i];
        if (c != 1 && first_bad == UINT32_MAX)
            first_bad = i;
        lost += c == 0;
        twice += c > 1;
    }
    if (lost || twice)
        CB_FAIL("of %u tasks, %u never taken and %u taken more than once (first: id %u)", n, lost,
                twice, first_bad);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* ---- the deque: one owner pushing and popping, one thief stealing ---------------------------- */

/* The acceptance: 10 million operations, each a push or a task taken (by pop or steal),
 * so half as many tasks. */
enum { DEQUE_OPS = 10000000, DEQUE_TASKS = DEQUE_OPS / 2 };

typedef struct deque_run {
    cb_deque dq;
    sched_task *tasks;
    uint8_t *seen_owner, *seen_thief;
    atomic_int done, thief_ready;
    uint64_t pops, steals, lost, empty;
} deque_run;

static void *thief_main(void *arg)
{
    deque_run *r = arg;
    atomic_store_explicit(&r->thief_ready, 1, memory_order_release);
    for (;;) {
        void *t;
        cb_steal_result s = cb_deque_steal(&r->dq, &t);
        if (s == CB_STEAL_OK) {
            take(r->seen_thief, t, DEQUE_TASKS);
            r->steals++;
        } else if (s == CB_STEAL_LOST) {
            r->lost++;
        } else {
            r->empty++;
            /* The owner drained the deque before saying done: nothing can come after. */
            if (atomic_load_explicit(&r->done, memory_order_acquire))
                break;
        }
    }
    return NULL;
}

/* The owner pushes bursts of 1..32 tasks and pops 0..31, so the deque is often down to its last
 * task (pop's race with the thief on top); every 2048th burst pushes 4096 at once, so the array,
 * 4 slots at first, grows while the thief steals from it. */
static void owner_run(deque_run *r)
{
    uint64_t rng = 0x9e3779b97f4a7c15u, burst = 0;
    uint32_t next = 0;
    /* The thief is stealing before the first push, so the whole run is contended. */
    while (!atomic_load_explicit(&r->thief_ready, memory_order_acquire))
        sched_yield();
    while (next < DEQUE_TASKS) {
        uint64_t x = xorshift(&rng);
        uint32_t npush = ++burst % 2048 == 0 ? 4096 : 1 + (uint32_t)(x & 31);
        uint32_t npop = (uint32_t)(x >> 5 & 31);
        for (uint32_t i = 0; i < npush && next < DEQUE_TASKS; i++, next++) {
            r->tasks[next] = (sched_task){next, seal_of(next)};
            CB_CHECK_EQ_INT(cb_deque_push(&r->dq, &r->tasks[next]), 0);
        }
        for (uint32_t i = 0; i < npop; i++) {
            sched_task *t = cb_deque_pop(&r->dq);
            if (!t)
                break;
            take(r->seen_owner, t, DEQUE_TASKS);
            r->pops++;
        }
    }
    for (sched_task *t; (t = cb_deque_pop(&r->dq));) {
        take(r->seen_owner, t, DEQUE_TASKS);
        r->pops++;
    }
    atomic_store_explicit(&r->done, 1, memory_order_release);
}

CB_TEST(deque_steal_against_pop_and_push_takes_every_task_once)
{
    static deque_run r;
    r.tasks = tasks_new(DEQUE_TASKS); /* each written by the owner just before its push */
    r.seen_owner = calloc(DEQUE_TASKS, 1);
    r.seen_thief = calloc(DEQUE_TASKS, 1);
    CB_CHECK(r.seen_owner && r.seen_thief);
    CB_CHECK_EQ_INT(cb_deque_init(&r.dq, 2), 0);
    atomic_init(&r.done, 0);
    atomic_init(&r.thief_ready, 0);

    double t0 = now_s();
    pthread_t thief;
    CB_CHECK_EQ_INT(pthread_create(&thief, NULL, thief_main, &r), 0);
    owner_run(&r);
    CB_CHECK_EQ_INT(pthread_join(thief, NULL), 0);
    double secs = now_s() - t0;

    uint8_t *seen[] = {r.seen_owner, r.seen_thief};
    check_exactly_once(seen, 2, DEQUE_TASKS);
    CB_CHECK_EQ_U64(r.pops + r.steals, DEQUE_TASKS);
    CB_CHECK_EQ_INT(cb_deque_size(&r.dq), 0);
    fprintf(stderr,
            "deque: %d operations (%d pushes, %" PRIu64 " pops, %" PRIu64 " steals) in %.2f s; "
            "%" PRIu64 " steals lost a race, %" PRIu64 " found it empty\n",
            DEQUE_OPS, DEQUE_TASKS, r.pops, r.steals, secs, r.lost, r.empty);
    /* The thief ran for the whole run: a thief that never stole tested nothing. */
    if (r.steals == 0)
        CB_FAIL("the thief stole nothing in %.2f s (%" PRIu64 " empty, %" PRIu64 " lost)", secs,
                r.empty, r.lost);
    cb_deque_destroy(&r.dq);
}

/* Single-threaded semantics, the order the scheduler relies on: the owner's end is LIFO, the
 * thieves' FIFO, growing keeps both, and an empty deque says so at both ends. */
CB_TEST(deque_owner_lifo_thief_fifo_through_growth)
{
    cb_deque dq;
    CB_CHECK_EQ_INT(cb_deque_init(&dq, 1), 0);
    void *t;
    CB_CHECK(cb_deque_pop(&dq) == NULL);
    CB_CHECK_EQ_INT(cb_deque_steal(&dq, &t), CB_STEAL_EMPTY);
    static sched_task tk[100];
    for (int i = 0; i < 100; i++)
        CB_CHECK_EQ_INT(cb_deque_push(&dq, &tk[i]), 0);
    CB_CHECK_EQ_INT(cb_deque_size(&dq), 100);
    for (int i = 0; i < 40; i++) {
        CB_CHECK_EQ_INT(cb_deque_steal(&dq, &t), CB_STEAL_OK);
        CB_CHECK(t == &tk[i]);
    }
    for (int i = 99; i >= 40; i--)
        CB_CHECK(cb_deque_pop(&dq) == &tk[i]);
    CB_CHECK(cb_deque_pop(&dq) == NULL);
    CB_CHECK_EQ_INT(cb_deque_steal(&dq, &t), CB_STEAL_EMPTY);
    CB_CHECK_EQ_INT(cb_deque_init(&(cb_deque){0}, 0), -1);
    cb_deque_destroy(&dq);
}

/* ---- the central queues: two producers, two consumers ---------------------------------------- */

enum { CQ_OPS = 10000000, CQ_TASKS = CQ_OPS / 2, CQ_PRODUCERS = 2, CQ_CONSUMERS = 2 };

typedef struct cq_run {
    cb_cq *q;
    sched_task *tasks;
    uint8_t *seen[CQ_CONSUMERS];
    atomic_uint taken;
    uint64_t empty[CQ_CONSUMERS];
} cq_run;

typedef struct cq_arg {
    cq_run *r;
    int k;
} cq_arg;

/* Producer k enqueues the ids k, k + 2, k + 4, ... */
static void *producer_main(void *arg)
{
    const cq_arg *a = arg;
    for (uint32_t i = (uint32_t)a->k; i < CQ_TASKS; i += CQ_PRODUCERS) {
        a->r->tasks[i] = (sched_task){i, seal_of(i)};
        CB_CHECK_EQ_INT(cb_cq_enqueue(a->r->q, &a->r->tasks[i]), 0);
    }
    return NULL;
}

static void *consumer_main(void *arg)
{
    const cq_arg *a = arg;
    cq_run *r = a->r;
    while (atomic_load_explicit(&r->taken, memory_order_relaxed) < CQ_TASKS) {
        sched_task *t = cb_cq_dequeue(r->q);
        if (!t) {
            r->empty[a->k]++;
            continue;
        }
        take(r->seen[a->k], t, CQ_TASKS);
        atomic_fetch_add_explicit(&r->taken, 1, memory_order_relaxed);
    }
    return NULL;
}

static void cq_exactly_once(cb_cq_kind kind)
{
    if (cb_cq_unavailable(kind))
        CB_SKIP("%s: %s", cb_cq_name(kind), cb_cq_unavailable(kind));
    static cq_run r;
    r.q = cb_cq_create(kind);
    CB_CHECK(r.q != NULL);
    CB_CHECK(cb_cq_empty(r.q));
    CB_CHECK(cb_cq_dequeue(r.q) == NULL);
    r.tasks = tasks_new(CQ_TASKS); /* each written by its producer just before its enqueue */
    for (uint32_t i = 0; i < 3; i++)
        r.tasks[i] = (sched_task){i, seal_of(i)};
    for (int k = 0; k < CQ_CONSUMERS; k++)
        CB_CHECK((r.seen[k] = calloc(CQ_TASKS, 1)) != NULL);
    atomic_init(&r.taken, 0);

    /* FIFO on one thread first: the order central scheduling promises. */
    for (int i = 0; i < 3; i++)
        CB_CHECK_EQ_INT(cb_cq_enqueue(r.q, &r.tasks[i]), 0);
    CB_CHECK(!cb_cq_empty(r.q));
    for (int i = 0; i < 3; i++)
        CB_CHECK(cb_cq_dequeue(r.q) == &r.tasks[i]);
    CB_CHECK(cb_cq_empty(r.q));

    double t0 = now_s();
    pthread_t th[CQ_PRODUCERS + CQ_CONSUMERS];
    cq_arg args[CQ_PRODUCERS + CQ_CONSUMERS];
    for (int i = 0; i < CQ_PRODUCERS + CQ_CONSUMERS; i++) {
        args[i] = (cq_arg){&r, i < CQ_PRODUCERS ? i : i - CQ_PRODUCERS};
        CB_CHECK_EQ_INT(pthread_create(&th[i], NULL, i < CQ_PRODUCERS ? producer_main : consumer_main,
                                       &args[i]),
                        0);
    }
    for (int i = 0; i < CQ_PRODUCERS + CQ_CONSUMERS; i++)
        CB_CHECK_EQ_INT(pthread_join(th[i], NULL), 0);
    double secs = now_s() - t0;

    check_exactly_once(r.seen, CQ_CONSUMERS, CQ_TASKS);
    CB_CHECK(cb_cq_empty(r.q));
    uint64_t by[CQ_CONSUMERS] = {0};
    for (int k = 0; k < CQ_CONSUMERS; k++)
        for (uint32_t i = 0; i < CQ_TASKS; i++)
            by[k] += r.seen[k][i];
    fprintf(stderr,
            "%s: %d operations (%d enqueues by %d producers, dequeues %" PRIu64 " + %" PRIu64
            ") in %.2f s; %" PRIu64 " dequeues found it empty\n",
            cb_cq_name(kind), CQ_OPS, CQ_TASKS, CQ_PRODUCERS, by[0], by[1], secs,
            r.empty[0] + r.empty[1]);
    cb_cq_destroy(r.q);
}

CB_TEST(central_queue_wfcq_two_producers_two_consumers_every_task_once)
{
    cq_exactly_once(CB_CQ_WFCQ);
}

CB_TEST(central_queue_ck_two_producers_two_consumers_every_task_once)
{
    cq_exactly_once(CB_CQ_CK);
}

/* An unknown kind is refused, never a queue. */
CB_TEST(central_queue_unknown_kind_refused)
{
    CB_CHECK(cb_cq_create(CB_CQ_NKINDS) == NULL);
    CB_CHECK(cb_cq_unavailable(CB_CQ_NKINDS) != NULL);
}

/* ---- The runtime (impls/sched/sched.h) with plain tasks: a run function that returns DONE,
 * YIELD or WAIT is the stackless form; the workloads' bodies build on it. ---- */
/* A node of a balanced fork-join tree (docs/sched.md, forkjoin: ids n * fanout + i + 1, a
 * node's value mix(id), its return that plus its children's returns). */
typedef struct fj_node {
    cb_sched_task t; /* first: the scheduler hands back this pointer */
    uint64_t id, ret;
    unsigned level, depth, fanout;
    struct fj_node *kids;
    _Atomic uint64_t *runs; /* every call of the run function, over the whole tree */
} fj_node;

static cb_sched_status fj_run(cb_sched_task *t, cb_sched_worker *w)
{
    fj_node *n = (fj_node *)t;
    atomic_fetch_add_explicit(n->runs, 1, memory_order_relaxed);
    if (n->kids) { /* resumed: every child has finished */
        n->ret = cb_swl_mix(n->id);
        for (unsigned i = 0; i < n->fanout; i++)
            n->ret += n->kids[i].ret;
        free(n->kids);
        n->kids = NULL;
        return CB_SCHED_DONE;
    }
    if (n->level == n->depth) {
        n->ret = cb_swl_mix(n->id);
        return CB_SCHED_DONE;
    }
    n->kids = calloc(n->fanout, sizeof *n->kids);
    if (!n->kids)
        abort();
    cb_sched_fork(t, n->fanout);
    for (unsigned i = 0; i < n->fanout; i++) {
        fj_node *k = &n->kids[i];
        *k = (fj_node){.t = {.run = fj_run, .parent = t, .last_worker = -1},
                       .id = n->id * n->fanout + i + 1, .level = n->level + 1,
                       .depth = n->depth, .fanout = n->fanout, .runs = n->runs};
        cb_sched_spawn(w, &k->t);
    }
    return CB_SCHED_WAIT;
}

/* The same tree's checksum, on this thread, and its nodes. */
static uint64_t fj_reference(uint64_t id, unsigned level, unsigned depth, unsigned fanout,
                             uint64_t *nodes)
{
    uint64_t v = cb_swl_mix(id);
    ++*nodes;
    for (unsigned i = 0; level < depth && i < fanout; i++)
        v += fj_reference(id * fanout + i + 1, level + 1, depth, fanout, nodes);
    return v;
}

static uint64_t sum_stat(const cb_sched *s, size_t off)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < cb_sched_workers(s); i++) {
        cb_sched_stats st = cb_sched_worker_stats(s, i);
        x += *(const uint64_t *)((const char *)&st + off);
    }
    return x;
}

/* Runs the tree `runs` times on one scheduler (each run an epoch); every task ran exactly twice
 * (inner nodes: spawn, then resumed) or once (leaves), the checksum is the reference's. */
static void fj_on(cb_sched_queue q, unsigned workers, unsigned runs, uint64_t *steals)
{
    enum { DEPTH = 14, FANOUT = 2 };
    char err[256];
    cb_sched *s = cb_sched_create(workers, q, err, sizeof err);
    if (!s)
        CB_FAIL("%s", err);
    uint64_t nodes = 0, want = fj_reference(0, 0, DEPTH, FANOUT, &nodes);
    uint64_t leaves = 1ull << DEPTH;
    for (unsigned r = 0; r < runs; r++) {
        _Atomic uint64_t count = 0;
        fj_node root = {.t = {.run = fj_run, .last_worker = -1}, .depth = DEPTH,
                        .fanout = FANOUT, .runs = &count};
        cb_sched_task *roots[] = {&root.t};
        CB_CHECK_EQ_INT(cb_sched_run(s, roots, 1), 0);
        if (root.ret != want)
            CB_FAIL("queue %s, %u workers, run %u: checksum %#llx, not %#llx",
                    cb_sched_queue_name(q), workers, r, (unsigned long long)root.ret,
                    (unsigned long long)want);
        uint64_t got = atomic_load(&count), expect = 2 * nodes - leaves;
        if (got != expect)
            CB_FAIL("queue %s, %u workers, run %u: %llu calls of the tasks, not %llu",
                    cb_sched_queue_name(q), workers, r, (unsigned long long)got,
                    (unsigned long long)expect);
    }
    uint64_t tasks = sum_stat(s, offsetof(cb_sched_stats, tasks));
    CB_CHECK(tasks == (uint64_t)runs * (2 * nodes - leaves));
    CB_CHECK(sum_stat(s, offsetof(cb_sched_stats, suspensions)) ==
             (uint64_t)runs * (nodes - leaves));
    *steals = sum_stat(s, offsetof(cb_sched_stats, steals));
    fprintf(stderr, "  queue %s, %u workers: %u runs of %llu tasks, %llu steals\n",
            cb_sched_queue_name(q), workers, runs, (unsigned long long)nodes,
            (unsigned long long)*steals);
    cb_sched_destroy(s);
}

/* Work stealing: 1, 2 and 3 workers (3 on 2 CPUs: time-shared) give the reference's checksum
 * and run every task exactly once per run, over several runs of one scheduler. Whether the
 * other workers stole there depends on when the kernel ran them (on a loaded machine, none did
 * in 8 runs); sched_runtime_steal_takes_a_waiting_task makes it certain. Runs under
 * ThreadSanitizer (make check-tsan). */
CB_TEST_T(sched_runtime_steal_forkjoin_every_task_once, 300)
{
    uint64_t steals;
    fj_on(CB_SCHED_STEAL, 1, 2, &steals);
    CB_CHECK(steals == 0);
    for (unsigned w = 2; w <= 3; w++)
        fj_on(CB_SCHED_STEAL, w, 8, &steals);
}

/* A root forks a flagger, then a spinner: its worker pops the spinner (the newest), which spins
 * until the flag is up, so only another worker can run the flagger, by stealing it from the top
 * of the first worker's deque. */
typedef struct probe {
    cb_sched_task t;
    _Atomic int *flag;
    int spinner, forked;
    unsigned ran_on;
    struct probe *kids;
} probe;

static cb_sched_status probe_run(cb_sched_task *t, cb_sched_worker *w)
{
    probe *x = (probe *)t;
    x->ran_on = cb_sched_worker_id(w);
    if (x->kids) {
        if (x->forked) /* resumed: both children have finished */
            return CB_SCHED_DONE;
        x->forked = 1;
        cb_sched_fork(t, 2);
        for (int i = 0; i < 2; i++)
            cb_sched_spawn(w, &x->kids[i].t);
        return CB_SCHED_WAIT;
    }
    if (!x->spinner) {
        atomic_store(x->flag, 1);
        return CB_SCHED_DONE;
    }
    for (time_t end = time(NULL) + 60; !atomic_load(x->flag) && time(NULL) < end;)
        sched_yield();
    return CB_SCHED_DONE;
}

CB_TEST_T(sched_runtime_steal_takes_a_waiting_task, 120)
{
    char err[256];
    cb_sched *s = cb_sched_create(2, CB_SCHED_STEAL, err, sizeof err);
    if (!s)
        CB_FAIL("%s", err);
    _Atomic int flag = 0;
    probe kids[2], root = {.t = {.run = probe_run, .last_worker = -1}, .kids = kids};
    kids[0] = (probe){.t = {.run = probe_run, .parent = &root.t, .last_worker = -1},
                      .flag = &flag};
    kids[1] = (probe){.t = {.run = probe_run, .parent = &root.t, .last_worker = -1},
                      .flag = &flag, .spinner = 1};
    cb_sched_task *roots[] = {&root.t};
    CB_CHECK_EQ_INT(cb_sched_run(s, roots, 1), 0);
    CB_CHECK(atomic_load(&flag) == 1);
    if (kids[0].ran_on == kids[1].ran_on)
        CB_FAIL("the flagger ran on worker %u, the spinner's: not stolen", kids[1].ran_on);
    uint64_t steals = sum_stat(s, offsetof(cb_sched_stats, steals));
    CB_CHECK(steals >= 1);
    fprintf(stderr, "  spinner on worker %u, flagger on %u, %llu steals\n", kids[1].ran_on,
            kids[0].ran_on, (unsigned long long)steals);
    cb_sched_destroy(s);
}

/* The central queues: the same at 1 and 2 workers (not under TSan: liburcu's and ck's own
 * atomics are invisible to it, see check-tsan). */
CB_TEST_T(sched_runtime_central_forkjoin_every_task_once, 300)
{
    static const cb_sched_queue qs[] = {CB_SCHED_WFCQ, CB_SCHED_CK};
    for (size_t i = 0; i < 2; i++) {
        const char *why = cb_sched_queue_unavailable(qs[i]);
        if (why)
            CB_SKIP("queue %s: %s", cb_sched_queue_name(qs[i]), why);
        uint64_t steals;
        for (unsigned w = 1; w <= 2; w++) {
            fj_on(qs[i], w, 4, &steals);
            CB_CHECK(steals == 0);
        }
    }
}

/* yieldstorm's shape (docs/sched.md): a task's state starts at mix(id) and after its k-th
 * resumption becomes mix(state ^ k); it yields `yields` times, each yield requeued at once. */
typedef struct ys_task {
    cb_sched_task t;
    uint64_t id, state;
    unsigned k, yields;
} ys_task;

static cb_sched_status ys_run(cb_sched_task *t, cb_sched_worker *w)
{
    (void)w;
    ys_task *y = (ys_task *)t;
    if (y->k == y->yields)
        return CB_SCHED_DONE;
    y->state = cb_swl_mix(y->state ^ y->k);
    y->k++;
    return CB_SCHED_YIELD;
}

static void ys_on(cb_sched_queue q, unsigned workers)
{
    enum { M = 500, K = 40 };
    char err[256];
    cb_sched *s = cb_sched_create(workers, q, err, sizeof err);
    if (!s)
        CB_FAIL("%s", err);
    ys_task *t = calloc(M, sizeof *t);
    cb_sched_task **roots = calloc(M, sizeof *roots);
    CB_CHECK(t && roots);
    uint64_t want = 0;
    for (unsigned i = 0; i < M; i++) {
        t[i] = (ys_task){.t = {.run = ys_run, .last_worker = -1}, .id = i,
                         .state = cb_swl_mix(i), .yields = K};
        roots[i] = &t[i].t;
        uint64_t v = cb_swl_mix(i);
        for (unsigned k = 0; k < K; k++)
            v = cb_swl_mix(v ^ k);
        want += v;
    }
    CB_CHECK_EQ_INT(cb_sched_run(s, roots, M), 0);
    uint64_t got = 0;
    for (unsigned i = 0; i < M; i++) {
        CB_CHECK(t[i].k == K);
        got += t[i].state;
    }
    if (got != want)
        CB_FAIL("queue %s, %u workers: checksum %#llx, not %#llx", cb_sched_queue_name(q),
                workers, (unsigned long long)got, (unsigned long long)want);
    CB_CHECK(sum_stat(s, offsetof(cb_sched_stats, suspensions)) == (uint64_t)M * K);
    CB_CHECK(sum_stat(s, offsetof(cb_sched_stats, tasks)) == (uint64_t)M * (K + 1));
    cb_sched_destroy(s);
    free(roots);
    free(t);
}

/* Yields requeue the task and the run ends when every root has finished, at 1, 2 and 3
 * workers on each queue (the central ones where they are built). */
CB_TEST_T(sched_runtime_steal_yields_requeue, 120)
{
    for (unsigned w = 1; w <= 3; w++)
        ys_on(CB_SCHED_STEAL, w);
}

CB_TEST_T(sched_runtime_central_yields_requeue, 120)
{
    static const cb_sched_queue qs[] = {CB_SCHED_WFCQ, CB_SCHED_CK};
    for (size_t i = 0; i < 2; i++) {
        const char *why = cb_sched_queue_unavailable(qs[i]);
        if (why)
            CB_SKIP("queue %s: %s", cb_sched_queue_name(qs[i]), why);
        for (unsigned w = 1; w <= 2; w++)
            ys_on(qs[i], w);
    }
}

/* A scheduler destroyed right after a run, again and again: a worker that has just left the run
 * and is about to sleep on the epoch must still see the shutdown (a lost wake-up there hung
 * cb_sched_destroy's join for good: CI12's timed-out sched_stackful_and_closure test). */
CB_TEST_T(sched_runtime_destroy_right_after_a_run, 120)
{
    char err[256];
    for (int i = 0; i < 3000; i++) {
        cb_sched *s = cb_sched_create(2 + (unsigned)(i % 2), CB_SCHED_STEAL, err, sizeof err);
        if (!s)
            CB_FAIL("%s", err);
        ys_task t = {.t = {.run = ys_run, .last_worker = -1}, .id = 1, .yields = 2};
        cb_sched_task *roots[] = {&t.t};
        CB_CHECK_EQ_INT(cb_sched_run(s, roots, 1), 0);
        CB_CHECK_EQ_INT(t.k, 2);
        cb_sched_destroy(s);
    }
}
