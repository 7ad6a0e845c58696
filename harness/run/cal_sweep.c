/* calibrate's sweep (calibrate.h): one `corobench run` of asm and asmjmp pingpong at sites
 * distinct and same, depth 0..D, in the plain and jmpret builds, built as run's own argv, checked
 * by run's parser and plan, then run in a child through the process API --runs times; its plain
 * and jmpret cells paired into points. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate.h"
#include "harness/common/alloc.h"
#include "harness/common/proc.h"
#include "harness/common/stats.h"
#include "options.h"
#include "plan.h"

/* The sweep's `corobench run` arguments, argv[0] this binary and argv[1] "run", kept in b. count:
 * the first run, which also counts the candidates (and hardware events, pmu); the others only
 * time. */
typedef struct sweep_args {
    char depths[8 * 64 + 16], sw[64], reps[32], pin[32], mrm[32];
    char *argv[40];
    int argc;
} sweep_args;

static char **sweep_argv(const cb_cal_opts *o, int pmu, int count, const char *out, sweep_args *b)
{
    size_t n = (size_t)snprintf(b->depths, sizeof b->depths, "depth=");
    for (long d = 0; d <= o->max_depth; d++)
        n += (size_t)snprintf(b->depths + n, sizeof b->depths - n, d ? ",%ld" : "%ld", d);
    snprintf(b->sw, sizeof b->sw, "switches=%ld", o->switches);
    snprintf(b->reps, sizeof b->reps, "%ld", o->reps);
    snprintf(b->pin, sizeof b->pin, "%d", o->pin_cpu);
    snprintf(b->mrm, sizeof b->mrm, "%g", o->min_rep_ms);
    char *const fixed[] = {"/proc/self/exe", "run", "--impl", "asm,asmjmp", "--workload",
                           "pingpong", "--param", b->depths, "--param", "sites=distinct,same",
                           "--param", b->sw, "--variant", "plain,jmpret", "--reps", b->reps,
                           "--warmup", "1", "--min-rep-ms", b->mrm, "--pin", b->pin, "--no-table",
                           "-o", (char *)out,
                           /* one process per point per sweep: the sweeps are the runs (--runs) */
                           "--invocations", "1"};
    int k = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        b->argv[k++] = fixed[i];
    if (count) {
        b->argv[k++] = "--rsb";
        b->argv[k++] = "sim";
        b->argv[k++] = "--rsb-candidates";
    }
    if (count && pmu) {
        b->argv[k++] = "--events";
        b->argv[k++] = "ret-mispredicts";
    }
    b->argv[b->argc = k] = NULL;
    return b->argv;
}

/* calibrate.h */
int cb_cal_check_sweep(const cb_cal_opts *o, int pmu, size_t *npoints)
{
    sweep_args b;
    sweep_argv(o, pmu, 1, "/dev/null", &b);
    cb_run_opts ro = {0};
    cb_plan plan;
    int rc;
    if ((rc = cb_run_opts_parse(b.argc - 1, b.argv + 1, &ro)) != CB_OPTS_PARSED ||
        (rc = cb_plan_build(&ro, &plan)) != CB_OPTS_PARSED)
        return rc;
    *npoints = plan.ncells / 2;
    cb_plan_free(&plan);
    return CB_OPTS_PARSED;
}

/* Runs the sweep (this binary's `run`) through the process API; 0, or -1 with the reason (the
 * run's last line on stderr and its status) in why. */
static int run_sweep(const cb_cal_opts *o, int pmu, int count, const char *out, char *why,
                     size_t whylen)
{
    sweep_args b;
    char **argv = sweep_argv(o, pmu, count, out, &b);
    cb_proc p;
    cb_proc_opts po = {.own_group = 1, .pin_cpu = -1, .stdin_null = 1};
    cb_proc_result r;
    if (cb_proc_start(&p, &po, cb_proc_exec, argv, why, whylen) != 0)
        return -1;
    cb_proc_wait(&p, 0, &r);
    int rc = cb_proc_exit_code(r.wait_status) == 0 ? 0 : -1;
    if (rc)
        cb_proc_failure(&r, why, whylen);
    cb_proc_result_free(&r);
    return rc;
}

/* Pairs plain and jmpret cells (adjacent, plain first) into points; -1 on a failed cell. */
static long collect(json_t *doc, cb_cal_point *pts, size_t max, char *err, size_t errlen)
{
    json_t *cells = json_object_get(doc, "cells");
    size_t n = 0;
    for (size_t i = 0; i + 1 < json_array_size(cells) && n < max; i += 2) {
        json_t *p = json_array_get(cells, i), *j = json_array_get(cells, i + 1);
        json_t *params = json_object_get(p, "params");
        if (strcmp(json_string_value(json_object_get(p, "variant")) ?: "", "plain") ||
            strcmp(json_string_value(json_object_get(j, "variant")) ?: "", "jmpret")) {
            snprintf(err, errlen, "cells %zu and %zu are not a plain/jmpret pair", i, i + 1);
            return -1;
        }
        if (strcmp(json_string_value(json_object_get(p, "status")) ?: "", "ok") ||
            strcmp(json_string_value(json_object_get(j, "status")) ?: "", "ok")) {
            snprintf(err, errlen, "cell %s depth=%lld sites=%s failed: %s",
                     json_string_value(json_object_get(p, "impl")),
                     (long long)json_integer_value(json_object_get(params, "depth")),
                     json_string_value(json_object_get(params, "sites")),
                     json_string_value(json_object_get(p, "error"))
                         ?: json_string_value(json_object_get(j, "error")) ?: "?");
            return -1;
        }
        json_t *hw = json_object_get(json_object_get(p, "counters"), "ret-mispredicts");
        pts[n++] = (cb_cal_point){
            .impl = json_string_value(json_object_get(p, "impl")),
            .sites = json_string_value(json_object_get(params, "sites")),
            .depth = (long)json_integer_value(json_object_get(params, "depth")),
            .plain_ns = json_real_value(json_object_get(json_object_get(p, "ns_per_op"), "min")),
            .jmpret_ns = json_real_value(json_object_get(json_object_get(j, "ns_per_op"), "min")),
            .hw_per_op = json_is_object(hw) ? json_number_value(json_object_get(hw, "per_op"))
                                            : NAN,
            .cand = json_object_get(json_object_get(p, "rsbsim"), "candidates")};
    }
    return (long)n;
}

/* calibrate.h */
long cb_cal_sweep(const cb_cal_opts *o, int pmu, size_t npoints, const char *tmp, json_t **run,
                  cb_cal_point **pts)
{
    char why[1024] = "";
    long n = -1;
    *run = NULL;
    *pts = cb_xcalloc(npoints + 1, sizeof **pts);
    cb_cal_point *got = cb_xcalloc(npoints + 1, sizeof *got);
    for (long r = 0; r < o->runs; r++) {
        json_error_t e;
        int rc = run_sweep(o, pmu, r == 0, tmp, why, sizeof why);
        json_t *doc = rc == 0 ? json_load_file(tmp, 0, &e) : NULL;
        unlink(tmp);
        if (!doc) {
            fprintf(stderr, "corobench calibrate: the sweep's run %ld failed: %s\n", r + 1,
                    rc ? why : e.text);
            n = -1;
            break;
        }
        long m = collect(doc, got, npoints, why, sizeof why);
        if (m < 3 || (size_t)m != npoints) {
            fprintf(stderr, "corobench calibrate: %s\n",
                    m < 0 ? why : m < 3 ? "too few points to fit" : "the run lacks points");
            json_decref(doc);
            n = -1;
            break;
        }
        if (r == 0) { /* the counting run: the points, their candidates, the machine */
            *run = doc;
            memcpy(*pts, got, (size_t)m * sizeof *got);
        }
        n = m;
        for (long i = 0; i < n; i++) {
            (*pts)[i].plain_runs[r] = got[i].plain_ns;
            (*pts)[i].jmpret_runs[r] = got[i].jmpret_ns;
        }
        if (r > 0)
            json_decref(doc);
    }
    free(got);
    if (n < 0) {
        free(*pts);
        json_decref(*run);
        *pts = NULL;
        *run = NULL;
        return -1;
    }
    for (long i = 0; i < n; i++) {
        (*pts)[i].plain_ns = cb_median((*pts)[i].plain_runs, (size_t)o->runs);
        (*pts)[i].jmpret_ns = cb_median((*pts)[i].jmpret_runs, (size_t)o->runs);
    }
    return n;
}
