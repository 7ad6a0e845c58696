/* The languages' own runtimes do the C cells' work: on the quick grid (and a few points around
 * it), go and node (programs of their own, docs/external.md) and lua (embedded) must give the
 * ops, checksum and suspension count that the C implementation gives on the same point. The C
 * side computes the expected values by running its sm body; then the same through
 * `corobench run --quick`. A runtime that is not installed is skipped with the reason, and a
 * missing one is reported unavailable by list and unsupported by run. */
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness/measure/external.h"
#include "impls/runtime.h"
#include "test.h"
#include "workloads/run_once.h"
#include "workloads/workload.h"

typedef struct point {
    const char *workload;
    const char *set[11]; /* name, value, ..., NULL */
} point;

/* The --quick defaults of every workload, then neighbours that change each parameter. */
static const point grid[] = {
    {"pingpong", {"switches", "20000"}},
    {"pingpong", {"switches", "1001", "depth", "4"}},
    {"pingpong", {"switches", "1000", "depth", "16", "sites", "same"}},
    {"recursive", {"height", "10"}},
    {"recursive", {"height", "1"}},
    {"spawn", {"n", "10000"}},
    {"spawn", {"n", "100", "depth", "3", "frame", "256"}},
    {"spawn", {"n", "300", "depth", "2", "frame", "24", "order", "random", "seed", "7"}},
    {"spawn", {"n", "64", "depth", "1", "order", "random"}},
    {"io", {"conns", "8", "msgs", "200"}},
    {"io", {"conns", "3", "msgs", "50", "size", "4096"}},
    {"io", {"conns", "8", "msgs", "50", "transport", "tcp"}},
    {"await", {"calls", "10000"}},
    {"await", {"calls", "300", "depth", "0", "suspend_every", "1"}},
    {"await", {"calls", "1000", "depth", "7", "suspend_every", "100"}},
    {"await", {"calls", "500", "depth", "2", "suspend_every", "never"}},
};

typedef struct outcome {
    uint64_t ops, checksum, suspensions;
} outcome;

/* One run through the in-process body of impl (sm, lua). */
static outcome run_in_process(const cb_workload *wl, const cb_impl *im, const cb_params *p,
                              int *unsupported, char *why, size_t whylen)
{
    cb_wl_once once;
    *unsupported = !cb_wl_family(wl, im);
    if (*unsupported) {
        snprintf(why, whylen, "%s has no %s body", wl->name, im->name);
        return (outcome){0, 0, 0};
    }
    if (cb_wl_run_once(wl, im, p, NULL, &once, why, whylen))
        CB_FAIL("%s %s: %s", im->name, wl->name, why);
    return (outcome){once.res.ops, once.res.checksum, once.suspensions};
}

static outcome run_external(const char *runtime, const cb_workload *wl, const cb_params *p,
                            int *unsupported, char *why, size_t whylen)
{
    cb_ext_request rq = {.workload = wl->name, .params = p, .warmup = 0, .reps = 1, .batch = 1,
                         .min_rep_ms = 0, .max_batch = 1};
    cb_ext_reply rp;
    outcome o = {0, 0, 0};
    int rc = cb_ext_run(runtime, &rq, 60, &rp, why, whylen);
    *unsupported = rc == 1;
    if (rc < 0)
        CB_FAIL("%s %s: %s", runtime, wl->name, why);
    if (rc == 0) {
        o = (outcome){rp.ops, rp.checksum, rp.suspensions};
        CB_CHECK(json_array_size(rp.samples) == 1);
        CB_CHECK(rp.peak_rss > 0);
        json_decref(rp.doc);
    }
    return o;
}

static void check_runtime(const char *runtime)
{
    const cb_impl *im = cb_impl_find(runtime), *sm = cb_impl_find("sm");
    const char *why = cb_impl_unavailable(im);
    if (why)
        CB_SKIP("%s unavailable: %s", runtime, why);
    size_t checked = 0;
    for (size_t g = 0; g < sizeof grid / sizeof grid[0]; g++) {
        const cb_workload *wl = cb_workload_find(grid[g].workload);
        cb_params p;
        cb_test_params(wl, sm, grid[g].set, &p);
        char reason[512] = "";
        int unsupported = 0;
        outcome want = run_in_process(wl, sm, &p, &unsupported, reason, sizeof reason), got;
        if (im->external)
            got = run_external(runtime, wl, &p, &unsupported, reason, sizeof reason);
        else
            got = run_in_process(wl, im, &p, &unsupported, reason, sizeof reason);
        if (unsupported) {
            fprintf(stderr, "%s: point %zu (%s): unsupported: %s\n", runtime, g, wl->name, reason);
            continue;
        }
        if (got.ops != want.ops || got.checksum != want.checksum ||
            got.suspensions != want.suspensions)
            CB_FAIL("%s point %zu (%s): ops %llu checksum 0x%016llx suspensions %llu, but C gave "
                    "ops %llu checksum 0x%016llx suspensions %llu",
                    runtime, g, wl->name, (unsigned long long)got.ops,
                    (unsigned long long)got.checksum, (unsigned long long)got.suspensions,
                    (unsigned long long)want.ops, (unsigned long long)want.checksum,
                    (unsigned long long)want.suspensions);
        checked++;
    }
    /* pingpong, recursive and spawn are required of every runtime. */
    CB_CHECK(checked >= 9);
}

CB_TEST(external_go_same_work_as_c) { check_runtime("go"); }
CB_TEST(external_node_same_work_as_c) { check_runtime("node"); }
CB_TEST(external_lua_same_work_as_c) { check_runtime("lua"); }
CB_TEST_T(external_csharp_same_work_as_c, 120) { check_runtime("csharp"); }
CB_TEST(external_luajit_same_work_as_c) { check_runtime("luajit"); }

/* A request the runtime cannot honour comes back as an error, not a crash or a hang; a
 * workload it has no body for comes back unsupported with the reason. */
static void check_errors(const char *runtime)
{
    const char *why = cb_impl_unavailable(cb_impl_find(runtime));
    if (why)
        CB_SKIP("%s unavailable: %s", runtime, why);
    const cb_workload *wl = cb_workload_find("spawn");
    cb_params p;
    static const char *const bad[] = {"n", "10", "frame", "12", NULL};
    cb_test_params(wl, cb_impl_find("sm"), bad, &p);
    cb_ext_request rq = {.workload = "spawn", .params = &p, .reps = 1, .batch = 1, .max_batch = 1};
    cb_ext_reply rp;
    char err[512];
    CB_CHECK_EQ_INT(cb_ext_run(runtime, &rq, 60, &rp, err, sizeof err), -1);
    CB_CHECK_CONTAINS(err, "frame=12");
    rq.workload = "no-such-workload";
    CB_CHECK_EQ_INT(cb_ext_run(runtime, &rq, 60, &rp, err, sizeof err), 1);
    CB_CHECK_CONTAINS(err, "no-such-workload");
}

CB_TEST(external_go_errors_reported) { check_errors("go"); }
CB_TEST(external_node_errors_reported) { check_errors("node"); }
CB_TEST(external_csharp_errors_reported) { check_errors("csharp"); }
CB_TEST(external_luajit_errors_reported) { check_errors("luajit"); }

/* The workload parameters of sm's cell all have the same value in the other's (which may add
 * its implementation's, as go's procs). */
static int same_point(json_t *sm, json_t *other)
{
    const char *key;
    json_t *v;
    json_object_foreach(sm, key, v) if (!json_equal(v, json_object_get(other, key))) return 0;
    return 1;
}

/* The same through the harness: `run --quick` of sm and the five runtimes; every cell is ok
 * with sm's checksum and suspensions on its point, or unsupported because its runtime is not
 * installed here. */
CB_TEST_T(external_quick_run_same_work, 300)
{
    char out[256], path[4096], *argv[24];
    snprintf(out, sizeof out, "/tmp/cbtest-%ld-external.json", (long)getpid());
    const char *args[] = {"run", "--invocations", "1", "--quick", "--impl", "sm,lua,go,node,csharp,luajit",
                          "--reps", "1",
                          "--warmup", "0", "--no-table", "-o", out, NULL};
    snprintf(path, sizeof path, "%s/bin/corobench", cb_test_root());
    argv[0] = path;
    size_t na = 0;
    for (; args[na]; na++)
        argv[na + 1] = (char *)args[na];
    argv[na + 1] = NULL;
    char *o, *e;
    int st = cb_test_spawn(argv, &o, &e);
    if (st != 0 && st != 1)
        CB_FAIL("run exited %d: %s", st, e);
    json_error_t je;
    json_t *doc = json_load_file(out, 0, &je), *cells = json_object_get(doc, "cells"), *c, *r;
    if (!doc)
        CB_FAIL("%s: %s", out, je.text);
    size_t i, k, compared = 0;
    json_array_foreach(cells, i, c) {
        const char *impl = json_string_value(json_object_get(c, "impl"));
        const char *status = json_string_value(json_object_get(c, "status"));
        const cb_workload *wl = cb_workload_find(json_string_value(json_object_get(c, "workload")));
        if (!strcmp(impl, "sm") || !cb_wl_family(wl, cb_impl_find("sm")))
            continue;
        if (strcmp(status, "ok") != 0) {
            const char *err = json_string_value(json_object_get(c, "error"));
            CB_CHECK_STREQ(status, "unsupported");
            /* pipeline has no body in the languages' programs (docs/external.md), the
             * scheduler's workloads one in go's only (docs/sched.md, "Peers") */
            const char *wn = json_string_value(json_object_get(c, "workload"));
            int none = !strcmp(wn, "pipeline") ||
                       ((!strcmp(wn, "forkjoin") || !strcmp(wn, "yieldstorm")) &&
                        strcmp(impl, "go"));
            if (!cb_impl_unavailable(cb_impl_find(impl)) && !none)
                CB_FAIL("%s %s: %s", impl, json_string_value(json_object_get(c, "workload")), err);
            continue;
        }
        json_array_foreach(cells, k, r) {
            if (strcmp(json_string_value(json_object_get(r, "impl")), "sm") ||
                !json_equal(json_object_get(r, "workload"), json_object_get(c, "workload")) ||
                !same_point(json_object_get(r, "params"), json_object_get(c, "params")))
                continue;
            CB_CHECK_STREQ(json_string_value(json_object_get(c, "checksum")),
                           json_string_value(json_object_get(r, "checksum")));
            CB_CHECK_EQ_INT(json_integer_value(json_object_get(c, "suspensions")),
                            json_integer_value(json_object_get(r, "suspensions")));
            CB_CHECK(json_integer_value(json_object_get(json_object_get(c, "memory"),
                                                        "peak_rss_bytes")) > 0);
            compared++;
        }
    }
    json_decref(doc);
    unlink(out);
    free(o);
    free(e);
    size_t available = 0;
    for (const char *const *n = (const char *const[]){"lua", "go", "node", "csharp", "luajit", NULL};
         *n; n++)
        available += !cb_impl_unavailable(cb_impl_find(*n));
    /* pingpong, recursive, spawn, io, await; and go's and csharp's forkjoin and yieldstorm */
    CB_CHECK_EQ_INT(compared, 5 * available + 2 * !cb_impl_unavailable(cb_impl_find("go")) +
                                  2 * !cb_impl_unavailable(cb_impl_find("csharp")));
}

/* A runtime missing from the machine: list says unavailable with the reason, run records its
 * cells unsupported with it (node is looked up in PATH). */
CB_TEST(external_missing_runtime_reported)
{
    char out[256], path[4096];
    snprintf(out, sizeof out, "/tmp/cbtest-%ld-missing.json", (long)getpid());
    snprintf(path, sizeof path, "%s/bin/corobench", cb_test_root());
    setenv("PATH", "/nonexistent", 1);
    char *list[] = {path, "list", NULL}, *o, *e;
    CB_CHECK_EQ_INT(cb_test_spawn(list, &o, &e), 0);
    CB_CHECK_CONTAINS(o, "unavailable: node not found in PATH");
    free(o);
    free(e);
    char *run[] = {path, "run", "--invocations", "1", "--impl", "node", "--workload", "recursive", "--no-table", "-o",
                   out, NULL};
    CB_CHECK_EQ_INT(cb_test_spawn(run, &o, &e), 0);
    json_error_t je;
    json_t *doc = json_load_file(out, 0, &je);
    if (!doc)
        CB_FAIL("%s: %s", out, je.text);
    json_t *cell = json_array_get(json_object_get(doc, "cells"), 0);
    CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), "unsupported");
    CB_CHECK_CONTAINS(json_string_value(json_object_get(cell, "error")), "node not found in PATH");
    json_decref(doc);
    unlink(out);
    free(o);
    free(e);
}

/* spawn's layout=offset moves C stacks and frames, which no runtime here can honour: the cells
 * are unsupported with the reason (not failed), whether or not the runtime is installed. */
CB_TEST(external_layout_offset_unsupported)
{
    char out[256], path[4096];
    snprintf(out, sizeof out, "/tmp/cbtest-%ld-offset.json", (long)getpid());
    snprintf(path, sizeof path, "%s/bin/corobench", cb_test_root());
    char *run[] = {path, "run", "--invocations", "1", "--impl", "lua,go,node,csharp,luajit", "--workload", "spawn", "--param",
                   "n=10", "--param", "layout=offset", "--reps", "1", "--no-table", "-o", out,
                   NULL},
         *o, *e;
    CB_CHECK_EQ_INT(cb_test_spawn(run, &o, &e), 0);
    json_error_t je;
    json_t *doc = json_load_file(out, 0, &je), *cell;
    if (!doc)
        CB_FAIL("%s: %s", out, je.text);
    json_t *cells = json_object_get(doc, "cells");
    size_t i;
    CB_CHECK_EQ_INT(json_array_size(cells), 5);
    json_array_foreach(cells, i, cell) {
        const char *impl = json_string_value(json_object_get(cell, "impl"));
        const char *err = json_string_value(json_object_get(cell, "error"));
        CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), "unsupported");
        if (!cb_impl_unavailable(cb_impl_find(impl)))
            CB_CHECK_CONTAINS(err, "spawn layout=offset needs coroutine stacks and frames that "
                                   "the body places; ");
        CB_CHECK_CONTAINS(err, ": this language's runtime places its own coroutines (valid here: "
                               "layout=aligned)");
    }
    json_decref(doc);
    unlink(out);
    free(o);
    free(e);
}

/* Every language's spawn cell carries the process's anonymous resident memory per suspended
 * coroutine at rest (memory.rss_bytes_per_coro, the C cells' definition: docs/memory.md) beside
 * its runtime's own heap statistics (heap_bytes_per_coro, named by runtime_stats); below 100
 * coroutines the figure is null with the reason, as a C cell's. A runtime not installed here is
 * unsupported and skipped. */
CB_TEST_T(external_memory_rss_per_coroutine, 180)
{
    char out[256], path[4096];
    snprintf(out, sizeof out, "/tmp/cbtest-%ld-rss.json", (long)getpid());
    snprintf(path, sizeof path, "%s/bin/corobench", cb_test_root());
    char *run[] = {path, "run", "--invocations", "1", "--impl", "lua,go,node,csharp,luajit",
                   "--workload", "spawn", "--param", "n=50,1000", "--reps", "1", "--warmup", "0",
                   "--no-table", "-o", out, NULL},
         *o, *e;
    int st = cb_test_spawn(run, &o, &e);
    if (st != 0)
        CB_FAIL("run exited %d: %s", st, e);
    json_error_t je;
    json_t *doc = json_load_file(out, 0, &je), *cell;
    if (!doc)
        CB_FAIL("%s: %s", out, je.text);
    size_t i, measured = 0;
    json_array_foreach(json_object_get(doc, "cells"), i, cell) {
        const char *impl = json_string_value(json_object_get(cell, "impl"));
        json_t *m = json_object_get(cell, "memory");
        if (cb_impl_unavailable(cb_impl_find(impl)))
            continue;
        CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), "ok");
        json_int_t n = json_integer_value(json_object_get(json_object_get(cell, "params"), "n"));
        json_t *rss = json_object_get(m, "rss_bytes_per_coro");
        CB_CHECK_EQ_INT(json_integer_value(json_object_get(m, "coroutines")), n);
        CB_CHECK(json_number_value(json_object_get(m, "heap_bytes_per_coro")) > 0);
        if (n < 100) {
            CB_CHECK(json_is_null(rss));
            CB_CHECK_CONTAINS(json_string_value(json_object_get(
                                  json_object_get(m, "null_reasons"), "rss_bytes_per_coro")),
                              "50 coroutines at the rest point, fewer than 100");
        } else {
            if (!json_is_number(rss) || !(json_number_value(rss) > 0))
                CB_FAIL("%s spawn n=%lld: memory.rss_bytes_per_coro is not a positive number",
                        impl, (long long)n);
            measured++;
        }
    }
    json_decref(doc);
    unlink(out);
    free(o);
    free(e);
    if (!measured)
        CB_SKIP("no language runtime installed here");
}
