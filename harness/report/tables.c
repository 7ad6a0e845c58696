/* The report's tables of one machine's cells (tables.h): the workload at a glance, the appendix
 * with a table per workload (a row per parameter point, a column per implementation and build
 * variant: median ns per op, plain builds ranked against plain builds, a variant next to its
 * plain twin as a ratio to it), the memory tables, and every cell that did not run. */
#include "tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"
#include "harness/results/cell.h"
#include "harness/results/estimate.h"
#include "harness/results/fields.h"
#include "harness/common/untrusted.h"
#include "impls/impls.h"
#include "claims.h"
#include "pick.h"

/* The column of a cell: impl, its variant unless plain (or as_plain: the plain twin's column),
 * implementation parameters off their defaults ("asm stack=16384"). */
static void column_key(json_t *cell, int as_plain, char *buf, size_t len)
{
    const char *variant = as_plain ? NULL : json_string_value(json_object_get(cell, "variant"));
    char own[256];
    cb_cell_impl_params_text(cell, own, sizeof own);
    size_t n = (size_t)snprintf(buf, len, "%s%s%s", json_string_value(json_object_get(cell, "impl")),
                                *own ? " " : "", own);
    if (variant && strcmp(variant, "plain") && n < len)
        snprintf(buf + n, len - n, " (%s)", variant);
}

cb_report_names cb_report_names_new(void)
{
    return (cb_report_names){json_array(), json_object()};
}

void cb_report_names_free(cb_report_names *n)
{
    json_decref(n->arr);
    json_decref(n->idx);
}

size_t cb_report_intern(cb_report_names *n, const char *s)
{
    json_t *at = json_object_get(n->idx, s);
    if (at)
        return (size_t)json_integer_value(at);
    size_t i = json_array_size(n->arr);
    json_array_append_new(n->arr, json_stringn_nocheck(s, strlen(s)));
    json_object_set_new_nocheck(n->idx, s, json_integer((json_int_t)i));
    return i;
}

static const char *name_at(const cb_report_names *n, size_t i)
{
    return json_string_value(json_array_get(n->arr, i));
}

/* What the tables of one workload know of all its cells, computed once per table rather than
 * once per cell: the baselines by point, the flag letters worth showing. */
typedef struct table_ctx {
    json_t *doc;    /* the document: which file each point's figures come from (pick.h) */
    json_t *direct; /* cb_cell_direct_index */
    char keep[8];   /* cb_cell_flags_telling */
} table_ctx;

/* What a table shows of one ok cell: a number (for the ratio to the row's best, when the
 * table has ratios) and its text; 0 when the cell has nothing for this table. */
typedef int (*cell_value)(const table_ctx *t, json_t *cell, double *v, char *text, size_t len);


/* Three significant figures (results/cell.h's cb_fig: 7.29, 43.8, 175, 18924). */
static void num3(double v, char *buf, size_t len) { cb_fig(v, CB_FIG_SIG3, buf, len); }

const char *cb_report_fig(double v, char *buf) { return cb_fig(v, 2, buf, 32); }

/* The median, its overhead over the direct cell of the same point ("+d" ns per op: the price of
 * the model itself) where the results have one, and the flags that make it doubtful. */
static int timing_value(const table_ctx *t, json_t *c, double *v, char *text, size_t len)
{
    json_t *ns = json_object_get(c, "ns_per_op");
    if (!ns) /* a document of deterministic fields only */
        return 0;
    *v = json_real_value(json_object_get(ns, "median"));
    double direct = cb_cell_direct_ns(t->direct, c);
    /* only the letters that mark at most half of the cells (results/cell.h) */
    char flags[16];
    cb_cell_flags_kept(c, t->keep, flags, sizeof flags);
    char f[32];
    size_t n = (size_t)snprintf(text, len, "%s", cb_report_fig(*v, f));
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
                              cb_report_fig(*v - direct, f));
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
static int memory_value(const table_ctx *t, json_t *c, double *v, char *text, size_t len)
{
    (void)t;
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

/* " (file N)" into buf for a cell that is not from the file its point's figures come from (an
 * implementation or variant only another file measured there: pick.h), "" otherwise. */
static const char *other_file(const table_ctx *t, json_t *c, char *buf, size_t len)
{
    long f = cb_pick_file_of(c);
    buf[0] = '\0';
    if (f != cb_pick_point_file(t->doc, c))
        snprintf(buf, len, " (file %ld)", f + 1);
    return buf;
}

/* One table: a row per parameter point, a column per implementation (and variant). Returns 0
 * without printing when no cell of the workload has a value for it. unit_rows: each point says
 * its unit ("per round trip"), for a workload whose points differ in it. A cell from another
 * file than its row's others says which (other_file), and a line under the table says why. */
static int grid_table(FILE *out, json_t *cells, const table_ctx *t, const char *wl,
                      const char *title, cell_value value, int ratios, int unit_rows)
{
    typedef struct entry {
        size_t row, col, twin; /* twin: the plain twin's column (col itself when plain) */
        double num;
        json_t *cell;
        char text[128];
    } entry;
    cb_report_names rows = cb_report_names_new(), cols = cb_report_names_new();
    json_t *c;
    entry *e = cb_xcalloc(json_array_size(cells) + 1, sizeof *e);
    size_t i, n = 0, others = 0;
    char key[512];
    json_array_foreach(cells, i, c)
    {
        const char *st = json_string_value(json_object_get(c, "status"));
        if (strcmp(json_string_value(json_object_get(c, "workload")), wl) || strcmp(st, "ok") ||
            !value(t, c, &e[n].num, e[n].text, sizeof e[n].text))
            continue;
        e[n].cell = c;
        char of[32];
        if (*other_file(t, c, of, sizeof of)) {
            cb_append(e[n].text, sizeof e[n].text, "%s", of);
            others++;
        }
        cb_cell_params_text(c, 0, key, sizeof key);
        if (unit_rows)
            cb_append(key, sizeof key, " (per %s)", cb_str(c, "unit") ?: "op");
        e[n].row = cb_report_intern(&rows, key);
        column_key(c, 0, key, sizeof key);
        e[n].col = cb_report_intern(&cols, key);
        column_key(c, 1, key, sizeof key);
        e[n++].twin = cb_report_intern(&cols, key);
    }
    size_t nr = json_array_size(rows.arr), nc = json_array_size(cols.arr);
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
            fprintf(out, " %s |", name_at(&cols, k));
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
        fprintf(out, "| %s |", name_at(&rows, r));
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
    if (others)
        fprintf(out, "\n(file N): the only measurement of that cell at its point, from file N; the "
                     "row's other figures are from the file its point takes (\"one figure per "
                     "point\" above), and a ratio between the two compares two runs.\n");
    free(at);
    free(e);
    cb_report_names_free(&rows);
    cb_report_names_free(&cols);
    return nr > 0;
}

static void workload_tables(FILE *out, json_t *doc, json_t *cells, const char *wl)
{
    const char *unit = cb_results_unit(cells, wl);
    char title[512];
    snprintf(title, sizeof title,
             "(ns per %s: the median of the invocations' medians, ± half its 95%% interval; "
             "[+d] = ns over direct, no coroutine; x = times the fastest plain build in the row; "
             "a variant: times its plain twin; each ratio with its own 95%% interval)",
             unit ? unit : "op, the unit each point names");
    table_ctx t = {.doc = doc, .direct = cb_cell_direct_index(cells)};
    char note[256];
    cb_cell_flags_telling(cells, t.keep, sizeof t.keep, note, sizeof note);
    if (grid_table(out, cells, &t, wl, title, timing_value, 1, !unit))
        fprintf(out, "\n%s.%s%s%s\n", cb_cell_flags_legend, note[0] ? " " : "", note,
                note[0] ? "." : "");
    grid_table(out, cells, &t, wl,
               "memory (bytes per coroutine at rest: touched stack / runtime heap / RSS / page "
               "tables / kernel; - = not measured, see null_reasons)",
               memory_value, 0, 0);
    json_decref(t.direct);
    /* The cells that ran on the scheduler: its figures, a line each (their `sched` object). */
    json_t *c;
    size_t i, n = 0;
    json_array_foreach(cells, i, c)
    {
        if (strcmp(cb_str(c, "workload"), wl) || !json_is_object(json_object_get(c, "sched")))
            continue;
        if (!n++)
            fprintf(out, "\nOn the scheduler (the kept repetitions' runs of each cell's first "
                         "invocation; docs/sched.md, \"What a cell records\"):\n\n");
        char params[512], text[640];
        cb_cell_params_text(c, 1, params, sizeof params);
        cb_cell_sched_text(json_object_get(c, "sched"), cb_str(c, "unit"), text, sizeof text);
        fprintf(out, "- %s %s: %s\n", cb_str(c, "impl"), params, text);
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
 * and their ratio with its interval; every implementation is in the appendix's table. The two
 * cells are the Summary's and claim 10's (pick.h's cb_pick_fastest: from the file whose figures
 * the point takes), fastest given as the pick's map. */
static void glance_table(FILE *out, json_t *cells, json_t *fastest, json_t *yours,
                         const char *wl)
{
    /* One pass over the cells: each plain ok timed cell of the workload to its row, and the row's
     * baseline kept as it goes (a pass per row was quadratic). */
    typedef struct glance_row {
        json_t *best[2], *direct;
        const char *yours; /* the user's runtimes there (claims.h: cb_claims_yours), or NULL */
    } glance_row;
    int any_yours = 0;
    cb_report_names rows = cb_report_names_new();
    json_t *c;
    size_t i, cap = 0;
    glance_row *g = NULL;
    char key[512], pk[640];
    json_array_foreach(cells, i, c)
    {
        if (strcmp(cb_str(c, "workload"), wl) || !cb_cell_ok(c) ||
            strcmp(cb_str(c, "variant"), "plain") || !json_object_get(c, "ns_per_op"))
            continue;
        cb_cell_params_text(c, 0, key, sizeof key);
        size_t r = cb_report_intern(&rows, key);
        if (r >= cap) {
            size_t was = cap;
            cap = cap ? 2 * cap : 16;
            g = cb_xrealloc(g, cap * sizeof *g);
            memset(g + was, 0, (cap - was) * sizeof *g);
        }
        const char *im = cb_str(c, "impl"); /* direct's (omp is a baseline on W threads) */
        if (!strcmp(im ? im : "", cb_impl_name(CB_IMPL_DIRECT)))
            g[r].direct = c; /* the last in the file's order, as the pass per row kept */
        cb_pick_point_key(c, pk, sizeof pk);
        json_t *two = json_object_get(fastest, pk), *b;
        for (int f = 0; f < 2; f++)
            g[r].best[f] = json_is_null(b = json_array_get(two, (size_t)f)) ? NULL : b;
        g[r].yours = cb_str(yours, pk);
        any_yours |= g[r].yours != NULL;
    }
    size_t nr = json_array_size(rows.arr);
    if (!nr) {
        cb_report_names_free(&rows);
        free(g);
        return;
    }
    /* How many rows hold each parameter (a token "name=value"): one that not every row holds
     * differs between them, and is shown. */
    json_t *held = json_object();
    for (size_t r = 0; r < nr; r++) {
        char tmp[512], *save = NULL;
        snprintf(tmp, sizeof tmp, "%s", name_at(&rows, r));
        json_t *seen = json_object(); /* a token twice in one row counts once */
        for (char *tok = strtok_r(tmp, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
            if (json_object_get(seen, tok))
                continue;
            json_object_set_new_nocheck(seen, tok, json_true());
            json_t *k = json_object_get(held, tok);
            json_object_set_new_nocheck(held, tok,
                                        json_integer(k ? json_integer_value(k) + 1 : 1));
        }
        json_decref(seen);
    }
    const char *unit = cb_results_unit(cells, wl);
    /* the parameters every row holds: said once, above the rows that show the rest */
    char fixed[512] = "", first[512], *fsave = NULL;
    snprintf(first, sizeof first, "%s", name_at(&rows, 0));
    for (char *tok = strtok_r(first, " ", &fsave); nr > 1 && tok; tok = strtok_r(NULL, " ", &fsave))
        if ((size_t)json_integer_value(json_object_get(held, tok)) >= nr)
            cb_append(fixed, sizeof fixed, "%s%s", *fixed ? " " : "", tok);
    fprintf(out, "\n## %s at a glance\n\nns per %s;%s%s%s ±: half the 95%% interval, [lo, hi] "
                 "where lopsided; direct: its median; the fastest of each family as in the "
                 "Summary, both from the file whose figures the point takes%s.\n\n| point | "
                 "direct | fastest stackful | fastest stackless | stackful / stackless [95%%] |%s"
                 "\n|---|---:|---:|---:|---:|%s\n",
            wl, unit ? unit : "op, as each point says", *fixed ? " every point at " : "", fixed,
            *fixed ? ";" : "",
            any_yours ? "; yours: each of your runtimes (plugins, external programs) over "
                        "corobench's fastest of its family there, as in the Summary"
                      : "",
            any_yours ? " yours / corobench's [95%] |" : "", any_yours ? "---|" : "");
    for (size_t r = 0; r < nr; r++) {
        const char *k = name_at(&rows, r);
        json_t **best = g[r].best, *direct = g[r].direct;
        /* the parameters that differ between the rows */
        char vary[256] = "", *save = NULL, tmp[512];
        snprintf(tmp, sizeof tmp, "%s", k);
        for (char *tok = strtok_r(tmp, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
            if ((size_t)json_integer_value(json_object_get(held, tok)) < nr)
                cb_append(vary, sizeof vary, "%s%s", *vary ? " " : "", tok);
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
            if (e.ok) /* as the Summary and claim 10 write it */
                snprintf(ratio, sizeof ratio, "%.2fx [%.2f, %.2f]", e.est, e.lo, e.hi);
            else
                snprintf(ratio, sizeof ratio, "%.2fx", e.est);
        }
        /* a workload whose points differ in their unit: each row names its own */
        json_t *any = best[0] ? best[0] : best[1] ? best[1] : direct;
        char pt[400];
        /* a point is its parameters: those that vary, or all of a workload's one point */
        snprintf(pt, sizeof pt, "%s", *vary ? vary : *k ? k : "(no parameters)");
        if (!unit && any && cb_str(any, "unit"))
            cb_append(pt, sizeof pt, " /%s", cb_str(any, "unit"));
        fprintf(out, "| %s | %s | %s | %s | %s |", pt, d, b[0], b[1], ratio);
        if (any_yours)
            fprintf(out, " %s |", g[r].yours ? g[r].yours : "-");
        fputs("\n", out);
    }
    json_decref(held);
    free(g);
    cb_report_names_free(&rows);
}

void cb_report_tables(FILE *out, json_t *doc)
{
    json_t *cells = json_object_get(doc, "cells"), *c, *v;
    cb_report_names wl_names = cb_report_names_new();
    json_t *wls = wl_names.arr;
    size_t i;
    json_array_foreach(cells, i, c) cb_report_intern(&wl_names, cb_str(c, "workload"));
    json_t *fastest = cb_pick_fastest(doc), *yours = cb_claims_yours(doc);
    json_array_foreach(wls, i, v) glance_table(out, cells, fastest, yours, json_string_value(v));
    json_decref(fastest);
    json_decref(yours);
    fprintf(out, "\n## Appendix: every implementation\n\nA table per workload with a column per "
                 "implementation and build variant (one too wide for 120 columns goes on as tables "
                 "of the same rows; every field of every cell: `corobench export R.json --format "
                 "csv`).\n");
    json_array_foreach(wls, i, v) workload_tables(out, doc, cells, json_string_value(v));
    cb_report_names_free(&wl_names);
    /* The cells that did not run, a row per reason (status and error) with its cells listed:
     * one three-line reason was repeated for each of 26 cells (issue 32, item 8). */
    cb_report_names reasons = cb_report_names_new();
    json_t *by_reason = json_array();
    json_array_foreach(cells, i, c)
    {
        const char *st = cb_str(c, "status");
        if (!strcmp(st, "ok"))
            continue;
        char reason[4096];
        snprintf(reason, sizeof reason, "%s\x1f%s", st, cb_str(c, "error") ?: "");
        size_t r = cb_report_intern(&reasons, reason);
        if (r == json_array_size(by_reason))
            json_array_append_new(by_reason, json_array());
        json_array_append(json_array_get(by_reason, r), c);
    }
    if (json_array_size(by_reason))
        fprintf(out, "\n## Cells that did not run\n\n| status | reason | cells |\n"
                     "|---|---|---|\n");
    json_t *list;
    json_array_foreach(by_reason, i, list)
    {
        json_t *first = json_array_get(list, 0);
        fprintf(out, "| %s | ", cb_str(first, "status"));
        cb_esc_md(out, cb_str(first, "error") ?: "");
        fprintf(out, " | %zu: ", json_array_size(list));
        size_t k;
        json_array_foreach(list, k, c)
        {
            char key[512], cell[800];
            cb_cell_params_text(c, 0, key, sizeof key);
            snprintf(cell, sizeof cell, "%s%s %s%s%s", k ? "; " : "", cb_str(c, "workload"),
                     key, *key ? " " : "", cb_str(c, "impl"));
            cb_esc_md(out, cell);
        }
        fputs(" |\n", out);
    }
    json_decref(by_reason);
    cb_report_names_free(&reasons);
}
