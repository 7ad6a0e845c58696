/* Claim 1 of the report (depth, docs/report.md): the misprediction cost of resuming at another call
 * site grows with depth, not with the same sites. Margins: growth and difference beyond DIFF on
 * their intervals; "not with the same sites" is the same-sites slope at most M.same_share_max of
 * the distinct one's, and contradicted when the same sites' growth is decided and at least
 * M.same_share_contra of it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 1). */
static const struct {
    double same_share_max, same_share_contra;
} M = {.same_share_max = 0.25, .same_share_contra = 0.5};

static void model_text(const ctx *c, claim *o, json_t *a, const long *d, size_t m, const double *md,
                       const double *ms, double sd, double ss)
{
    long D = d[m - 1], knee = -1;
    for (size_t i = 0; i < m && knee < 0; i++)
        if (ms[i] >= 0.5)
            knee = d[i];
    json_t *r = json_object_get(a, "rsbsim");
    const char *model = cb_str(r, "model");
    long long N = json_integer_value(json_object_get(r, "entries"));
    /* The model named with how well it fits this CPU (calibrated R^2, or an uncalibrated
     * default), as the stdout table names it. */
    char label[160];
    cb_results_rsb_label(c->rsb, model ? model : "circular", (long)N, label, sizeof label);
    if (knee >= 0)
        cb_append(o->text, sizeof o->text,
                  " Model (%s): with the same sites returns start to mispredict at depth %ld, "
                  "where the chain no longer fits.",
                  label, knee);
    else
        cb_append(o->text, sizeof o->text,
                  " Model (%s): with the same sites no return mispredicts up to depth %ld "
                  "(the knee is where depth + 1 exceeds %lld).",
                  label, D, N);
    /* What one misprediction costs here: the extra time per level over the extra
     * mispredictions per level; and the calibration's figure for this CPU, if it has one. */
    double dm = cq_slope(d, md, m) - cq_slope(d, ms, m);
    if (dm > 0.5)
        cb_append(o->text, sizeof o->text, " Per extra mispredicted return: %.1f ns in these cells",
                  (sd - ss) / dm);
    double cal = NAN;
    cb_field_number(c->rsb, "ns_per_mispredict", &cal);
    const char *twin = cb_str(c->rsb, "twin"); /* what it measured against */
    if (isfinite(cal))
        cb_append(o->text, sizeof o->text, "%s the calibration (%s%s%s%s) measured %.1f ns",
                  dm > 0.5 ? ";" : " Per mispredicted return:", cb_str(c->rsb, "source"),
                  twin ? ", against the " : "", twin ? twin : "", twin ? " twin" : "", cal);
    if (dm > 0.5 || isfinite(cal))
        cb_append(o->text, sizeof o->text, ".");
}

static void eval(const ctx *c, claim *o)
{
    const char *const im[] = {cb_impl_name(CB_IMPL_ASM)};
    long d[MAXPTS], ds[MAXPTS];
    size_t n = cq_common(c, cb_wl_pingpong.name, im, NULL, 1, DISTINCT, "depth", d);
    size_t ns = cq_common(c, cb_wl_pingpong.name, im, NULL, 1, SAME, "depth", ds);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) /* depths with both sites */
        for (size_t k = 0; k < ns; k++)
            if (d[i] == ds[k])
                d[m++] = d[i];
    if (m < 2) {
        cq_not_measured(o, "asm pingpong cells at two or more depths with both sites");
        return;
    }
    double td[MAXPTS], ts[MAXPTS], md[MAXPTS], ms[MAXPTS];
    int rsb = 1;
    {
        json_t *e[2] = {cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                                 DISTINCT " depth=%ld", d[0]),
                        cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                                 SAME " depth=%ld", d[m - 1])};
        json_t *e2[2] = {cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                                  SAME " depth=%ld", d[0]),
                         cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                                  DISTINCT " depth=%ld", d[m - 1])};
        if (cq_untimed(o, e, 2) || cq_untimed(o, e2, 2))
            return;
    }
    for (size_t i = 0; i < m; i++) {
        json_t *a = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                             DISTINCT " depth=%ld", d[i]);
        json_t *b = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                             SAME " depth=%ld", d[i]);
        td[i] = cq_median(a);
        ts[i] = cq_median(b);
        md[i] = cq_num(a, "rsbsim.mispredicted_per_op");
        ms[i] = cq_num(b, "rsbsim.mispredicted_per_op");
        rsb &= isfinite(md[i]) && isfinite(ms[i]);
    }
    long d0 = d[0], D = d[m - 1];
    json_t *a0 = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                          DISTINCT " depth=%ld", d0),
           *b0 = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                          SAME " depth=%ld", d0),
           *a = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                         DISTINCT " depth=%ld", D),
           *b = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                         SAME " depth=%ld", D);
    iv gd = cq_ratio_iv(a, a0), gs = cq_ratio_iv(b, b0), x = cq_ratio_iv(a, b);
    double sd = cq_slope(d, td, m), ss = cq_slope(d, ts, m), share = ss / sd;
    if (isfinite(sd) && isfinite(ss))
        cb_append(o->text, sizeof o->text,
                  "asm, depth %ld..%ld: each level adds %.1f ns per switch with distinct sites "
                  "and %.1f ns with the same sites",
                  d0, D, sd, ss);
    else
        cb_append(o->text, sizeof o->text,
                  "asm, depth %ld..%ld: the cost per level has no finite value (its times "
                  "overflow a double's arithmetic)",
                  d0, D);
    if (isfinite(sd) && isfinite(ss) && sd > 0)
        cb_append(o->text, sizeof o->text, " (%.0f%% of it)", 100 * share);
    if (rsb)
        cb_append(o->text, sizeof o->text,
                  "; simulated mispredicted returns per level: %.2f and %.2f", cq_slope(d, md, m),
                  cq_slope(d, ms, m));
    cb_append(o->text, sizeof o->text, ". Depth %ld over depth %ld: distinct ", D, d0);
    cq_ratio_text(o->text, sizeof o->text, gd, a, a0);
    cb_append(o->text, sizeof o->text, ", same ");
    cq_ratio_text(o->text, sizeof o->text, gs, b, b0);
    cb_append(o->text, sizeof o->text, ". At depth %ld distinct over same: ", D);
    cq_ratio_text(o->text, sizeof o->text, x, a, b);
    cb_append(o->text, sizeof o->text, ".");
    if (rsb)
        model_text(c, o, a, d, m, md, ms, sd, ss);
    else
        cb_append(o->text, sizeof o->text, " No simulated counts (run with --rsb sim).");
    int grows = cq_decide(gd, DIFF), same_grows = cq_decide(gs, DIFF), apart = cq_decide(x, DIFF);
    if (grows == D_SAME || grows == D_FASTER)
        o->v = CB_CONTRADICTED; /* the distinct-sites cost does not grow */
    else if (same_grows == D_SLOWER && sd > 0 && share >= M.same_share_contra)
        o->v = CB_CONTRADICTED; /* it grows with the same sites too */
    else if (grows == D_SLOWER && apart == D_SLOWER && sd > 0 && share <= M.same_share_max)
        o->v = CB_SUPPORTED;
    else
        o->v = CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 1,
    .id = "depth",
    .sentence =
        "After a stackful switch, returns mispredict and the cost grows with call depth when the "
        "two sides suspend at different call sites, not when they share the code (sites=same).",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"pingpong-depth-distinct", "pingpong-depth-same", "pingpong-mispredict"},
    .command = {.workloads = {&cb_wl_pingpong},
                CQ_IMPLS(CB_IMPL_ASM),
                .params = {"depth=0,4,8,16,32", "sites=distinct,same"},
                .rsb_sim = 1},
};
CQ_CLAIM(row);
