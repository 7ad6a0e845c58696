/* `corobench calibrate`: which return-stack model, of what size, stands for this CPU, and what a
 * mispredicted return costs here (docs/rsb.md, "Calibration"). One `corobench run` in a child
 * process times asm and asmjmp pingpong (sites distinct and same, depth 0..D) in the plain and
 * jmpret builds, pinned, and counts every candidate (both models, N 8..64) in one counting pass
 * per cell; the fit (harness/measure/rsbfit.c) checks the jmpret twin, picks the twin and the
 * candidate; the result goes to results/calibration/<cpu key>.json, which every later run reads
 * as machine.rsb. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "harness/common/alloc.h"
#include "harness/common/style.h"
#include "harness/common/build.h"
#include "harness/common/cli.h"
#include "harness/common/output.h"
#include "harness/measure/counters.h"
#include "harness/common/stats.h"
#include "harness/measure/rsbfit.h"
#include "harness/common/proc.h"
#include "results.h"
#include "harness/measure/rsbcal.h"

typedef struct cal_opts {
    int pin_cpu;
    long switches, reps, max_depth, runs;
    double min_rep_ms;
    const char *out_path; /* NULL: the calibration directory's <key>.json */
    const char *data_path; /* gnuplot data, NULL: none */
    cb_rsbfit_baseline baseline;
    int force; /* -o and --data may replace a regular file */
} cal_opts;

/* The acceptance bound of docs/rsb.md: the model's plain time within 15% of the measured one;
 * also the jmpret twin's check (cb_rsbfit_calibrate). */
#define CAL_BOUND 0.15
#define CAL_MAX_RUNS 20

/* One point of the sweep: a plain cell and its jmpret twin. */
typedef struct cal_point {
    const char *impl, *sites;
    long depth;
    /* The fastest repetition of each build: another task's time only ever adds to a
     * repetition, and the calibration runs on whatever machine it is given. */
    double plain_ns, jmpret_ns, hw_per_op; /* hw_per_op: NAN without a PMU */
    /* Each run's fastest repetition; plain_ns and jmpret_ns are their medians (docs/rsb.md:
     * a process's placement sets the time of all its repetitions alike). */
    double plain_runs[CAL_MAX_RUNS], jmpret_runs[CAL_MAX_RUNS];
    json_t *cand;                          /* the plain cell's rsbsim_candidates */
} cal_point;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Does this machine count hardware return mispredictions? NULL if yes, else the reason. */
static const char *pmu_reason(char *buf, size_t len)
{
    cb_counters *c = cb_counters_open("ret-mispredicts", 0);
    json_t *cell = json_object();
    cb_counters_reset_enable(c);
    cb_counters_disable(c);
    cb_counters_read(c);
    cb_counters_to_json(c, 1, cell);
    cb_counters_close(c);
    const char *r = NULL;
    if (!json_object_get(json_object_get(cell, "counters"), "ret-mispredicts") ||
        json_is_null(json_object_get(json_object_get(cell, "counters"), "ret-mispredicts"))) {
        const char *why = json_string_value(
            json_object_get(json_object_get(cell, "counters_unavailable"), "ret-mispredicts"));
        snprintf(buf, len, "%s", why ? why : "not countable here");
        r = buf;
    }
    json_decref(cell);
    return r;
}

/* The sweep's `corobench run` arguments, argv[0] this binary and argv[1] "run", kept in b. count:
 * the first run, which also counts the candidates (and hardware events, pmu); the others only
 * time. */
typedef struct sweep_args {
    char depths[8 * 64 + 16], sw[64], reps[32], pin[32], mrm[32];
    char *argv[40];
    int argc;
} sweep_args;

static char **sweep_argv(const cal_opts *o, int pmu, int count, const char *out, sweep_args *b)
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

/* The sweep checked by run's own parser and plan before anything is prepared or run (a --pin
 * this process may not use, a variant build missing: run's one line, exit 2), and the number of
 * points it will give: each a plain cell and its jmpret twin. CB_OPTS_PARSED, or the exit status. */
static int check_sweep(const cal_opts *o, int pmu, size_t *npoints)
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
static int run_sweep(const cal_opts *o, int pmu, int count, const char *out, char *why,
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
static long collect(json_t *doc, cal_point *pts, size_t max, char *err, size_t errlen)
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
        pts[n++] = (cal_point){
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

/* The last CPU this process may run on (taskset, cgroups), away from CPU 0's interrupts; 0
 * alone when the set cannot be read. */
static int last_allowed_cpu(cpu_set_t *set)
{
    if (sched_getaffinity(0, sizeof *set, set) == 0)
        for (int i = CPU_SETSIZE - 1; i >= 0; i--)
            if (CPU_ISSET(i, set))
                return i;
    CPU_ZERO(set);
    CPU_SET(0, set);
    return 0;
}

const cb_calibrate_defaults cb_calibrate_default = {.switches = 2000, .reps = 9, .runs = 3,
                                                    .max_depth = 40, .min_rep_ms = 2};

/* CB_OPTS_PARSED to carry on, else the exit status (0 after --help or --print-key), as run's
 * parser (options.h). */
static int parse_opts(int argc, char **argv, cal_opts *o)
{
    static const struct option longopts[] = {
        {"pin", required_argument, 0, 'P'},      {"switches", required_argument, 0, 's'},
        {"reps", required_argument, 0, 'r'},     {"max-depth", required_argument, 0, 'd'},
        {"min-rep-ms", required_argument, 0, 'm'}, {"output", required_argument, 0, 'o'},
        {"data", required_argument, 0, 'D'},     {"help", no_argument, 0, 'h'},
        {"print-key", no_argument, 0, 'k'},      {"baseline", required_argument, 0, 'b'},
        {"force", no_argument, 0, 'f'},         {"runs", required_argument, 0, 'R'},
        {0, 0, 0, 0},
    };
    long v = 0;
    int c, rc = 0;
    cpu_set_t allowed;
    const cb_calibrate_defaults *d = &cb_calibrate_default;
    *o = (cal_opts){.pin_cpu = last_allowed_cpu(&allowed), .switches = d->switches,
                    .reps = d->reps, .max_depth = d->max_depth, .min_rep_ms = d->min_rep_ms,
                    .runs = d->runs, .baseline = CB_RSBFIT_AUTO};
    opterr = 0;
    optind = 1;
    unsigned char seen[128] = {0};
    while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
        /* Each option once, as run's rule is (a second --runs was taken silently). */
        for (const struct option *lo = longopts; lo->name && c > 0 && c < 128; lo++)
            if (lo->val == c && seen[c]++)
                return cb_usage_error("option --%s given twice for calibrate (valid: once)",
                                      lo->name);
        switch (c) {
        /* The values by run's parsers (options.h); --pin's CPU is checked by run's parser
         * with the rest of the sweep (check_sweep). */
        case 'P':
            rc = cb_opt_int("--pin", optarg, 0, CPU_SETSIZE - 1, &v);
            o->pin_cpu = (int)v;
            break;
        case 's': rc = cb_opt_int("--switches", optarg, 100, 10000000, &o->switches); break;
        case 'r': rc = cb_opt_int("--reps", optarg, 1, 1000, &o->reps); break;
        case 'd': rc = cb_opt_int("--max-depth", optarg, 2, 64, &o->max_depth); break;
        case 'R': rc = cb_opt_int("--runs", optarg, 1, CAL_MAX_RUNS, &o->runs); break;
        case 'm': rc = cb_opt_positive("--min-rep-ms", optarg, 10000, &o->min_rep_ms); break;
        case 'b':
            if (cb_rsbfit_baseline_parse(optarg, &o->baseline) != 0)
                return cb_usage_error("invalid value '%s' for --baseline (valid: auto, jmpret, "
                                      "sites)",
                                      cb_quote(optarg));
            break;
        case 'o': o->out_path = optarg; break;
        case 'f': o->force = 1; break;
        case 'D': o->data_path = optarg; break;
        case 'k': { /* this CPU's key, for scripts naming their outputs after it */
            cb_cpu_id cpu;
            char key[160];
            cb_cpu_identify(&cpu);
            cb_cpu_key(&cpu, key, sizeof key);
            printf("%s\n", key);
            return CB_EXIT_OK;
        }
        case 'h':
            printf("usage: corobench calibrate [--pin CPU] [--switches N] [--reps N] [--runs N] "
                   "[--min-rep-ms MS]\n"
                   "                           [--max-depth D] [--baseline auto|jmpret|sites]\n"
                   "                           [-o FILE.json] [--data FILE.dat] [--force]\n"
                   "       corobench calibrate --print-key\n"
                   "Fits the return-stack model to this CPU's timing; writes %s/<cpu key>.json\n"
                   "unless -o says otherwise (docs/rsb.md).\n",
                   cb_rsbcal_dir());
            return CB_EXIT_OK;
        case ':': return cb_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            return cb_usage_error("unknown option '%s' for calibrate (valid: --pin, --switches, "
                                  "--reps, --runs, --min-rep-ms, --max-depth, --baseline, -o, --data, "
                                  "--force, --print-key)",
                                  argv[optind - 1]);
        }
        if (rc)
            return rc;
    }
    if (optind < argc)
        return cb_usage_error("unexpected argument '%s' for calibrate (valid: options only)",
                              argv[optind]);
    return CB_OPTS_PARSED;
}

/* The directories calibrate made for its default output, removed again (deepest first, only
 * if empty) when it fails. */
typedef struct made_dirs {
    char path[8][4096];
    int n;
} made_dirs;

/* mkdir -p of path's directory, each directory it made noted in made. */
static int make_parent(const char *path, made_dirs *made)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1;; p++)
        if (*p == '/' || !*p) {
            char c = *p;
            *p = '\0';
            if (mkdir(dir, 0777) == 0 && made->n < 8)
                snprintf(made->path[made->n++], sizeof made->path[0], "%s", dir);
            else if (errno != EEXIST)
                return -1;
            if (!(*p = c))
                return 0;
        }
}

/* Two candidates' mispredictions per switch closer than this at every point count the same for
 * the fit: with 2000 switches, one misprediction more at the start or end of a run is 0.0005. */
#define CAL_SAME_COUNT 0.01

static int same_counts(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fabs(a[i] - b[i]) >= CAL_SAME_COUNT)
            return 0;
    return 1;
}

/* How the chosen twin's fit predicts one point, for the table, the file and the plot. */
typedef struct cal_pred {
    double jmpret_ns, sites_ns; /* the plain time predicted from each twin (NAN: none) */
    double residual;            /* of the chosen twin's fit (NAN: not one of its points) */
} cal_pred;

/* Each twin predicts with its own fit of the chosen candidate (jf: jmpret's, sf: sites'). */
static cal_pred predict(const cb_rsbfit_point *rp, size_t n, size_t i, const double *xk,
                        const cb_rsbfit_line *jf, const cb_rsbfit_line *sf,
                        cb_rsbfit_baseline twin)
{
    cal_pred p = {cb_rsbfit_predict(rp, n, i, xk, jf, CB_RSBFIT_JMPRET),
                  cb_rsbfit_predict(rp, n, i, xk, sf, CB_RSBFIT_SITES), NAN};
    double m = twin == CB_RSBFIT_JMPRET ? p.jmpret_ns : p.sites_ns;
    if (!isnan(m))
        p.residual = rp[i].plain_ns - m - (twin == CB_RSBFIT_JMPRET ? jf : sf)->c;
    return p;
}

static json_t *real_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

/* The acceptance bound per series (docs/rsb.md, "Calibration"): of the depths it covers (0..32
 * at sites=distinct, 0..40 at same), how many the twin's prediction puts within CAL_BOUND of
 * the measured plain time. The sites twin predicts distinct points only. */
static json_t *bound_json(const cal_point *pts, const cb_rsbfit_point *rp, size_t n,
                          const double *xk, const cb_rsbfit_line *jf, const cb_rsbfit_line *sf)
{
    json_t *rows = json_array();
    for (int twin = CB_RSBFIT_JMPRET; twin <= CB_RSBFIT_SITES; twin++)
        for (size_t i = 0; i < n; i++) {
            /* One row per (impl, sites), made at its first point. */
            size_t first = 0;
            while (first < i && (rp[first].impl != rp[i].impl || rp[first].same != rp[i].same))
                first++;
            if (first != i || (twin == CB_RSBFIT_SITES && rp[i].same))
                continue;
            long max_depth = rp[i].same ? 40 : 32, within = 0, of = 0;
            for (size_t j = 0; j < n; j++) {
                if (rp[j].impl != rp[i].impl || rp[j].same != rp[i].same ||
                    rp[j].depth > max_depth)
                    continue;
                double m = cb_rsbfit_predict(rp, n, j, xk, twin == CB_RSBFIT_JMPRET ? jf : sf,
                                             (cb_rsbfit_baseline)twin);
                if (isnan(m))
                    continue;
                of++;
                within += fabs(m / rp[j].plain_ns - 1) <= CAL_BOUND;
            }
            json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:i, s:I, s:I}", "twin",
                                                  cb_rsbfit_baseline_name((cb_rsbfit_baseline)twin),
                                                  "impl", pts[i].impl, "sites", pts[i].sites,
                                                  "max_depth", (int)max_depth, "within",
                                                  (json_int_t)within, "of", (json_int_t)of));
        }
    return rows;
}

/* The calibration document (docs/results-schema.md, "Calibration file"). */
/* Every candidate's fit against the chosen twin (fits), for the file. */
static json_t *candidates_json(const cb_rsb_config *cand, const cb_rsbfit_line *fits,
                               size_t ncand)
{
    json_t *cands = json_array();
    for (size_t k = 0; k < ncand; k++)
        json_array_append_new(
            cands, fits[k].ok ? json_pack("{s:s, s:i, s:f, s:f, s:f, s:f}", "model",
                                          cb_rsb_model_name(cand[k].model), "entries",
                                          (int)cand[k].entries, "ns_per_mispredict", fits[k].cost,
                                          "intercept_ns", fits[k].c, "r2", fits[k].r2, "sse",
                                          fits[k].sse)
                              : json_pack("{s:s, s:i, s:n}", "model",
                                          cb_rsb_model_name(cand[k].model), "entries",
                                          (int)cand[k].entries, "r2"));
    return cands;
}

/* Every point with the chosen candidate's counts (xb) and what each twin's fit predicts there;
 * the fitted twin's squared residuals summed into *sse over *fitted points. */
static json_t *points_json(const cal_opts *o, const cal_point *pts, const cb_rsbfit_point *rp,
                           size_t n, const double *xb, const cb_rsbfit_line *jfit,
                           const cb_rsbfit_line *sfit, cb_rsbfit_baseline baseline, double *sse,
                           size_t *fitted)
{
    json_t *points = json_array();
    for (size_t i = 0; i < n; i++) {
        cal_pred p = predict(rp, n, i, xb, jfit, sfit, baseline);
        if (!isnan(p.residual)) {
            *sse += p.residual * p.residual;
            (*fitted)++;
        }
        json_t *pr = json_array(), *jr = json_array();
        for (long r = 0; r < o->runs; r++) {
            json_array_append_new(pr, json_real(pts[i].plain_runs[r]));
            json_array_append_new(jr, json_real(pts[i].jmpret_runs[r]));
        }
        json_array_append_new(
            points,
            json_pack("{s:s, s:s, s:i, s:f, s:f, s:o, s:o, s:f, s:f, s:o, s:f, s:f, s:o, s:o, "
                      "s:o}",
                      "impl", pts[i].impl, "sites", pts[i].sites, "depth", (int)pts[i].depth,
                      "plain_ns", pts[i].plain_ns, "jmpret_ns", pts[i].jmpret_ns,
                      "plain_ns_runs", pr, "jmpret_ns_runs", jr, "diff_ns",
                      pts[i].plain_ns - pts[i].jmpret_ns, "mispredicted_per_op", xb[i],
                      "residual_ns", real_or_null(p.residual), "jmpret_model_ns", p.jmpret_ns,
                      "jmpret_model_error", p.jmpret_ns / pts[i].plain_ns - 1, "sites_model_ns",
                      real_or_null(p.sites_ns), "sites_model_error",
                      real_or_null(p.sites_ns / pts[i].plain_ns - 1), "hw_ret_mispredicts_per_op",
                      real_or_null(pts[i].hw_per_op)));
    }
    return points;
}

/* The jmpret twin's own check (cb_rsbfit_calibrate), whichever twin was fitted. */
static json_t *twin_json(const cal_point *pts, const cb_rsb_config *cand,
                         const cb_rsbfit_line *jfits, long best, const cb_rsbfit_result *res)
{
    json_t *twin = json_pack("{s:b, s:f}", "ok", res->twin_ok, "tolerance", CAL_BOUND);
    if (res->jmpret_best >= 0) /* the candidate it would have chosen, and checked */
        json_object_set_new(twin, "best",
                            json_pack("{s:s, s:i, s:f}", "model",
                                      cb_rsb_model_name(cand[res->jmpret_best].model), "entries",
                                      (int)cand[res->jmpret_best].entries, "ns_per_mispredict",
                                      jfits[res->jmpret_best].cost));
    /* Its fit of the chosen candidate, which jmpret_model_ns uses: the cost it measures, and
     * what it put down to the build's own mispredictions, a step from step_depth on
     * (docs/rsb.md, "Two twins"). */
    if (jfits[best].ok)
        json_object_set_new(
            twin, "fit",
            json_pack("{s:f, s:f, s:o, s:f}", "ns_per_mispredict", jfits[best].cost,
                      "intercept_ns", jfits[best].c, "step_depth",
                      jfits[best].step_depth > 0 ? json_integer(jfits[best].step_depth)
                                                 : json_null(),
                      "step_ns", jfits[best].step_depth > 0 ? jfits[best].step : 0.0));
    if (res->twin_worst >= 0)
        json_object_set_new(twin, "worst",
                            json_pack("{s:s, s:s, s:i, s:f}", "impl", pts[res->twin_worst].impl,
                                      "sites", pts[res->twin_worst].sites, "depth",
                                      (int)pts[res->twin_worst].depth, "error",
                                      res->twin_worst_error));
    return twin;
}

static json_t *cal_doc(const cal_opts *o, json_t *run, const cb_cpu_id *cpu, const cal_point *pts,
                       const cb_rsbfit_point *rp, size_t n, const cb_rsb_config *cand,
                       const cb_rsbfit_line *jfits, const cb_rsbfit_line *sfits, size_t ncand,
                       const cb_rsbfit_result *res, const char *reason, double **x,
                       const char *pmu_why, double secs)
{
    double hz = json_number_value(json_object_get(json_object_get(run, "machine"), "tsc_hz"));
    const cb_rsbfit_line *fits = res->baseline == CB_RSBFIT_SITES ? sfits : jfits;
    long best = res->best;
    /* Stacks of the same model whose counts agree with the winner's at every point within
     * CAL_SAME_COUNT per switch (they differ only in the run's first and last returns) are the
     * same fit: the smallest of them is reported, the largest as entries_tied_up_to (above N,
     * the sweep never filled the stack and N is a lower bound). */
    size_t lo = (size_t)best, tied = (size_t)best;
    while (lo > 0 && cand[lo - 1].model == cand[best].model && fits[lo - 1].ok &&
           same_counts(x[lo - 1], x[best], n))
        lo--;
    while (tied + 1 < ncand && cand[tied + 1].model == cand[best].model &&
           same_counts(x[tied + 1], x[best], n))
        tied++;
    best = (long)lo;
    const cb_rsbfit_line *f = &fits[best];
    json_t *cands = candidates_json(cand, fits, ncand);
    double sse = 0;
    size_t fitted = 0;
    json_t *points = points_json(o, pts, rp, n, x[best], &jfits[best], &sfits[best],
                                 res->baseline, &sse, &fitted);
    json_t *twin = twin_json(pts, cand, jfits, best, res);
    /* The model a run would use without this calibration, for comparison. */
    cb_rsb_config d = cb_rsbcal_vendor_default(cpu);
    json_t *vendor_default = json_pack("{s:s, s:i}", "model", cb_rsb_model_name(d.model),
                                       "entries", (int)d.entries);
    char created[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return json_pack(
        "{s:s, s:s, s:s, s:o, s:O, s:{s:[s,s], s:s, s:[s,s], s:i, s:I, s:I, s:I, s:f, s:i, s:f}, "
        "s:{s:s, s:s, s:s, s:i, s:i, s:f, s:o, s:f, s:f, s:f}, s:o, s:o, s:o, s:o, s:o, s:o}",
        "schema", "corobench-calibration/1", "created_utc", created, "git_commit",
        cb_build_commit, "cpu", cb_cpu_json(cpu), "machine", json_object_get(run, "machine"),
        "sweep", "impls", "asm", "asmjmp", "workload", "pingpong", "sites", "distinct", "same",
        "max_depth", (int)o->max_depth, "switches", (json_int_t)o->switches, "reps",
        (json_int_t)o->reps, "runs", (json_int_t)o->runs, "min_rep_ms", o->min_rep_ms, "pin_cpu", o->pin_cpu, "seconds", secs,
        "fit", "baseline", cb_rsbfit_baseline_name(res->baseline), "baseline_reason", reason,
        "model", cb_rsb_model_name(cand[best].model), "entries", (int)cand[best].entries,
        "entries_tied_up_to", (int)cand[tied].entries, "ns_per_mispredict", f->cost,
        "tsc_cycles_per_mispredict", hz > 0 ? json_real(f->cost * hz * 1e-9) : json_null(),
        "intercept_ns", f->c, "r2", f->r2, "rms_residual_ns",
        fitted ? sqrt(sse / (double)fitted) : 0.0, "jmpret_twin", twin, "bound",
        bound_json(pts, rp, n, x[best], &jfits[best], &sfits[best]), "pmu",
        pmu_why ? json_pack("{s:b, s:s}", "available", 0, "reason", pmu_why)
                : json_pack("{s:b}", "available", 1),
        "candidates", cands, "points", points, "default", vendor_default);
}

static void print_pct(FILE *out, json_t *v)
{
    if (json_is_number(v))
        fprintf(out, " %+8.1f%%", 100 * json_number_value(v));
    else
        fprintf(out, " %9s", "-");
}

/* One row per point of the sweep. */
static void print_points(json_t *doc, FILE *out)
{
    json_t *p;
    int pmu = json_is_true(json_object_get(json_object_get(doc, "pmu"), "available"));
    size_t i;
    fprintf(out, "%-7s %-9s %5s %9s %9s %13s %9s %9s %9s%s\n", "impl", "sites", "depth",
            "plain ns", "jmpret ns", "mispredicted", "resid ns", "jmpret%", "sites%",
            pmu ? "  hw ret-mispredicts" : "");
    json_array_foreach(json_object_get(doc, "points"), i, p)
    {
        json_t *r = json_object_get(p, "residual_ns");
        fprintf(out, "%-7s %-9s %5d %9.1f %9.1f %13.2f",
                json_string_value(json_object_get(p, "impl")),
                json_string_value(json_object_get(p, "sites")),
                (int)json_integer_value(json_object_get(p, "depth")),
                json_number_value(json_object_get(p, "plain_ns")),
                json_number_value(json_object_get(p, "jmpret_ns")),
                json_number_value(json_object_get(p, "mispredicted_per_op")));
        if (json_is_number(r))
            fprintf(out, " %9.1f", json_number_value(r));
        else
            fprintf(out, " %9s", "-");
        print_pct(out, json_object_get(p, "jmpret_model_error"));
        print_pct(out, json_object_get(p, "sites_model_error"));
        if (pmu)
            fprintf(out, "  %19.2f",
                    json_number_value(json_object_get(p, "hw_ret_mispredicts_per_op")));
        fputc('\n', out);
    }
}

/* The points, then the fit, how it compares and what the columns mean. */
static void print_table(json_t *doc, FILE *out)
{
    json_t *fit = json_object_get(doc, "fit");
    print_points(doc, out);
    json_t *cpu = json_object_get(doc, "cpu");
    fprintf(out,
            "fit: %s %d on %s (%s family %d model %d stepping %d, microcode %s): "
            "%.2f ns per mispredicted return",
            json_string_value(json_object_get(fit, "model")),
            (int)json_integer_value(json_object_get(fit, "entries")),
            json_string_value(json_object_get(cpu, "model_name")),
            json_string_value(json_object_get(cpu, "vendor")),
            (int)json_integer_value(json_object_get(cpu, "family")),
            (int)json_integer_value(json_object_get(cpu, "model")),
            (int)json_integer_value(json_object_get(cpu, "stepping")),
            json_string_value(json_object_get(cpu, "microcode")),
            json_number_value(json_object_get(fit, "ns_per_mispredict")));
    if (json_is_number(json_object_get(fit, "tsc_cycles_per_mispredict")))
        fprintf(out, " (%.1f TSC cycles)",
                json_number_value(json_object_get(fit, "tsc_cycles_per_mispredict")));
    fprintf(out, ", intercept %.1f ns, R^2 %.3f, rms residual %.1f ns\n",
            json_number_value(json_object_get(fit, "intercept_ns")),
            json_number_value(json_object_get(fit, "r2")),
            json_number_value(json_object_get(fit, "rms_residual_ns")));
    fprintf(out, "twin: %s (%s)\n", json_string_value(json_object_get(fit, "baseline")),
            json_string_value(json_object_get(fit, "baseline_reason")));
    json_t *jt = json_object_get(json_object_get(doc, "jmpret_twin"), "fit");
    if (json_is_integer(json_object_get(jt, "step_depth")))
        fprintf(out, "the jmpret build's own mispredictions: %+.1f ns per switch from depth %d on "
                     "(its fit's step)\n",
                -json_number_value(json_object_get(jt, "step_ns")),
                (int)json_integer_value(json_object_get(jt, "step_depth")));
    long n = (long)json_integer_value(json_object_get(fit, "entries"));
    long up = (long)json_integer_value(json_object_get(fit, "entries_tied_up_to"));
    if (up > n)
        fprintf(out, "note: %s %ld..%ld count the same over this sweep (its depths never fill "
                     "them): %ld entries is a lower bound\n",
                json_string_value(json_object_get(fit, "model")), n, up, n);
    /* How far ahead the winner is: the best of the other model, and the vendor default. */
    const char *def_model = json_string_value(json_object_get(json_object_get(doc, "default"),
                                                              "model"));
    long def_n = (long)json_integer_value(json_object_get(json_object_get(doc, "default"),
                                                          "entries"));
    json_t *other = NULL, *def = NULL, *k;
    size_t i2;
    json_array_foreach(json_object_get(doc, "candidates"), i2, k)
    {
        const char *km = json_string_value(json_object_get(k, "model"));
        if (!json_is_number(json_object_get(k, "r2")))
            continue;
        if (def_model && !strcmp(km, def_model) &&
            json_integer_value(json_object_get(k, "entries")) == def_n)
            def = k;
        if (strcmp(km, json_string_value(json_object_get(fit, "model"))) &&
            (!other || json_number_value(json_object_get(k, "r2")) >
                           json_number_value(json_object_get(other, "r2"))))
            other = k;
    }
    json_t *show[2] = {other, def};
    static const char *const what[2] = {"best of the other model", "this vendor's default"};
    for (int w = 0; w < 2; w++)
        if (show[w])
            fprintf(out, "%s: %s %d, R^2 %.3f, %.2f ns per mispredicted return\n", what[w],
                    json_string_value(json_object_get(show[w], "model")),
                    (int)json_integer_value(json_object_get(show[w], "entries")),
                    json_number_value(json_object_get(show[w], "r2")),
                    json_number_value(json_object_get(show[w], "ns_per_mispredict")));
    fprintf(out, "bound (model within %.0f%% of plain):", 100 * CAL_BOUND);
    json_array_foreach(json_object_get(doc, "bound"), i2, k)
        fprintf(out, "%s %s twin, %s %s 0..%d: %d of %d", i2 ? ";" : "",
                json_string_value(json_object_get(k, "twin")),
                json_string_value(json_object_get(k, "impl")),
                json_string_value(json_object_get(k, "sites")),
                (int)json_integer_value(json_object_get(k, "max_depth")),
                (int)json_integer_value(json_object_get(k, "within")),
                (int)json_integer_value(json_object_get(k, "of")));
    fputc('\n', out);
    fprintf(out, "columns: mispredicted = simulated per switch under the fit's model (plain "
                 "build); resid = the fitted twin's residual; jmpret%% = (jmpret + cost x "
                 "mispredicted + step) / plain - 1; sites%% = (plain at sites=same + cost x "
                 "(mispredicted "
                 "- its mispredicted)) / plain - 1\n");
}

/* gnuplot data: one block per (impl, sites): depth, the measured plain time, the plain time
 * predicted from each twin (NaN where it has none), and the block's style from the one scheme
 * every plot uses (harness/common/style.c): the implementation's colour (0xRRGGBB as an
 * integer) and point type, filled at sites=distinct, its open twin at sites=same. */
static int write_data(json_t *doc, cb_out *out)
{
    FILE *f = cb_out_stream(out);
    static const char *const impls[] = {"asm", "asmjmp"}, *const sites[] = {"distinct", "same"};
    size_t nstyles;
    const cb_plot_style *sty = cb_plot_styles(&nstyles);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            const cb_plot_style *st = &sty[cb_plot_linetype(impls[a]) - 1];
            long colour = strtol(st->colour + 1, NULL, 16);
            int point = b ? cb_plot_point_open(st->point) : st->point;
            fprintf(f,
                    "\"%s sites=%s\"\n# depth plain_ns jmpret_model_ns sites_model_ns colour "
                    "point\n",
                    impls[a], sites[b]);
            size_t i;
            json_t *p;
            json_array_foreach(json_object_get(doc, "points"), i, p)
            {
                if (strcmp(json_string_value(json_object_get(p, "impl")), impls[a]) ||
                    strcmp(json_string_value(json_object_get(p, "sites")), sites[b]))
                    continue;
                json_t *s = json_object_get(p, "sites_model_ns");
                fprintf(f, "%d %.3f %.3f ", (int)json_integer_value(json_object_get(p, "depth")),
                        json_number_value(json_object_get(p, "plain_ns")),
                        json_number_value(json_object_get(p, "jmpret_model_ns")));
                if (json_is_number(s))
                    fprintf(f, "%.3f", json_number_value(s));
                else
                    fputs("NaN", f);
                fprintf(f, " %ld %d\n", colour, point);
            }
            fputs("\n\n", f);
        }
    return cb_out_commit(out);
}

/* The outputs, checked before the sweep. This CPU's own file is replaced by recalibrating (its
 * directory made as needed); -o and --data follow every command's rule (harness/common/output.h):
 * a new path, or a regular file with --force. 0, or the exit status after one line. */
static int prepare_outputs(const cal_opts *o, const char *path, cb_out *cal_out, cb_out *data_out,
                           made_dirs *made)
{
    int rc;
    struct stat st, sd;
    /* EEXIST also for a symbolic link to nothing: say that, not that it was made. */
    if (!o->out_path && make_parent(path, made) == 0) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", path);
        *strrchr(dir, '/') = '\0';
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            errno = lstat(dir, &st) == 0 && S_ISLNK(st.st_mode) ? ENOENT : ENOTDIR, rc = -1;
        else
            rc = 0;
    } else {
        rc = o->out_path ? 0 : -1;
    }
    if (rc) {
        rc = cb_usage_error("cannot create the directory of '%s': %s%s (valid: a writable path)",
                            cb_quote(path), strerror(errno),
                            errno == ENOENT ? " (a symbolic link to nothing?)" : "");
        while (made->n > 0)
            rmdir(made->path[--made->n]);
        return rc;
    }
    /* -o and --data one file: the data would replace the calibration, after the sweep. */
    if (o->data_path && (!strcmp(o->data_path, path) ||
                         (stat(path, &st) == 0 && stat(o->data_path, &sd) == 0 &&
                          st.st_dev == sd.st_dev && st.st_ino == sd.st_ino)))
        return cb_usage_error("--data '%s' is the calibration file itself (valid: another path "
                              "for the plot data)",
                              cb_quote(o->data_path));
    if ((rc = cb_out_prepare(cal_out, "calibration", path, o->out_path ? o->force : 1)))
        return rc;
    if (o->data_path && (rc = cb_out_prepare(data_out, "calibration data", o->data_path,
                                             o->force))) {
        cb_out_discard(cal_out);
        return rc;
    }
    return 0;
}

/* A failed calibration leaves nothing: the prepared outputs dropped, the directories it made
 * removed. */
static void drop_outputs(const cal_opts *o, cb_out *cal_out, cb_out *data_out, made_dirs *made)
{
    cb_out_discard(cal_out);
    if (o->data_path)
        cb_out_discard(data_out);
    while (made->n > 0)
        rmdir(made->path[--made->n]);
}

/* The sweep's o->runs runs of npoints points each, through the temporary results file tmp: the
 * first (counting) run's document in *run and its points in *pts, each point's times the median
 * over the runs. The number of points, or -1 after one line on stderr. */
static long sweep(const cal_opts *o, int pmu, size_t npoints, const char *tmp, json_t **run,
                  cal_point **pts)
{
    char why[1024] = "";
    long n = -1;
    *run = NULL;
    *pts = cb_xcalloc(npoints + 1, sizeof **pts);
    cal_point *got = cb_xcalloc(npoints + 1, sizeof *got);
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

/* The candidates of the counting run: cand[k] (model and size) and x[k][i], candidate k's
 * simulated mispredictions per switch at point i. Their number. */
static size_t candidates(const cal_point *pts, long n, cb_rsb_config **cand, double ***x)
{
    json_t *c0 = pts[0].cand;
    size_t ncand = json_array_size(c0);
    *cand = cb_xcalloc(ncand + 1, sizeof **cand);
    *x = cb_xcalloc(ncand + 1, sizeof **x);
    for (size_t k = 0; k < ncand; k++) {
        json_t *ck = json_array_get(c0, k);
        cb_rsb_model_parse(json_string_value(json_object_get(ck, "model")) ?: "",
                           &(*cand)[k].model);
        (*cand)[k].entries = (unsigned)json_integer_value(json_object_get(ck, "entries"));
        (*x)[k] = cb_xcalloc((size_t)n, sizeof *(*x)[k]);
        for (long i = 0; i < n; i++)
            (*x)[k][i] = json_number_value(
                json_object_get(json_array_get(pts[i].cand, k), "mispredicted_per_op"));
    }
    return ncand;
}

/* Why the fit's twin was chosen, for the file and the table. */
static void twin_reason(const cal_opts *o, const cb_rsbfit_result *res, const cal_point *pts,
                        char *reason, size_t len)
{
    if (o->baseline != CB_RSBFIT_AUTO)
        snprintf(reason, len, "chosen with --baseline");
    else if (res->baseline == CB_RSBFIT_JMPRET)
        snprintf(reason, len,
                 "the jmpret build passed its check as a twin: at sites=same, jmpret + cost x "
                 "mispredicted + its step is within %.0f%% of plain at every depth",
                 100 * CAL_BOUND);
    else
        snprintf(reason, len,
                 "the jmpret build failed its check as a twin: at sites=same, %s depth %ld, "
                 "jmpret + cost x mispredicted + its step is %+.0f%% off plain (docs/rsb.md, "
                 "\"Why two twins\")",
                 pts[res->twin_worst].impl, pts[res->twin_worst].depth,
                 100 * res->twin_worst_error);
}

/* What a calibration has measured and where it goes. */
typedef struct cal_run {
    const cal_opts *o;
    cb_cpu_id cpu;
    const char *path, *pmu_why;
    double t0;
    cb_out cal_out, data_out;
} cal_run;

/* Fits every candidate to the points and writes the calibration (and --data): 0, or
 * CB_EXIT_CELLS_FAILED after one line (the calibration file then not written). */
static int fit_and_write(cal_run *cr, json_t *run, cal_point *pts, long n)
{
    const cal_opts *o = cr->o;
    cb_rsb_config *cand;
    double **x;
    size_t ncand = candidates(pts, n, &cand, &x);
    cb_rsbfit_line *jfits = cb_xcalloc(ncand + 1, sizeof *jfits);
    cb_rsbfit_line *sfits = cb_xcalloc(ncand + 1, sizeof *sfits);
    cb_rsbfit_point *rp = cb_xcalloc((size_t)n + 1, sizeof *rp);
    for (long i = 0; i < n; i++)
        rp[i] = (cb_rsbfit_point){strcmp(pts[i].impl, pts[0].impl) != 0,
                                  !strcmp(pts[i].sites, "same"), pts[i].depth, pts[i].plain_ns,
                                  pts[i].jmpret_ns};
    cb_rsbfit_result res;
    int status = 0;
    if (cb_rsbfit_calibrate(rp, (size_t)n, (const double *const *)x, ncand, o->baseline,
                            CAL_BOUND, jfits, sfits, &res) != 0 ||
        res.best < 0) {
        fprintf(stderr, "corobench calibrate: no candidate fits the %s twin (no model's "
                        "mispredictions grow with the time it measures here)\n",
                cb_rsbfit_baseline_name(res.baseline));
        cb_out_discard(&cr->cal_out);
        if (o->data_path)
            cb_out_discard(&cr->data_out);
        status = CB_EXIT_CELLS_FAILED;
    } else {
        char reason[512];
        twin_reason(o, &res, pts, reason, sizeof reason);
        json_t *doc = cal_doc(o, run, &cr->cpu, pts, rp, (size_t)n, cand, jfits, sfits, ncand,
                              &res, reason, x, cr->pmu_why, now_s() - cr->t0);
        /* The files first, then the table (as run does): a closed stdout, `| head`, loses
         * nothing. */
        if (json_dumpf(doc, cb_out_stream(&cr->cal_out), JSON_INDENT(2) | JSON_PRESERVE_ORDER))
            abort(); /* into memory */
        int written = cb_out_commit(&cr->cal_out) == 0;
        if (!written) {
            status = CB_EXIT_CELLS_FAILED; /* the message is out */
            if (o->data_path)
                cb_out_discard(&cr->data_out);
        } else if (o->data_path && write_data(doc, &cr->data_out) != 0) {
            status = CB_EXIT_CELLS_FAILED;
        }
        /* What a run will make of the file: read back through the runs' own loader. */
        char refused[1024] = "";
        json_t *adopted = written ? cb_rsbcal_load(cr->path, &cr->cpu, refused, sizeof refused)
                                  : NULL;
        json_decref(adopted);
        print_table(doc, stdout);
        if (cr->pmu_why)
            printf("no PMU: calibrated against timing only (%s)\n", cr->pmu_why);
        if (written)
            printf("calibration: %s (%.1f s)\n", cr->path, now_s() - cr->t0);
        if (written && !adopted)
            fprintf(stderr, "corobench calibrate: warning: runs will not adopt this calibration: "
                            "%s\n", refused);
        json_decref(doc);
    }
    for (size_t k = 0; k < ncand; k++)
        free(x[k]);
    free(x);
    free(rp);
    free(cand);
    free(jfits);
    free(sfits);
    return status;
}

int cb_cmd_calibrate(int argc, char **argv)
{
    cal_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc != CB_OPTS_PARSED)
        return rc;
    cal_run cr = {.o = &o, .t0 = now_s()};
    char path[4096], tmp[4400], why[512];
    size_t npoints;
    cb_cpu_identify(&cr.cpu);
    if (o.out_path)
        snprintf(path, sizeof path, "%s", o.out_path);
    else
        cb_rsbcal_path(&cr.cpu, path, sizeof path);
    cr.path = path;
    cr.pmu_why = pmu_reason(why, sizeof why);
    made_dirs made = {.n = 0};
    if ((rc = check_sweep(&o, !cr.pmu_why, &npoints)) != CB_OPTS_PARSED ||
        (rc = prepare_outputs(&o, path, &cr.cal_out, &cr.data_out, &made)) != 0)
        return rc;
    /* The sweep's results go to a private directory beside the calibration, not named
     * results: a run writing into results/ would point results/latest.json at them. */
    char tmpdir[4200];
    const char *slash = strrchr(path, '/');
    snprintf(tmpdir, sizeof tmpdir, "%.*s%s.calibrate-sweep.XXXXXX",
             slash ? (int)(slash - path) : 0, path, slash ? "/" : "");
    /* run's own limit on an output path (common/output.h), checked before the sweep. */
    if (strlen(tmpdir) + strlen("/sweep.json") >= (4096 - 300)) {
        drop_outputs(&o, &cr.cal_out, &cr.data_out, &made);
        return cb_usage_error("output path '%s' is too long for the sweep's files beside it "
                              "(valid: at most %zu bytes)",
                              cb_quote(path),
                              (size_t)(4096 - 300) - strlen("/.calibrate-sweep.XXXXXX/sweep.json"));
    }
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "corobench calibrate: cannot make a directory for the sweep beside '%s': "
                        "%s\n",
                cb_quote(path), strerror(errno));
        drop_outputs(&o, &cr.cal_out, &cr.data_out, &made);
        return CB_EXIT_CELLS_FAILED;
    }
    snprintf(tmp, sizeof tmp, "%s/sweep.json", tmpdir);
    cb_proc_kill_on_interrupt();
    json_t *run;
    cal_point *pts;
    long n = sweep(&o, !cr.pmu_why, npoints, tmp, &run, &pts);
    rmdir(tmpdir);
    if (n < 0) {
        drop_outputs(&o, &cr.cal_out, &cr.data_out, &made);
        return CB_EXIT_CELLS_FAILED;
    }
    int status = fit_and_write(&cr, run, pts, n);
    if (status != 0 && access(path, F_OK) != 0) /* nothing written: no directory left either */
        while (made.n > 0)
            rmdir(made.path[--made.n]);
    free(pts);
    json_decref(run);
    return status;
}

const char *cb_calibrate_dir(void) { return cb_rsbcal_dir(); }
