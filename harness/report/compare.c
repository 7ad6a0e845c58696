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
 * Exit 1 on any error above, 2 on bad input (with the JSON parser's line and column), else 0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "harness/common/alloc.h"
#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "harness/common/build.h"
#include "harness/common/cli.h"
#include "harness/common/stats.h"
#include "harness/results/load.h"
#include "signif.h"

enum { CMP_MIN_SAMPLES = 5, CMP_KEY = 768 };

typedef struct cmp_opts {
    double threshold; /* percent */
    double alpha;
    int time, deterministic; /* which metrics */
    int allow_missing;
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

/* Every cell needs the strings that make its key; NULL with *e when one lacks them, else the
 * cells indexed by key. */
static json_t *index_cells(json_t *doc, const char *file, cb_error *e)
{
    json_t *idx = json_object(), *c, *cells = json_object_get(doc, "cells");
    size_t i;
    char key[CMP_KEY];
    if (!json_is_array(cells)) {
        cb_error_set(e, "'%s' has no cells array (valid: a %s file)", file, CB_SCHEMA);
        json_decref(idx);
        return NULL;
    }
    json_array_foreach(cells, i, c)
    {
        static const char *const need[] = {"workload", "impl", "variant", "status"};
        for (size_t k = 0; k < sizeof need / sizeof need[0]; k++)
            if (!json_is_string(json_object_get(c, need[k])) ||
                !json_is_object(json_object_get(c, "params"))) {
                cb_error_set(e, "'%s': cell %zu has no '%s' string or no params (valid: a %s file)",
                             file, i, need[k], CB_SCHEMA);
                json_decref(idx);
                return NULL;
            }
        cell_key(c, key, sizeof key);
        json_object_set(idx, key, c);
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
            printf("ERROR %s: different work: %s %s -> %s\n", key, f->path, bt, nt);
            work = 1;
        } else {
            printf("CHANGED %s: %s %s -> %s\n", key, f->path, bt, nt);
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
    printf("%-64s %12s %12s %8s %10s  %s\n", "cell", "base ns/op", "new ns/op", "new/base",
           "p (Holm)", "verdict");
    for (size_t i = 0; i < n; i++) {
        timed *x = &tm[i];
        double ratio = x->new / x->base;
        const char *verdict;
        if (!x->tested)
            verdict = "inconclusive", t->inconclusive++;
        else if (x->adj < o->alpha && ratio > 1 + o->threshold / 100)
            verdict = "REGRESSED", t->regressed++;
        else if (x->adj < o->alpha && ratio < 1 / (1 + o->threshold / 100))
            verdict = "improved", t->improved++;
        else
            verdict = "unchanged", t->unchanged++;
        char pt[32];
        if (x->tested)
            snprintf(pt, sizeof pt, "%.2g", x->adj);
        else
            snprintf(pt, sizeof pt, "n=%zu/%zu", x->nb, x->nn);
        printf("%-64s %12.2f %12.2f %8.3f %10s  %s\n", x->key, x->base, x->new, ratio, pt,
               verdict);
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
        printf("geomean new/base: %.3fx over %zu cells\n", cb_geomean(ratio, k), k);
    if (o->time && nt) {
        double g = cb_geomean(tr, nt), p = cb_sign_test(up, down);
        const char *v = "unchanged";
        if (p < o->alpha && g > 1 + o->threshold / 100)
            v = "REGRESSED", t->run_regressed = 1;
        else if (p < o->alpha && g < 1 / (1 + o->threshold / 100))
            v = "improved";
        printf("whole run: geomean %.3fx over the %zu tested cells, %zu slower and %zu faster "
               "(sign test p = %.2g): %s\n",
               g, nt, up, down, p, v);
    }
    free(tr);
    free(ratio);
    if (o->time)
        printf("time: %zu regressed, %zu improved, %zu unchanged, %zu inconclusive (fewer than "
               "%d samples a side); threshold %g%%, alpha %g, Holm over %zu cells\n",
               t->regressed, t->improved, t->unchanged, t->inconclusive, CMP_MIN_SAMPLES,
               o->threshold, o->alpha, tested);
    if (tested && best_min_p >= o->alpha / (double)tested)
        printf("note: no cell can be significant: the smallest possible p here is %.2g and Holm "
               "over %zu cells needs p < %.2g; run with --reps %zu or more\n",
               best_min_p, tested, o->alpha / (double)tested, reps_needed(o->alpha, tested));
    printf("cells: %zu failed or timed out in new, %zu missing in new%s, %zu only in new, %zu did "
           "not run in base; %zu did different work; %zu deterministic changes%s\n",
           t->failed, t->missing, o->allow_missing ? " (allowed)" : "", t->only_new,
           t->base_failed, t->different_work, t->det_changes,
           o->deterministic ? "" : " (not compared: --metric time)");
}

static int parse_opts(int argc, char **argv, cmp_opts *o, const char **files)
{
    static const char usage[] = "BASE.json NEW.json [--threshold PERCENT] [--alpha A] "
                                "[--metric time|deterministic|all] [--allow-missing]";
    size_t nf = 0;
    int threshold_set = 0, alpha_set = 0, metric_set = 0; /* each option once */
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
        } else if ((a[0] != '-' || !a[1]) && nf < 2) {
            files[nf++] = a;
        } else {
            return cb_usage_error("unexpected argument '%s' for compare (valid: %s, each once)",
                                  cb_quote(a), usage);
        }
    }
    if (nf != 2)
        return cb_usage_error("compare needs two results files (valid: corobench compare %s)",
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
    json_t *base = cb_results_load(files[0], &err);
    json_t *new = base ? cb_results_load(files[1], &err) : NULL;
    json_t *bidx = new ? index_cells(base, files[0], &err) : NULL;
    json_t *nidx = bidx ? index_cells(new, files[1], &err) : NULL;
    if (!nidx) {
        json_decref(bidx);
        json_decref(base);
        json_decref(new);
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
                printf("%s %s: missing in new%s\n", o.allow_missing ? "note" : "ERROR", key,
                       nc ? " (unsupported there)" : "");
                t.missing++;
            }
            continue;
        }
        if (!cb_cell_ok(nc)) {
            printf("ERROR %s: %s in new: %s\n", key, ns,
                   json_string_value(json_object_get(nc, "error")));
            t.failed++;
            continue;
        }
        if (!cb_cell_ok(bc)) {
            printf("note %s: did not run in base (%s)\n", key,
                   json_string_value(json_object_get(bc, "status")));
            t.base_failed++;
            continue;
        }
        if (compare_fields(bc, nc, key, &o, &t) || !o.time)
            continue;
        double *bs, *nss;
        size_t nb, nn;
        if (samples_of(bc, files[0], key, &bs, &nb, &err) ||
            samples_of(nc, files[1], key, &nss, &nn, &err)) {
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
            printf("note %s: only in new\n", key);
            t.only_new++;
        } else {
            printf("ERROR %s: %s in new (only in new): %s\n", key, ns,
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
    }
    free(tm);
    json_decref(bidx);
    json_decref(nidx);
    json_decref(base);
    json_decref(new);
    return rc;
}
