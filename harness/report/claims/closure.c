/* Claim 6 of the report (closure, docs/report.md): closure frames pay a heap allocation per async
 * call: closure's heap allocations per switch over sm's, per level of depth (least squares), at
 * least M.allocs_min supports, below M.allocs_contra contradicts. The time they cost is reported
 * with its interval. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 6). */
static const struct {
    double allocs_min, allocs_contra;
} M = {.allocs_min = 0.9, .allocs_contra = 0.5};

static void eval(const ctx *c, claim *o)
{
    const char *const im[] = {cb_impl_name(CB_IMPL_CLOSURE), cb_impl_name(CB_IMPL_SM)};
    long d[MAXPTS];
    size_t n = cq_common(c, cb_wl_pingpong.name, im, NULL, 2, DISTINCT " alloc!=pool", "depth", d);
    double yc[MAXPTS], ys[MAXPTS], ya[MAXPTS];
    int counted = 1;
    for (size_t i = 0; i < n; i++) {
        json_t *cl = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_CLOSURE), "plain",
                              DISTINCT " alloc!=pool depth=%ld", d[i]),
               *sm = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_SM), "plain",
                              DISTINCT " depth=%ld", d[i]);
        yc[i] = cq_median(cl);
        ys[i] = cq_median(sm);
        ya[i] =
            (cq_num(cl, "memory.totals.heap_allocs") - cq_num(sm, "memory.totals.heap_allocs")) /
            cq_num(cl, "ops");
        counted &= isfinite(ya[i]);
    }
    if (n < 2 || !counted) {
        cq_not_measured(o, n < 2 ? "closure and sm pingpong cells at two or more depths"
                                 : "heap allocation counts in the closure and sm pingpong cells");
        return;
    }
    long D = d[n - 1];
    json_t *cl = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_CLOSURE), "plain",
                          DISTINCT " alloc!=pool depth=%ld", D),
           *sm = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_SM), "plain",
                          DISTINCT " depth=%ld", D);
    iv t = cq_ratio_iv(cl, sm);
    double allocs = cq_slope(d, ya, n);
    cb_append(o->text, sizeof o->text,
              "pingpong, distinct sites, depth %ld..%ld: closure makes %.2f more heap allocations "
              "per switch and level than sm (%.1f or more supports, under %.1f contradicts); it "
              "costs %.1f ns more per level (%.1f vs %.1f ns per level); at depth %ld closure "
              "over sm ",
              d[0], D, allocs, M.allocs_min, M.allocs_contra,
              cq_slope(d, yc, n) - cq_slope(d, ys, n), cq_slope(d, yc, n), cq_slope(d, ys, n), D);
    cq_ratio_text(o->text, sizeof o->text, t, cl, sm);
    cb_append(o->text, sizeof o->text, ".");
    json_t *pool = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_CLOSURE), "plain",
                            DISTINCT " alloc=pool depth=%ld", D);
    if (pool) {
        iv tp = cq_ratio_iv(cl, pool);
        cb_append(o->text, sizeof o->text,
                  " With alloc=pool (completed frames reused): %.1f ns at depth %ld, %.0f%% of "
                  "the gap to sm closed (malloc over pool ",
                  cq_median(pool), D,
                  100 * (cq_median(cl) - cq_median(pool)) / (cq_median(cl) - cq_median(sm)));
        cq_ratio_text(o->text, sizeof o->text, tp, cl, pool);
        cb_append(o->text, sizeof o->text, ").");
    } else {
        cb_append(o->text, sizeof o->text, " No alloc=pool cells (closure --param alloc=pool).");
    }
    o->v = allocs >= M.allocs_min     ? CB_SUPPORTED
           : allocs < M.allocs_contra ? CB_CONTRADICTED
                                      : CB_INCONCLUSIVE;
}

/* Bytes per level, least squares over the heights of recursive. */

static const cq_claim row = {
    .number = 6,
    .id = "closure",
    .sentence = "Closure frames pay a heap allocation per async call.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"pingpong-depth-distinct"},
    .command = {.workloads = {&cb_wl_pingpong},
                CQ_IMPLS(CB_IMPL_CLOSURE, CB_IMPL_SM),
                .params = {"depth=0,4,16", "alloc=malloc,pool"}},
};
CQ_CLAIM(row);
