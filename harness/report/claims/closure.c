/* Claim 6 of the report (closure, docs/report.md): closure frames pay a heap allocation per async
 * call, and the answers claim a cost in time. Two parts, each with its verdict. Allocations:
 * closure's heap allocations per switch over sm's, per level of depth (least squares), at least
 * M.allocs_min supports, below M.allocs_contra contradicts. Time: closure's time per level over
 * sm's ((deepest - smallest depth) of each, the widest combination of the four cells' intervals)
 * above 1 + DIFF supports, at most 1 + DIFF contradicts. The claim: supported when both parts
 * are, contradicted when one is, otherwise inconclusive. */
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
    if (n >= 2 && counted) {
        json_t *four[4] = {
            cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_CLOSURE), "plain",
                     DISTINCT " alloc!=pool depth=%ld", d[0]),
            cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_SM), "plain", DISTINCT " depth=%ld",
                     d[0]),
            cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_CLOSURE), "plain",
                     DISTINCT " alloc!=pool depth=%ld", d[n - 1]),
            cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_SM), "plain", DISTINCT " depth=%ld",
                     d[n - 1])};
        if (cq_untimed(o, four, 4))
            return;
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
              "The argument (the answers on closures and C#'s Tasks): each async call allocates "
              "its frame on the heap, and that costs time. ");
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
    cb_verdict va = allocs >= M.allocs_min     ? CB_SUPPORTED
                    : allocs < M.allocs_contra ? CB_CONTRADICTED
                                               : CB_INCONCLUSIVE;
    /* The time part: closure's extra time per level over sm's. */
    json_t *c0 = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_CLOSURE), "plain",
                          DISTINCT " alloc!=pool depth=%ld", d[0]),
           *s0 = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_SM), "plain",
                          DISTINCT " depth=%ld", d[0]);
    iv C0 = cq_cell_iv(c0), CD = cq_cell_iv(cl), S0 = cq_cell_iv(s0), SD = cq_cell_iv(sm);
    double est = (CD.est - C0.est) / (SD.est - S0.est), lo = NAN, hi = NAN;
    cb_verdict vt = CB_INCONCLUSIVE;
    const char *why = NULL;
    if (!(C0.ok && CD.ok && S0.ok && SD.ok)) {
        why = "a cell with one invocation has no interval";
    } else {
        double nlo = CD.lo - C0.hi, nhi = CD.hi - C0.lo, dlo = SD.lo - S0.hi, dhi = SD.hi - S0.lo;
        if (dhi <= 0) { /* sm's time does not grow: any growth of closure's is more */
            why = "sm's time does not grow with depth";
            vt = nlo > 0 ? CB_SUPPORTED : CB_INCONCLUSIVE;
        } else {
            lo = nlo >= 0 ? nlo / dhi : dlo > 0 ? nlo / dlo : -INFINITY;
            hi = dlo > 0 ? (nhi >= 0 ? nhi / dlo : nhi / dhi) : INFINITY;
            vt = lo > 1 + DIFF ? CB_SUPPORTED : hi <= 1 + DIFF ? CB_CONTRADICTED : CB_INCONCLUSIVE;
        }
    }
    cb_append(o->text, sizeof o->text,
              " The parts: allocations %s; time, closure's time per level over sm's (depth %ld "
              "to %ld) %.2fx",
              cb_verdict_name(va), d[0], D, est);
    if (isfinite(lo) || isfinite(hi))
        cb_append(o->text, sizeof o->text, " [%.2f, %.2f]", lo, hi);
    if (why)
        cb_append(o->text, sizeof o->text, " (%s)", why);
    cb_append(o->text, sizeof o->text,
              " (above %.2f supports, at most %.2f contradicts): %s. Both supported supports the "
              "claim; one contradicted contradicts it.",
              1 + DIFF, 1 + DIFF, cb_verdict_name(vt));
    o->v = va == CB_CONTRADICTED || vt == CB_CONTRADICTED ? CB_CONTRADICTED
           : va == CB_SUPPORTED && vt == CB_SUPPORTED     ? CB_SUPPORTED
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
