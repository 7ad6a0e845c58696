/* `corobench export`: turns a results document into gnuplot data, one block per series.
 * A series is the cells of one (impl, variant) that match --where; x is a numeric parameter, y
 * the median ns per op with the MAD, min and max. Blocks are separated by two blank lines
 * (gnuplot's `index`), each led by a comment naming it, so plots/ scripts can iterate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

typedef struct where {
    char *name, *value;
} where;

/* A cell matches when every NAME=VALUE in --where equals its parameter (or field). */
static int matches(json_t *cell, const where *w, size_t nw)
{
    json_t *params = json_object_get(cell, "params");
    for (size_t i = 0; i < nw; i++) {
        json_t *v = json_object_get(params, w[i].name);
        if (!v)
            v = json_object_get(cell, w[i].name);
        char buf[64];
        const char *text = json_is_string(v) ? json_string_value(v) : NULL;
        if (json_is_integer(v)) {
            snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
            text = buf;
        }
        if (!text || strcmp(text, w[i].value))
            return 0;
    }
    return 1;
}

static const char *series_name(json_t *cell, char *buf, size_t len)
{
    const char *variant = json_string_value(json_object_get(cell, "variant"));
    snprintf(buf, len, "%s%s%s", json_string_value(json_object_get(cell, "impl")),
             variant && strcmp(variant, "plain") ? "-" : "",
             variant && strcmp(variant, "plain") ? variant : "");
    return buf;
}

int cb_cmd_export(int argc, char **argv)
{
    const char *in = NULL, *out_path = NULL, *workload = NULL, *x = NULL;
    where w[16];
    size_t nw = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "--workload") && has)
            workload = argv[++i];
        else if (!strcmp(a, "--x") && has)
            x = argv[++i];
        else if (!strcmp(a, "-o") && has)
            out_path = argv[++i];
        else if (!strcmp(a, "--where") && has) {
            char *eq = strchr(argv[++i], '=');
            if (!eq || nw == sizeof w / sizeof w[0])
                return cb_usage_error("invalid --where '%s' (valid: NAME=VALUE, at most 16)",
                                      argv[i]);
            w[nw].name = strndup(argv[i], (size_t)(eq - argv[i]));
            w[nw++].value = eq + 1;
        } else if (a[0] != '-' && !in)
            in = a;
        else
            return cb_usage_error("unexpected argument '%s' for export (valid: RESULTS.json "
                                  "--workload NAME --x PARAM [--where NAME=VALUE]... [-o FILE])",
                                  a);
    }
    if (!in || !workload || !x)
        return cb_usage_error("export needs RESULTS.json, --workload and --x (valid: "
                              "corobench export RESULTS.json --workload pingpong --x depth)");
    json_t *doc = cb_results_load(in);
    if (!doc)
        return CB_EXIT_USAGE;

    char tmp[4096];
    FILE *out = cb_output_open(out_path, tmp, sizeof tmp);
    if (!out)
        return CB_EXIT_CELLS_FAILED;
    json_t *cells = json_object_get(doc, "cells"), *done = json_object(), *c;
    size_t i, blocks = 0;
    const char *unit = cb_results_unit(cells, workload);
    fprintf(out, "# corobench export of %s: workload %s, x = %s, y = ns per %s (median)\n", in,
            workload, x, unit);
    json_array_foreach(cells, i, c)
    {
        char name[128];
        const char *st = json_string_value(json_object_get(c, "status"));
        if (strcmp(json_string_value(json_object_get(c, "workload")), workload) || !st ||
            strcmp(st, "ok") || !matches(c, w, nw) ||
            !json_is_integer(json_object_get(json_object_get(c, "params"), x)))
            continue;
        series_name(c, name, sizeof name);
        if (json_object_get(done, name))
            continue;
        json_object_set_new(done, name, json_true());
        fprintf(out, "%s# %s\n\"%s\"\n# %s median_ns mad_ns min_ns max_ns\n", blocks ? "\n\n" : "",
                name, name, x);
        blocks++;
        size_t j;
        json_t *d;
        json_array_foreach(cells, j, d)
        {
            char dn[128];
            const char *ds = json_string_value(json_object_get(d, "status"));
            if (j < i || strcmp(series_name(d, dn, sizeof dn), name) ||
                strcmp(json_string_value(json_object_get(d, "workload")), workload) || !ds ||
                strcmp(ds, "ok") || !matches(d, w, nw))
                continue;
            json_t *xv = json_object_get(json_object_get(d, "params"), x);
            json_t *ns = json_object_get(d, "ns_per_op");
            if (!json_is_integer(xv))
                continue;
            fprintf(out, "%lld %.4f %.4f %.4f %.4f\n", (long long)json_integer_value(xv),
                    json_real_value(json_object_get(ns, "median")),
                    json_real_value(json_object_get(ns, "mad")),
                    json_real_value(json_object_get(ns, "min")),
                    json_real_value(json_object_get(ns, "max")));
        }
    }
    json_decref(done);
    json_decref(doc);
    if (cb_output_commit(out, out_path, tmp) != 0)
        return CB_EXIT_CELLS_FAILED;
    if (!blocks)
        fprintf(stderr, "corobench: export: no ok %s cells with an integer parameter '%s'\n",
                workload, x);
    return 0;
}
