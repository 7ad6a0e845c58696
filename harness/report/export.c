/* `corobench export`: a results document in another format, for plots and for CI trackers.
 *   gnuplot        one block per series (impl, variant, and each other parameter that varies
 *                  among them) of the cells matching --where: x a numeric
 *                  parameter, then the --y fields (default: the median ns per op with MAD, min
 *                  and max), optionally divided by another implementation's value at the point
 *   csv            one row per cell, a column per scalar field (dotted names), samples joined
 *   gbench         google benchmark's JSON: context, a row per repetition, mean/median/stddev
 *                  (--aggregates-only: the aggregate rows alone, one point per cell for trackers)
 *   github-bench   github-action-benchmark's customSmallerIsBetter: a row per cell, its
 *                  estimate with the 95% interval as the range
 *   bmf            Bencher Metric Format: the latency measure per cell, with the interval as
 *                  lower and upper values
 *   deterministic  the document with only the cells' identity and deterministic fields (the
 *                  CI baseline, docs/ci.md)
 *   summary        a machine's compact record (record.h, docs/record.md) from its results
 *                  files, merged as the report merges them; --fleet DIR writes it to
 *                  DIR/<CPU kind>.json, the kind from its machine.cpu (results/fleet/)
 * Every output is derived from the JSON alone and written atomically with -o. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "export.h"
#include "harness/common/alloc.h"
#include "harness/common/untrusted.h"
#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "harness/common/build.h"
#include "harness/common/cli.h"
#include "harness/common/stats.h"
#include "harness/common/output.h"
#include "harness/results/load.h"
#include "harness/results/estimate.h"
#include "machines.h"
#include "record.h"

/* A cell matches when it is of the workload (if given) and every NAME=VALUE in --where equals
 * its parameter (or a field of the cell). */
static int matches(json_t *cell, const cb_export_opts *o)
{
    if (o->workload && (!cb_str(cell, "workload") || strcmp(cb_str(cell, "workload"), o->workload)))
        return 0;
    json_t *params = json_object_get(cell, "params");
    for (size_t i = 0; i < o->nw; i++) {
        json_t *v = json_object_get(params, o->w[i].name);
        if (!v)
            v = json_object_get(cell, o->w[i].name);
        char buf[64];
        const char *text = json_is_string(v) ? json_string_value(v) : NULL;
        if (json_is_integer(v)) {
            snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
            text = buf;
        }
        if (!text || strcmp(text, o->w[i].value))
            return 0;
    }
    return 1;
}

static const char *series_name(json_t *cell, char *buf, size_t len)
{
    const char *variant = cb_str(cell, "variant");
    int other = variant && strcmp(variant, "plain");
    snprintf(buf, len, "%s%s%s", cb_str(cell, "impl"), other ? "-" : "", other ? variant : "");
    return buf;
}

/* A gnuplot series: the implementation and variant, then NAME=VALUE of each parameter in vary
 * (those besides x that differ among the exported cells) that the cell has, so that a series
 * has one y per x. A parameter only some implementations have (closure's alloc) names no one
 * else's series: "asm", not "asm alloc=-", which no style and no reader knew as asm. */
static const char *plot_series(json_t *cell, json_t *vary, char *buf, size_t len)
{
    series_name(cell, buf, len);
    size_t i;
    json_t *name;
    json_array_foreach(vary, i, name)
    {
        const char *k = json_string_value(name);
        json_t *v = json_object_get(json_object_get(cell, "params"), k);
        if (json_is_integer(v))
            cb_append(buf, len, " %s=%lld", k, (long long)json_integer_value(v));
        else if (json_is_string(v))
            cb_append(buf, len, " %s=%s", k, json_string_value(v));
    }
    return buf;
}

/* The parameters besides x whose values differ among the ok cells o exports (without --where
 * naming them, pingpong's sites=distinct and sites=same fell into one series, two y per x). */
static json_t *varying_params(json_t *cells, const cb_export_opts *o)
{
    json_t *first = json_object(), *vary = json_array(), *c, *v;
    size_t i;
    const char *k;
    json_array_foreach(cells, i, c)
    {
        if (!cb_cell_ok(c) || !matches(c, o) ||
            !json_is_integer(json_object_get(json_object_get(c, "params"), o->x)))
            continue;
        json_object_foreach(json_object_get(c, "params"), k, v)
        {
            json_t *seen = json_object_get(first, k);
            if (!strcmp(k, o->x))
                continue;
            if (!seen)
                json_object_set(first, k, v);
            else if (!json_equal(seen, v)) {
                int listed = 0;
                size_t j;
                json_t *n;
                json_array_foreach(vary, j, n) listed |= !strcmp(json_string_value(n), k);
                if (!listed)
                    json_array_append_new(vary, json_string(k));
            }
        }
    }
    json_decref(first);
    return vary;
}

/* A cell's point and variant as one key (workload, variant, workload parameters). */
static void point_key(json_t *c, char *buf, size_t len)
{
    char params[512];
    cb_cell_params_text(c, 0, params, sizeof params);
    snprintf(buf, len, "%s\x1f%s\x1f%s", cb_str(c, "workload"), cb_str(c, "variant"), params);
}

/* The ok cells of implementation impl by point_key, the first of the file's order where two
 * share one: built once, so that finding each cell's twin is a lookup (a pass over every cell
 * for each made a plot of 10,000 cells quadratic: issue 30, MEDIUM 4). */
static json_t *twin_index(json_t *cells, const char *impl)
{
    json_t *idx = json_object(), *d;
    size_t i;
    char key[1200];
    json_array_foreach(cells, i, d)
    {
        if (!cb_cell_ok(d) || strcmp(cb_str(d, "impl"), impl))
            continue;
        point_key(d, key, sizeof key);
        if (!json_object_get(idx, key))
            json_object_set_nocheck(idx, key, d);
    }
    return idx;
}

/* The cell of the index's implementation at the same workload point and variant as c, or NULL. */
static json_t *twin(json_t *idx, json_t *c)
{
    char key[1200];
    point_key(c, key, sizeof key);
    return json_object_get(idx, key);
}

static const char *const default_y[] = {"ns_per_op.median", "ns_per_op.mad", "ns_per_op.min",
                                        "ns_per_op.max"};

size_t cb_export_gnuplot(FILE *out, json_t *cells, const cb_export_opts *o)
{
    const char *const *y = o->ny ? o->y : default_y;
    size_t ny = o->ny ? o->ny : 4, blocks = 0, i;
    json_t *done = json_object(), *c;
    fprintf(out, "# corobench export of %s: workload %s, x = %s, ", o->in, o->workload, o->x);
    if (o->ny)
        fprintf(out, "y = the fields named in each block\n");
    else
    {
        const char *unit = cb_results_unit(cells, o->workload);
        fprintf(out, "y = ns per %s (median)%s\n", unit ? unit : "op",
                unit ? "" : "; the unit differs between points: each cell's `unit`");
    }
    if (o->relative_to)
        fprintf(out, "# every y divided by %s's at the same point and variant\n", o->relative_to);
    json_t *vary = varying_params(cells, o);
    json_t *twins = o->relative_to ? twin_index(cells, o->relative_to) : NULL;
    /* One pass: each plotted cell to its series (done: name -> its cells, in the file's order),
     * the series in the order first seen (order); a pass over every cell per series was
     * quadratic where each point is its own series. */
    json_t *order = json_array();
    json_array_foreach(cells, i, c)
    {
        char name[512];
        if (!cb_cell_ok(c) || !matches(c, o) ||
            !json_is_integer(json_object_get(json_object_get(c, "params"), o->x)))
            continue;
        plot_series(c, vary, name, sizeof name);
        json_t *members = json_object_get(done, name);
        if (!members) {
            json_object_set_new_nocheck(done, name, members = json_array());
            json_array_append_new(order, json_stringn_nocheck(name, strlen(name)));
        }
        json_array_append(members, c);
    }
    json_t *series;
    json_array_foreach(order, i, series)
    {
        const char *name = json_string_value(series);
        fprintf(out, "%s# %s\n\"%s\"\n# %s", blocks ? "\n\n" : "", name, name, o->x);
        for (size_t k = 0; k < ny; k++)
            fprintf(out, " %s", y[k]);
        fputc('\n', out);
        blocks++;
        size_t j;
        json_t *d;
        json_array_foreach(json_object_get(done, name), j, d)
        {
            json_t *xv = json_object_get(json_object_get(d, "params"), o->x);
            json_t *base = twins ? twin(twins, d) : NULL;
            fprintf(out, "%lld", (long long)json_integer_value(xv));
            for (size_t k = 0; k < ny; k++) {
                double v, b = 1;
                if (!cb_field_number(d, y[k], &v) ||
                    (o->relative_to && (!base || !cb_field_number(base, y[k], &b) || b == 0)))
                    fprintf(out, " NaN");
                else
                    fprintf(out, " %.6g", v / b);
            }
            fputc('\n', out);
        }
    }
    json_decref(order);
    json_decref(twins);
    json_decref(done);
    json_decref(vary);
    return blocks;
}

static int export_gnuplot(FILE *out, json_t *doc, json_t *cells, const cb_export_opts *o)
{
    (void)doc;
    cb_export_gnuplot(out, cells, o); /* cb_cmd_export made sure it has rows */
    return 0;
}

/* CSV (RFC 4180): a field with a comma, quote or line break is quoted, quotes doubled. */
static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* Flattens the scalars of obj into row (dotted name -> text); arrays of numbers are joined
 * with spaces; the union of names goes into cols in order of first appearance. */
static void flatten(json_t *obj, const char *prefix, json_t *row, json_t *cols)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v)
    {
        char name[256], text[4096];
        snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", k);
        if (!*prefix && !strcmp(k, "request"))
            continue; /* how to rerun the cell (docs/request.md), not a figure of it */
        if (json_is_object(v)) {
            flatten(v, name, row, cols);
            continue;
        }
        text[0] = '\0';
        if (json_is_null(v))
            continue; /* no column for it unless another cell has a value */
        if (json_is_string(v)) {
            /* a string of the file: kept apart from the figures, for the CSV sink */
            json_object_set_new(row, name, json_pack("[s]", json_string_value(v)));
            if (!json_object_get(cols, name))
                json_object_set_new(cols, name, json_true());
            continue;
        } else if (json_is_integer(v))
            snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
        else if (json_is_real(v))
            snprintf(text, sizeof text, "%.17g", json_real_value(v));
        else if (json_is_boolean(v))
            snprintf(text, sizeof text, "%s", json_is_true(v) ? "true" : "false");
        else if (json_is_array(v)) {
            size_t i, n = 0;
            json_t *e;
            json_array_foreach(v, i, e) if (json_is_number(e) && n < sizeof text - 32)
                n += (size_t)snprintf(text + n, sizeof text - n, "%s%.17g", i ? " " : "",
                                      json_number_value(e));
        }
        json_object_set_new(row, name, json_string(text));
        if (!json_object_get(cols, name))
            json_object_set_new(cols, name, json_true());
    }
}

static int export_csv(FILE *out, json_t *doc, json_t *cells, const cb_export_opts *o)
{
    (void)doc;
    json_t *rows = json_array(), *cols = json_object(), *c, *v;
    size_t i;
    const char *k;
    json_array_foreach(cells, i, c)
    {
        if (!matches(c, o))
            continue;
        json_t *row = json_object();
        json_t *rowless = json_copy(c); /* the implementation's row is not the cell's */
        json_object_del(rowless, "impl_row");
        flatten(rowless, "", row, cols);
        json_decref(rowless);
        json_array_append_new(rows, row);
    }
    int first = 1;
    json_object_foreach(cols, k, v)
    {
        if (!first)
            fputc(',', out);
        csv_field(out, k);
        first = 0;
    }
    fputc('\n', out);
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        first = 1;
        json_object_foreach(cols, k, v)
        {
            if (!first)
                fputc(',', out);
            first = 0;
            json_t *t = json_object_get(row, k);
            if (json_is_array(t)) /* a string: quoted, a formula neutralised (untrusted.h) */
                cb_esc_csv(out, json_string_value(json_array_get(t, 0)));
            else
                csv_field(out, t ? json_string_value(t) : "");
        }
        fputc('\n', out);
    }
    json_decref(rows);
    json_decref(cols);
    return 0;
}

/* google benchmark's JSON (the format of --benchmark_format=json, json_schema_version 1): one
 * "iteration" row per repetition (iterations = ops x batch, real_time = ns per op), then the
 * aggregate rows mean, median and stddev. corobench measures wall-clock time on a pinned CPU
 * only, so cpu_time repeats real_time. Cells that did not run have no times and are left out
 * (counted on stderr). */
static json_t *gbench_row(const char *name, json_int_t family, json_int_t instance, size_t reps,
                          json_int_t iterations, double ns)
{
    return json_pack("{s:s, s:I, s:I, s:s, s:s, s:I, s:I, s:I, s:I, s:f, s:f, s:s}", "name", name,
                     "family_index", family, "per_family_instance_index", instance, "run_name",
                     name, "run_type", "iteration", "repetitions", (json_int_t)reps,
                     "repetition_index", (json_int_t)0, "threads", (json_int_t)1, "iterations",
                     iterations, "real_time", ns, "cpu_time", ns, "time_unit", "ns");
}

/* "workload/impl[:variant]/name:value/..." (implementation parameters only when not at their
 * defaults), unique per cell of a run. */
static void gbench_name(json_t *c, char *buf, size_t len)
{
    char params[512];
    const char *variant = cb_str(c, "variant");
    int other = variant && strcmp(variant, "plain");
    cb_cell_params_text(c, 1, params, sizeof params);
    for (char *p = params; *p; p++)
        *p = *p == ' ' ? '/' : *p == '=' ? ':' : *p;
    snprintf(buf, len, "%s/%s%s%s/%s", cb_str(c, "workload"), cb_str(c, "impl"), other ? ":" : "",
             other ? variant : "", params);
}

/* A row written as it is made, one line each: a cell of 10^6 samples held a million row objects
 * and the document they made (2.5 GB resident to write 390 MB). */
static int gbench_put(FILE *out, json_t *r, size_t *rows)
{
    int rc = fputs(*rows ? ",\n    " : "\n    ", out) < 0 ||
             json_dumpf(r, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(r);
    (*rows)++;
    return rc ? -1 : 0;
}

static int export_gbench(FILE *out, json_t *doc, json_t *cells, const cb_export_opts *o)
{
    json_t *m = json_object_get(doc, "machine");
    double hz = json_real_value(json_object_get(m, "tsc_hz"));
    json_t *ctx = json_pack(
        /* s? and o?: a results file may lack the machine's description (the loader allows it) */
        "{s:s?, s:s?, s:s, s:o?, s:I, s:b, s:[], s:[], s:s, s:I, s:{s:s, s:s?, s:s?, s:s}}", "date",
        cb_str(doc, "created_utc"), "host_name", cb_str(m, "hostname"), "executable", "corobench",
        "num_cpus", json_incref(json_object_get(m, "logical_cpus")), "mhz_per_cpu",
        (json_int_t)llround(hz / 1e6), "cpu_scaling_enabled", 0, "caches", "load_avg",
        "library_build_type", "release", "json_schema_version", (json_int_t)1, "corobench",
        "schema", cb_str(doc, "schema"), "git_commit", cb_str(doc, "git_commit"), "cpu_model",
        cb_str(m, "cpu_model"), "results", o->in);
    json_t *families = json_object(), *c;
    size_t i, skipped = 0, rows = 0;
    int rc = fputs("{\n  \"context\": ", out) < 0 ||
             json_dumpf(ctx, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
             fputs(",\n  \"benchmarks\": [", out) < 0;
    json_decref(ctx);
    json_array_foreach(cells, i, c)
    {
        if (rc)
            break;
        if (!matches(c, o))
            continue;
        json_t *s = json_object_get(c, "samples_ns_per_op");
        if (!cb_cell_ok(c) || !json_array_size(s)) {
            skipped++;
            continue;
        }
        char name[768], family[256], series[128];
        gbench_name(c, name, sizeof name);
        snprintf(family, sizeof family, "%s/%s", cb_str(c, "workload"),
                 series_name(c, series, sizeof series));
        json_t *f = json_object_get(families, family);
        if (!f) {
            f = json_pack("[I, I]", (json_int_t)json_object_size(families), (json_int_t)0);
            json_object_set_new(families, family, f);
        }
        json_int_t fam = json_integer_value(json_array_get(f, 0));
        json_int_t inst = json_integer_value(json_array_get(f, 1));
        json_array_set_new(f, 1, json_integer(inst + 1));
        json_int_t iters;
        if (__builtin_mul_overflow(json_integer_value(json_object_get(c, "ops")),
                                   json_integer_value(json_object_get(c, "batch")), &iters)) {
            /* ops x batch past 2^63: no iteration count to write (it went negative). */
            fprintf(stderr, "corobench: export: %s: ops x batch does not fit in 64 bits; cell "
                            "left out\n", name);
            skipped++;
            continue;
        }
        size_t n = json_array_size(s);
        double *x = cb_xmalloc(n * sizeof *x), mean = 0, sq = 0;
        for (size_t k = 0; k < n; k++) {
            x[k] = json_number_value(json_array_get(s, k));
            /* A running mean: a sum of samples near 1e308 overflowed to inf. */
            mean += (x[k] - mean) / (double)(k + 1);
            if (o->aggregates_only)
                continue;
            json_t *r = gbench_row(name, fam, inst, n, iters, x[k]);
            json_object_set_new(r, "repetition_index", json_integer((json_int_t)k));
            if (!rc)
                rc = gbench_put(out, r, &rows);
            else
                json_decref(r);
        }
        for (size_t k = 0; k < n; k++)
            sq += (x[k] - mean) * (x[k] - mean);
        const struct {
            const char *agg;
            double v;
        } aggs[] = {{"mean", mean}, {"median", cb_median(x, n)},
                    {"stddev", n > 1 ? sqrt(sq / (double)(n - 1)) : 0}};
        for (size_t a = 0; a < 3; a++) {
            char an[800];
            if (!isfinite(aggs[a].v)) { /* JSON has no inf: the row was dropped silently */
                fprintf(stderr, "corobench: export: %s: its %s does not fit in a double; that "
                                "aggregate row left out\n",
                        name, aggs[a].agg);
                continue;
            }
            snprintf(an, sizeof an, "%s_%s", name, aggs[a].agg);
            json_t *r = gbench_row(an, fam, inst, n, (json_int_t)n, aggs[a].v);
            json_object_set_new(r, "run_name", json_string(name));
            json_object_set_new(r, "run_type", json_string("aggregate"));
            json_object_del(r, "repetition_index");
            json_object_set_new(r, "aggregate_name", json_string(aggs[a].agg));
            json_object_set_new(r, "aggregate_unit", json_string("time"));
            if (!rc)
                rc = gbench_put(out, r, &rows);
            else
                json_decref(r);
        }
        free(x);
    }
    if (!rc && fputs(rows ? "\n  ]\n}\n" : "]\n}\n", out) < 0)
        rc = -1;
    json_decref(families);
    if (skipped)
        fprintf(stderr, "corobench: export: %zu cells without samples (did not run) left out\n",
                skipped);
    return rc;
}

/* The cells with an estimate (ok and timed), each with its name and estimate; the others are
 * counted on stderr. Shared by the tracker formats below. */
typedef int (*tracker_row)(json_t *acc, json_t *cell, const char *name, const cb_estimate *e);

static int export_tracker(FILE *out, json_t *acc, json_t *cells, const cb_export_opts *o,
                          tracker_row row)
{
    json_t *c;
    size_t i, skipped = 0;
    json_array_foreach(cells, i, c)
    {
        cb_estimate e;
        char name[768];
        if (!matches(c, o))
            continue;
        if (!cb_cell_ok(c) || cb_cell_estimate(c, &e)) {
            skipped++;
            continue;
        }
        gbench_name(c, name, sizeof name);
        row(acc, c, name, &e);
    }
    int rc = json_dumpf(acc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', out);
    json_decref(acc);
    if (skipped)
        fprintf(stderr, "corobench: export: %zu cells without samples (did not run) left out\n",
                skipped);
    return rc;
}

/* github-action-benchmark's customSmallerIsBetter: [{name, unit, value, range, extra}]. value
 * is the cell's estimate (interval.h: the median of its invocations' medians); range the
 * 95% interval as text (the action shows it as given), absent with one invocation. */
static int github_row(json_t *acc, json_t *c, const char *name, const cb_estimate *e)
{
    char unit[64], range[96], extra[256];
    snprintf(unit, sizeof unit, "ns/%s", cb_str(c, "unit") ? cb_str(c, "unit") : "op");
    snprintf(extra, sizeof extra, "%zu invocations x %zu repetitions; checksum %s%s%s",
             e->k, e->reps, cb_str(c, "checksum") ? cb_str(c, "checksum") : "none",
             e->ok ? "" : "; no interval: ", e->ok ? "" : e->why);
    json_t *r = json_pack("{s:s, s:s, s:f, s:s}", "name", name, "unit", unit, "value", e->est,
                          "extra", extra);
    if (e->ok) {
        snprintf(range, sizeof range, "95%% CI %.4g to %.4g", e->lo, e->hi);
        json_object_set_new(r, "range", json_string(range));
    }
    return json_array_append_new(acc, r);
}

static int export_github(FILE *out, json_t *doc, json_t *cells, const cb_export_opts *o)
{
    (void)doc;
    return export_tracker(out, json_array(), cells, o, github_row);
}

/* Bencher Metric Format: {name: {measure: {value, lower_value, upper_value}}}, the measure
 * Bencher's built-in latency (nanoseconds); the bounds are the 95% interval, absent with one
 * invocation. */
static int bmf_row(json_t *acc, json_t *c, const char *name, const cb_estimate *e)
{
    (void)c;
    json_t *m = json_pack("{s:f}", "value", e->est);
    if (e->ok) {
        json_object_set_new(m, "lower_value", json_real(e->lo));
        json_object_set_new(m, "upper_value", json_real(e->hi));
    }
    return json_object_set_new(acc, name, json_pack("{s:o}", "latency", m));
}

static int export_bmf(FILE *out, json_t *doc, json_t *cells, const cb_export_opts *o)
{
    (void)doc;
    return export_tracker(out, json_object(), cells, o, bmf_row);
}

/* The document with each cell reduced to its identity and deterministic fields. */
static int export_deterministic(FILE *out, json_t *doc, json_t *cells, const cb_export_opts *o)
{
    static const char *const identity[] = {"impl", "family", "workload", "params", "variant",
                                           "unit", "status", "error"};
    json_t *keep = json_array(), *c;
    size_t i;
    json_array_foreach(cells, i, c)
    {
        if (!matches(c, o))
            continue;
        json_t *d = json_object();
        for (size_t k = 0; k < sizeof identity / sizeof identity[0]; k++)
            if (json_object_get(c, identity[k]))
                json_object_set(d, identity[k], json_object_get(c, identity[k]));
        for (const cb_det_field *f = cb_det_fields; f->path; f++) {
            json_t *v = cb_field(c, f->path);
            if (!v || (f->kind == CB_DET_MEMORY && !strncmp(f->path, "memory.heap_", 12) &&
                       cb_cell_heap_measured(c)))
                continue; /* a garbage collector's heap is a measurement (fields.h) */
            /* Rebuild the path's objects ("memory.heap_bytes_per_coro"). */
            json_t *at = d;
            const char *p = f->path, *dot;
            while ((dot = strchr(p, '.'))) {
                char key[64];
                snprintf(key, sizeof key, "%.*s", (int)(dot - p), p);
                if (!json_object_get(at, key))
                    json_object_set_new(at, key, json_object());
                at = json_object_get(at, key);
                p = dot + 1;
            }
            json_object_set(at, p, v);
        }
        json_array_append_new(keep, d);
    }
    /* Of the machine, what the deterministic fields can depend on (docs/ci.md). */
    json_t *m = json_object_get(doc, "machine");
    json_t *out_doc = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:O, s:O, s:o}", "schema",
                                cb_str(doc, "schema"), "git_commit", cb_str(doc, "git_commit"),
                                "machine", "arch", cb_str(m, "arch"), "cpu_model",
                                cb_str(m, "cpu_model"), "kernel", cb_str(m, "kernel"), "build",
                                json_object_get(doc, "build"),
                                "run", json_object_get(doc, "run"), "cells", keep);
    if (!out_doc) { /* a machine string missing: keep the document valid without it */
        json_decref(keep);
        return -1;
    }
    json_object_del(json_object_get(out_doc, "run"), "argv");
    int rc = json_dumpf(out_doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', out);
    json_decref(out_doc);
    return rc;
}

/* A machine's record (record.h): doc is its files merged (cb_cmd_export). */
static int export_summary(FILE *out, json_t *doc, json_t *cells, const cb_export_opts *o)
{
    (void)cells;
    (void)o;
    json_t *r = cb_record_make(doc);
    int rc = cb_record_dump(out, r);
    json_decref(r);
    return rc;
}

/* The formats: a new one is a writer and a row here. */
static const struct {
    const char *name;
    int (*write)(FILE *out, json_t *doc, json_t *cells, const cb_export_opts *o);
} formats[] = {
    {"gnuplot", export_gnuplot},
    {"csv", export_csv},
    {"gbench", export_gbench},
    {"github-bench", export_github},
    {"bmf", export_bmf},
    {"deterministic", export_deterministic},
    {"summary", export_summary},
};
enum { NFORMATS = sizeof formats / sizeof formats[0] };

static const char usage[] =
    "RESULTS.json [--format gnuplot|csv|gbench|github-bench|bmf|deterministic|summary] "
    "[--workload W] "
    "[--where NAME=VALUE]... [-o FILE [--force]]; gnuplot also needs --x PARAM and takes "
    "[--y FIELD]... "
    "[--relative-to IMPL]; gbench takes [--aggregates-only]; summary takes the machine's other "
    "results files after the first, [--fleet DIR] instead of -o, [--cpu VENDOR,FAMILY,MODEL] "
    "for results written before machine.cpu, and no --workload or --where";

static int parse(int argc, char **argv, cb_export_opts *o)
{
    int format_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        /* Single-valued options once each; --y and --where repeat. */
        if (!strcmp(a, "--workload") && has && !o->workload)
            o->workload = argv[++i];
        else if (!strcmp(a, "--x") && has && !o->x)
            o->x = argv[++i];
        else if (!strcmp(a, "-o") && has && !o->out)
            o->out = argv[++i];
        else if (!strcmp(a, "--force"))
            o->force = 1;
        else if (!strcmp(a, "--aggregates-only"))
            o->aggregates_only = 1;
        else if (!strcmp(a, "--format") && has && !format_set++)
            o->format = argv[++i];
        else if (!strcmp(a, "--fleet") && has && !o->fleet)
            o->fleet = argv[++i];
        else if (!strcmp(a, "--cpu") && has && !o->cpu)
            o->cpu = argv[++i];
        else if (!strcmp(a, "--relative-to") && has && !o->relative_to)
            o->relative_to = argv[++i];
        else if (!strcmp(a, "--y") && has) {
            if (o->ny == CB_EXPORT_MAX)
                return cb_usage_error("too many --y (valid: at most %d)", CB_EXPORT_MAX);
            o->y[o->ny++] = argv[++i];
        } else if (!strcmp(a, "--where") && has) {
            char *eq = strchr(argv[++i], '=');
            if (!eq || eq == argv[i] || o->nw == CB_EXPORT_MAX)
                return cb_usage_error("invalid --where '%s' (valid: NAME=VALUE, at most %d)",
                                      cb_quote(argv[i]), CB_EXPORT_MAX);
            o->w[o->nw].name = cb_xstrndup(argv[i], (size_t)(eq - argv[i]));
            o->w[o->nw++].value = eq + 1;
        } else if (a[0] != '-' && !o->in)
            o->in = a;
        else if (a[0] != '-' && o->nmore < CB_EXPORT_MAX)
            o->more[o->nmore++] = a;
        else
            return cb_usage_error("unexpected argument '%s' for export (valid: %s, each but --y "
                                  "and --where once)",
                                  cb_quote(a), usage);
    }
    if (o->fleet && !format_set)
        o->format = "summary"; /* --fleet writes a record */
    if (o->fleet && (strcmp(o->format, "summary") || o->out))
        return cb_usage_error("--fleet '%s' writes a record to it, named by its CPU kind (valid: "
                              "--format summary, no -o)",
                              cb_quote(o->fleet));
    size_t k = 0;
    while (k < NFORMATS && strcmp(o->format, formats[k].name))
        k++;
    if (k == NFORMATS) {
        char valid[256];
        size_t len = 0;
        for (k = 0; k < NFORMATS && len < sizeof valid; k++)
            len += (size_t)snprintf(valid + len, sizeof valid - len, "%s%s", k ? ", " : "",
                                    formats[k].name);
        return cb_usage_error("invalid value '%s' for --format (valid: %s)", cb_quote(o->format),
                              valid);
    }
    int gnuplot = !strcmp(o->format, "gnuplot");
    if (!o->in || (gnuplot && (!o->workload || !o->x)))
        return cb_usage_error("export needs RESULTS.json%s (valid: corobench export %s)",
                              gnuplot ? ", --workload and --x for gnuplot" : "", usage);
    int summary = !strcmp(o->format, "summary");
    if (o->nmore && !summary)
        return cb_usage_error("unexpected argument '%s' for export (valid: one RESULTS.json; "
                              "several files of one machine for --format summary)",
                              cb_quote(o->more[0]));
    if (o->cpu && !summary)
        return cb_usage_error("--cpu '%s' is for --format summary (valid: %s)", cb_quote(o->cpu),
                              usage);
    if (summary && (o->workload || o->nw))
        return cb_usage_error("--workload and --where are not for --format summary (valid: "
                              "a record of every cell of the machine's results, %s)",
                              usage);
    if (o->aggregates_only && strcmp(o->format, "gbench"))
        return cb_usage_error("--aggregates-only is for --format gbench (valid: %s)", usage);
    if (!gnuplot && (o->x || o->ny || o->relative_to))
        return cb_usage_error("--x, --y and --relative-to are for --format gnuplot (valid: %s)",
                              usage);
    return 0;
}

/* The cells a format would write: those of the workload and --where (gnuplot: ok ones with an
 * integer x). */
static size_t count_rows(json_t *cells, const cb_export_opts *o)
{
    int gnuplot = !strcmp(o->format, "gnuplot");
    size_t i, n = 0;
    json_t *c;
    json_array_foreach(cells, i, c)
        n += matches(c, o) &&
             (!gnuplot ||
              (cb_cell_ok(c) && json_is_integer(json_object_get(json_object_get(c, "params"), o->x))));
    return n;
}

/* What --y and --relative-to name must exist among the rows (the plots ask for fields some
 * files lack and get NaN; a user's typo would too): 0, or one line and exit 2. */
static int check_y_and_base(json_t *cells, const cb_export_opts *o)
{
    json_t *c;
    size_t i;
    for (size_t k = 0; k < o->ny; k++) {
        int found = 0;
        double v;
        json_array_foreach(cells, i, c) found |= cb_cell_ok(c) && matches(c, o) &&
                                                  cb_field_number(c, o->y[k], &v);
        if (!found)
            return cb_usage_error("export: --y '%s' is a number in none of the exported cells "
                                  "(valid: a numeric field of them, as ns_per_op.median, "
                                  "ns_per_op.mad, suspensions)",
                                  cb_quote(o->y[k]));
    }
    if (!o->relative_to)
        return 0;
    char impls[512] = "";
    size_t n = 0;
    json_t *seen = json_object();
    json_array_foreach(cells, i, c)
    {
        const char *impl = cb_str(c, "impl");
        if (!cb_cell_ok(c) || !matches(c, o) || json_object_get(seen, impl))
            continue;
        if (!strcmp(impl, o->relative_to)) {
            json_decref(seen);
            return 0;
        }
        json_object_set_new(seen, impl, json_true());
        if (n < sizeof impls)
            n += (size_t)snprintf(impls + n, sizeof impls - n, "%s%s", n ? ", " : "", impl);
    }
    json_decref(seen);
    return cb_usage_error("export: --relative-to '%s' has no ok cell among the exported ones "
                          "(valid: %s)",
                          cb_quote(o->relative_to), impls);
}

static void free_where(cb_export_opts *o)
{
    for (size_t i = 0; i < o->nw; i++)
        free(o->w[i].name);
}

/* summary: the first file and the others (o->more), merged as the report merges one
 * machine's files (machines.h: the claims see every cell, each file's kept apart), into *doc;
 * files of more than one machine are refused naming two of them. */
static int one_machine(json_t **doc, const cb_export_opts *o)
{
    json_t *docs[1 + CB_EXPORT_MAX], *also[1 + CB_EXPORT_MAX] = {NULL};
    const char *ins[1 + CB_EXPORT_MAX];
    cb_error err;
    docs[0] = *doc;
    ins[0] = o->in;
    size_t n = 1;
    for (size_t i = 0; i < o->nmore; i++, n++) {
        ins[n] = o->more[i];
        if (!(docs[n] = cb_results_load(o->more[i], &err))) {
            while (n-- > 0)
                json_decref(docs[n]);
            *doc = NULL;
            return cb_usage_error("%s", err.msg);
        }
    }
    if (cb_record_one_per_kind(docs, ins, n, &err)) {
        while (n-- > 0)
            json_decref(docs[n]);
        *doc = NULL;
        return cb_usage_error("export --format summary: %s", err.msg);
    }
    size_t m = cb_report_group_by_machine(docs, ins, n, also);
    int rc = 0;
    if (m > 1)
        rc = cb_usage_error("export --format summary: '%s' and '%s' are of two machines "
                            "(valid: the results files of one machine, one host name and CPU "
                            "model)",
                            cb_quote(ins[0]), cb_quote(ins[1]));
    for (size_t g = 0; g < m; g++) {
        json_decref(also[g]);
        if (g || rc)
            json_decref(docs[g]);
    }
    *doc = rc ? NULL : docs[0];
    if (!rc && o->cpu && cb_record_give_cpu(*doc, o->cpu, &err)) {
        json_decref(*doc);
        *doc = NULL;
        rc = cb_usage_error("export: %s", err.msg);
    }
    return rc;
}

/* --fleet DIR: the record's path, DIR/<CPU kind>.json (its kind from doc's machine.cpu), set up
 * in *out; another record of that kind in DIR under another name is refused naming both. 0, or
 * one line and 2. *refresh: a record was there. */
static int fleet_prepare(cb_out *out, json_t *doc, const cb_export_opts *o, char *path,
                         size_t len, char *kind, size_t klen, int *refresh)
{
    cb_error err;
    if (cb_record_kind(doc, kind, klen, &err))
        return cb_usage_error("export --fleet: '%s': %s", cb_quote(o->in), err.msg);
    if (snprintf(path, len, "%s/%s.json", o->fleet, kind) >= (int)len)
        return cb_usage_error("export --fleet: '%s' is too long (valid: a directory path of at "
                              "most %zu bytes)",
                              cb_quote(o->fleet), len - klen - 8);
    DIR *d = opendir(o->fleet);
    struct dirent *e;
    int rc = 0;
    while (!rc && d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        char other[4096 + 256], k2[96];
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") ||
            (!strncmp(e->d_name, kind, n - 5) && !kind[n - 5]))
            continue;
        snprintf(other, sizeof other, "%s/%s", o->fleet, e->d_name);
        json_t *r = cb_results_load(other, &err); /* what is not a record is not the fleet's */
        if (r && cb_results_is_record(r) && !cb_record_kind(r, k2, sizeof k2, NULL) &&
            !strcmp(k2, kind))
            rc = cb_usage_error("export --fleet: '%s' and '%s' are records of one CPU kind, %s "
                                "(valid: one record per CPU kind, named %s.json)",
                                cb_quote(path), cb_quote(other), kind, kind);
        json_decref(r);
    }
    if (d)
        closedir(d);
    struct stat st;
    *refresh = lstat(path, &st) == 0;
    return rc ? rc : cb_out_prepare(out, "export", path, CB_OUT_REPLACE);
}

const char cb_export_default_format[] = "gnuplot";

int cb_cmd_export(int argc, char **argv)
{
    cb_export_opts o = {.format = cb_export_default_format};
    cb_out out;
    int rc = parse(argc, argv, &o);
    if (!rc && !o.fleet) /* --fleet: the path comes from the record, prepared below */
        rc = cb_out_prepare(&out, "export", o.out, o.force);
    cb_error err;
    json_t *doc = rc ? NULL : cb_results_load(o.in, &err);
    if (!doc) {
        free_where(&o);
        return rc ? rc : cb_usage_error("%s", err.msg);
    }
    if (!strcmp(o.format, "summary") && (rc = one_machine(&doc, &o)) != 0) {
        free_where(&o);
        return rc;
    }
    char fleet_path[4096], kind[96];
    int refresh = 0;
    if (o.fleet && (rc = fleet_prepare(&out, doc, &o, fleet_path, sizeof fleet_path, kind,
                                       sizeof kind, &refresh)) != 0) {
        json_decref(doc);
        free_where(&o);
        return rc;
    }
    json_t *cells = json_object_get(doc, "cells");
    if (!count_rows(cells, &o)) {
        /* Nothing to export is an error, and nothing is written (an old file stays). */
        if (o.fleet)
            cb_out_discard(&out);
        rc = cb_usage_error("export: no %s%s cells%s%s%s%s (valid: a workload, x and --where "
                            "that match cells of the file)",
                            strcmp(o.format, "gnuplot") ? "" : "ok ",
                            o.workload ? cb_quote(o.workload) : "matching",
                            strcmp(o.format, "gnuplot") ? "" : " with an integer parameter '",
                            strcmp(o.format, "gnuplot") ? "" : cb_quote(o.x),
                            strcmp(o.format, "gnuplot") ? "" : "'",
                            o.nw ? " matching --where" : "");
        json_decref(doc);
        free_where(&o);
        return rc;
    }
    const char *model = cb_str(json_object_get(json_object_get(doc, "machine"), "cpu"),
                               "model_name");
    char said[512] = "";
    if (o.fleet)
        snprintf(said, sizeof said, "export: '%s' %s: the record of CPU kind %s (%s)\n",
                 cb_quote(fleet_path), refresh ? "refreshed" : "written", kind,
                 model ? cb_quote(model) : "?");
    if (!strcmp(o.format, "gnuplot") && (rc = check_y_and_base(cells, &o)) != 0) {
        json_decref(doc);
        free_where(&o);
        return rc;
    }
    FILE *f = cb_out_stream(&out);
    for (size_t k = 0; k < NFORMATS; k++)
        if (!strcmp(o.format, formats[k].name))
            rc = formats[k].write(f, doc, cells, &o);
    json_decref(doc);
    free_where(&o);
    if (rc != 0) {
        cb_out_discard(&out);
        return CB_EXIT_CELLS_FAILED;
    }
    if (cb_out_commit(&out))
        return CB_EXIT_CELLS_FAILED;
    if (o.fleet) /* one line: which file, written or refreshed */
        fputs(said, stdout);
    return 0;
}
