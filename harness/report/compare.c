/* `corobench compare BASE.json NEW.json`: the same cells of two results documents side by side,
 * for CI (docs/ci.md). A cell is the same when workload, every parameter, impl and variant
 * agree. Three questions, each with its own rule:
 *  - did NEW run? A cell failed or timed out in NEW, or missing from it, is an error;
 *  - did it do the same work and the same deterministic things? checksum, suspensions and ops
 *    must be equal (else the timing means nothing); the simulated return-stack counts and the
 *    bytes per coroutine are compared exactly (--metric deterministic|all);
 *  - is it slower? A two-sided Mann-Whitney U test on the repetition samples, Holm-corrected
 *    over the cells compared; regressed = slower by more than --threshold percent with a
 *    corrected p below --alpha (--metric time|all). Fewer than CMP_MIN_SAMPLES samples on a
 *    side give no verdict ("inconclusive"). The whole run regressed when the geometric mean of
 *    the tested cells' ratios is past the threshold and a sign test over them is below alpha.
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
#include "harness/common/stats.h"
#include "harness/results/baseline.h"
#include "harness/results/load.h"
#include "signif.h"

enum { CMP_MIN_SAMPLES = 5, CMP_KEY = 768 };

typedef struct cmp_opts {
    double threshold; /* percent */
    double alpha;
    int time, deterministic; /* which metrics */
    int allow_missing;
    cb_cmp_format format;
    int only_changed;
    cb_cmp_out *out;
    char baseline[4096]; /* --baseline NAME: its path, the base side */
} cmp_opts;

/* One matched pair of ok cells with a timing test. */
typedef struct timed {
    const char *key;
    double base, new, p, adj;
    size_t nb, nn;
    int tested; /* 0: fewer than CMP_MIN_SAMPLES on a side */
} timed;

typedef struct tally {
    size_t regressed, improved, unchanged, inconclusive;
    size_t failed, missing, only_new, base_failed, different_work, det_changes;
    int run_regressed; /* the geometric mean of the tested cells, by a sign test */
} tally;

static void cell_key(json_t *c, char *buf, size_t len)
{
    char params[512];
    cb_cell_params_text(c, 1, params, sizeof params);
    snprintf(buf, len, "%s %s %s/%s", json_string_value(json_object_get(c, "workload")), params,
             json_string_value(json_object_get(c, "impl")),
             json_string_value(json_object_get(c, "variant")));
}

/* The samples of an ok cell, or -1 with *e naming the file and cell. */
static int samples_of(json_t *c, const char *file, const char *key, double **out, size_t *n,
                      cb_error *e)
{
    json_t *s = json_object_get(c, "samples_ns_per_op"), *v;
    size_t i;
    *out = NULL;
    *n = 0;
    if (!s) /* a document with deterministic fields only (the CI baseline) */
        return 0;
    if (!json_is_array(s))
        goto bad;
    *out = cb_xmalloc((json_array_size(s) + 1) * sizeof **out);
    json_array_foreach(s, i, v)
    {
        if (!json_is_number(v) || !(json_number_value(v) > 0))
            goto bad;
        (*out)[(*n)++] = json_number_value(v);
    }
    return 0;
bad:
    free(*out);
    *out = NULL;
    return cb_error_set(e,
                        "'%s': cell '%s': samples_ns_per_op is not an array of positive numbers "
                        "(valid: a %s file)",
                        file, key, CB_SCHEMA);
}

/* Every cell needs the strings that make its key; -1 with *e when one lacks them or another
 * file of the side (from[key] names it) has the same cell, else the cells added to idx. */
static int index_cells(json_t *doc, const char *file, json_t *idx, json_t *from, cb_error *e)
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
        cell_key(c, key, sizeof key);
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
                    const cmp_opts *o, cb_error *e)
{
    json_t *doc = cb_results_load(file, e);
    if (!doc)
        return -1;
    int rc = index_cells(doc, file, idx, from, e);
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
 * the cells of all indexed by key, or NULL with *e. */
static json_t *load_side(const char *arg, const char *side, const cmp_opts *o, cb_error *e)
{
    json_t *idx = json_object(), *from = json_object();
    char *list = cb_xstrdup(arg), *save = NULL;
    int rc = 0, items = 0;
    for (char *item = strtok_r(list, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
        items++;
        struct dirent **names;
        DIR *d = opendir(item);
        if (!d) {
            rc = add_file(item, side, idx, from, o, e);
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
                rc = add_file(path, side, idx, from, o, e);
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
    int work = 0;
    for (const cb_det_field *f = cb_det_fields; f->path; f++) {
        if (f->kind != CB_DET_WORK && !o->deterministic)
            continue;
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

/* Verdicts after the Holm correction over every tested cell. */
static void timing_verdicts(timed *tm, size_t n, const cmp_opts *o, tally *t)
{
    double *p = cb_xmalloc((n + 1) * sizeof *p);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (tm[i].tested)
            p[m++] = tm[i].p;
    cb_holm(p, p, m);
    m = 0;
    for (size_t i = 0; i < n; i++)
        if (tm[i].tested)
            tm[i].adj = p[m++];
    free(p);
    for (size_t i = 0; i < n; i++) {
        timed *x = &tm[i];
        double ratio = x->new / x->base;
        cb_cmp_verdict verdict;
        if (!x->tested)
            verdict = CB_CMP_INCONCLUSIVE, t->inconclusive++;
        else if (x->adj < o->alpha && ratio > 1 + o->threshold / 100)
            verdict = CB_CMP_REGRESSED, t->regressed++;
        else if (x->adj < o->alpha && ratio < 1 / (1 + o->threshold / 100))
            verdict = CB_CMP_IMPROVED, t->improved++;
        else
            verdict = CB_CMP_UNCHANGED, t->unchanged++;
        char pt[32];
        if (x->tested)
            snprintf(pt, sizeof pt, "p %.2g (Holm)", x->adj);
        else
            snprintf(pt, sizeof pt, "n=%zu/%zu", x->nb, x->nn);
        cb_cmp_out_cell(o->out, x->key, x->base, x->new, ratio, pt, verdict);
    }
}

/* The smallest number of samples a side with which one cell out of m can pass Holm's first
 * step (2 / C(2r, r) < alpha / m), for the hint printed when the samples cannot. */
static size_t reps_needed(double alpha, size_t m)
{
    size_t r = 1;
    while (r < 1000 && cb_mwu_min_p(r, r) >= alpha / (double)m)
        r++;
    return r;
}

static void summary(const timed *tm, size_t n, const cmp_opts *o, tally *t)
{
    double *ratio = cb_xmalloc((n + 1) * sizeof *ratio);
    size_t tested = 0, k = 0;
    double best_min_p = 1;
    for (size_t i = 0; i < n; i++) {
        ratio[k++] = tm[i].new / tm[i].base;
        if (tm[i].tested) {
            tested++;
            best_min_p = fmin(best_min_p, cb_mwu_min_p(tm[i].nb, tm[i].nn));
        }
    }
    /* The run as a whole: a shift of every cell the same way is found by a sign test over the
     * tested cells even when each cell alone has too few samples to pass Holm's correction. */
    size_t up = 0, down = 0;
    double *tr = cb_xmalloc((n + 1) * sizeof *tr);
    size_t nt = 0;
    for (size_t i = 0; i < n; i++)
        if (tm[i].tested) {
            tr[nt++] = tm[i].new / tm[i].base;
            up += tm[i].new > tm[i].base;
            down += tm[i].new < tm[i].base;
        }
    if (k)
        cb_cmp_out_summary(o->out, "geomean", "geomean new/base: %.3fx over %zu cells",
                           cb_geomean(ratio, k), k);
    if (o->time && nt) {
        double g = cb_geomean(tr, nt), p = cb_sign_test(up, down);
        const char *v = "unchanged";
        if (p < o->alpha && g > 1 + o->threshold / 100)
            v = "REGRESSED", t->run_regressed = 1;
        else if (p < o->alpha && g < 1 / (1 + o->threshold / 100))
            v = "improved";
        cb_cmp_out_summary(o->out, "whole_run",
                           "whole run: geomean %.3fx over %zu tested cells, %zu slower, %zu "
                           "faster (sign test p = %.2g): %s",
                           g, nt, up, down, p, v);
    }
    free(tr);
    free(ratio);
    if (o->time)
        cb_cmp_out_summary(o->out, "time",
                           "time: %zu regressed, %zu improved, %zu unchanged, %zu inconclusive "
                           "(fewer than %d samples a side)",
                           t->regressed, t->improved, t->unchanged, t->inconclusive,
                           CMP_MIN_SAMPLES);
    if (o->time)
        cb_cmp_out_summary(o->out, "rule", "rule: threshold %g%%, alpha %g, Holm over %zu cells",
                           o->threshold, o->alpha, tested);
    if (tested && best_min_p >= o->alpha / (double)tested)
        cb_cmp_out_summary(o->out, "power",
                           "note: no cell can be significant: the smallest possible p here is "
                           "%.2g and Holm over %zu cells needs p < %.2g; run with --reps %zu or "
                           "more",
                           best_min_p, tested, o->alpha / (double)tested, reps_needed(o->alpha, tested));
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
                                "comma-separated list) [--threshold PERCENT] [--alpha A] "
                                "[--metric time|deterministic|all] [--allow-missing] "
                                "[--format text|md|json] [--only-changed]; or --baseline NAME "
                                "NEW (results/baselines/NAME.json, saved by run "
                                "--save-baseline NAME)";
    size_t nf = 0;
    int threshold_set = 0, alpha_set = 0, metric_set = 0, format_set = 0; /* each once */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        char *end;
        if (!strcmp(a, "--threshold") && has && !threshold_set++) {
            o->threshold = strtod(argv[++i], &end);
            if (*end || end == argv[i] || !(o->threshold >= 0) || !isfinite(o->threshold))
                return cb_usage_error("invalid value '%s' for --threshold (valid: a percentage "
                                      ">= 0)",
                                      cb_quote(argv[i]));
        } else if (!strcmp(a, "--alpha") && has && !alpha_set++) {
            o->alpha = strtod(argv[++i], &end);
            if (*end || end == argv[i] || !(o->alpha > 0 && o->alpha < 1))
                return cb_usage_error("invalid value '%s' for --alpha (valid: a number between "
                                      "0 and 1)",
                                      cb_quote(argv[i]));
        } else if (!strcmp(a, "--metric") && has && !metric_set++) {
            const char *m = argv[++i];
            o->time = !strcmp(m, "time") || !strcmp(m, "all");
            o->deterministic = !strcmp(m, "deterministic") || !strcmp(m, "all");
            if (!o->time && !o->deterministic)
                return cb_usage_error("invalid value '%s' for --metric (valid: time, "
                                      "deterministic, all)",
                                      cb_quote(m));
        } else if (!strcmp(a, "--allow-missing")) {
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
        } else if (!strcmp(a, "--only-changed")) {
            o->only_changed = 1;
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

int cb_cmd_compare(int argc, char **argv)
{
    cmp_opts o = {.threshold = 5, .alpha = 0.05, .time = 1, .deterministic = 1};
    const char *files[2];
    int rc = parse_opts(argc, argv, &o, files);
    if (rc)
        return rc;
    cb_error err;
    o.out = cb_cmp_out_new(o.format, o.only_changed);
    json_t *bidx = load_side(files[0], "base", &o, &err);
    json_t *nidx = bidx ? load_side(files[1], "new", &o, &err) : NULL;
    if (!nidx) {
        json_decref(bidx);
        cb_cmp_out_discard(o.out);
        return cb_usage_error("%s", err.msg);
    }
    size_t nbase = json_object_size(bidx), n = 0;
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
        if (compare_fields(bc, nc, key, &o, &t) || !o.time)
            continue;
        double *bs, *nss;
        size_t nb, nn;
        if (samples_of(bc, "base", key, &bs, &nb, &err) ||
            samples_of(nc, "new", key, &nss, &nn, &err)) {
            rc = cb_usage_error("%s", err.msg);
            break;
        }
        if (nb && nn) {
            timed *x = &tm[n++];
            *x = (timed){.key = key, .base = cb_median(bs, nb), .new = cb_median(nss, nn),
                         .nb = nb, .nn = nn};
            x->tested = nb >= CMP_MIN_SAMPLES && nn >= CMP_MIN_SAMPLES;
            if (x->tested)
                x->p = cb_mwu(bs, nb, nss, nn).p;
        }
        free(bs);
        free(nss);
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
        cb_cmp_out_finish(o.out, rc);
    } else {
        cb_cmp_out_discard(o.out);
    }
    free(tm);
    json_decref(bidx);
    json_decref(nidx);
    return rc;
}
