/* The scheduler workloads beside direct (docs/sched.md): go at GOMAXPROCS = workers, and sm's
 * tasks on corobench's scheduler, must do direct's work at workers=1 and workers=2 (sm also at
 * 3, on every queue): the same ops and checksum, and the suspension count their rows define (the
 * same at every W). An implementation that is not built here is skipped with the reason. */
#include <jansson.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/measure/external.h"
#include "harness/results/cell.h"
#include "test.h"
#include "workloads/forkjoin.h"
#include "workloads/run_once.h"
#include "workloads/workload.h"

typedef struct point {
    const char *workload;
    const char *set[13]; /* name, value, ..., NULL; workers is added */
} point;

static const point points[] = {
    {"forkjoin", {"fanout", "2", "depth", "10"}},
    {"forkjoin", {"fanout", "3", "depth", "6", "shape", "unbalanced", "q", "500"}},
    {"forkjoin", {"fanout", "2", "depth", "12", "shape", "unbalanced"}},
    {"forkjoin", {"fanout", "5", "depth", "4", "leaf_work", "7"}},
    {"forkjoin", {"fanout", "1", "depth", "50"}},
    {"yieldstorm", {"coros", "10", "yields", "5"}},
    {"yieldstorm", {"coros", "64", "yields", "3"}},
    {"yieldstorm", {"coros", "1000", "yields", "20"}},
};

typedef struct outcome {
    uint64_t ops, checksum, suspensions;
} outcome;

/* The point's params for impl, with workers=W (w: "1" or "2") and queue=q (NULL: its default). */
static void point_params(const point *pt, const cb_impl *im, const char *w, const char *q,
                         cb_params *p)
{
    const char *set[18];
    size_t n = 0;
    for (; pt->set[n]; n++)
        set[n] = pt->set[n];
    set[n++] = "workers", set[n++] = w;
    if (q)
        set[n++] = "queue", set[n++] = q;
    set[n] = NULL;
    cb_test_params(cb_workload_find(pt->workload), im, set, p);
}

/* forkjoin's inner nodes (tasks that wait for children), from the definition. */
static uint64_t inner_nodes(const fj_tree *t, uint64_t id, int64_t level)
{
    uint64_t n = fj_nchildren(t, id, level), inner = n > 0;
    for (uint64_t i = 0; i < n; i++)
        inner += inner_nodes(t, fj_child(t, id, i), level + 1);
    return inner;
}

static uint64_t param_u(const cb_params *p, const char *name)
{
    return (uint64_t)cb_params_int(p, name);
}

/* What a peer that counts a suspension per wait for children (forkjoin) and per yield
 * (yieldstorm) reports: go and fiber. */
static uint64_t waits(const point *pt, const cb_params *p)
{
    if (!strcmp(pt->workload, "yieldstorm"))
        return param_u(p, "coros") * param_u(p, "yields");
    fj_tree t = {.fanout = param_u(p, "fanout"), .depth = cb_params_int(p, "depth"),
                 .leaf_work = param_u(p, "leaf_work"),
                 .unbalanced = !strcmp(cb_params_str(p, "shape"), "unbalanced"),
                 .q = param_u(p, "q")};
    return inner_nodes(&t, 0, 0);
}

/* A body with no coroutine (omp, as direct) suspends nowhere. */
static uint64_t no_suspension(const point *pt, const cb_params *p)
{
    (void)pt, (void)p;
    return 0;
}

static outcome in_process(const cb_workload *wl, const cb_impl *im, const cb_params *p)
{
    cb_wl_once once;
    char why[512];
    if (cb_wl_run_once(wl, im, p, NULL, &once, why, sizeof why))
        CB_FAIL("%s %s: %s", im->name, wl->name, why);
    return (outcome){once.res.ops, once.res.checksum, once.suspensions};
}

/* The same in a child process of its own, which exits normally after it: a runtime whose
 * threads are set up once per process (fiber: work_stealing's threads meet once), as each cell is
 * a process of its own. */
static outcome in_child(const cb_workload *wl, const cb_impl *im, const cb_params *p)
{
    int fd[2];
    CB_CHECK(pipe(fd) == 0);
    pid_t pid = fork();
    CB_CHECK(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        cb_wl_once once;
        char why[512];
        outcome o = {0, 0, 0};
        if (cb_wl_run_once(wl, im, p, NULL, &once, why, sizeof why) == 0)
            o = (outcome){once.res.ops, once.res.checksum, once.suspensions};
        else
            fprintf(stderr, "  %s %s: %s\n", im->name, wl->name, why);
        if (write(fd[1], &o, sizeof o) != (ssize_t)sizeof o)
            _exit(3);
        exit(0);
    }
    close(fd[1]);
    outcome o;
    ssize_t n = read(fd[0], &o, sizeof o);
    close(fd[0]);
    int st;
    CB_CHECK(waitpid(pid, &st, 0) == pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        CB_FAIL("%s %s: the child %s %d", im->name, wl->name,
                WIFSIGNALED(st) ? "died of signal" : "exited with", WIFSIGNALED(st) ? WTERMSIG(st)
                                                                                  : WEXITSTATUS(st));
    CB_CHECK(n == (ssize_t)sizeof o);
    return o;
}

static outcome external(const cb_workload *wl, const cb_impl *im, const cb_params *p,
                        const char *w)
{
    cb_ext_request rq = {.workload = wl->name, .params = p, .warmup = 0, .reps = 1, .batch = 1,
                         .min_rep_ms = 0, .max_batch = 1};
    cb_ext_reply rp;
    char why[512], want[64];
    if (cb_ext_run(im->name, &rq, 60, &rp, why, sizeof why))
        CB_FAIL("%s %s workers=%s: %s", im->name, wl->name, w, why);
    /* the program says the workers it ran with: go its GOMAXPROCS, csharp its pool's CPUs */
    snprintf(want, sizeof want, strcmp(im->name, "go") ? "(workers=%s)" : " GOMAXPROCS=%s", w);
    CB_CHECK_CONTAINS(json_string_value(json_object_get(rp.doc, "runtime")), want);
    outcome o = {rp.ops, rp.checksum, rp.suspensions};
    json_decref(rp.doc);
    return o;
}

/* Every point at workers=1 and 2 (and 3, more than this machine's 2 CPUs, for corobench's own)
 * on queue q (NULL: the default) against direct; want_susp: the count the peer defines. */
static void same_work_as_direct(const char *name, const char *q,
                                uint64_t (*want_susp)(const point *, const cb_params *))
{
    const cb_impl *im = cb_impl_find(name), *direct = cb_impl_find("direct");
    const char *why = cb_impl_unavailable(im);
    if (why)
        CB_SKIP("%s unavailable: %s", name, why);
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
        const cb_workload *wl = cb_workload_find(points[i].workload);
        for (const char *const *w = (const char *const[]){"1", "2", "3", NULL}; *w; w++) {
            if (im->external && !strcmp(*w, "3"))
                break;
            cb_params p, pd;
            /* where it was, should a point hang (the runner shows a timed-out test's stderr) */
            fprintf(stderr, "  %s %s queue=%s workers=%s point %zu\n", name, wl->name,
                    q ? q : "default", *w, i);
            point_params(&points[i], im, *w, q, &p);
            point_params(&points[i], direct, *w, q, &pd);
            outcome want = in_process(wl, direct, &pd);
            outcome got = im->external                ? external(wl, im, &p, *w)
                          : im->body == CB_BODY_FIBER ? in_child(wl, im, &p)
                                                      : in_process(wl, im, &p);
            uint64_t susp = want_susp(&points[i], &p);
            if (got.ops != want.ops || got.checksum != want.checksum || got.suspensions != susp)
                CB_FAIL("%s point %zu (%s) workers=%s: ops %llu checksum 0x%016llx suspensions "
                        "%llu; direct: ops %llu checksum 0x%016llx, and %llu suspensions wanted",
                        name, i, wl->name, *w, (unsigned long long)got.ops,
                        (unsigned long long)got.checksum, (unsigned long long)got.suspensions,
                        (unsigned long long)want.ops, (unsigned long long)want.checksum,
                        (unsigned long long)susp);
        }
    }
}

/* sm's tasks on corobench's scheduler (workloads/forkjoin.c, yieldstorm.c), on every queue:
 * a suspension per wait for children and per yield, as go's. */
CB_TEST(sched_sm_same_work_as_direct_every_queue_and_workers)
{
    static const cb_sched_queue qs[] = {CB_SCHED_STEAL, CB_SCHED_WFCQ, CB_SCHED_CK};
    for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
        const char *why = cb_sched_queue_unavailable(qs[i]);
        if (why)
            CB_SKIP("queue %s: %s", cb_sched_queue_name(qs[i]), why);
        same_work_as_direct("sm", cb_sched_queue_name(qs[i]), waits);
    }
}

/* Stackful coroutines as the scheduler's tasks (impls/tasks.h), on every backend that can carry
 * one, and closure's heap frames, on every queue: the same suspensions as sm's, a wait being one
 * whether the coroutine resumes where it was or on another worker. */
CB_TEST_T(sched_stackful_and_closure_same_work_as_direct_every_queue_and_workers, 300)
{
    static const cb_sched_queue qs[] = {CB_SCHED_STEAL, CB_SCHED_WFCQ, CB_SCHED_CK};
    const cb_workload *fj = cb_workload_find("forkjoin");
    size_t ran = 0;
    /* the C rows of the two families (corobench's and Boost.Context's), from the table: every one
     * this build has runs,
     * but those the unsupported test below covers (a backend that cannot carry a task) */
    for (size_t k = 0; k < cb_nimpls; k++) {
        const cb_impl *im = &cb_impls[k];
        if (cb_impl_is_language(im) ||
            (im->body != CB_BODY_STACKFUL && im->body != CB_BODY_CLOSURE))
            continue;
        const char *why = cb_impl_unavailable(im);
        if (why) {
            fprintf(stderr, "  %s unavailable: %s\n", im->name, why);
            continue;
        }
        if (im->backend && (im->backend->share_stack || im->backend->own_thread))
            continue;
        cb_params p;
        char r[512];
        cb_test_params(fj, im, NULL, &p);
        if (cb_wl_unsupported(fj, im, &p, r, sizeof r))
            CB_FAIL("%s forkjoin: unsupported: %s", im->name, r);
        for (size_t i = 0; i < sizeof qs / sizeof *qs; i++)
            if (!cb_sched_queue_unavailable(qs[i]))
                same_work_as_direct(im->name, cb_sched_queue_name(qs[i]), waits);
        ran++;
    }
    CB_CHECK(ran >= 2); /* asm and closure at least: neither needs a library */
}

/* Backends whose coroutines cannot move between workers say why, as an unsupported cell. */
CB_TEST(sched_unsupported_stackful_backends_and_closure_pool_say_why)
{
    /* closure's frames from a per-task pool */
    {
        const cb_impl *cl = cb_impl_find("closure");
        static const char *const pool[] = {"alloc", "pool", NULL};
        cb_params p;
        char why[512];
        cb_test_params(cb_workload_find("forkjoin"), cl, pool, &p);
        const char *r = cb_wl_unsupported(cb_workload_find("forkjoin"), cl, &p, why, sizeof why);
        CB_CHECK(r != NULL);
        CB_CHECK_CONTAINS(r, "alloc=malloc");
    }
    /* the rows whose backend shares one stack or gives each coroutine a thread, from the table */
    size_t seen = 0;
    for (size_t k = 0; k < cb_nimpls; k++) {
        const cb_impl *im = &cb_impls[k];
        if (im->body != CB_BODY_STACKFUL || !im->backend ||
            !(im->backend->share_stack || im->backend->own_thread))
            continue;
        if (cb_impl_unavailable(im)) /* copystack under AddressSanitizer */
            continue;
        const char *want = im->backend->share_stack ? "share one stack" : "threads of their own";
        for (const char *const *wl = (const char *const[]){"forkjoin", "yieldstorm", NULL}; *wl;
             wl++) {
            cb_params p;
            char why[512];
            cb_test_params(cb_workload_find(*wl), im, NULL, &p);
            const char *r = cb_wl_unsupported(cb_workload_find(*wl), im, &p, why, sizeof why);
            if (!r)
                CB_FAIL("%s %s: supported", im->name, *wl);
            CB_CHECK_CONTAINS(r, want);
        }
        seen++;
    }
    CB_CHECK(seen >= 1); /* thread at least (copystack is not under ASan) */
}

CB_TEST(sched_peer_go_same_work_as_direct_at_1_and_2_workers)
{
    same_work_as_direct("go", NULL, waits);
}

/* Boost.Fiber's fibers on its work_stealing scheduler (workloads/sched_fiber.cc), a process per
 * point and workers. */
CB_TEST_T(sched_peer_fiber_same_work_as_direct_at_1_2_and_3_workers, 300)
{
    same_work_as_direct("fiber", NULL, waits);
}

/* OpenMP's tasks and threads (workloads/omp/sched_omp.c), no coroutine: direct's work. */
CB_TEST(sched_peer_omp_same_work_as_direct_at_1_2_and_3_workers)
{
    same_work_as_direct("omp", NULL, no_suspension);
}

/* C#'s Tasks on Mono's thread pool (impls/csharp/Sched.cs: the pool on `workers` CPUs). */
CB_TEST_T(sched_peer_csharp_same_work_as_direct_at_1_and_2_workers, 300)
{
    same_work_as_direct("csharp", NULL, waits);
}

/* go refuses what its scheduler is not: a central queue (unsupported), and a procs that is
 * not workers (an error). */
CB_TEST(sched_peer_go_refuses_central_queue_and_other_procs)
{
    const cb_impl *im = cb_impl_find("go");
    const char *why = cb_impl_unavailable(im);
    if (why)
        CB_SKIP("go unavailable: %s", why);
    static const char *const central[] = {"queue", "wfcq", NULL}, *procs[] = {"procs", "3", NULL};
    cb_params p;
    cb_ext_reply rp;
    char err[512];
    cb_test_params(cb_workload_find("yieldstorm"), im, central, &p);
    cb_ext_request rq = {.workload = "yieldstorm", .params = &p, .reps = 1, .batch = 1,
                         .max_batch = 1};
    CB_CHECK_EQ_INT(cb_ext_run("go", &rq, 60, &rp, err, sizeof err), 1);
    CB_CHECK_CONTAINS(err, "queue=wfcq");
    cb_test_params(cb_workload_find("forkjoin"), im, procs, &p);
    rq.workload = "forkjoin";
    CB_CHECK_EQ_INT(cb_ext_run("go", &rq, 60, &rp, err, sizeof err), -1);
    CB_CHECK_CONTAINS(err, "procs=3 with workers=1");
}

/* Through the harness: go's cells of both workloads at workers=1,2 are ok with direct's
 * checksum (sm has no body for them yet, so the cell is checked against direct). */
CB_TEST_T(sched_peer_go_cells_ok_through_run, 180)
{
    const char *why = cb_impl_unavailable(cb_impl_find("go"));
    if (why)
        CB_SKIP("go unavailable: %s", why);
    char out[256];
    cb_test_tmp_path(out, sizeof out, "sched-peers.json");
    cb_test_cli r = cb_test_corobench("run", "--invocations", "1", "--reps", "1", "--warmup", "0",
                                      "--impl", "go,direct", "--workload", "forkjoin,yieldstorm",
                                      "--param", "forkjoin.depth=8", "--param",
                                      "yieldstorm.coros=50", "--param", "workers=1,2",
                                      "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    json_error_t je;
    json_t *doc = json_load_file(out, 0, &je), *c, *d;
    if (!doc)
        CB_FAIL("%s: %s", out, je.text);
    size_t i, k, go = 0;
    json_array_foreach(json_object_get(doc, "cells"), i, c) {
        if (strcmp(json_string_value(json_object_get(c, "impl")), "go"))
            continue;
        CB_CHECK_STREQ(json_string_value(json_object_get(c, "status")), "ok");
        json_array_foreach(json_object_get(doc, "cells"), k, d) {
            if (!strcmp(json_string_value(json_object_get(d, "impl")), "direct") &&
                json_equal(json_object_get(d, "workload"), json_object_get(c, "workload")))
                CB_CHECK_STREQ(json_string_value(json_object_get(c, "checksum")),
                               json_string_value(json_object_get(d, "checksum")));
        }
        go++;
    }
    CB_CHECK_EQ_INT(go, 4);
    json_decref(doc);
    unlink(out);
}

/* A cell on the scheduler records its workers and what they counted (the `sched` object,
 * docs/results-schema.md); direct's, on one thread, has none. Workers one more than this
 * machine's CPUs are oversubscribed. */
CB_TEST_T(sched_cell_records_workers_and_counts, 240)
{
    char out[256], workers[32];
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    cb_test_tmp_path(out, sizeof out, "sched-cells.json");
    snprintf(workers, sizeof workers, "workers=1,%ld", nproc + 1);
    cb_test_cli c = cb_test_corobench("run", "--quick", "--invocations", "1", "--impl",
                                      "sm,asm,direct", "--workload", "forkjoin,yieldstorm",
                                      "--param", "depth=10", "--param", workers, "--no-table",
                                      "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_error_t e;
    json_t *doc = json_load_file(out, 0, &e), *cell;
    CB_CHECK(doc != NULL);
    size_t i, seen = 0;
    json_array_foreach(json_object_get(doc, "cells"), i, cell)
    {
        const char *impl = json_string_value(json_object_get(cell, "impl"));
        json_t *s = json_object_get(cell, "sched");
        if (!strcmp(impl, "direct")) {
            CB_CHECK(s == NULL);
            continue;
        }
        CB_CHECK(json_is_object(s));
        long long w = json_integer_value(json_object_get(json_object_get(cell, "params"),
                                                         "workers"));
        CB_CHECK_EQ_INT(json_integer_value(json_object_get(s, "workers")), w);
        CB_CHECK_EQ_INT(json_integer_value(json_object_get(s, "nproc")), nproc);
        CB_CHECK(json_is_true(json_object_get(s, "oversubscribed")) == (w > nproc));
        CB_CHECK_STREQ(json_string_value(json_object_get(s, "queue")), "steal");
        for (const char *const *k = (const char *const[]){"steals_per_op", "failed_steals_per_op",
                                                          "migrations_per_op", "parks_per_op",
                                                          NULL};
             *k; k++)
            CB_CHECK(json_real_value(json_object_get(s, *k)) >= 0);
        double share = json_real_value(json_object_get(s, "idle_share"));
        CB_CHECK(share >= 0 && share <= 1);
        json_t *per = json_object_get(s, "idle_share_per_worker"), *x;
        CB_CHECK_EQ_INT((long long)json_array_size(per), w);
        size_t j;
        json_array_foreach(per, j, x) CB_CHECK(json_real_value(x) >= 0 && json_real_value(x) <= 1);
        /* what a live task holds: a stackful one a carrier (a stack touched, the heap besides),
         * a stackless one its frame */
        json_t *m = json_object_get(s, "per_live_task");
        if (!strcmp(impl, "asm")) {
            CB_CHECK(json_integer_value(json_object_get(m, "carriers")) >= 1);
            CB_CHECK(json_real_value(json_object_get(m, "stack_used_bytes")) > 0);
            CB_CHECK(json_real_value(json_object_get(m, "bytes")) >=
                     json_real_value(json_object_get(m, "stack_resident_bytes")) +
                         (double)json_integer_value(json_object_get(m, "heap_bytes")));
        } else { /* sm: a heap frame per task, or a slot of an array: tens of bytes */
            double fb = json_real_value(json_object_get(m, "frame_bytes"));
            CB_CHECK(json_integer_value(json_object_get(m, "tasks_with_frames")) > 0);
            CB_CHECK(fb >= 16 && fb < 1024);
        }
        /* one worker steals from nobody and nothing migrates */
        if (w == 1)
            CB_CHECK(json_real_value(json_object_get(s, "steals_per_op")) == 0 &&
                     json_real_value(json_object_get(s, "migrations_per_op")) == 0);
        seen++;
    }
    CB_CHECK_EQ_INT((long long)seen, 8);
    json_decref(doc);
    unlink(out);
    free(c.out);
    free(c.err);
}

/* omp is of the baseline family (no coroutine) beside direct: the overhead a table shows is over
 * direct's cell at the point, whichever comes first in the file (the index took the first
 * baseline cell, omp's when it came first). */
CB_TEST(sched_omp_is_not_the_tables_direct)
{
    json_t *cells = json_pack(
        "[{s:s, s:s, s:s, s:s, s:s, s:{s:i}, s:{s:f}}, {s:s, s:s, s:s, s:s, s:s, s:{s:i}, s:{s:f}},"
        " {s:s, s:s, s:s, s:s, s:s, s:{s:i}, s:{s:f}}]",
        "workload", "forkjoin", "variant", "plain", "impl", "omp", "family", "baseline", "status",
        "ok", "params", "depth", 10, "ns_per_op", "median", 50.0, "workload", "forkjoin",
        "variant", "plain", "impl", "direct", "family", "baseline", "status", "ok", "params",
        "depth", 10, "ns_per_op", "median", 2.0, "workload", "forkjoin", "variant", "plain",
        "impl", "sm", "family", "stackless", "status", "ok", "params", "depth", 10, "ns_per_op",
        "median", 30.0);
    CB_CHECK(cells != NULL);
    json_t *index = cb_cell_direct_index(cells);
    CB_CHECK(cb_cell_direct_ns(index, json_array_get(cells, 2)) == 2.0);
    json_decref(index);
    json_decref(cells);
}

/* Pinned, the workers name their CPUs (worker i on CPU i mod nproc), the run's progress line and
 * the report give the figures (an idea and a test of the helper's whose branch was not merged). */
CB_TEST_T(sched_cell_pinned_workers_name_their_cpus, 240)
{
    char out[256], md[256], workers[32];
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    cb_test_tmp_path(out, sizeof out, "sched-pinned.json");
    cb_test_tmp_path(md, sizeof md, "sched-pinned.md");
    snprintf(workers, sizeof workers, "workers=%ld", nproc + 1);
    cb_test_cli c = cb_test_corobench("run", "--quick", "--invocations", "1", "--pin", "0",
                                      "--impl", "sm", "--workload", "yieldstorm", "--param",
                                      workers, "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.err, "; scheduler: ");
    CB_CHECK_CONTAINS(c.err, "(oversubscribed), pinned to CPUs 0");
    json_error_t e;
    json_t *doc = json_load_file(out, 0, &e);
    CB_CHECK(doc != NULL);
    json_t *s = json_object_get(json_array_get(json_object_get(doc, "cells"), 0), "sched");
    CB_CHECK(json_is_true(json_object_get(s, "pinned")));
    json_t *cpus = json_object_get(s, "cpus"), *v;
    CB_CHECK_EQ_INT((long long)json_array_size(cpus), nproc + 1);
    size_t i;
    json_array_foreach(cpus, i, v) CB_CHECK_EQ_INT(json_integer_value(v), (long long)i % nproc);
    json_decref(doc);
    free(c.out);
    free(c.err);
    c = cb_test_corobench("report", out, "--no-plots", "-o", md, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    char *text = cb_test_slurp(md);
    CB_CHECK(text != NULL);
    CB_CHECK_CONTAINS(text, "On the scheduler");
    CB_CHECK_CONTAINS(text, "pinned to CPUs 0");
    free(text);
    unlink(out);
    unlink(md);
    free(c.out);
    free(c.err);
}
