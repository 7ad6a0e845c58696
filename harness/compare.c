/* `corobench compare BASE.json NEW.json`: the same cells of two results documents side by side,
 * for a CI pipeline that tracks a runtime or a machine over time. A cell is the same when impl,
 * variant, workload and every parameter agree. A change counts only when the medians differ by
 * more than --threshold percent AND by more than three times the two MADs together, so noise
 * the repetitions already showed is not reported as a change. Exit 1 when a cell got slower
 * or did different work (another checksum or suspension count), 0 otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static void cell_key(json_t *c, char *buf, size_t len)
{
    char params[512];
    cb_cell_params_text(c, 1, params, sizeof params);
    snprintf(buf, len, "%s %s %s/%s", json_string_value(json_object_get(c, "workload")), params,
             json_string_value(json_object_get(c, "impl")),
             json_string_value(json_object_get(c, "variant")));
}

static json_t *index_cells(json_t *doc)
{
    json_t *idx = json_object(), *c;
    size_t i;
    char key[768];
    json_array_foreach(json_object_get(doc, "cells"), i, c)
    {
        cell_key(c, key, sizeof key);
        json_object_set(idx, key, c);
    }
    return idx;
}

static double stat(json_t *c, const char *name)
{
    return json_real_value(json_object_get(json_object_get(c, "ns_per_op"), name));
}

int cb_cmd_compare(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL};
    double threshold = 5;
    size_t nf = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threshold") && i + 1 < argc) {
            char *end;
            threshold = strtod(argv[++i], &end);
            if (*end || !(threshold >= 0) || !isfinite(threshold))
                return cb_usage_error("invalid value '%s' for --threshold (valid: a percentage "
                                      ">= 0)",
                                      argv[i]);
        } else if (argv[i][0] != '-' && nf < 2) {
            files[nf++] = argv[i];
        } else {
            return cb_usage_error("unexpected argument '%s' for compare (valid: BASE.json "
                                  "NEW.json [--threshold PERCENT])",
                                  argv[i]);
        }
    }
    if (nf != 2)
        return cb_usage_error("compare needs two results files (valid: corobench compare "
                              "BASE.json NEW.json [--threshold PERCENT])");
    json_t *base = cb_results_load(files[0]);
    if (!base)
        return CB_EXIT_USAGE;
    json_t *new = cb_results_load(files[1]);
    if (!new) {
        json_decref(base);
        return CB_EXIT_USAGE;
    }
    json_t *bidx = index_cells(base), *nidx = index_cells(new), *bc, *nc;
    const char *key;
    size_t slower = 0, faster = 0, same = 0, different = 0, unmatched = 0;
    printf("%-60s %12s %12s %8s  %s\n", "cell", "base ns/op", "new ns/op", "new/base", "verdict");
    json_object_foreach(nidx, key, nc)
    {
        bc = json_object_get(bidx, key);
        const char *bs = bc ? json_string_value(json_object_get(bc, "status")) : NULL;
        const char *ns = json_string_value(json_object_get(nc, "status"));
        if (!bc || strcmp(bs, "ok") || strcmp(ns, "ok")) {
            printf("%-60s %12s %12s %8s  %s\n", key, "-", "-", "-",
                   !bc ? "only in new" : strcmp(bs, "ok") ? "base did not run" : "new did not run");
            unmatched++;
            continue;
        }
        if (!json_equal(json_object_get(bc, "checksum"), json_object_get(nc, "checksum")) ||
            !json_equal(json_object_get(bc, "suspensions"), json_object_get(nc, "suspensions"))) {
            printf("%-60s %12s %12s %8s  %s\n", key, "-", "-", "-",
                   "DIFFERENT WORK (checksum or suspensions)");
            different++;
            continue;
        }
        double b = stat(bc, "median"), n = stat(nc, "median");
        double noise = 3 * (stat(bc, "mad") + stat(nc, "mad"));
        double delta = n - b;
        const char *verdict = "same";
        if (fabs(delta) > b * threshold / 100 && fabs(delta) > noise)
            verdict = delta > 0 ? "SLOWER" : "faster";
        slower += verdict[0] == 'S';
        faster += verdict[0] == 'f';
        same += verdict[0] == 's';
        printf("%-60s %12.2f %12.2f %8.3f  %s\n", key, b, n, n / b, verdict);
    }
    json_object_foreach(bidx, key, bc)
    {
        if (!json_object_get(nidx, key)) {
            printf("%-60s %12s %12s %8s  %s\n", key, "-", "-", "-", "only in base");
            unmatched++;
        }
    }
    fprintf(stderr,
            "corobench: compare: %zu slower, %zu faster, %zu same (threshold %g%% and 3 MADs), "
            "%zu did different work, %zu unmatched\n",
            slower, faster, same, threshold, different, unmatched);
    json_decref(bidx);
    json_decref(nidx);
    json_decref(base);
    json_decref(new);
    return slower || different ? CB_EXIT_CELLS_FAILED : CB_EXIT_OK;
}
