/* `corobench compare BASE.json NEW.json`: the same cells of two results documents side by side,
 * for CI (docs/ci.md). A cell is the same when workload, every parameter, impl and variant
 * agree. Three questions, each with its own rule:
 *  - did NEW run? A cell failed or timed out in NEW, or missing from it, is an error;
 *  - did it do the same work and the same deterministic things? checksum, suspensions and ops
 *    must be equal (else the timing means nothing); the simulated return-stack counts and the
 *    bytes per coroutine are compared exactly (--metric deterministic|all), except the heap of
 *    a garbage-collected runtime (its collector decides it: a measurement, shown, not gated);
 *  - is it slower? The ratio new/base of the cells' estimates, with its 95% interval from a
 *    hierarchical bootstrap over both sides' invocations (interval.h): regressed when the whole
 *    interval lies above 1 + --threshold, improved when it lies below 1 / (1 + threshold),
 *    else unchanged; inconclusive, with the reason, when a side has one invocation (a
 *    schema-1 file, --invocations 1): one process says nothing about the spread between
 *    processes. No p-value is left to correct. The whole run regressed when the interval of
 *    the geometric mean of the cells' ratios (a t interval over the cells' log ratios: the
 *    cells are its unit) lies above 1 + threshold.
 * Each side is a results file, a directory (its *.json files) or a comma-separated list of
 * these, their cells merged (run.sh writes one file per part of the suite). The output, in
 * text, md or json (--format), is written by cmpout.c: problems first, regressions first.
 * Exit 1 on any error above, 2 on bad input (with the JSON parser's line and column), else 0. */
#include <dirent.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmpout.h"
#include "commands.h"
#include "harness/common/alloc.h"
#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "harness/common/build.h"
#include "harness/common/cli.h"
#include "harness/common/interval.h"
#include "harness/common/stats.h"
#include "harness/results/baseline.h"
#include "harness/results/estimate.h"
#include "harness/results/load.h"
#include "signif.h" /* cb_geomean */

enum { CMP_KEY = 768 };

typedef struct cmp_opts {
    double threshold;       /* percent */
    double instr_threshold; /* percent: instructions per op changed beyond it */
    int time, deterministic; /* which metrics */
    int allow_missing;
    cb_cmp_format format;
    int only_changed;
    cb_cmp_out *out;
    char baseline[4096]; /* --baseline NAME: its path, the base side */
    json_t *rename;      /* --rename OLD=NEW: {OLD: NEW}, base's implementation OLD as NEW */
    json_t *renamed;     /* {OLD: true} for each OLD some cell of base has */
} cmp_opts;

/* One matched pair of ok cells with timing. */
typedef struct timed {
    const char *key;
    json_t *bc, *nc; /* the two cells */
    cb_estimate base, new, ratio; /* ratio = new / base */
} timed;

typedef struct tally {
    size_t regressed, improved, unchanged, inconclusive;
    size_t failed, missing, only_new, base_failed, different_work, det_changes, gc_heap;
    int run_regressed; /* the interval of the geometric mean over the cells */
    size_t icounted, ichanged, iunlike; /* instructions per op: in both, changed, by two sources */
    double iworst;                      /* the log of new/base farthest from 0 */
    const char *icell, *isource;        /* its cell; the source of the counts */
} tally;

/* A cell as compare names it: the point (workload and its parameters), then the implementation
 * (renamed when --rename names it on this side) with its own parameters off their defaults, and
 * the build variant: "pingpong depth=0 ... asm stack=16384/plain". */
static void cell_key(json_t *c, json_t *rename, char *buf, size_t len)
{
    char params[512], own[256];
    cb_cell_params_text(c, 0, params, sizeof params);
    cb_cell_impl_params_text(c, own, sizeof own);
    const char *impl = json_string_value(json_object_get(c, "impl"));
    json_t *to = json_object_get(rename, impl);
    buf[0] = '\0';
    cb_append(buf, len, "%s %s %s%s%s/%s", json_string_value(json_object_get(c, "workload")),
              params, to ? json_string_value(to) : impl, *own ? " " : "", own,
              json_string_value(json_object_get(c, "variant")));
}

/* Every cell needs the strings that make its key; -1 with *e when one lacks them or another
 * file of the side (from[key] names it) has the same cell, else the cells added to idx. */
static int index_cells(json_t *doc, const char *file, json_t *rename, json_t *used, json_t *idx,
                       json_t *from, cb_error *e)
{
    json_t *c, *cells = json_object_get(doc, "cells");
    size_t i;
    char key[CMP_KEY];
    if (!json_is_array(cells))
        return cb_error_set(e, "'%s' has no cells array (valid: a %s file)", file, CB_SCHEMA);
    json_array_foreach(cells, i, c)
    {
        static const char *const need[] = {"workload", "impl", "variant", "status"};
        for (size_t k = 0; k < sizeof need / sizeof need[0]; k++)
            if (!json_is_string(json_object_get(c, need[k])) ||
                !json_is_object(json_object_get(c, "params")))
                return cb_error_set(e,
                                    "'%s': cell %zu has no '%s' string or no params (valid: a "
                                    "%s file)",
                                    file, i, need[k], CB_SCHEMA);
        cell_key(c, rename, key, sizeof key);
        const char *impl = json_string_value(json_object_get(c, "impl"));
        if (json_object_get(rename, impl)) /* used: a rename no cell has is refused */
            json_object_set_new(used, impl, json_true());
        const char *other = json_string_value(json_object_get(from, key));
        if (other) /* within one file the reader refused it already */
            return cb_error_set(e,
                                "cell '%s' is in both '%s' and '%s' (valid: each cell in one "
                                "file of a side)",
                                key, other, file);
        json_object_set(idx, key, c);
        json_object_set_new(from, key, json_string(file));
    }
    return 0;
}

static int add_file(const char *file, const char *side, json_t *idx, json_t *from,
                    json_t **machine, const cmp_opts *o, cb_error *e)
{
    json_t *doc = cb_results_load(file, e);
    if (!doc)
        return -1;
    if (!*machine) /* the side's first file speaks for its machine */
        *machine = json_incref(json_object_get(doc, "machine"));
    /* --rename: base's OLD is matched as new's NEW */
    int rc = index_cells(doc, file, strcmp(side, "base") ? NULL : o->rename, o->renamed, idx, from,
                         e);
    json_decref(doc); /* idx holds the cells */
    cb_cmp_out_files(o->out, side, file);
    return rc;
}

static int json_name(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

/* A side: files, directories (their *.json, in name order) or a comma-separated list of them;
 * the cells of all indexed by key, or NULL with *e; *machine is its first file's machine object
 * (a new reference, NULL when it has none). */
static json_t *load_side(const char *arg, const char *side, json_t **machine, const cmp_opts *o,
                         cb_error *e)
{
    json_t *idx = json_object(), *from = json_object();
    char *list = cb_xstrdup(arg), *save = NULL;
    int rc = 0, items = 0;
    for (char *item = strtok_r(list, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
        items++;
        struct dirent **names;
        DIR *d = opendir(item);
        if (!d) {
            rc = add_file(item, side, idx, from, machine, o, e);
            continue;
        }
        closedir(d);
        int n = scandir(item, &names, json_name, alphasort);
        if (n <= 0)
            rc = cb_error_set(e, "%s directory '%s' has no .json files (valid: a directory of "
                                 "results files)",
                              side, item);
        for (int i = 0; i < n; i++) {
            char *path = cb_xasprintf("%s/%s", item, names[i]->d_name);
            if (!rc)
                rc = add_file(path, side, idx, from, machine, o, e);
            free(path);
            free(names[i]);
        }
        if (n > 0)
            free(names);
    }
    if (!rc && !items)
        rc = cb_error_set(e, "%s '%s' names no results file (valid: FILE, DIR or a list of them)",
                          side, arg);
    free(list);
    json_decref(from);
    if (rc) {
        json_decref(idx);
        return NULL;
    }
    return idx;
}

static void value_text(json_t *v, char *buf, size_t len)
{
    if (!v)
        snprintf(buf, len, "absent");
    else if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%.17g", json_real_value(v));
    else
        snprintf(buf, len, "null");
}

/* Work fields always; the others when deterministic metrics are asked for. A field the base
 * has and NEW lacks is a change (the gate must not pass a run that lost a measurement); one only
 * NEW has is not. Returns 1 when the work differed. */
static int compare_fields(json_t *bc, json_t *nc, const char *key, const cmp_opts *o, tally *t)
{
    int work = 0, gc_noted = 0;
    for (const cb_det_field *f = cb_det_fields; f->path; f++) {
        if (f->kind != CB_DET_WORK && !o->deterministic)
            continue;
        if (f->kind == CB_DET_MEMORY && !strncmp(f->path, "memory.heap_", 12) &&
            (cb_cell_heap_measured(bc) || cb_cell_heap_measured(nc))) {
            /* a garbage collector decides these: a measurement, never compared exactly */
            t->gc_heap += !gc_noted++;
            continue;
        }
        json_t *b = cb_field(bc, f->path), *n = cb_field(nc, f->path);
        if (!b || (n && json_equal(b, n)) ||
            (json_is_number(b) && json_is_number(n) &&
             json_number_value(b) == json_number_value(n)))
            continue;
        char bt[64], nt[64];
        value_text(b, bt, sizeof bt);
        value_text(n, nt, sizeof nt);
        if (f->kind == CB_DET_WORK) {
            cb_cmp_out_problem(o->out, "ERROR", key, "different work: %s %s -> %s", f->path, bt,
                               nt);
            work = 1;
        } else {
            cb_cmp_out_problem(o->out, "CHANGED", key, "%s %s -> %s", f->path, bt, nt);
            t->det_changes++;
        }
    }
    t->different_work += work;
    return work;
}

/* A timed cell's instructions per op where both files have them from one source (each cell's
 * instructions_per_op): a column of its own, "changed" past --instr-threshold; reported, never
 * gated, and a time regression is never vetoed by unchanged instructions. Counts from two sources
 * (a PMU's in one file, callgrind's in the other) are not compared. */
static void instructions(const timed *x, const cmp_opts *o, tally *t)
{
    const char *sb = NULL, *sn = NULL;
    double bi = cb_cell_instructions(x->bc, &sb), ni = cb_cell_instructions(x->nc, &sn);
    if (!isfinite(bi) || !isfinite(ni))
        return;
    if (strcmp(sb ? sb : "", sn ? sn : "")) {
        t->iunlike++;
        return;
    }
    int changed = fabs(log(ni / bi)) > log1p(o->instr_threshold / 100);
    cb_cmp_out_instr(o->out, bi, ni, changed);
    t->icounted++;
    t->ichanged += (size_t)changed;
    t->isource = sb;
    if (!t->icell || fabs(log(ni / bi)) > fabs(t->iworst))
        t->iworst = log(ni / bi), t->icell = x->key;
}

/* Each cell's verdict from the interval of its ratio. */
static void timing_verdicts(timed *tm, size_t n, const cmp_opts *o, tally *t)
{
    double up = 1 + o->threshold / 100, down = 1 / up;
    for (size_t i = 0; i < n; i++) {
        timed *x = &tm[i];
        cb_cmp_verdict verdict;
        char why[160];
        if (!x->ratio.ok) {
            verdict = CB_CMP_INCONCLUSIVE, t->inconclusive++;
            snprintf(why, sizeof why, "K=%zu/%zu: needs >= 2 invocations a side", x->base.k,
                     x->new.k);
        } else {
            if (x->ratio.lo > up)
                verdict = CB_CMP_REGRESSED, t->regressed++;
            else if (x->ratio.hi < down)
                verdict = CB_CMP_IMPROVED, t->improved++;
            else
                verdict = CB_CMP_UNCHANGED, t->unchanged++;
            snprintf(why, sizeof why, "95%% CI %.3f-%.3f, K %zu/%zu", x->ratio.lo, x->ratio.hi,
                     x->base.k, x->new.k);
        }
        cb_cmp_out_cell(o->out, x->key, x->base.est, x->new.est, x->ratio.est, x->ratio.lo,
                        x->ratio.hi, why, verdict);
        instructions(x, o, t);
    }
}

static void summary(const timed *tm, size_t n, const cmp_opts *o, tally *t)
{
    /* The run as a whole, over the cells with an interval: the geometric mean of their ratios
     * and a t interval over their log ratios (the cells are the units; each cell's own
     * uncertainty shows in how far its ratio lies from the others'). */
    double *lr = cb_xcalloc(n + 1, sizeof *lr), *all = cb_xcalloc(n + 1, sizeof *all);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        all[i] = tm[i].ratio.est;
        if (tm[i].ratio.ok)
            lr[m++] = log(tm[i].ratio.est);
    }
    if (n)
        cb_cmp_out_summary(o->out, "geomean", "geomean new/base: %.3fx over %zu cells",
                           cb_geomean(all, n), n);
    if (o->time && m >= 2) {
        double mean = 0, var = 0;
        for (size_t i = 0; i < m; i++)
            mean += lr[i] / (double)m;
        for (size_t i = 0; i < m; i++)
            var += (lr[i] - mean) * (lr[i] - mean) / (double)(m - 1);
        double h = cb_t975(m - 1) * sqrt(var / (double)m), up = 1 + o->threshold / 100;
        double g = exp(mean), lo = exp(mean - h), hi = exp(mean + h);
        const char *v = "unchanged";
        if (lo > up)
            v = "REGRESSED", t->run_regressed = 1;
        else if (hi < 1 / up)
            v = "improved";
        cb_cmp_out_summary(o->out, "whole_run",
                           "whole run: geomean %.3fx [95%% CI %.3f, %.3f] over the %zu cells "
                           "with an interval: %s",
                           g, lo, hi, m, v);
    } else if (o->time && n) {
        cb_cmp_out_summary(o->out, "whole_run",
                           "whole run: inconclusive (%zu cells with an interval; 2 are needed)",
                           m);
    }
    free(lr);
    free(all);
    if (o->time)
        cb_cmp_out_summary(o->out, "time",
                           "time: %zu regressed, %zu improved, %zu unchanged, %zu inconclusive "
                           "(fewer than 2 invocations a side)",
                           t->regressed, t->improved, t->unchanged, t->inconclusive);
    if (t->inconclusive)
        cb_cmp_out_summary(o->out, "single_invocation",
                           "note: %zu cells inconclusive: one invocation on a side (K=base/new; "
                           "a schema-1 file or --invocations 1): one process says nothing about "
                           "the spread between processes",
                           t->inconclusive);
    if (o->time)
        cb_cmp_out_summary(o->out, "rule",
                           "rule: a cell regressed when the 95%% interval of new/base lies "
                           "above 1 + %g%% (improved: below 1 / (1 + %g%%))",
                           o->threshold, o->threshold);
    /* How often the two runs' own intervals miss each other: on an unchanged build, a figure
     * to watch (docs/ci.md: at most 10% of the default suite's cells). */
    size_t both = 0, apart = 0;
    for (size_t i = 0; i < n; i++)
        if (tm[i].base.ok && tm[i].new.ok) {
            both++;
            apart += tm[i].base.hi < tm[i].new.lo || tm[i].new.hi < tm[i].base.lo;
        }
    if (o->time && both)
        cb_cmp_out_summary(o->out, "intervals",
                           "intervals: base's and new's 95%% intervals do not overlap in %zu "
                           "of %zu cells (%.1f%%)",
                           apart, both, 100.0 * (double)apart / (double)both);
    if (t->gc_heap)
        cb_cmp_out_summary(o->out, "gc_heap",
                           "note: %zu cells' heap bytes come from a garbage-collected runtime's "
                           "statistics (memory.runtime_stats): a measurement, not compared "
                           "exactly",
                           t->gc_heap);
    if (t->icounted)
        cb_cmp_out_summary(o->out, "instructions",
                           "instructions per op (%s): in both files for %zu cells; %zu changed "
                           "beyond %g%%; the largest change %+.2f%% (%s): reported, not gated%s",
                           t->isource && t->isource[0] ? t->isource : "source not recorded",
                           t->icounted, t->ichanged, o->instr_threshold,
                           100 * (exp(t->iworst) - 1), t->icell,
                           t->iunlike ? "; some cells counted by two different sources were "
                                        "not compared" : "");
    else if (t->iunlike)
        cb_cmp_out_summary(o->out, "instructions",
                           "instructions per op: %zu cells have them in both files, counted by "
                           "two different sources (a PMU's and callgrind's): not compared",
                           t->iunlike);
    cb_cmp_out_summary(o->out, "cells",
                       "cells: %zu failed or timed out in new, %zu missing in new%s, %zu only in "
                       "new, %zu did not run in base",
                       t->failed, t->missing, o->allow_missing ? " (allowed)" : "", t->only_new,
                       t->base_failed);
    cb_cmp_out_summary(o->out, "work", "work: %zu cells did different work; %zu deterministic "
                       "changes%s",
                       t->different_work, t->det_changes,
                       o->deterministic ? "" : " (not compared: --metric time)");
}

static int parse_opts(int argc, char **argv, cmp_opts *o, const char **files)
{
    static const char usage[] = "BASE NEW (each a results file, a directory of them or a "
                                "comma-separated list) [--threshold PERCENT] "
                                "[--instr-threshold PERCENT] "
                                "[--metric time|deterministic|all] [--allow-missing] "
                                "[--format text|md|json] [--only-changed]; or --baseline NAME "
                                "NEW (results/baselines/NAME.json, saved by run "
                                "--save-baseline NAME); [--rename OLD=NEW]... (base's "
                                "implementation OLD is new's NEW)";
    size_t nf = 0;
    /* each once (a flag too: its own field), else "unexpected argument" below; --rename repeats */
    int threshold_set = 0, instr_set = 0, metric_set = 0, format_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "--threshold") && has && !threshold_set++) {
            /* Decimal only (params.h): strtod read "0x10" as 16% and took " 5". */
            if (cb_parse_decimal(argv[++i], &o->threshold) || !(o->threshold >= 0))
                return cb_usage_error("invalid value '%s' for --threshold (valid: a percentage "
                                      ">= 0)",
                                      cb_quote(argv[i]));
        } else if (!strcmp(a, "--instr-threshold") && has && !instr_set++) {
            if (cb_parse_decimal(argv[++i], &o->instr_threshold) || !(o->instr_threshold >= 0))
                return cb_usage_error("invalid value '%s' for --instr-threshold (valid: a "
                                      "percentage >= 0)",
                                      cb_quote(argv[i]));
        } else if (!strcmp(a, "--metric") && has && !metric_set++) {
            const char *m = argv[++i];
            o->time = !strcmp(m, "time") || !strcmp(m, "all");
            o->deterministic = !strcmp(m, "deterministic") || !strcmp(m, "all");
            if (!o->time && !o->deterministic)
                return cb_usage_error("invalid value '%s' for --metric (valid: time, "
                                      "deterministic, all)",
                                      cb_quote(m));
        } else if (!strcmp(a, "--allow-missing") && !o->allow_missing) {
            o->allow_missing = 1;
        } else if (!strcmp(a, "--baseline") && has && !o->baseline[0]) {
            if (cb_baseline_name_check(argv[++i]))
                return cb_usage_error("invalid value '%s' for --baseline (valid: a name saved "
                                      "by run --save-baseline: letters, digits, '.', '_', '-')",
                                      cb_quote(argv[i]));
            cb_baseline_path(argv[i], o->baseline, sizeof o->baseline);
            if (access(o->baseline, F_OK) != 0)
                return cb_usage_error("no baseline '%s': %s does not exist (valid: a name saved "
                                      "by corobench run --save-baseline NAME)",
                                      cb_quote(argv[i]), o->baseline);
        } else if (!strcmp(a, "--only-changed") && !o->only_changed) {
            o->only_changed = 1;
        } else if (!strcmp(a, "--rename") && has) {
            const char *r = argv[++i], *eq = strchr(r, '=');
            if (!eq || eq == r || !eq[1] || strchr(eq + 1, '=') || strchr(r, ' ') ||
                strchr(r, '/'))
                return cb_usage_error("invalid value '%s' for --rename (valid: OLD=NEW, two "
                                      "implementation names: base's OLD is new's NEW)",
                                      cb_quote(r));
            char old[256];
            snprintf(old, sizeof old, "%.*s", (int)(eq - r), r);
            if (json_object_get(o->rename, old))
                return cb_usage_error("invalid value '%s' for --rename: '%s' is renamed twice "
                                      "(valid: each OLD once)",
                                      cb_quote(r), cb_quote(old));
            json_object_set_new(o->rename, old, json_string(eq + 1));
        } else if (!strcmp(a, "--format") && has && !format_set++) {
            if (cb_cmp_format_parse(argv[++i], &o->format))
                return cb_usage_error("invalid value '%s' for --format (valid: text, md, json)",
                                      cb_quote(argv[i]));
        } else if ((a[0] != '-' || !a[1]) && nf < 2) {
            files[nf++] = a;
        } else {
            return cb_usage_error("unexpected argument '%s' for compare (valid: %s, each once)",
                                  cb_quote(a), usage);
        }
    }
    if (o->baseline[0] && nf != 1)
        return cb_usage_error("compare --baseline NAME takes one other side, not %zu (valid: "
                              "corobench compare --baseline NAME NEW)",
                              nf);
    if (o->baseline[0]) {
        files[1] = files[0];
        files[0] = o->baseline;
        nf = 2;
    }
    if (nf != 2)
        return cb_usage_error("compare needs two results files or directories (valid: corobench "
                              "compare %s)",
                              usage);
    return 0;
}

const double cb_compare_default_threshold = 5;

/* Whether the cell carries timing (samples, or invocations with theirs): not a document of
 * deterministic fields only. */
static int has_samples(json_t *c)
{
    return json_object_get(c, "samples_ns_per_op") || json_object_get(c, "invocations");
}

int cb_cmd_compare(int argc, char **argv)
{
    cmp_opts o = {.threshold = cb_compare_default_threshold,
                  .instr_threshold = CB_INSTR_THRESHOLD_DEFAULT, .time = 1, .deterministic = 1,
                  .rename = json_object(), .renamed = json_object()};
    const char *files[2];
    int rc = parse_opts(argc, argv, &o, files);
    if (rc) {
        json_decref(o.rename);
        json_decref(o.renamed);
        return rc;
    }
    cb_error err;
    o.out = cb_cmp_out_new(o.format, o.only_changed);
    json_t *bm = NULL, *nm = NULL;
    json_t *bidx = load_side(files[0], "base", &bm, &o, &err);
    json_t *nidx = bidx ? load_side(files[1], "new", &nm, &o, &err) : NULL;
    if (!nidx) {
        json_decref(bidx);
        json_decref(bm);
        json_decref(nm);
        json_decref(o.rename);
        json_decref(o.renamed);
        cb_cmp_out_discard(o.out);
        return cb_usage_error("%s", err.msg);
    }
    const char *old;
    json_t *to;
    json_object_foreach(o.rename, old, to)
    {
        if (!json_object_get(o.renamed, old)) {
            rc = cb_usage_error("invalid value '%s=%s' for --rename: no cell of base has "
                                "implementation '%s' (valid: OLD an implementation of base)",
                                cb_quote(old), cb_quote(json_string_value(to)), cb_quote(old));
            json_decref(bidx);
            json_decref(nidx);
            json_decref(bm);
            json_decref(nm);
            json_decref(o.rename);
            json_decref(o.renamed);
            cb_cmp_out_discard(o.out);
            return rc;
        }
        cb_cmp_out_problem(o.out, "note", "", "base's implementation '%s' is compared as new's "
                           "'%s' (--rename)",
                           cb_quote(old), cb_quote(json_string_value(to)));
    }
    /* Two machines: every timing difference includes the machine's; said with the notes. */
    static const char *const ids[] = {"hostname", "cpu_model"};
    for (size_t k = 0; k < 2; k++) {
        const char *b = cb_str(bm, ids[k]), *w = cb_str(nm, ids[k]);
        if (b && w && strcmp(b, w)) {
            cb_cmp_out_problem(o.out, "note", "", "the files are from different machines (%s "
                               "'%s' in base, '%s' in new): time differences include the "
                               "machines'",
                               ids[k], cb_quote(b), cb_quote(w));
            break;
        }
    }
    json_decref(bm);
    json_decref(nm);
    size_t nbase = json_object_size(bidx), n = 0, both = 0;
    timed *tm = cb_xcalloc(nbase + 1, sizeof *tm);
    tally t = {0};
    const char *key;
    json_t *bc, *nc;
    rc = CB_EXIT_OK;
    /* In BASE's order: problems first, as they are found, then the timing table. */
    json_object_foreach(bidx, key, bc)
    {
        nc = json_object_get(nidx, key);
        const char *ns = nc ? json_string_value(json_object_get(nc, "status")) : NULL;
        if (!nc || !strcmp(ns, "unsupported")) {
            if (!nc || cb_cell_ok(bc)) {
                cb_cmp_out_problem(o.out, o.allow_missing ? "note" : "ERROR", key,
                                   "missing in new%s", nc ? " (unsupported there)" : "");
                t.missing++;
            }
            continue;
        }
        if (!cb_cell_ok(nc)) {
            cb_cmp_out_problem(o.out, "ERROR", key, "%s in new: %s", ns,
                               json_string_value(json_object_get(nc, "error")));
            t.failed++;
            continue;
        }
        if (!cb_cell_ok(bc)) {
            cb_cmp_out_problem(o.out, "note", key, "did not run in base (%s)",
                               json_string_value(json_object_get(bc, "status")));
            t.base_failed++;
            continue;
        }
        both++;
        if (compare_fields(bc, nc, key, &o, &t) || !o.time)
            continue;
        timed x = {.key = key, .bc = bc, .nc = nc};
        /* a document with deterministic fields only (the CI baseline) has no samples */
        int eb = cb_cell_estimate(bc, &x.base), en = cb_cell_estimate(nc, &x.new);
        if (eb == 0 && en == 0 && cb_cell_ratio(nc, bc, &x.ratio) == 0) {
            tm[n++] = x;
        } else if ((eb && has_samples(bc)) || (en && has_samples(nc))) {
            /* samples that are all 0 (or missing in one invocation) time nothing: an
             * untimed cell is not a pass */
            cb_cmp_out_problem(o.out, "ERROR", key, "cannot be timed: its samples in %s have "
                               "no positive value in some invocation", eb && has_samples(bc)
                                                                            ? "base" : "new");
            t.failed++;
        }
    }
    json_object_foreach(nidx, key, nc)
    {
        if (json_object_get(bidx, key))
            continue;
        const char *ns = json_string_value(json_object_get(nc, "status"));
        if (cb_cell_ok(nc) || !strcmp(ns, "unsupported")) {
            cb_cmp_out_problem(o.out, "note", key, "only in new");
            t.only_new++;
        } else {
            cb_cmp_out_problem(o.out, "ERROR", key, "%s in new (only in new): %s", ns,
                               json_string_value(json_object_get(nc, "error")));
            t.failed++;
        }
    }
    if (rc == CB_EXIT_OK) {
        if (o.time && n)
            timing_verdicts(tm, n, &o, &t);
        summary(tm, n, &o, &t);
        if (t.regressed || t.run_regressed || t.failed || (t.missing && !o.allow_missing) ||
            t.different_work || t.det_changes)
            rc = CB_EXIT_CELLS_FAILED;
        /* Nothing compared is not a pass (--allow-missing over disjoint grids, two files of
         * failed cells). */
        if (!both) {
            fprintf(stderr, "corobench: compare: no cell ran in both files, nothing was compared "
                            "(valid: two results with ok cells at the same points)\n");
            rc = CB_EXIT_CELLS_FAILED;
        }
        cb_cmp_out_finish(o.out, rc);
    } else {
        cb_cmp_out_discard(o.out);
    }
    free(tm);
    json_decref(bidx);
    json_decref(nidx);
    json_decref(o.renamed);
    json_decref(o.rename);
    return rc;
}
