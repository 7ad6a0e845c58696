/* The `run` and `list` commands: option parsing and validation. Every bad input is one line
 * naming the bad value and the valid choices, and exit status 2, before anything runs. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"

#include "harness/common/alloc.h"
#include "harness/common/build.h"
#include "harness/common/cli.h"
#include "harness/measure/counters.h"
#include "harness/measure/rsbsim.h"
#include "harness/measure/rsbcal.h"
#include "harness/results/baseline.h"
#include "impls/plugin.h"

/* A registry --impl or --workload selects from. */
typedef struct registry {
    const char *what;
    size_t n;
    const void *(*at)(size_t);
    const char *(*name)(const void *);
    int (*in_all)(const void *); /* which entries `all` selects; NULL: every one */
} registry;

static const void *impl_at(size_t i) { return &cb_impls[i]; }
static const char *impl_name(const void *e) { return ((const cb_impl *)e)->name; }
static const void *wl_at(size_t i) { return cb_workloads[i]; }
static const char *wl_name(const void *e) { return ((const cb_workload *)e)->name; }
static int wl_in_all(const void *e) { return !((const cb_workload *)e)->selftest; }

/* Resolves a comma-separated selection against a registry. An unknown name is a usage error
 * whose "valid: ..." lists the registry's names and `all`. */
static int select_list(const char *arg, const registry *r, const void **out, size_t *nout)
{
    size_t n;
    char **items = cb_split_list(arg, &n);
    *nout = 0;
    for (size_t i = 0; i < n; i++) {
        int found = 0;
        for (size_t t = 0; t < r->n; t++) {
            const void *e = r->at(t);
            if (strcmp(items[i], "all") ? strcmp(items[i], r->name(e)) != 0
                                        : r->in_all && !r->in_all(e))
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
            size_t len = 0;
            for (size_t t = 0; t < r->n && len < sizeof valid; t++)
                len += (size_t)snprintf(valid + len, sizeof valid - len, "%s, ", r->name(r->at(t)));
            if (len < sizeof valid)
                snprintf(valid + len, sizeof valid - len, "all");
            cb_nearest near;
            cb_nearest_init(&near, items[i]);
            for (size_t t = 0; t < r->n; t++)
                cb_nearest_offer(&near, r->name(r->at(t)));
            int rc = cb_usage_error("unknown %s '%s'%s (valid: %s)", r->what, cb_quote(items[i]),
                                    cb_nearest_hint(&near), valid);
            free(items);
            return rc;
        }
    }
    free(items);
    return 0;
}

/* A decimal integer from lo to hi (params.h: no 0x, no sign but '-', leading zeros decimal). */
int cb_opt_int(const char *opt, const char *s, long lo, long hi, long *out)
{
    int64_t v;
    if (cb_parse_int(s, lo, hi, &v) != 0)
        return cb_usage_error("invalid value '%s' for %s (valid: a decimal integer from %ld to "
                              "%ld)",
                              cb_quote(s), opt, lo, hi);
    *out = (long)v;
    return 0;
}

/* A positive number up to max (a deadline past it would overflow the millisecond wait of
 * poll() and the cell's backstop timer: --timeout; a repetition's length past it, the plan's
 * estimate: --min-rep-ms). */
int cb_opt_positive(const char *opt, const char *s, double max, double *out)
{
    double v;
    if (cb_parse_decimal(s, &v) || !(v > 0) || !(v <= max))
        return cb_usage_error("invalid value '%s' for %s (valid: a positive number of %s up to "
                              "%.15g)",
                              cb_quote(s), opt,
                              strcmp(opt, "--timeout") ? "milliseconds" : "seconds", max);
    *out = v;
    return 0;
}

static int check_pin(int cpu, const char *typed)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set)) {
        char valid[256] = "";
        size_t n = 0;
        for (int i = 0; i < CPU_SETSIZE && n < sizeof valid; i++)
            if (CPU_ISSET(i, &set))
                n += (size_t)snprintf(valid + n, sizeof valid - n, "%s%d", n ? ", " : "", i);
        return cb_usage_error("invalid value '%s' for --pin (valid: a CPU this process may run "
                              "on: %s)",
                              cb_quote(typed), valid);
    }
    return 0;
}

/* The build variants --variant accepts. */
static const char *const cb_variant_names[] = {"plain", "jmpret", NULL};

/* --variant LIST: known names, each once, in the order given. */
static int parse_variants(const char *arg, cb_run_opts *o)
{
    size_t n;
    char **items = cb_split_list(arg, &n);
    o->nvariants = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (cb_variant_names[k] && strcmp(cb_variant_names[k], items[i]))
            k++;
        if (!cb_variant_names[k]) {
            cb_nearest near;
            cb_nearest_init(&near, items[i]);
            for (size_t v = 0; cb_variant_names[v]; v++)
                cb_nearest_offer(&near, cb_variant_names[v]);
            int rc = items[i][0] ? cb_usage_error("unknown variant '%s'%s (valid: plain, jmpret)",
                                                  cb_quote(items[i]), cb_nearest_hint(&near))
                                 : cb_usage_error("invalid --variant '%s': empty item (valid: "
                                                  "plain, jmpret, comma-separated)",
                                                  cb_quote(arg));
            free(items);
            return rc;
        }
        int seen = 0;
        for (size_t v = 0; v < o->nvariants; v++)
            seen |= o->variants[v] == cb_variant_names[k];
        if (!seen)
            o->variants[o->nvariants++] = cb_variant_names[k];
    }
    free(items);
    return 0;
}

/* --param NAME=V1,V2,...: a name given once, no empty value. */
static int parse_param(const char *arg, cb_run_opts *o)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return cb_usage_error("invalid --param '%s' (valid: NAME=V1,V2,...)", cb_quote(arg));
    cb_param_arg *pa = &o->params[o->nparams++];
    pa->name = cb_xstrndup(arg, (size_t)(eq - arg));
    pa->values = cb_split_list(eq + 1, &pa->nvalues);
    for (size_t k = 0; k < pa->nvalues; k++)
        if (!pa->values[k][0])
            return cb_usage_error("invalid --param '%s': empty value (valid: NAME=V1,V2,...)",
                                  cb_quote(arg));
    for (size_t k = 0; k + 1 < o->nparams; k++)
        if (!strcmp(o->params[k].name, pa->name))
            return cb_usage_error("parameter '%s' given twice (valid: once, with a "
                                  "comma-separated list)",
                                  cb_quote(pa->name));
    return 0;
}

static void run_usage(FILE *f)
{
    fputs("usage: corobench run [--impl LIST] [--workload LIST] [--param NAME=V1,V2,...]...\n"
          "                     [--invocations K] [--reps N] [--warmup N] [--min-rep-ms MS]\n"
          "                     [--quick] [--pin CPU]\n"
          "                     [--timeout SEC] [-o FILE [--force]] [--no-table] [--wide]\n"
          "                     [--dry-run] [--filter REGEX] [--pace FILE|none]\n"
          "                     [--save-baseline NAME] [--impl-lib PATH[,PATH...]]\n"
          "                     [--external NAME=COMMAND]...\n"
          "                     [--events LIST [--events-kernel]]\n"
          "                     [--variant plain,jmpret]\n"
          "                     [--rsb sim [--rsb-model auto|circular|underflow-btb]\n"
          "                                [--rsb-entries N] [--rsb-candidates]]\n"
          "LIST is comma-separated; 'all' selects all. See 'corobench list' for names and "
          "parameters.\n--param WORKLOAD.NAME=... gives a parameter to that workload only.\n",
          f);
}

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
    {"rsb-candidates", no_argument, 0, 'C'},
    {"force", no_argument, 0, 'F'},        {"invocations", required_argument, 0, 'I'},
    {"wide", no_argument, 0, 'X'},         {"dry-run", no_argument, 0, 'Y'},
    {"save-baseline", required_argument, 0, 'S'},
    {"impl-lib", required_argument, 0, 'L'},
    {"external", required_argument, 0, 'Z'},
    {"filter", required_argument, 0, 'f'},
    {"pace", required_argument, 0, 'A'},
    {0, 0, 0, 0},
};

/* What parsing remembers beyond the options struct: the selections (resolved last) and which
 * values --quick must not replace. */
typedef struct parse_state {
    const char *impl_arg, *wl_arg;
    int reps_set, min_set;
    unsigned char seen[128]; /* options given so far, by their letter */
} parse_state;

/* One option c with its argument into o; 0, or an exit status. */
static int apply_option(cb_run_opts *o, parse_state *ps, int c, const char *arg)
{
    int rc;
    long v = 0;
    int64_t i64;
    switch (c) {
    case 'i': ps->impl_arg = arg; return 0;
    case 'w': ps->wl_arg = arg; return 0;
    case 'p': return parse_param(arg, o);
    case 'r':
        if ((rc = cb_opt_int("--reps", arg, 1, 100000, &v)))
            return rc;
        o->measure.reps = (unsigned)v;
        ps->reps_set = 1;
        return 0;
    case 'I':
        if ((rc = cb_opt_int("--invocations", arg, 1, CB_MAX_INVOCATIONS, &v)))
            return rc;
        o->invocations = (unsigned)v;
        return 0;
    case 'W':
        if ((rc = cb_opt_int("--warmup", arg, 0, 1000, &v)))
            return rc;
        o->measure.warmup = (unsigned)v;
        return 0;
    case 'm':
        ps->min_set = 1;
        return cb_opt_positive("--min-rep-ms", arg, CB_MAX_MIN_REP_MS, &o->measure.min_rep_ms);
    case 'q': o->quick = 1; return 0;
    case 'P':
        if ((rc = cb_opt_int("--pin", arg, 0, CPU_SETSIZE - 1, &v)) ||
            (rc = check_pin((int)v, arg)))
            return rc;
        o->pin_cpu = (int)v;
        return 0;
    case 't': return cb_opt_positive("--timeout", arg, 1e6, &o->timeout_s);
    case 'o': o->out_path = arg; return 0;
    case 'n': o->print_table = 0; return 0;
    case 'X': o->wide = 1; return 0;
    case 'Y': o->dry_run = 1; return 0;
    case 'f': {
        /* Checked here, matched against the cells by the plan (plan.c). */
        regex_t re;
        const char *pattern = arg[0] == '-' ? arg + 1 : arg;
        int err = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
        if (err) {
            char why[128];
            regerror(err, &re, why, sizeof why);
            return cb_usage_error("invalid --filter '%s': %s (valid: a POSIX extended regular "
                                  "expression over WORKLOAD/IMPL/NAME=VALUE/..., '-' before it "
                                  "to leave those cells out)",
                                  cb_quote(arg), why);
        }
        regfree(&re);
        o->filter = arg;
        return 0;
    }
    case 'F': o->force = 1; return 0;
    case 'A': /* read by the plan's pace (pace.c), which names a file it cannot read */
        if (!arg[0])
            return cb_usage_error("invalid value '' for --pace (valid: a record or results "
                                  "file, or none)");
        o->pace_path = arg;
        return 0;
    case 'L': {
        char err[PATH_MAX + 512];
        if (cb_plugin_load_list(arg, err, sizeof err) != 0)
            return cb_usage_error("%s", err);
        return 0;
    }
    case 'Z': {
        const char *eq = strchr(arg, '=');
        char err[512];
        if (!eq)
            return cb_usage_error("invalid value '%s' for --external (valid: NAME=COMMAND)",
                                  cb_quote(arg));
        if (cb_impl_add_external(cb_xstrndup(arg, (size_t)(eq - arg)), eq + 1, err, sizeof err))
            return cb_usage_error("%s", err);
        return 0;
    }
    case 'S':
        if (cb_baseline_name_check(arg))
            return cb_usage_error("invalid value '%s' for --save-baseline (valid: a name of "
                                  "letters, digits, '.', '_' and '-', not starting with '.', up "
                                  "to 64 characters)",
                                  cb_quote(arg));
        if (!strncmp(arg, CB_GATE_BASELINE_PREFIX, strlen(CB_GATE_BASELINE_PREFIX)))
            return cb_usage_error("invalid value '%s' for --save-baseline (valid: a name not "
                                  "starting with '" CB_GATE_BASELINE_PREFIX "', which names the "
                                  "deterministic gate's baselines in git: 'make baseline' "
                                  "rewrites them)",
                                  cb_quote(arg));
        o->save_baseline = arg;
        return 0;
    case 'e': {
        char err[1024];
        if (cb_counters_validate(arg, err, sizeof err) != 0)
            return cb_usage_error("%s", err);
        o->measure.events = arg;
        return 0;
    }
    case 'K': o->measure.events_kernel = 1; return 0;
    case 'V': return parse_variants(arg, o);
    case 'B':
        if (strcmp(arg, "sim") && strcmp(arg, "off"))
            return cb_usage_error("invalid value '%s' for --rsb (valid: sim, off)", cb_quote(arg));
        o->rsb_sim = !strcmp(arg, "sim");
        return 0;
    case 'M': {
        cb_rsb_model m = CB_RSB_CIRCULAR;
        o->rsb_model_set = strcmp(arg, "auto") != 0;
        if (o->rsb_model_set && cb_rsb_model_parse(arg, &m) != 0)
            return cb_usage_error("invalid value '%s' for --rsb-model (valid: auto, circular, "
                                  "underflow-btb)",
                                  cb_quote(arg));
        o->measure.rsb_model = (int)m;
        return 0;
    }
    case 'C': o->measure.rsb_candidates = 1; return 0;
    case 'E':
        if (cb_parse_int(arg, 1, CB_RSBSIM_MAX_ENTRIES, &i64))
            return cb_usage_error("invalid value '%s' for --rsb-entries (valid: a decimal "
                                  "integer from 1 to %d; 32 as on AMD Zen 1-4, 16 as on Intel "
                                  "since Skylake)",
                                  cb_quote(arg), CB_RSBSIM_MAX_ENTRIES);
        v = (long)i64;
        o->measure.rsb_entries = (unsigned)v;
        return 0;
    }
    return -1; /* not an option of run */
}

static int unknown_option(const char *arg)
{
    char valid[512], dashed[64];
    size_t len = 0;
    char typed[64]; /* "--filtr=x": the name before its value */
    snprintf(typed, sizeof typed, "%.*s", (int)strcspn(arg, "="), arg);
    cb_nearest near;
    cb_nearest_init(&near, typed);
    for (const struct option *lo = longopts; lo->name && len < sizeof valid; lo++) {
        len += (size_t)snprintf(valid + len, sizeof valid - len, "%s--%s%s", len ? ", " : "",
                                lo->name, lo->val == 'o' ? " (-o)" : "");
        snprintf(dashed, sizeof dashed, "--%s", lo->name);
        cb_nearest_offer(&near, dashed);
    }
    return cb_usage_error("unknown option '%s' for run%s (valid: %s)", cb_quote(arg),
                          cb_nearest_hint(&near), valid);
}

/* The defaults that depend on other options, then the selections against the registries. */
static int finish(cb_run_opts *o, const parse_state *ps)
{
    /* Options that need another. */
    if (ps->seen['E'] && !o->rsb_sim)
        return cb_usage_error("--rsb-entries needs --rsb sim (valid: --rsb sim --rsb-entries N)");
    if (ps->seen['M'] && !o->rsb_sim)
        return cb_usage_error("--rsb-model needs --rsb sim (valid: --rsb sim --rsb-model M)");
    if (ps->seen['C'] && !o->rsb_sim)
        return cb_usage_error("--rsb-candidates needs --rsb sim (valid: --rsb sim "
                              "--rsb-candidates)");
    if (o->measure.events_kernel && !o->measure.events)
        return cb_usage_error("--events-kernel needs --events (valid: --events LIST "
                              "--events-kernel)");
    if (o->quick) {
        if (!ps->reps_set)
            o->measure.reps = cb_run_default.quick_reps;
        if (!ps->min_set)
            o->measure.min_rep_ms = cb_run_default.quick_min_rep_ms;
    }
    if (!o->nvariants) /* this binary's own */
        o->variants[o->nvariants++] = !strcmp(cb_build_variant, "jmpret") ? "jmpret" : "plain";
    /* auto: the model this machine's calibration chose, else its vendor's default
     * (measure/rsbcal.h); a size given with --rsb-entries wins either way. */
    /* Resolved once, here: every cell's request carries the model (run/request.h), so a cell
     * does not read the calibration file again, which may have changed since the run began. */
    if (!o->rsb_model_set) {
        json_t *machine_rsb = cb_rsbcal_machine();
        cb_rsb_config cfg;
        cb_rsbcal_config(machine_rsb, &cfg);
        json_decref(machine_rsb);
        o->measure.rsb_model = (int)cfg.model;
        if (!o->measure.rsb_entries)
            o->measure.rsb_entries = cfg.entries;
    } else if (!o->measure.rsb_entries) {
        o->measure.rsb_entries =
            o->measure.rsb_model == CB_RSB_UNDERFLOW_BTB ? cb_run_default.rsb_entries_underflow
                                                         : cb_run_default.rsb_entries;
    }
    o->impls = cb_xcalloc(cb_nimpls, sizeof *o->impls);
    o->workloads = cb_xcalloc(cb_nworkloads, sizeof *o->workloads);
    const registry impls = {"implementation", cb_nimpls, impl_at, impl_name, NULL};
    const registry workloads = {"workload", cb_nworkloads, wl_at, wl_name, wl_in_all};
    int rc;
    if ((rc = select_list(ps->impl_arg, &impls, (const void **)o->impls, &o->nimpls)) ||
        (rc = select_list(ps->wl_arg, &workloads, (const void **)o->workloads, &o->nworkloads)))
        return rc;
    return CB_OPTS_PARSED;
}

/* 5 repetitions in each of 3 processes: the repetitions go where the variance is
 * (docs/measurement.md, "Invocations"). */
const cb_run_defaults cb_run_default = {.invocations = CB_DEFAULT_INVOCATIONS, .reps = 5,
                                        .warmup = 2, .quick_reps = 3, .min_rep_ms = 10,
                                        .quick_min_rep_ms = 2, .timeout_s = 60,
                                        .rsb_entries = CB_RSBSIM_DEFAULT_ENTRIES,
                                        .rsb_entries_underflow = 16};

int cb_run_opts_parse(int argc, char **argv, cb_run_opts *o)
{
    const cb_run_defaults *d = &cb_run_default;
    *o = (cb_run_opts){.measure = {.reps = d->reps, .warmup = d->warmup,
                                   .min_rep_ms = d->min_rep_ms},
                       .invocations = d->invocations,
                       .pin_cpu = -1, .timeout_s = d->timeout_s, .print_table = 1, .argc = argc,
                       .argv = argv};
    parse_state ps = {.impl_arg = "all", .wl_arg = "all"};
    int rc, c;
    o->params = cb_xcalloc((size_t)argc + 1, sizeof *o->params);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
        if (c == 'h') {
            run_usage(stdout);
            return 0;
        }
        if (c == ':')
            return cb_usage_error("option '%s' needs a value (valid: see 'corobench run "
                                  "--help')",
                                  cb_quote(argv[optind - 1]));
        /* One value per option (a list is comma-separated); --param once per name. */
        for (const struct option *lo = longopts; c != 'p' && c != 'Z' && lo->name; lo++)
            if (lo->val == c && lo->has_arg && c > 0 && c < 128 && ps.seen[c]++)
                return cb_usage_error("option %s%s given twice (valid: once%s)",
                                      c == 'o' ? "-o/--" : "--", lo->name,
                                      strchr("iweV", c) ? ", with a comma-separated list" : "");
        if (c > 0 && c < 128)
            ps.seen[c] = ps.seen[c] ? ps.seen[c] : 1;
        if ((rc = apply_option(o, &ps, c, optarg)) < 0)
            return unknown_option(argv[optind - 1]);
        if (rc)
            return rc;
    }
    if (optind < argc)
        return cb_usage_error("unexpected argument '%s' for run (valid: options only; see "
                              "'corobench run --help')",
                              cb_quote(argv[optind]));
    return finish(o, &ps);
}
