/* The report's "## Caveats" (docs/report.md): what limits every verdict, from the files the
 * cells came from. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"
#include "harness/results/cell.h"
#include "harness/results/estimate.h"
#include "harness/results/fields.h"
#include "query.h"

/* The distinct workloads of file f's cells ("pingpong, io"). */
static void file_workloads(const ctx *c, long f, char *buf, size_t len)
{
    json_t *seen = json_object(), *cell;
    size_t i;
    buf[0] = '\0';
    json_array_foreach(c->all, i, cell)
    {
        const char *wl = cb_str(cell, "workload");
        if (cq_file_of(cell) != f || !wl || json_object_get(seen, wl))
            continue;
        json_object_set_new(seen, wl, json_true());
        cb_append(buf, len, "%s%s", json_object_size(seen) > 1 ? ", " : "", wl);
    }
    json_decref(seen);
}

/* Counters: a hardware event counted in some cell, or why none was. */
static void counters_caveat(FILE *out, const ctx *c)
{
    json_t *cell, *v;
    size_t i;
    const char *name, *why = NULL;
    int counted = 0, asked = 0;
    json_array_foreach(c->all, i, cell)
    {
        json_object_foreach(json_object_get(cell, "counters"), name, v)
        {
            asked = 1;
            counted |= !json_is_null(v) && strcmp(name, "page-faults") &&
                       strcmp(name, "context-switches") && strcmp(name, "task-clock");
        }
        json_object_foreach(json_object_get(cell, "counters_unavailable"), name, v)
        {
            asked = 1;
            if (!why && json_is_string(v))
                why = json_string_value(v);
        }
    }
    if (counted)
        fprintf(out, "- Hardware counters: counted (a PMU is visible).\n");
    else if (asked)
        fprintf(out,
                "- Hardware counters: none counted%s%s; return mispredictions here are the "
                "simulator's, not the CPU's.\n",
                why ? ": " : "", why ? why : "");
    else
        fprintf(out, "- Hardware counters: not asked for (no `--events`); return mispredictions "
                     "here are the simulator's, not the CPU's.\n");
}

/* How many files have each environment warning (a file's repeats counted once). */
static json_t *warning_counts(json_t *files)
{
    json_t *count = json_object(), *f, *w;
    size_t i, k;
    json_array_foreach(files, i, f)
    {
        json_t *mine = json_object();
        json_array_foreach(json_object_get(json_object_get(f, "environment"), "warnings"), k, w)
        {
            const char *t = json_string_value(w);
            if (!t || json_object_get(mine, t))
                continue;
            json_object_set_new(mine, t, json_true());
            json_object_set_new(count, t,
                                json_integer(json_integer_value(json_object_get(count, t)) + 1));
        }
        json_decref(mine);
    }
    return count;
}

/* A file's compiler and flags: "gcc (12.2.0), `-O2 ...`". */
static void build_text(json_t *f, char *buf, size_t len)
{
    json_t *b = json_object_get(f, "build");
    cb_append(buf, len, "%s, `%s`", cb_str(b, "compiler") ?: "compiler not recorded",
              cb_str(b, "cflags") ?: "");
}

/* A file's settings as the caveats give them: pinning, compiler and flags (unless every file
 * has the same, said once above), invocations and repetitions, the simulated return stack,
 * what was unavailable, and the environment's warnings not every one of the nf files has
 * (count: warning_counts). */
static void file_settings(json_t *f, json_t *count, size_t nf, int one_build, char *buf,
                          size_t len)
{
    json_t *run = json_object_get(f, "run");
    json_t *pin = json_object_get(run, "pin_cpu"), *inv = json_object_get(run, "invocations");
    if (json_is_integer(pin))
        cb_append(buf, len, "pinned to CPU %lld", (long long)json_integer_value(pin));
    else
        cb_append(buf, len, "not pinned");
    if (!one_build) {
        cb_append(buf, len, "; ");
        build_text(f, buf, len);
    }
    cb_append(buf, len, "; %lld invocation%s x %lld repetitions per cell",
              json_is_integer(inv) ? (long long)json_integer_value(inv) : 1LL,
              json_is_integer(inv) && json_integer_value(inv) != 1 ? "s" : "",
              (long long)json_integer_value(json_object_get(run, "reps")));
    if (json_is_true(json_object_get(run, "quick")))
        cb_append(buf, len, " (--quick)");
    const char *rs = cb_str(run, "rsb");
    cb_append(buf, len, "; simulated return stack %s", rs && !strcmp(rs, "sim") ? "on" : "off");
    const char *u;
    json_t *why, *w;
    json_object_foreach(json_object_get(f, "unavailable"), u, why)
        cb_append(buf, len, "; unavailable: %s (%s)", u, json_string_value(why));
    json_t *ws = json_object_get(json_object_get(f, "environment"), "warnings");
    size_t k, j;
    json_array_foreach(ws, k, w)
    {
        const char *t = json_string_value(w);
        for (j = 0; j < k && !json_equal(json_array_get(ws, j), w); j++)
            ;
        if (t && j == k && (size_t)json_integer_value(json_object_get(count, t)) != nf)
            cb_append(buf, len, "; environment: %s", t);
    }
}

void cq_caveats(FILE *out, json_t *doc, const ctx *c, const claim *res, size_t nclaims)
{
    fprintf(out, "\n## Caveats\n\nWhat limits every verdict below.\n\n");
    json_t *files = json_object_get(doc, CB_CLAIMS_FILES_KEY), *one = NULL;
    if (!json_is_array(files) || !json_array_size(files)) {
        one = json_pack("[{s:s, s:O?, s:O?, s:O?, s:O?}]", "file", "these results", "run",
                        json_object_get(doc, "run"), "build", json_object_get(doc, "build"),
                        "environment",
                        json_object_get(json_object_get(doc, "machine"), "environment"),
                        "unavailable", json_object_get(doc, "unavailable"));
        files = one;
    }
    json_t *f, *w;
    size_t i, k, nf = json_array_size(files);
    /* A warning every file has is said once here; the others with their files, below. */
    json_t *count = warning_counts(files), *warned = json_object();
    json_array_foreach(files, i, f)
    {
        json_array_foreach(json_object_get(json_object_get(f, "environment"), "warnings"), k, w)
        {
            const char *t = json_string_value(w);
            if (!t || json_object_get(warned, t) ||
                (size_t)json_integer_value(json_object_get(count, t)) != nf)
                continue;
            json_object_set_new(warned, t, json_true());
            fprintf(out, "- Environment: %s.\n", t);
        }
    }
    if (!json_object_size(count))
        fprintf(out, "- Environment: no warning recorded.\n");
    json_decref(warned);
    counters_caveat(out, c);
    json_t *rsb = c->rsb;
    if (json_is_object(rsb)) {
        double r2 = NAN;
        cb_field_number(rsb, "r2", &r2);
        const char *src = cb_str(rsb, "source");
        int cal = src && !strcmp(src, "calibrated");
        fprintf(out, "- Return-stack model: %s %lld, %s", cb_str(rsb, "model") ?: "?",
                (long long)json_integer_value(json_object_get(rsb, "entries")),
                cal ? "calibrated on this CPU" : "not calibrated on this CPU");
        if (cal && isfinite(r2))
            fprintf(out, " (R^2 %.2f)", r2);
        else if (!cal)
            fprintf(out, " (%s; `corobench calibrate` fits it)", src ? src : "no source");
        fprintf(out, ".\n");
    } else {
        fprintf(out, "- Return-stack model: none recorded.\n");
    }
    size_t timed = 0, single = 0;
    json_t *tc;
    size_t ti;
    json_array_foreach(c->all, ti, tc)
    {
        size_t k = cb_cell_ok(tc) ? cb_cell_invocations(tc) : 0;
        timed += k > 0;
        single += k == 1;
    }
    fprintf(out, "- Intervals: 95%%, a hierarchical bootstrap over each cell's invocations "
                 "(processes), then their repetitions (docs/measurement.md)");
    if (single)
        fprintf(out,
                "; %zu of %zu timed cells ran in one invocation and have none (one process "
                "says nothing of the spread between processes, which on this machine moves "
                "single figures 2-3x): every rule that needs one is inconclusive there "
                "(`corobench run --invocations K`, K >= 2)",
                single, timed);
    fprintf(out, ".\n");
    /* Files of the same settings (and warnings) on one line. */
    char (*set)[2048] = cb_xcalloc(nf + 1, sizeof *set);
    size_t *same = cb_xcalloc(nf + 1, sizeof *same);
    char build[2][1024] = {"", ""};
    int one_build = nf > 1;
    json_array_foreach(files, i, f)
    {
        build[i > 0][0] = '\0';
        build_text(f, build[i > 0], sizeof build[0]);
        one_build &= !strcmp(build[0], build[i > 0]);
    }
    if (one_build)
        fprintf(out, "- Build of every file: %s.\n", build[0]);
    json_array_foreach(files, i, f)
        file_settings(f, count, nf, one_build, set[i], sizeof set[i]);
    for (i = 0; i < nf; i++) {
        if (!set[i][0])
            continue;
        size_t n = 0;
        for (size_t j = i; j < nf; j++)
            if (j == i || !strcmp(set[j], set[i]))
                same[n++] = j;
        fprintf(out, "- File%s ", n > 1 ? "s" : "");
        for (size_t j = 0; j < n; j++)
            fprintf(out, "%s%zu", !j ? "" : j + 1 < n ? ", " : " and ", same[j] + 1);
        fprintf(out, " (");
        for (size_t j = 0; j < n; j++) {
            char wls[256] = "";
            file_workloads(c, one ? 0 : (long)same[j], wls, sizeof wls);
            fprintf(out, "%s`%s`: %s", j ? "; " : "",
                    cb_str(json_array_get(files, same[j]), "file"), wls[0] ? wls : "no cells");
        }
        fprintf(out, "): %s.\n", set[i]);
        for (size_t j = 1; j < n; j++)
            set[same[j]][0] = '\0';
    }
    free(set);
    free(same);
    json_decref(count);
    if (json_array_size(files) > 1)
        fprintf(out, "- A cell measured in several files keeps its first measurement; a ratio of "
                     "cells from two files says so (\"across files\").\n");
    size_t failed = 0;
    json_t *cell;
    json_array_foreach(c->all, i, cell) failed += !cb_cell_ok(cell);
    if (failed)
        fprintf(out, "- %zu cells did not run (listed at the end).\n", failed);
    int first = 1;
    for (size_t j = 0; j < nclaims; j++)
        if (res[j].v == CB_NOT_MEASURED) {
            fprintf(out, "%s%zu", first ? "- Not measured in these results: claims " : ", ", j + 1);
            first = 0;
        }
    fprintf(out, "%s", first ? "- Every claim had data in these results.\n" : ".\n");
    json_decref(one);
}
