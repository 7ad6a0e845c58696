/* `corobench report`: a Markdown report derived from a results document: where it was measured,
 * then one table per workload with a row per parameter point and a column per implementation
 * (median ns per op, and the ratio to the fastest cell of the row), then every cell that did not
 * run, with its reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static void column_key(json_t *cell, char *buf, size_t len)
{
    const char *variant = json_string_value(json_object_get(cell, "variant"));
    json_t *p = json_object_get(cell, "params");
    json_t *stack = json_object_get(p, "stack"), *mode = json_object_get(p, "stack_mode");
    size_t n = (size_t)snprintf(buf, len, "%s", json_string_value(json_object_get(cell, "impl")));
    if (variant && strcmp(variant, "plain"))
        n += (size_t)snprintf(buf + n, len - n, " (%s)", variant);
    if (stack && json_integer_value(stack) != CB_CO_DEFAULT_STACK)
        n += (size_t)snprintf(buf + n, len - n, " stack=%lld", (long long)json_integer_value(stack));
    if (mode && strcmp(json_string_value(mode), "auto"))
        snprintf(buf + n, len - n, " %s", json_string_value(mode));
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

static void workload_table(FILE *out, json_t *cells, const char *wl)
{
    json_t *rows = json_array(), *cols = json_array(), *c;
    size_t i;
    char key[512];
    json_array_foreach(cells, i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "workload")), wl))
            continue;
        cb_cell_params_text(c, 0, key, sizeof key);
        intern(rows, key);
        column_key(c, key, sizeof key);
        intern(cols, key);
    }
    size_t nr = json_array_size(rows), nc = json_array_size(cols);
    double *med = calloc(nr * nc, sizeof *med);
    const char *unit = "op";
    json_array_foreach(cells, i, c)
    {
        const char *st = json_string_value(json_object_get(c, "status"));
        if (strcmp(json_string_value(json_object_get(c, "workload")), wl) || strcmp(st, "ok"))
            continue;
        unit = json_string_value(json_object_get(c, "unit"));
        cb_cell_params_text(c, 0, key, sizeof key);
        size_t r = intern(rows, key);
        column_key(c, key, sizeof key);
        med[r * nc + intern(cols, key)] =
            json_real_value(json_object_get(json_object_get(c, "ns_per_op"), "median"));
    }
    fprintf(out, "\n## %s (median ns per %s; x = times the fastest in the row)\n\n| point |", wl,
            unit);
    for (size_t k = 0; k < nc; k++)
        fprintf(out, " %s |", json_string_value(json_array_get(cols, k)));
    fprintf(out, "\n|---|");
    for (size_t k = 0; k < nc; k++)
        fprintf(out, "---:|");
    fprintf(out, "\n");
    for (size_t r = 0; r < nr; r++) {
        double best = 0;
        for (size_t k = 0; k < nc; k++)
            if (med[r * nc + k] > 0 && (best == 0 || med[r * nc + k] < best))
                best = med[r * nc + k];
        fprintf(out, "| %s |", json_string_value(json_array_get(rows, r)));
        for (size_t k = 0; k < nc; k++) {
            double m = med[r * nc + k];
            if (m > 0)
                fprintf(out, " %.2f (%.1fx) |", m, m / best);
            else
                fprintf(out, " - |");
        }
        fprintf(out, "\n");
    }
    free(med);
    json_decref(rows);
    json_decref(cols);
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
    json_array_foreach(wls, i, v) workload_table(out, cells, json_string_value(v));
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
