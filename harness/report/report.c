/* `corobench report`: a Markdown report derived from a results document: where it was measured,
 * then one table per workload with a row per parameter point and a column per implementation
 * (median ns per op, and the ratio to the fastest cell of the row), then every cell that did not
 * run, with its reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "harness/cli.h"
#include "load.h"

static void column_key(json_t *cell, char *buf, size_t len)
{
    const char *variant = json_string_value(json_object_get(cell, "variant"));
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
typedef int (*cell_value)(json_t *cell, double *v, char *text, size_t len);

static int timing_value(json_t *c, double *v, char *text, size_t len)
{
    *v = json_real_value(json_object_get(json_object_get(c, "ns_per_op"), "median"));
    snprintf(text, len, "%.2f", *v);
    return 1;
}

/* Bytes per coroutine at the workload's rest point; identical in every build variant, so only
 * the plain one is shown. */
static int memory_value(json_t *c, double *v, char *text, size_t len)
{
    json_t *m = json_object_get(c, "memory");
    const char *point = json_string_value(json_object_get(m, "point"));
    const char *variant = json_string_value(json_object_get(c, "variant"));
    if (!point || strcmp(point, "rest") || (variant && strcmp(variant, "plain")))
        return 0;
    *v = 0;
    snprintf(text, len, "%.0f / %.0f / %.0f",
             json_real_value(json_object_get(m, "touched_bytes_per_coro")),
             json_real_value(json_object_get(m, "heap_bytes_per_coro")),
             json_real_value(json_object_get(m, "rss_bytes_per_coro")));
    return 1;
}

/* One table: a row per parameter point, a column per implementation (and variant). Returns 0
 * without printing when no cell of the workload has a value for it. */
static int grid_table(FILE *out, json_t *cells, const char *wl, const char *title,
                      cell_value value, int ratios)
{
    typedef struct entry {
        size_t row, col;
        double num;
        char text[128];
    } entry;
    json_t *rows = json_array(), *cols = json_array(), *c;
    entry *e = calloc(json_array_size(cells) + 1, sizeof *e);
    size_t i, n = 0;
    char key[512];
    json_array_foreach(cells, i, c)
    {
        const char *st = json_string_value(json_object_get(c, "status"));
        if (strcmp(json_string_value(json_object_get(c, "workload")), wl) || strcmp(st, "ok") ||
            !value(c, &e[n].num, e[n].text, sizeof e[n].text))
            continue;
        cb_cell_params_text(c, 0, key, sizeof key);
        e[n].row = intern(rows, key);
        column_key(c, key, sizeof key);
        e[n++].col = intern(cols, key);
    }
    size_t nr = json_array_size(rows), nc = json_array_size(cols);
    const entry **at = calloc(nr * nc + 1, sizeof *at); /* the cell at (row, col), if any */
    for (i = 0; i < n; i++)
        at[e[i].row * nc + e[i].col] = &e[i];
    if (nr) {
        fprintf(out, "\n## %s %s\n\n| point |", wl, title);
        for (size_t k = 0; k < nc; k++)
            fprintf(out, " %s |", json_string_value(json_array_get(cols, k)));
        fprintf(out, "\n|---|");
        for (size_t k = 0; k < nc; k++)
            fprintf(out, "---:|");
        fprintf(out, "\n");
    }
    for (size_t r = 0; r < nr; r++) {
        double best = 0;
        for (size_t k = 0; k < nc; k++)
            if (at[r * nc + k] && at[r * nc + k]->num > 0 &&
                (best == 0 || at[r * nc + k]->num < best))
                best = at[r * nc + k]->num;
        fprintf(out, "| %s |", json_string_value(json_array_get(rows, r)));
        for (size_t k = 0; k < nc; k++) {
            const entry *x = at[r * nc + k];
            if (!x)
                fprintf(out, " - |");
            else if (ratios && best > 0)
                fprintf(out, " %s (%.1fx) |", x->text, x->num / best);
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
    char title[128];
    snprintf(title, sizeof title, "(median ns per %s; x = times the fastest in the row)", unit);
    grid_table(out, cells, wl, title, timing_value, 1);
    grid_table(out, cells, wl,
               "memory (bytes per coroutine at rest: touched stack / runtime heap / RSS)",
               memory_value, 0);
}

int cb_cmd_report(int argc, char **argv)
{
    const char *in = NULL, *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out_path = argv[++i];
        else if (argv[i][0] != '-' && !in)
            in = argv[i];
        else
            return cb_usage_error("unexpected argument '%s' for report (valid: RESULTS.json "
                                  "[-o FILE.md])",
                                  argv[i]);
    }
    if (!in)
        return cb_usage_error("report needs RESULTS.json (valid: corobench report RESULTS.json "
                              "[-o FILE.md])");
    json_t *doc = cb_results_load(in);
    if (!doc)
        return CB_EXIT_USAGE;
    char tmp[4096];
    FILE *out = cb_output_open(out_path, tmp, sizeof tmp);
    if (!out)
        return CB_EXIT_CELLS_FAILED;
    json_t *m = json_object_get(doc, "machine"), *b = json_object_get(doc, "build");
    json_t *cells = json_object_get(doc, "cells"), *c, *wls = json_array();
    fprintf(out,
            "# corobench report\n\n- results: `%s` (%s, commit %s)\n- machine: %s, %s, %lld "
            "logical CPUs, kernel %s, clock %s\n- build: %s, `%s`\n",
            in, json_string_value(json_object_get(doc, "created_utc")),
            json_string_value(json_object_get(doc, "git_commit")),
            json_string_value(json_object_get(m, "hostname")),
            json_string_value(json_object_get(m, "cpu_model")),
            (long long)json_integer_value(json_object_get(m, "logical_cpus")),
            json_string_value(json_object_get(m, "kernel")),
            json_string_value(json_object_get(m, "clock")),
            json_string_value(json_object_get(b, "compiler")),
            json_string_value(json_object_get(b, "cflags")));
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(doc, "unavailable"), k, v)
        fprintf(out, "- unavailable: %s: %s\n", k, json_string_value(v));
    size_t i;
    json_array_foreach(cells, i, c) intern(wls, json_string_value(json_object_get(c, "workload")));
    json_array_foreach(wls, i, v) workload_tables(out, cells, json_string_value(v));
    int header = 0;
    json_array_foreach(cells, i, c)
    {
        const char *st = json_string_value(json_object_get(c, "status"));
        if (!strcmp(st, "ok"))
            continue;
        if (!header++)
            fprintf(out, "\n## Cells that did not run\n\n| workload | point | impl | status | "
                         "error |\n|---|---|---|---|---|\n");
        char key[512];
        cb_cell_params_text(c, 0, key, sizeof key);
        fprintf(out, "| %s | %s | %s | %s | %s |\n",
                json_string_value(json_object_get(c, "workload")), key,
                json_string_value(json_object_get(c, "impl")), st,
                json_string_value(json_object_get(c, "error")));
    }
    json_decref(wls);
    json_decref(doc);
    return cb_output_commit(out, out_path, tmp) ? CB_EXIT_CELLS_FAILED : 0;
}
