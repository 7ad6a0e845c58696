/* Claim 10 of the report (models, docs/report.md): neither model wins everywhere. At every workload
 * point (of one file: the one whose figures the point takes, harness/report/pick.h), the fastest
 * plain cell of each family; a family wins a point when the ratio's interval lies beyond DIFF its
 * way and Mann-Whitney's p on the repetitions, Holm-corrected over all the points, is under ALPHA.
 * Supported when each family wins somewhere; contradicted when only one does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

static void eval(const ctx *c, claim *o)
{
    xpoint *x;
    json_t *points;
    size_t n = cq_crossover_points(c, &x, &points);
    if (!n) {
        cq_not_measured(o, "points with both a stackful and a stackless cell");
        goto out;
    }
    size_t wins[2] = {0, 0}, open = 0;
    /* your runtimes (plugins, external programs) at the point, each over corobench's fastest of
     * its family in the point's file, as the Summary's rows of them */
    json_t *yours = cq_yours_by_point(c);
    size_t nyours = json_object_size(yours);
    cb_append(o->table, sizeof o->table,
              "| workload | point | file | fastest stackful | fastest stackless | stackful / "
              "stackless [95%%] | p (Holm) | winner |%s\n|---|---|---|---|---|---:|---:|---|%s\n",
              nyours ? " yours / corobench's [95%] |" : "", nyours ? "---|" : "");
    for (size_t k = 0; k < n; k++) {
        int w = x[k].winner;
        if (w >= 0)
            wins[w]++;
        else
            open++;
        char rt[128] = "", f[2][32];
        cq_ratio_text(rt, sizeof rt, x[k].r, NULL, NULL);
        cb_append(o->table, sizeof o->table,
                  "| %s | %ld | %s %s ns | %s %s ns | %s | %.2g | %s |", x[k].key,
                  cq_file_of(x[k].sf) + 1, cb_str(x[k].sf, "impl"),
                  cq_ns_fig(cq_median(x[k].sf), f[0]), cb_str(x[k].sl, "impl"),
                  cq_ns_fig(cq_median(x[k].sl), f[1]), rt, x[k].p, cq_winner_name(w));
        if (nyours)
            cb_append(o->table, sizeof o->table, " %s |",
                      cb_str(yours, x[k].key) ? cb_str(yours, x[k].key) : "-");
        cb_append(o->table, sizeof o->table, "\n");
    }
    json_decref(yours);
    cb_append(o->text, sizeof o->text,
              "Over %zu workload points (plain builds, the fastest implementation of each family, "
              "both from one file): stackful wins %zu, stackless wins %zu, %zu undecided (a win: "
              "the ratio's interval beyond %.0f%% and Holm-corrected p < %.2g; table below).",
              n, wins[0], wins[1], open, 100 * DIFF, ALPHA);
    o->v = wins[0] && wins[1]     ? CB_SUPPORTED
           : (wins[0] || wins[1]) ? CB_CONTRADICTED
                                  : CB_INCONCLUSIVE;
out:
    free(x);
    json_decref(points);
}

static const cq_claim row = {
    .number = 10,
    .id = "models",
    .sentence = "Neither model wins everywhere.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"pingpong-depth-distinct", "recursive", "io"},
    .command = {},
};
CQ_CLAIM(row);
