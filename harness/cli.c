/* The `run` and `list` commands: option parsing and validation. Every bad input is one line
 * naming the bad value and the valid choices, and exit status 2, before anything runs. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "counters.h"
#include "harness.h"

int cb_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("corobench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CB_EXIT_USAGE;
}

char **cb_split_list(const char *s, size_t *n)
{
    size_t len = strlen(s), count = 1;
    for (const char *p = s; *p; p++)
        count += *p == ',';
    /* One allocation: the pointers, then a copy of the text they point into. */
    char **v = malloc((count + 1) * sizeof *v + len + 1);
    if (!v)
        abort();
    char *text = (char *)(v + count + 1), *rest = text, *tok;
    memcpy(text, s, len + 1);
    *n = 0;
    while ((tok = strsep(&rest, ",")))
        v[(*n)++] = tok; /* empty items stay, as "", so "a,,b" is reported */
    v[*n] = NULL;
    return v;
}

static void impl_choices(char *buf, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < cb_nimpls; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s, ", cb_impls[i].name);
    snprintf(buf + n, len - n, "all");
}

static void workload_choices(char *buf, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < cb_nworkloads; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s, ", cb_workloads[i]->name);
    snprintf(buf + n, len - n, "all");
}

/* Resolves a comma-separated selection against a name table; `all` selects every entry
 * in_all accepts (everything when it is NULL). */
static int select_list(const char *arg, const char *what, const void **out, size_t *nout,
                       size_t ntable, const void *(*at)(size_t), const char *(*name)(const void *),
                       int (*in_all)(const void *), void (*choices)(char *, size_t))
{
    size_t n;
    char **items = cb_split_list(arg, &n);
    *nout = 0;
    for (size_t i = 0; i < n; i++) {
        int found = 0;
        for (size_t t = 0; t < ntable; t++) {
            const void *e = at(t);
            if (strcmp(items[i], "all") ? strcmp(items[i], name(e)) != 0 : in_all && !in_all(e))
                continue;
            found = 1;
            int dup = 0;
            for (size_t k = 0; k < *nout; k++)
                dup |= out[k] == e;
            if (!dup)
                out[(*nout)++] = e;
        }
        if (!found) {
            char valid[256];
            choices(valid, sizeof valid);
            int rc = cb_usage_error("unknown %s '%s' (valid: %s)", what, items[i], valid);
            free(items);
            return rc;
        }
    }
    free(items);
    return 0;
}

static const void *impl_at(size_t i) { return &cb_impls[i]; }
static const char *impl_name(const void *e) { return ((const cb_impl *)e)->name; }
static const void *wl_at(size_t i) { return cb_workloads[i]; }
static const char *wl_name(const void *e) { return ((const cb_workload *)e)->name; }
static int wl_in_all(const void *e) { return !((const cb_workload *)e)->selftest; }

static int parse_uint(const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return cb_usage_error("invalid value '%s' for %s (valid: an integer from %ld to %ld)", s,
                              opt, lo, hi);
    *out = v;
    return 0;
}

static int parse_pos_double(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || !isfinite(v))
        return cb_usage_error("invalid value '%s' for %s (valid: a positive number of %s)", s,
                              opt, strcmp(opt, "--timeout") ? "milliseconds" : "seconds");
    *out = v;
    return 0;
}

static int check_pin(int cpu)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set)) {
        char valid[256] = "";
        size_t n = 0;
        for (int i = 0; i < CPU_SETSIZE && n < sizeof valid; i++)
            if (CPU_ISSET(i, &set))
                n += (size_t)snprintf(valid + n, sizeof valid - n, "%s%d", n ? ", " : "", i);
        return cb_usage_error("invalid value '%d' for --pin (valid: a CPU this process may run "
                              "on: %s)",
                              cpu, valid);
    }
    return 0;
}

static void run_usage(FILE *f)
{
    fputs("usage: corobench run [--impl LIST] [--workload LIST] [--param NAME=V1,V2,...]...\n"
          "                     [--reps N] [--warmup N] [--min-rep-ms MS] [--quick] [--pin CPU]\n"
          "                     [--timeout SEC] [-o FILE] [--no-table]\n"
          "                     [--events LIST [--events-kernel]]\n"
          "                     [--variant plain,jmpret]\n"
          "                     [--rsb sim [--rsb-model circular|underflow-btb]\n"
          "                                [--rsb-entries N]]\n"
          "LIST is comma-separated; 'all' selects all. See 'corobench list' for names and "
          "parameters.\n",
          f);
}

int cb_cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"impl", required_argument, 0, 'i'},   {"workload", required_argument, 0, 'w'},
        {"param", required_argument, 0, 'p'},  {"reps", required_argument, 0, 'r'},
        {"warmup", required_argument, 0, 'W'}, {"min-rep-ms", required_argument, 0, 'm'},
        {"quick", no_argument, 0, 'q'},        {"pin", required_argument, 0, 'P'},
        {"timeout", required_argument, 0, 't'}, {"output", required_argument, 0, 'o'},
        {"no-table", no_argument, 0, 'n'},     {"help", no_argument, 0, 'h'},
        {"events", required_argument, 0, 'e'}, {"events-kernel", no_argument, 0, 'K'},
        {"variant", required_argument, 0, 'V'}, {"rsb", required_argument, 0, 'B'},
        {"rsb-entries", required_argument, 0, 'E'}, {"rsb-model", required_argument, 0, 'M'},
        {0, 0, 0, 0},
    };
    cb_run_opts o = {.reps = 5, .warmup = 1, .min_rep_ms = 10, .pin_cpu = -1, .timeout_s = 60,
                     .print_table = 1, .argc = argc, .argv = argv};
    const char *impl_arg = "all", *wl_arg = "all";
    int reps_set = 0, min_set = 0, rc, c;
    long v;
    o.params = calloc((size_t)argc + 1, sizeof *o.params);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
        switch (c) {
        case 'i': impl_arg = optarg; break;
        case 'w': wl_arg = optarg; break;
        case 'p': {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg)
                return cb_usage_error("invalid --param '%s' (valid: NAME=V1,V2,...)", optarg);
            cb_param_arg *pa = &o.params[o.nparams++];
            pa->name = strndup(optarg, (size_t)(eq - optarg));
            pa->values = cb_split_list(eq + 1, &pa->nvalues);
            for (size_t k = 0; k < pa->nvalues; k++)
                if (!pa->values[k][0])
                    return cb_usage_error("invalid --param '%s': empty value (valid: "
                                          "NAME=V1,V2,...)",
                                          optarg);
            for (size_t k = 0; k + 1 < o.nparams; k++)
                if (!strcmp(o.params[k].name, pa->name))
                    return cb_usage_error("parameter '%s' given twice (valid: once, with a "
                                          "comma-separated list)",
                                          pa->name);
            break;
        }
        case 'r':
            if ((rc = parse_uint("--reps", optarg, 1, 100000, &v)))
                return rc;
            o.reps = (unsigned)v;
            reps_set = 1;
            break;
        case 'W':
            if ((rc = parse_uint("--warmup", optarg, 0, 1000, &v)))
                return rc;
            o.warmup = (unsigned)v;
            break;
        case 'm':
            if ((rc = parse_pos_double("--min-rep-ms", optarg, &o.min_rep_ms)))
                return rc;
            min_set = 1;
            break;
        case 'q': o.quick = 1; break;
        case 'P':
            if ((rc = parse_uint("--pin", optarg, 0, CPU_SETSIZE - 1, &v)) || (rc = check_pin((int)v)))
                return rc;
            o.pin_cpu = (int)v;
            break;
        case 't':
            if ((rc = parse_pos_double("--timeout", optarg, &o.timeout_s)))
                return rc;
            break;
        case 'o': o.out_path = optarg; break;
        case 'n': o.print_table = 0; break;
        case 'e': {
            char err[1024];
            if (cb_counters_validate(optarg, err, sizeof err) != 0)
                return cb_usage_error("%s", err);
            o.events = optarg;
            break;
        }
        case 'K': o.events_kernel = 1; break;
        case 'V':
        case 'B':
        case 'E':
        case 'M':
            if ((rc = cb_variant_option(&o, c, optarg)))
                return rc;
            break;
        case 'h': run_usage(stdout); return 0;
        case ':': return cb_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            return cb_usage_error("unknown option '%s' for run (valid: --impl, --workload, "
                                  "--param, --reps, --warmup, --min-rep-ms, --quick, --pin, "
                                  "--timeout, -o, --no-table, --events, --events-kernel, "
                                  "--variant, --rsb, --rsb-model, --rsb-entries)",
                                  argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cb_usage_error("unexpected argument '%s' for run (valid: options only; see "
                              "'corobench run --help')",
                              argv[optind]);
    if (o.quick) {
        if (!reps_set)
            o.reps = 3;
        if (!min_set)
            o.min_rep_ms = 2;
    }
    o.impls = calloc(cb_nimpls, sizeof *o.impls);
    o.workloads = calloc(cb_nworkloads, sizeof *o.workloads);
    if ((rc = select_list(impl_arg, "implementation", (const void **)o.impls, &o.nimpls, cb_nimpls,
                          impl_at, impl_name, NULL, impl_choices)) ||
        (rc = select_list(wl_arg, "workload", (const void **)o.workloads, &o.nworkloads,
                          cb_nworkloads, wl_at, wl_name, wl_in_all, workload_choices)))
        return rc;

    cb_cell *cells;
    size_t ncells;
    char err[1024];
    if (cb_grid_build(&o, &cells, &ncells, err, sizeof err) != 0)
        return cb_usage_error("%s", err);
    if ((rc = cb_variant_check(&o)) || (rc = cb_variant_expand(&o, &cells, &ncells)))
        return rc;
    if ((rc = cb_variant_cell_main(&o, cells, ncells)) >= 0)
        return rc; /* `corobench cell`: one cell measured here, for a parent */

    char path[4096];
    if (o.out_path)
        snprintf(path, sizeof path, "%s", o.out_path);
    else
        cb_results_default_path(path, sizeof path);

    cb_clock_init(); /* once, in the parent: every cell's child inherits the calibration */
    json_t *doc = cb_results_new(&o);
    cb_variant_describe(&o, doc);
    size_t bad = cb_run_cells(&o, cells, ncells, json_object_get(doc, "cells"));
    bad += cb_variant_cross_check(&o, cells, ncells, json_object_get(doc, "cells"));
    if (cb_results_write(doc, path) != 0) {
        fprintf(stderr, "corobench: cannot write results to %s: %s\n", path, strerror(errno));
        return CB_EXIT_CELLS_FAILED;
    }
    if (o.print_table)
        cb_results_print_table(doc, stdout);
    fprintf(stderr, "corobench: %zu cells, %zu failed or timed out; results in %s\n", ncells, bad,
            path);
    json_decref(doc);
    free(cells);
    return bad ? CB_EXIT_CELLS_FAILED : CB_EXIT_OK;
}

static void print_params(const cb_param_def *d)
{
    for (; d && d->name; d++) {
        if (d->kind == CB_PARAM_INT) {
            printf("      %-12s default %-10s integer %lld..%lld: %s\n", d->name, d->defval,
                   (long long)d->min, (long long)d->max, d->help);
        } else {
            char ch[256] = "";
            size_t n = 0;
            for (size_t i = 0; d->choices[i]; i++)
                n += (size_t)snprintf(ch + n, sizeof ch - n, "%s%s", i ? "|" : "", d->choices[i]);
            printf("      %-12s default %-10s %s: %s\n", d->name, d->defval, ch, d->help);
        }
    }
}

int cb_cmd_list(int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return cb_usage_error("unexpected argument '%s' for list (valid: none)", argv[1]);
    printf("implementations:\n");
    for (size_t i = 0; i < cb_nimpls; i++) {
        const cb_impl *im = &cb_impls[i];
        const char *why = cb_impl_unavailable(im);
        printf("  %-10s %-9s %s\n", im->name, cb_impl_family(im),
               why ? why : "available");
        printf("      %s\n", im->description ? im->description : im->backend->description);
        print_params(im->params);
    }
    printf("workloads:\n");
    for (size_t i = 0; i < cb_nworkloads; i++) {
        const cb_workload *w = cb_workloads[i];
        if (w->selftest)
            printf("  %-10s self-test of the harness, not a benchmark ('all' never selects it): %s\n", w->name,
                   w->description);
        else
            printf("  %-10s one op = one %s: %s\n", w->name, w->unit, w->description);
        print_params(w->params);
    }
    printf("event aliases for --events (any libpfm4 event name works too):\n");
    cb_counters_list(stdout);
    return 0;
}
