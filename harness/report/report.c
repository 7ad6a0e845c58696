/* `corobench report`: a Markdown report derived from results documents. For one document:
 * where it was measured, the Claims section (claims/: verdicts computed from the cells), the
 * plots (plots.c), then one table per workload with a row per parameter point and a column per
 * implementation (median ns per op; plain builds ranked against plain builds, a build variant
 * shown next to its plain twin as a ratio to it), the memory tables, and every cell that did
 * not run. Documents of one machine are read as one; several machines get a side-by-side table
 * per workload first, then a section each. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "claims.h"
#include "commands.h"
#include "harness/common/alloc.h"
#include "harness/results/cell.h"
#include "harness/results/estimate.h"
#include "harness/results/fields.h"
#include "harness/common/cli.h"
#include "harness/common/output.h"
#include "harness/common/untrusted.h"
#include "harness/results/load.h"
#include "html.h"
#include "mdfit.h"
#include "plots.h"

/* The column of a cell: impl, its variant unless plain (or as_plain: the plain twin's column),
 * implementation parameters off their defaults. */
static void column_key(json_t *cell, int as_plain, char *buf, size_t len)
{
    const char *variant = as_plain ? NULL : json_string_value(json_object_get(cell, "variant"));
    size_t n = (size_t)snprintf(buf, len, "%s", json_string_value(json_object_get(cell, "impl")));
    if (variant && strcmp(variant, "plain"))
        n += (size_t)snprintf(buf + n, len - n, " (%s)", variant);
    /* The implementation's parameters away from their defaults: " stack=16384 guarded". */
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(cell, "params"), k, v)
    {
        if (n >= len || cb_impl_param_at_default(cell, k, v) != 0)
            continue;
        if (json_is_integer(v))
            n += (size_t)snprintf(buf + n, len - n, " %s=%lld", k, (long long)json_integer_value(v));
        else
            n += (size_t)snprintf(buf + n, len - n, " %s", json_string_value(v));
    }
}

/* Appends s to the array if absent; returns its index. */
static size_t intern(json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) if (!strcmp(json_string_value(v), s)) return i;
    json_array_append_new(arr, json_string(s));
    return json_array_size(arr) - 1;
}

/* What a table shows of one ok cell: a number (for the ratio to the row's best, when the
 * table has ratios) and its text; 0 when the cell has nothing for this table. */
typedef int (*cell_value)(json_t *cells, json_t *cell, double *v, char *text, size_t len);

/* Three significant figures (results/cell.h's cb_fig: 7.29, 43.8, 175, 18924). */
static void num3(double v, char *buf, size_t len) { cb_fig(v, CB_FIG_SIG3, buf, len); }

/* A figure of a table: two decimals (cb_fig). buf holds 32 characters. */
static const char *fig(double v, char *buf) { return cb_fig(v, 2, buf, 32); }

/* The median, its overhead over the direct cell of the same point ("+d" ns per op: the price of
 * the model itself) where the results have one, and the flags that make it doubtful. */
static int timing_value(json_t *cells, json_t *c, double *v, char *text, size_t len)
{
    json_t *ns = json_object_get(c, "ns_per_op");
    if (!ns) /* a document of deterministic fields only */
        return 0;
    *v = json_real_value(json_object_get(ns, "median"));
    double direct = cb_cell_direct_ns(cells, c);
    /* only the letters that mark at most half of the cells (results/cell.h) */
    char flags[16], keep[8], note[8];
    cb_cell_flags_telling(cells, keep, sizeof keep, note, sizeof note);
    cb_cell_flags_kept(c, keep, flags, sizeof flags);
    char f[32];
    size_t n = (size_t)snprintf(text, len, "%s", fig(*v, f));
    json_t *ci = json_object_get(ns, "ci95");
    if (json_is_array(ci) && n < len) /* schema 2, K >= 2: the 95% interval */
    {
        char h[32];
        num3((json_number_value(json_array_get(ci, 1)) - json_number_value(json_array_get(ci, 0))) /
                 2,
             h, sizeof h);
        n += (size_t)snprintf(text + n, len - n, " ±%s", h);
    }
    if (direct >= 0 && strcmp(json_string_value(json_object_get(c, "family")), "baseline") &&
        n < len)
        n += (size_t)snprintf(text + n, len - n, " [%s%s]", *v >= direct ? "+" : "",
                              fig(*v - direct, f));
    if (flags[0] && n < len)
        snprintf(text + n, len - n, " %s", flags);
    return 1;
}

static void bytes_text(json_t *m, const char *key, char *buf, size_t len)
{
    json_t *x = json_object_get(m, key);
    if (json_is_number(x))
        snprintf(buf, len, "%.0f", json_number_value(x));
    else
        snprintf(buf, len, "-");
}

/* Bytes per coroutine at the workload's rest point; identical in every build variant, so only
 * the plain one is shown. */
static int memory_value(json_t *cells, json_t *c, double *v, char *text, size_t len)
{
    (void)cells;
    json_t *m = json_object_get(c, "memory");
    const char *point = json_string_value(json_object_get(m, "point"));
    const char *variant = json_string_value(json_object_get(c, "variant"));
    if (!point || strcmp(point, "rest") || (variant && strcmp(variant, "plain")))
        return 0;
    *v = 0;
    static const char *const keys[] = {"touched_bytes_per_coro", "heap_bytes_per_coro",
                                       "rss_bytes_per_coro", "pagetable_bytes_per_coro",
                                       "kernel_bytes_per_coro"};
    char f[5][32];
    for (int k = 0; k < 5; k++)
        bytes_text(m, keys[k], f[k], sizeof f[k]);
    snprintf(text, len, "%s / %s / %s / %s / %s", f[0], f[1], f[2], f[3], f[4]);
    return 1;
}

/* " [lo, hi]": the 95% interval of num / den bootstrapped over both cells' invocations
 * (estimate.h), or "" when either has a single invocation. */
static const char *ratio_ci(json_t *num, json_t *den, char *buf, size_t len)
{
    cb_estimate e;
    buf[0] = '\0';
    if (cb_cell_ratio(num, den, &e) == 0 && e.ok)
        snprintf(buf, len, " [%.2f, %.2f]", e.lo, e.hi);
    return buf;
}

/* One table: a row per parameter point, a column per implementation (and variant). Returns 0
 * without printing when no cell of the workload has a value for it. unit_rows: each point says
 * its unit ("per round trip"), for a workload whose points differ in it. */
static int grid_table(FILE *out, json_t *cells, const char *wl, const char *title,
                      cell_value value, int ratios, int unit_rows)
{
    typedef struct entry {
        size_t row, col, twin; /* twin: the plain twin's column (col itself when plain) */
        double num;
        json_t *cell;
        char text[128];
    } entry;
    json_t *rows = json_array(), *cols = json_array(), *c;
    entry *e = cb_xcalloc(json_array_size(cells) + 1, sizeof *e);
    size_t i, n = 0;
    char key[512];
    json_array_foreach(cells, i, c)
    {
        const char *st = json_string_value(json_object_get(c, "status"));
        if (strcmp(json_string_value(json_object_get(c, "workload")), wl) || strcmp(st, "ok") ||
            !value(cells, c, &e[n].num, e[n].text, sizeof e[n].text))
            continue;
        e[n].cell = c;
        cb_cell_params_text(c, 0, key, sizeof key);
        if (unit_rows)
            cb_append(key, sizeof key, " (per %s)", cb_str(c, "unit") ?: "op");
        e[n].row = intern(rows, key);
        column_key(c, 0, key, sizeof key);
        e[n].col = intern(cols, key);
        column_key(c, 1, key, sizeof key);
        e[n++].twin = intern(cols, key);
    }
    size_t nr = json_array_size(rows), nc = json_array_size(cols);
    const entry **at = cb_xcalloc(nr * nc + 1, sizeof *at); /* the cell at (row, col), if any */
    for (i = 0; i < n; i++)
        at[e[i].row * nc + e[i].col] = &e[i];
    if (nr) {
        /* a heading of the workload alone, its caption under it (the two made a heading of
         * 200 columns) */
        size_t hl = strcspn(title, "(");
        while (hl && title[hl - 1] == ' ')
            hl--;
        fprintf(out, "\n### %s%s%.*s\n\n%s %s\n\n| point |", wl, hl ? " " : "", (int)hl, title,
                wl, title);
        for (size_t k = 0; k < nc; k++)
            fprintf(out, " %s |", json_string_value(json_array_get(cols, k)));
        fprintf(out, "\n|---|");
        for (size_t k = 0; k < nc; k++)
            fprintf(out, "---:|");
        fprintf(out, "\n");
    }
    char ci[64];
    for (size_t r = 0; r < nr; r++) {
        double best = 0; /* the fastest plain cell of the row */
        const entry *fastest = NULL;
        for (size_t k = 0; k < nc; k++) {
            const entry *x = at[r * nc + k];
            if (x && x->twin == x->col && x->num > 0 && (best == 0 || x->num < best))
                best = x->num, fastest = x;
        }
        fprintf(out, "| %s |", json_string_value(json_array_get(rows, r)));
        for (size_t k = 0; k < nc; k++) {
            const entry *x = at[r * nc + k], *twin = x ? at[r * nc + x->twin] : NULL;
            if (!x)
                fprintf(out, " - |");
            else if (ratios && x->twin != x->col && twin && twin->num > 0)
                fprintf(out, " %s (%.2fx plain%s) |", x->text, x->num / twin->num,
                        ratio_ci(x->cell, twin->cell, ci, sizeof ci));
            else if (ratios && x->twin == x->col && best > 0)
                fprintf(out, " %s (%.1fx%s) |", x->text, x->num / best,
                        x == fastest ? "" : ratio_ci(x->cell, fastest->cell, ci, sizeof ci));
            else
                fprintf(out, " %s |", x->text);
        }
        fprintf(out, "\n");
    }
    free(at);
    free(e);
    json_decref(rows);
    json_decref(cols);
    return nr > 0;
}

static void workload_tables(FILE *out, json_t *cells, const char *wl)
{
    const char *unit = cb_results_unit(cells, wl);
    char title[512];
    snprintf(title, sizeof title,
             "(ns per %s: the median of the invocations' medians, ± half its 95%% interval; "
             "[+d] = ns over direct, no coroutine; x = times the fastest plain build in the row; "
             "a variant: times its plain twin; each ratio with its own 95%% interval)",
             unit ? unit : "op, the unit each point names");
    if (grid_table(out, cells, wl, title, timing_value, 1, !unit)) {
        char keep[8], note[256];
        cb_cell_flags_telling(cells, keep, sizeof keep, note, sizeof note);
        fprintf(out, "\n%s.%s%s%s\n", cb_cell_flags_legend, note[0] ? " " : "", note,
                note[0] ? "." : "");
    }
    grid_table(out, cells, wl,
               "memory (bytes per coroutine at rest: touched stack / runtime heap / RSS / page "
               "tables / kernel; - = not measured, see null_reasons)",
               memory_value, 0, 0);
}

/* A string member the loader checked but a file may lack (the CI baseline): "?" then. */
static const char *text_or(json_t *obj, const char *key)
{
    const char *s = cb_str(obj, key);
    return s ? s : "?";
}

static void machine_line(FILE *out, const char *in, json_t *doc)
{
    json_t *m = json_object_get(doc, "machine"), *b = json_object_get(doc, "build");
    /* every string of the file through the Markdown sink (untrusted.h) */
    fprintf(out, "- results: ");
    cb_md_code(out, in);
    fputs(" (", out);
    cb_esc_md(out, text_or(doc, "created_utc"));
    fputs(", commit ", out);
    cb_esc_md(out, text_or(doc, "git_commit"));
    fputs(")\n- machine: ", out);
    cb_esc_md(out, text_or(m, "hostname"));
    fputs(", ", out);
    cb_esc_md(out, text_or(m, "cpu_model"));
    fprintf(out, ", %lld logical CPUs, kernel ",
            (long long)json_integer_value(json_object_get(m, "logical_cpus")));
    cb_esc_md(out, text_or(m, "kernel"));
    fputs(", clock ", out);
    cb_esc_md(out, text_or(m, "clock"));
    fputs("\n- build: ", out);
    cb_esc_md(out, text_or(b, "compiler"));
    fputs(", ", out);
    cb_esc_md_code(out, text_or(b, "cflags"));
    fputs("\n", out);
    json_t *run = json_object_get(doc, "run"), *inv = json_object_get(run, "invocations");
    if (json_is_integer(json_object_get(run, "reps")))
        fprintf(out, "- each cell: %lld invocations (processes, interleaved) x %lld repetitions%s\n",
                json_is_integer(inv) ? (long long)json_integer_value(inv) : 1LL,
                (long long)json_integer_value(json_object_get(run, "reps")),
                json_is_integer(inv) && json_integer_value(inv) >= 2
                    ? ""
                    : " (one process per cell: no interval, no difference counts)");
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(doc, "unavailable"), k, v)
    {
        fprintf(out, "- unavailable: %s: ", k);
        cb_esc_md(out, json_string_value(v));
        fputs("\n", out);
    }
}

/* The document as the claims see it: a copy whose strings went through cb_md_neutral, since
 * claims.c writes the file's text (the CPU model, the build, the environment's warnings, a
 * plot's reason) into Markdown as it is. */
static void md_neutral_strings(json_t *v);

/* e's neutral form when it is a string that needs one (NULL otherwise, after going into it). */
static json_t *md_neutral_one(json_t *e)
{
    char *n = json_is_string(e) ? cb_md_neutral(json_string_value(e)) : NULL;
    json_t *r = n ? json_string(n) : NULL;
    free(n);
    if (!r)
        md_neutral_strings(e);
    return r;
}

static void md_neutral_strings(json_t *v)
{
    const char *k;
    json_t *e, *r;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach(v, k, e) if ((r = md_neutral_one(e))) json_object_set_new(v, k, r);
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, e) if ((r = md_neutral_one(e))) json_array_set_new(v, i, r);
    }
}

static json_t *claims_view(json_t *doc)
{
    json_t *copy = doc ? json_deep_copy(doc) : NULL;
    md_neutral_strings(copy);
    return copy;
}

/* The plots drawn (embedded) and those skipped, with the reasons. */
static void plots_section(FILE *out, json_t *plots, const char *rel)
{
    json_t *p, *n;
    size_t i, k;
    fprintf(out, "\n## Plots\n\nEach drawn by gnuplot (plots/NAME.gp) from data corobench derives "
                 "from these results; PNG embedded, SVG beside it.\n");
    json_array_foreach(plots, i, p)
    {
        const char *png = cb_str(p, "png"), *svg = cb_str(p, "svg");
        fprintf(out, "\n### %s\n\n%s.\n", cb_str(p, "name"), cb_str(p, "question"));
        if (png) {
            const char *bp = strrchr(png, '/'), *bs = svg ? strrchr(svg, '/') : NULL;
            fprintf(out, "\n![%s](", cb_str(p, "name"));
            cb_md_dest(out, rel, bp ? bp + 1 : png);
            fprintf(out, ") ([SVG](");
            cb_md_dest(out, rel, bs ? bs + 1 : svg);
            fprintf(out, "))\n");
        } else {
            fprintf(out, "\nNot drawn: ");
            cb_esc_md(out, cb_str(p, "skipped"));
            fputs(".", out);
            if (cb_str(p, "command"))
                fprintf(out, " To measure its data: `%s`.", cb_str(p, "command"));
            fprintf(out, "\n");
        }
        json_array_foreach(json_object_get(p, "notes"), k, n)
        {
            fprintf(out, "%s- ", k ? "" : "\n");
            cb_esc_md(out, json_string_value(n));
            fputs("\n", out);
        }
    }
}

/* "18.7 ±0.4": a cell's median and half its 95% interval's width; "18.7 [12.1, 96.3]" when the
 * interval is lopsided (it is built about the estimate on a log scale: the two sides differ by
 * more than a fifth), where a ± would misstate it; the median alone for a cell of one
 * invocation. */
static void value_pm(json_t *c, char *buf, size_t len)
{
    json_t *ns = json_object_get(c, "ns_per_op"), *ci = json_object_get(ns, "ci95");
    char v[32], h[32];
    num3(json_number_value(json_object_get(ns, "median")), v, sizeof v);
    if (json_is_array(ci)) {
        double m = json_number_value(json_object_get(ns, "median")),
               lo = json_number_value(json_array_get(ci, 0)),
               hi = json_number_value(json_array_get(ci, 1));
        double a = m - lo, b = hi - m;
        if (a > 0 && b > 0 && (a > b ? a / b : b / a) <= 1.2) {
            num3((hi - lo) / 2, h, sizeof h);
            snprintf(buf, len, "%s ±%s", v, h);
        } else {
            char l[32], u[32];
            num3(lo, l, sizeof l);
            num3(hi, u, sizeof u);
            snprintf(buf, len, "%s [%s, %s]", v, l, u);
        }
    } else
        snprintf(buf, len, "%s", v);
}

/* The workload at a glance, within 120 columns: a row per point (only the parameters that vary
 * between its points), direct's time, the fastest plain cell of each family with its interval,
 * and their ratio with its interval; every implementation is in the appendix's table. */
static void glance_table(FILE *out, json_t *cells, const char *wl)
{
    json_t *rows = json_array(), *c;
    size_t i;
    char key[512];
    json_array_foreach(cells, i, c)
    {
        if (strcmp(cb_str(c, "workload"), wl) || !cb_cell_ok(c) ||
            strcmp(cb_str(c, "variant"), "plain") || !json_object_get(c, "ns_per_op"))
            continue;
        cb_cell_params_text(c, 0, key, sizeof key);
        intern(rows, key);
    }
    size_t nr = json_array_size(rows);
    if (!nr) {
        json_decref(rows);
        return;
    }
    const char *unit = cb_results_unit(cells, wl);
    fprintf(out, "\n## %s at a glance\n\nns per %s; ±: half the 95%% interval, [lo, hi] where "
                 "lopsided; direct: its median.\n\n| point | direct "
                 "| fastest stackful | fastest stackless | stackful / stackless [95%%] |\n"
                 "|---|---:|---:|---:|---:|\n",
            wl, unit ? unit : "op, as each point says");
    for (size_t r = 0; r < nr; r++) {
        const char *k = json_string_value(json_array_get(rows, r));
        json_t *best[2] = {NULL, NULL}, *direct = NULL;
        json_array_foreach(cells, i, c)
        {
            if (strcmp(cb_str(c, "workload"), wl) || !cb_cell_ok(c) ||
                strcmp(cb_str(c, "variant"), "plain") || !json_object_get(c, "ns_per_op"))
                continue;
            cb_cell_params_text(c, 0, key, sizeof key);
            if (strcmp(key, k))
                continue;
            const char *fam = cb_str(c, "family");
            int f = !fam ? -1 : !strcmp(fam, "stackful") ? 0 : !strcmp(fam, "stackless") ? 1 : -1;
            double v = json_number_value(json_object_get(json_object_get(c, "ns_per_op"), "median"));
            if (!strcmp(fam ? fam : "", "baseline"))
                direct = c;
            else if (f >= 0 &&
                     (!best[f] || v < json_number_value(json_object_get(
                                          json_object_get(best[f], "ns_per_op"), "median"))))
                best[f] = c;
        }
        /* the parameters that differ between the rows */
        char vary[256] = "", *save = NULL, tmp[512];
        snprintf(tmp, sizeof tmp, "%s", k);
        for (char *tok = strtok_r(tmp, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
            int differs = 0;
            for (size_t j = 0; j < nr && !differs; j++)
                differs = !cb_has_token(json_string_value(json_array_get(rows, j)), tok);
            if (differs)
                cb_append(vary, sizeof vary, "%s%s", *vary ? " " : "", tok);
        }
        char d[128] = "-", b[2][200] = {"-", "-"}, ratio[96] = "-";
        if (direct) /* the baseline's median: context, not the comparison */
            num3(json_number_value(json_object_get(json_object_get(direct, "ns_per_op"), "median")),
                 d, sizeof d);
        for (int f = 0; f < 2; f++)
            if (best[f]) {
                char v[128];
                value_pm(best[f], v, sizeof v);
                snprintf(b[f], sizeof b[f], "%s %s", cb_str(best[f], "impl"), v);
            }
        cb_estimate e;
        if (best[0] && best[1] && !cb_cell_ratio(best[0], best[1], &e)) {
            if (e.ok) {
                char l[32], u[32];
                num3(e.lo, l, sizeof l);
                num3(e.hi, u, sizeof u);
                snprintf(ratio, sizeof ratio, "%.2fx [%s, %s]", e.est, l, u);
            } else
                snprintf(ratio, sizeof ratio, "%.2fx", e.est);
        }
        /* a workload whose points differ in their unit: each row names its own */
        json_t *any = best[0] ? best[0] : best[1] ? best[1] : direct;
        char pt[400];
        snprintf(pt, sizeof pt, "%s", *vary ? vary : "(one point)");
        if (!unit && any && cb_str(any, "unit"))
            cb_append(pt, sizeof pt, " /%s", cb_str(any, "unit"));
        fprintf(out, "| %s | %s | %s | %s | %s |\n", pt, d, b[0], b[1], ratio);
    }
    json_decref(rows);
}

static void tables_and_failures(FILE *out, json_t *doc)
{
    json_t *cells = json_object_get(doc, "cells"), *c, *v, *wls = json_array();
    size_t i;
    json_array_foreach(cells, i, c) intern(wls, cb_str(c, "workload"));
    json_array_foreach(wls, i, v) glance_table(out, cells, json_string_value(v));
    fprintf(out, "\n## Appendix: every implementation\n\nA table per workload with a column per "
                 "implementation and build variant (one too wide for 120 columns goes on as tables "
                 "of the same rows; every field of every cell: `corobench export R.json --format "
                 "csv`).\n");
    json_array_foreach(wls, i, v) workload_tables(out, cells, json_string_value(v));
    json_decref(wls);
    int header = 0;
    json_array_foreach(cells, i, c)
    {
        const char *st = cb_str(c, "status");
        if (!strcmp(st, "ok"))
            continue;
        if (!header++)
            fprintf(out, "\n## Cells that did not run\n\n| workload | point | impl | status | "
                         "error |\n|---|---|---|---|---|\n");
        char key[512];
        cb_cell_params_text(c, 0, key, sizeof key);
        fprintf(out, "| %s | %s | %s | %s | ", cb_str(c, "workload"), key, cb_str(c, "impl"), st);
        cb_esc_md(out, cb_str(c, "error"));
        fputs(" |\n", out);
    }
}

/* Several machines: a table per workload, a row per (point, impl) of plain cells, a column per
 * results file with its median and the ratio to the first file's. */
static void side_by_side(FILE *out, json_t **docs, const char **ins, size_t n)
{
    json_t *rows = json_object(), *wls = json_array(), *c, *v;
    json_t *mixed = json_object(); /* workloads whose cells differ in their unit */
    size_t i, w;
    fprintf(out, "\n## Machines side by side\n\n");
    for (size_t f = 0; f < n; f++) {
        json_t *cells = json_object_get(docs[f], "cells");
        json_array_foreach(cells, i, c)
        {
            const char *wl = cb_str(c, "workload"), *u = cb_results_unit(cells, wl);
            for (size_t g = 0; g < n && u; g++) {
                const char *o = cb_results_unit(json_object_get(docs[g], "cells"), wl);
                if (!o || (strcmp(o, "op") && strcmp(o, u)))
                    u = NULL;
            }
            if (!u)
                json_object_set_new(mixed, wl, json_true());
        }
    }
    for (size_t f = 0; f < n; f++) {
        json_t *m = json_object_get(docs[f], "machine");
        char label[16];
        cb_machine_label(f, label, sizeof label);
        fprintf(out, "- %s: ", label);
        cb_esc_md(out, text_or(m, "hostname"));
        fputs(", ", out);
        cb_esc_md(out, text_or(m, "cpu_model"));
        fputs(" (", out);
        cb_md_code(out, ins[f]);
        fprintf(out, ")\n");
    }
    for (size_t f = 0; f < n; f++)
        json_array_foreach(json_object_get(docs[f], "cells"), i, c)
        {
            if (strcmp(cb_str(c, "status"), "ok") || strcmp(cb_str(c, "variant"), "plain"))
                continue;
            char params[512], key[768];
            cb_cell_params_text(c, 1, params, sizeof params);
            if (json_object_get(mixed, cb_str(c, "workload")))
                cb_append(params, sizeof params, " (per %s)", cb_str(c, "unit") ?: "op");
            snprintf(key, sizeof key, "%s\t%s | %s", cb_str(c, "workload"), params,
                     cb_str(c, "impl"));
            intern(wls, cb_str(c, "workload"));
            json_t *row = json_object_get(rows, key);
            if (!row) {
                row = json_array();
                for (size_t k = 0; k < n; k++)
                    json_array_append_new(row, json_null());
                json_object_set_new(rows, key, row);
            }
            json_array_set(row, f, json_object_get(c, "ns_per_op"));
        }
    json_array_foreach(wls, w, v)
    {
        const char *wl = json_string_value(v), *key;
        json_t *row;
        fprintf(out, "\n### %s (median ns per op; x = times machine A)\n\n| point | impl |", wl);
        for (size_t f = 0; f < n; f++) {
            char label[16];
            cb_machine_label(f, label, sizeof label);
            fprintf(out, " %s |", label);
        }
        fprintf(out, "\n|---|---|");
        for (size_t f = 0; f < n; f++)
            fprintf(out, "---:|");
        fprintf(out, "\n");
        json_object_foreach(rows, key, row)
        {
            const char *tab = strchr(key, '\t');
            if (strncmp(key, wl, (size_t)(tab - key)) || wl[tab - key])
                continue;
            fprintf(out, "| %s |", tab + 1);
            double a = json_real_value(json_object_get(json_array_get(row, 0), "median"));
            for (size_t f = 0; f < n; f++) {
                json_t *ns = json_array_get(row, f);
                double x = json_real_value(json_object_get(ns, "median"));
                char xb[32];
                if (json_is_null(ns))
                    fprintf(out, " - |");
                else if (f && a > 0)
                    fprintf(out, " %s (%.2fx) |", fig(x, xb), x / a);
                else
                    fprintf(out, " %s |", fig(x, xb));
            }
            fprintf(out, "\n");
        }
    }
    json_decref(rows);
    json_decref(wls);
    json_decref(mixed);
}

/* The directory part of path ("." when none), and path's last component without .md. */
static void split_path(const char *path, char *dir, size_t dlen, char *stem, size_t slen)
{
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(dir, dlen, "%.*s", (int)(slash - path), path);
    else
        snprintf(dir, dlen, ".");
    snprintf(stem, slen, "%s", slash ? slash + 1 : path);
    size_t n = strlen(stem);
    if (n > 3 && !strcmp(stem + n - 3, ".md"))
        stem[n - 3] = '\0';
    else if (n > 5 && !strcmp(stem + n - 5, ".html"))
        stem[n - 5] = '\0';
}

/* STEM-plots/ beside the report is a new path, or with --force the directory of an earlier
 * report (whose plots are replaced with it); a file, a link or, without --force, a directory
 * already there is refused before any work, as -o is (docs/bad-input.md). */
enum { PLOT_PATH_ROOM = 128 }; /* "/AAA/pingpong-depth-distinct-0.dat.tmp.<pid>" fits */
static int check_plots_dir(const char *dir, const char *stem, int force)
{
    char pdir[4096 + 1100];
    struct stat st;
    snprintf(pdir, sizeof pdir, "%s/%s-plots", dir, stem);
    /* Room for what goes in it: a machine's subdirectory and a plot's files with their
     * temporary names (plots.c), within a path and a file name the kernel takes. */
    if (strlen(pdir) + PLOT_PATH_ROOM >= CB_OUT_PATH_MAX ||
        strlen(stem) + strlen("-plots") > NAME_MAX)
        return cb_usage_error("report plots: '%s' is too long for the plot files in it (valid: "
                              "a report path of at most %d bytes, its name at most %d, or "
                              "--no-plots)",
                              cb_quote(pdir), CB_OUT_PATH_MAX - PLOT_PATH_ROOM - 4,
                              NAME_MAX - (int)strlen("-plots") + 3);
    if (lstat(pdir, &st) != 0)
        return 0;
    if (!S_ISDIR(st.st_mode))
        return cb_usage_error("report plots: '%s' exists and is not a directory (valid: a new "
                              "path for the plots beside the report, or --no-plots)",
                              cb_quote(pdir));
    if (!force)
        return cb_usage_error("report plots: '%s' exists (valid: a new path, --force to replace "
                              "the plots in it, or --no-plots)",
                              cb_quote(pdir));
    return 0;
}

/* Where the gnuplot scripts are: plots/ beside the directory holding this binary (bin/). */
static void scripts_dir(char *buf, size_t len)
{
    char bin[4096];
    cb_bin_dir(bin, sizeof bin);
    if (snprintf(buf, len, "%s/../plots", bin) >= (int)len)
        snprintf(buf, len, "plots");
}

static void cell_identity(json_t *c, char *buf, size_t len)
{
    char params[768];
    cb_cell_params_text(c, 1, params, sizeof params);
    snprintf(buf, len, "%s %s %s/%s", cb_str(c, "workload"), params, cb_str(c, "impl"),
             cb_str(c, "variant"));
}

/* What the claims need to know of the file a machine's cells came from (claims.h): each cell
 * of doc tagged with the file's index among its machine's files (CB_CLAIMS_FILE_KEY), and the
 * file's name, run, build and environment appended to into's CB_CLAIMS_FILES_KEY, so that the
 * Caveats name each file's conditions and a ratio never pairs cells of two runs unmarked. */
static void note_file(json_t *into, json_t *doc, const char *name)
{
    json_t *files = json_object_get(into, CB_CLAIMS_FILES_KEY), *c;
    if (!files) {
        files = json_array();
        json_object_set_new(into, CB_CLAIMS_FILES_KEY, files);
    }
    json_int_t index = (json_int_t)json_array_size(files);
    size_t i;
    json_array_foreach(json_object_get(doc, "cells"), i, c)
        json_object_set_new(c, CB_CLAIMS_FILE_KEY, json_integer(index));
    json_array_append_new(
        files, json_pack("{s:s, s:O?, s:O?, s:O?, s:O?}", "file", name, "run",
                         json_object_get(doc, "run"), "build", json_object_get(doc, "build"),
                         "environment",
                         json_object_get(json_object_get(doc, "machine"), "environment"),
                         "unavailable", json_object_get(doc, "unavailable")));
}

/* Merges every document into the first one of its machine (host name and CPU model): its
 * cells appended (those it does not have yet; the others kept aside for the claims, which pair
 * cells within one file), what was unavailable added, its file name listed in also[]. Returns
 * the number of machines; docs[] and ins[] are compacted to one entry per machine. */
static size_t group_by_machine(json_t **docs, const char **ins, size_t n, json_t **also)
{
    size_t m = 0;
    for (size_t f = 0; f < n; f++) {
        json_t *mf = json_object_get(docs[f], "machine");
        size_t g = 0;
        while (g < m && !(json_equal(json_object_get(mf, "hostname"),
                                     json_object_get(json_object_get(docs[g], "machine"),
                                                     "hostname")) &&
                          json_equal(json_object_get(mf, "cpu_model"),
                                     json_object_get(json_object_get(docs[g], "machine"),
                                                     "cpu_model"))))
            g++;
        if (g == m) {
            note_file(docs[f], docs[f], ins[f]);
            docs[m] = docs[f];
            ins[m] = ins[f];
            also[m++] = json_array();
            continue;
        }
        /* A cell the machine already has (the same workload point, implementation and
         * variant, measured again in a later file) keeps its first measurement. */
        note_file(docs[g], docs[f], ins[f]);
        json_t *have = json_object(), *c, *cells = json_object_get(docs[g], "cells");
        json_t *aside = json_object_get(docs[g], CB_CLAIMS_ASIDE_KEY);
        if (!aside) {
            aside = json_array();
            json_object_set_new(docs[g], CB_CLAIMS_ASIDE_KEY, aside);
        }
        size_t i;
        char key[1024];
        json_array_foreach(cells, i, c)
        {
            cell_identity(c, key, sizeof key);
            json_object_set_new(have, key, json_true());
        }
        json_array_foreach(json_object_get(docs[f], "cells"), i, c)
        {
            cell_identity(c, key, sizeof key);
            json_array_append(json_object_get(have, key) ? aside : cells, c);
        }
        json_decref(have);
        json_object_update_missing(json_object_get(docs[g], "unavailable"),
                                   json_object_get(docs[f], "unavailable"));
        json_array_append_new(also[g], json_string(ins[f]));
        json_decref(docs[f]);
    }
    return m;
}

static const char report_usage[] = "corobench report RESULTS.json [MORE.json...] "
                                   "[-o FILE.md|FILE.html [--force]] [--format md|html] "
                                   "[--no-plots] [-- FILES...]";

int cb_cmd_report(int argc, char **argv)
{
    const char *ins[64], *out_path = NULL, *format = NULL;
    size_t n = 0;
    int plots_on = 1, force = 0, operands = 0;
    for (int i = 1; i < argc; i++) {
        if (operands || (argv[i][0] != '-' && n < sizeof ins / sizeof ins[0])) {
            if (n >= sizeof ins / sizeof ins[0])
                return cb_usage_error("too many results files for report (valid: at most %zu)",
                                      sizeof ins / sizeof ins[0]);
            ins[n++] = argv[i];
        } else if (!strcmp(argv[i], "--")) /* the rest are files, even -dash.json */
            operands = 1;
        else if (!strcmp(argv[i], "-o") && i + 1 < argc && !out_path)
            out_path = argv[++i];
        else if (!strcmp(argv[i], "--format") && i + 1 < argc && !format)
            format = argv[++i];
        else if (!strcmp(argv[i], "--no-plots"))
            plots_on = 0;
        else if (!strcmp(argv[i], "--force"))
            force = 1;
        else
            return cb_usage_error("unexpected argument '%s' for report (valid: %s, -o once)",
                                  cb_quote(argv[i]), report_usage);
    }
    if (!n)
        return cb_usage_error("report needs RESULTS.json (valid: %s)", report_usage);
    /* md unless asked for html (or -o names an .html file) */
    size_t olen = out_path ? strlen(out_path) : 0;
    if (!format)
        format = olen > 5 && !strcmp(out_path + olen - 5, ".html") ? "html" : "md";
    if (strcmp(format, "md") && strcmp(format, "html"))
        return cb_usage_error("invalid value '%s' for --format (valid: md, html)",
                              cb_quote(format));
    int html = !strcmp(format, "html");
    cb_out o;
    char dir[4096], stem[1024], pdir[4096 + 1100], scripts[4096];
    if (out_path)
        split_path(out_path, dir, sizeof dir, stem, sizeof stem);
    int rc = cb_out_prepare(&o, "report", out_path, force);
    if (!rc && out_path && plots_on)
        rc = check_plots_dir(dir, stem, force);
    if (rc)
        return rc;
    json_t *docs[64];
    cb_error err;
    for (size_t f = 0; f < n; f++)
        if (!(docs[f] = cb_results_load(ins[f], &err))) {
            while (f-- > 0)
                json_decref(docs[f]);
            return cb_usage_error("%s", err.msg);
        }
    /* Files from one machine (same host name and CPU) are one machine's results: their cells
     * are read together, so a run split over several files (run.sh runs the languages' runtimes
     * on a grid of their own) gets one set of claims, plots and tables. */
    size_t nf = n;
    json_t *also[64] = {NULL}; /* per machine: the files merged into it after the first */
    n = group_by_machine(docs, ins, nf, also);
    /* Plots go beside the report, in STEM-plots/ (one subdirectory per machine when several);
     * a report on stdout has none. */
    scripts_dir(scripts, sizeof scripts);
    /* The Markdown first, in memory; HTML is made from it (html.c). */
    char *mdtext = NULL;
    size_t mdlen = 0;
    FILE *out = open_memstream(&mdtext, &mdlen);
    if (!out) {
        fprintf(stderr, "corobench: report: cannot open a memory stream: %s\n", strerror(errno));
        abort();
    }
    fprintf(out, "# corobench report\n\n");
    if (n > 1)
        side_by_side(out, docs, ins, n);
    for (size_t f = 0; f < n; f++) {
        json_t *plots = NULL;
        char rel[1200] = "";
        char label[16];
        cb_machine_label(f, label, sizeof label);
        if (n > 1)
            fprintf(out, "\n# Machine %s\n\n", label);
        machine_line(out, ins[f], docs[f]);
        json_t *a;
        size_t k;
        json_array_foreach(also[f], k, a)
        {
            fprintf(out, "- also: ");
            cb_md_code(out, json_string_value(a));
            fprintf(out, "\n");
        }
        if (out_path && plots_on) {
            snprintf(rel, sizeof rel, "%s-plots", stem);
            snprintf(pdir, sizeof pdir, "%s/%s", dir, rel);
            cb_mkdirs(pdir, 1, NULL); /* failing, each plot says why it is skipped */
            if (n > 1) {
                snprintf(rel + strlen(rel), sizeof rel - strlen(rel), "/%s", label);
                snprintf(pdir, sizeof pdir, "%s/%s", dir, rel);
            }
            plots = cb_plots_draw(docs[f], ins[f], pdir, scripts);
        }
        json_t *vdoc = claims_view(docs[f]), *vplots = claims_view(plots);
        cb_claims_section(out, vdoc, vplots, plots ? rel : NULL);
        json_decref(vdoc);
        json_decref(vplots);
        if (plots)
            plots_section(out, plots, rel);
        tables_and_failures(out, docs[f]);
        json_decref(plots);
    }
    fclose(out);
    /* The Markdown with every line within 120 columns (mdfit.h); the HTML from the lines as
     * written, whose tables a browser lays out and sorts whole (split, they would sort apart). */
    if (html) {
        cb_html_from_md(cb_out_stream(&o), mdtext, out_path ? dir : "");
    } else {
        char *fit = cb_md_fit(mdtext, CB_REPORT_WIDTH);
        fputs(fit, cb_out_stream(&o));
        free(fit);
    }
    free(mdtext);
    rc = cb_out_commit(&o) ? CB_EXIT_CELLS_FAILED : 0;
    for (size_t f = 0; f < n; f++) {
        json_decref(docs[f]);
        json_decref(also[f]);
    }
    return rc;
}
