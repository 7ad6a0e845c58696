/* Claim 3 of the report (asmjmp, docs/report.md): asmjmp saves one misprediction per switch over
 * asm (distinct sites): simulated, 0.9..1.1 at every depth, and asm slower in time at the smallest
 * depth beyond DIFF. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

static void eval(const ctx *c, claim *o)
{
    const char *const im[] = {cb_impl_name(CB_IMPL_ASM), cb_impl_name(CB_IMPL_ASMJMP)};
    long d[MAXPTS];
    size_t n = cq_common(c, cb_wl_pingpong.name, im, NULL, 2, DISTINCT, "depth", d);
    double lo = INFINITY, hi = -INFINITY, sum = 0, same_lo = INFINITY, same_hi = -INFINITY;
    size_t k = 0, ks = 0;
    for (size_t i = 0; i < n; i++) {
        double x = cq_num(cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                                   DISTINCT " depth=%ld", d[i]),
                          "rsbsim.mispredicted_per_op") -
                   cq_num(cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASMJMP), "plain",
                                   DISTINCT " depth=%ld", d[i]),
                          "rsbsim.mispredicted_per_op");
        double y = cq_num(cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASMJMP), "plain",
                                   SAME " depth=%ld", d[i]),
                          "rsbsim.mispredicted_per_op") -
                   cq_num(cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                                   SAME " depth=%ld", d[i]),
                          "rsbsim.mispredicted_per_op");
        if (isfinite(x))
            lo = fmin(lo, cq_shown(x)), hi = fmax(hi, cq_shown(x)), sum += x, k++;
        if (isfinite(y))
            same_lo = fmin(same_lo, cq_shown(y)), same_hi = fmax(same_hi, cq_shown(y)), ks++;
    }
    if (!k) {
        cq_not_measured(o, "asm and asmjmp pingpong cells with simulated return-stack counts");
        return;
    }
    json_t *a = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                         DISTINCT " depth=%ld", d[0]),
           *j = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASMJMP), "plain",
                         DISTINCT " depth=%ld", d[0]);
    iv t = cq_ratio_iv(a, j);
    cb_append(o->text, sizeof o->text,
              "Simulated, distinct sites, depth %ld..%ld: asm mispredicts %.2f..%.2f more returns "
              "per switch than asmjmp",
              d[0], d[n - 1], lo, hi);
    if (ks)
        cb_append(o->text, sizeof o->text,
                  "; with the same sites it is the other way round: asmjmp mispredicts %.2f..%.2f "
                  "more than asm (the return after a jmp switch pops a stale entry)",
                  same_lo, same_hi);
    cb_append(o->text, sizeof o->text,
              ". Time at depth %ld (distinct): asm %.1f ns, asmjmp %.1f ns (asm over asmjmp ", d[0],
              cq_median(a), cq_median(j));
    cq_ratio_text(o->text, sizeof o->text, t, a, j);
    cb_append(o->text, sizeof o->text, ").");
    int dir = cq_decide(t, DIFF);
    if (lo >= 0.9 && hi <= 1.1 && dir == D_SLOWER)
        o->v = CB_SUPPORTED;
    else if (sum / (double)k < 0.5 || dir == D_FASTER)
        o->v = CB_CONTRADICTED;
    else
        o->v = CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 3,
    .id = "asmjmp",
    .sentence =
        "A switch that leaves through an indirect jump (asmjmp) saves one misprediction per switch "
        "over one that returns (asm).",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"pingpong-mispredict"},
    .command = {.workloads = {&cb_wl_pingpong},
                CQ_IMPLS(CB_IMPL_ASM, CB_IMPL_ASMJMP),
                .params = {"depth=0,4,16", "sites=distinct,same"},
                .rsb_sim = 1},
};
CQ_CLAIM(row);
