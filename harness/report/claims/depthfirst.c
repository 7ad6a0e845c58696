/* Claim 15 of the report (depthfirst, docs/report.md): depth-first scheduling improves locality.
 * pipeline at the most stages with both schedules (stackful_order's first): direct (each stage
 * switches straight to its consumer) over fifo (a central run queue) decided faster beyond DIFF
 * supports; the same or slower contradicts. L1 data misses per item where a PMU counted them; sm's
 * pair (its direct hand-over goes through its driver) is reported. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

static void eval(const ctx *c, claim *o)
{
    const char *impl;
    long n;
    if (!cq_pair_point(c, cb_wl_pipeline.name, "sched=direct", "sched=fifo", "stages", &impl, &n)) {
        cq_not_measured(o, "pipeline cells of a stackful implementation under both schedules");
        return;
    }
    json_t *dr = cq_findf(c, cb_wl_pipeline.name, impl, "plain", "sched=direct stages=%ld", n),
           *ff = cq_findf(c, cb_wl_pipeline.name, impl, "plain", "sched=fifo stages=%ld", n);
    json_t *two[2] = {dr, ff};
    if (cq_untimed(o, two, 2))
        return;
    iv r = cq_ratio_iv(dr, ff);
    cb_append(o->text, sizeof o->text,
              "pipeline, %s, %ld stages: direct %.0f ns per item, fifo %.0f ns (direct over fifo ",
              impl, n, cq_median(dr), cq_median(ff));
    cq_ratio_text(o->text, sizeof o->text, r, dr, ff);
    cb_append(o->text, sizeof o->text, "; under %.3f supports).", 1 / (1 + DIFF));
    double ld = cq_num(dr, "counters.l1d-misses.per_op"),
           lf = cq_num(ff, "counters.l1d-misses.per_op");
    if (isfinite(ld) && isfinite(lf))
        cb_append(o->text, sizeof o->text, " L1 data misses per item: direct %.0f, fifo %.0f.", ld,
                  lf);
    else
        cb_append(o->text, sizeof o->text,
                  " No L1 miss counts (no PMU, or no --events l1d-misses): locality is inferred "
                  "from time only.");
    json_t *sd = cq_findf(c, cb_wl_pipeline.name, cb_impl_name(CB_IMPL_SM), "plain",
                          "sched=direct stages=%ld", n),
           *sf = cq_findf(c, cb_wl_pipeline.name, cb_impl_name(CB_IMPL_SM), "plain",
                          "sched=fifo stages=%ld", n);
    if (sd && sf && isfinite(cq_median(sd)) && isfinite(cq_median(sf))) {
        cb_append(o->text, sizeof o->text,
                  " sm, whose direct hand-over returns the next stage to its driver: %.0f vs "
                  "%.0f ns (",
                  cq_median(sd), cq_median(sf));
        cq_ratio_text(o->text, sizeof o->text, cq_ratio_iv(sd, sf), sd, sf);
        cb_append(o->text, sizeof o->text, ").");
    }
    int dd = cq_decide(r, DIFF);
    o->v = dd == D_FASTER                   ? CB_SUPPORTED
           : dd == D_SAME || dd == D_SLOWER ? CB_CONTRADICTED
                                            : CB_INCONCLUSIVE;
}

/* ---- The seed's first pair and two more of the thread's points (issue 20): C# against Go,
 * C++ coroutines optimised away, Lua's state per coroutine. ---- */

static const cq_claim row = {
    .number = 15,
    .id = "depthfirst",
    .sentence =
        "Depth-first scheduling (switching straight to the consumer) improves locality over a "
        "central run queue.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {NULL},
    .command = {.workloads = {&cb_wl_pipeline},
                CQ_IMPLS(CB_IMPL_ASM, CB_IMPL_SM),
                .params = {"stages=4,32", "sched=fifo,direct"}},
};
CQ_CLAIM(row);
