/* Claim 2 of the report (jmpret, docs/report.md): the jmpret build removes most of the
 * distinct-sites cost: the share removed, (plain - jmpret) / (distinct - same), has an interval
 * (from the three cells' intervals, the widest combination) above M.most; contradicted below it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 2). */
static const struct {
    double most;
} M = {.most = 0.5};

static void eval(const ctx *c, claim *o)
{
    const char *const im[] = {cb_impl_name(CB_IMPL_ASM), cb_impl_name(CB_IMPL_ASM)}, *const va[] = {
                                                                                         "plain",
                                                                                         "jmpret"};
    long d[MAXPTS];
    size_t n = cq_common(c, cb_wl_pingpong.name, im, va, 2, DISTINCT, "depth", d);
    json_t *pd = NULL, *ps = NULL, *jd = NULL;
    long D = -1;
    for (size_t i = n; i-- > 0 && D < 0;) { /* the deepest depth with all three */
        pd = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                      DISTINCT " depth=%ld", d[i]);
        jd = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "jmpret",
                      DISTINCT " depth=%ld", d[i]);
        ps = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain", SAME " depth=%ld",
                      d[i]);
        if (pd && jd && ps)
            D = d[i];
    }
    if (D < 0) {
        cq_not_measured(o, "asm pingpong cells in both builds at one depth with both sites");
        return;
    }
    json_t *three[3] = {pd, ps, jd};
    if (cq_untimed(o, three, 3))
        return;
    iv cost = cq_ratio_iv(pd, ps), P = cq_cell_iv(pd), S = cq_cell_iv(ps), J = cq_cell_iv(jd);
    double removed = (P.est - J.est) / (P.est - S.est);
    double lo = (P.lo - J.hi) / (P.hi - S.lo),
           hi = P.lo > S.hi ? (P.hi - J.lo) / (P.lo - S.hi) : INFINITY;
    cb_append(o->text, sizeof o->text, "asm at depth %ld: distinct sites ", D);
    cq_cell_text(o->text, sizeof o->text, P);
    cb_append(o->text, sizeof o->text, ", same sites ");
    cq_cell_text(o->text, sizeof o->text, S);
    cb_append(o->text, sizeof o->text, " (distinct over same ");
    cq_ratio_text(o->text, sizeof o->text, cost, pd, ps);
    cb_append(o->text, sizeof o->text, "); the jmpret build runs the distinct case in ");
    cq_cell_text(o->text, sizeof o->text, J);
    cb_append(o->text, sizeof o->text, ", removing %.0f%% of the difference", 100 * removed);
    int ok = P.ok && S.ok && J.ok;
    if (ok && isfinite(hi))
        cb_append(o->text, sizeof o->text, " [%.0f%%, %.0f%%]", 100 * lo, 100 * hi);
    else if (ok) /* the intervals of distinct and same overlap: no upper bound (was "inf%") */
        cb_append(o->text, sizeof o->text, " [%.0f%%, no upper bound]", 100 * lo);
    cb_append(o->text, sizeof o->text, " (most: %.0f%% or more).", 100 * M.most);
    if (cq_decide(cost, DIFF) != D_SLOWER || !ok) {
        o->v = CB_INCONCLUSIVE;
        cb_append(o->text, sizeof o->text,
                  ok ? " No decided distinct-sites cost to remove at this depth."
                     : " A cell with one invocation has no interval for the share.");
    } else {
        o->v = lo >= M.most ? CB_SUPPORTED : hi < M.most ? CB_CONTRADICTED : CB_INCONCLUSIVE;
    }
}

static const cq_claim row = {
    .number = 2,
    .id = "jmpret",
    .sentence = "Replacing every ret with a pop and an indirect jump (the jmpret build) removes "
                "most of that cost.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"pingpong-jmpret"},
    .command = {.workloads = {&cb_wl_pingpong},
                CQ_IMPLS(CB_IMPL_ASM),
                .params = {"depth=0,16", "sites=distinct,same"},
                .variants = "plain,jmpret"},
};
CQ_CLAIM(row);
