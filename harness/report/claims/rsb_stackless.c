/* Claim 20 of the report (rsb-stackless, docs/report.md): stackless coroutines keep return-stack
 * prediction valid (the long answer on the return
 * stack buffer). The simulated
 * mispredicted returns per switch of sm and closure (alloc=malloc) pingpong, both site layouts,
 * beside asm's, at the depths where the call chain fits the model's return stack (asm with the
 * same sites mispredicts under M.valid there; deeper every code overflows it, and those depths
 * are a note). Supported when sm and closure stay under M.valid at every such depth and layout
 * while asm's (distinct sites) grow by about one per level (a least-squares slope within
 * [M.about_lo, M.about_hi]); contradicted when one of them reaches M.valid at such a depth. The
 * time this saves per switch is asm's distinct-sites cost over its same-sites one at the deepest
 * such depth (the widest combination of the two cells' intervals), beside the calibrated
 * model's figure (mispredictions saved x ns per misprediction) with how well the model fits. The
 * counts are the simulator's: no interval. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 20). */
static const struct {
    double valid, about_lo, about_hi;
} M = {.valid = 0.1, .about_lo = 0.9, .about_hi = 1.1};

#define CLOSURE_MALLOC " alloc!=pool"

/* The simulated mispredicted returns per switch of impl at depth d with layout (DISTINCT or
 * SAME); NAN when the cell or its counts are missing. */
static double count(const ctx *c, const char *impl, const char *layout, long d)
{
    return cq_num(cq_findf(c, cb_wl_pingpong.name, impl, "plain", "%s" CLOSURE_MALLOC " depth=%ld",
                           layout, d),
                  "rsbsim.mispredicted_per_op");
}

static void eval(const ctx *c, claim *o)
{
    const char *const im[] = {cb_impl_name(CB_IMPL_ASM), cb_impl_name(CB_IMPL_SM),
                              cb_impl_name(CB_IMPL_CLOSURE)};
    const char *const layout[] = {DISTINCT, SAME};
    long dd[MAXPTS], ds[MAXPTS], d[MAXPTS], fit[MAXPTS], over[MAXPTS];
    size_t nd = cq_common(c, cb_wl_pingpong.name, im, NULL, 3, DISTINCT CLOSURE_MALLOC, "depth", dd);
    size_t ns = cq_common(c, cb_wl_pingpong.name, im, NULL, 3, SAME CLOSURE_MALLOC, "depth", ds);
    size_t n = 0;
    for (size_t i = 0; i < nd; i++)
        for (size_t k = 0; k < ns; k++) {
            int all = dd[i] == ds[k];
            for (size_t j = 0; j < 3 && all; j++)
                for (size_t l = 0; l < 2 && all; l++)
                    all = isfinite(count(c, im[j], layout[l], dd[i]));
            if (all)
                d[n++] = dd[i];
        }
    size_t nf = 0, no = 0;
    for (size_t i = 0; i < n; i++) { /* the depths where the chain fits the model's stack */
        if (count(c, im[0], SAME, d[i]) < M.valid)
            fit[nf++] = d[i];
        else
            over[no++] = d[i];
    }
    if (nf < 2) {
        cq_not_measured(o, n < 2 ? "asm, sm and closure pingpong cells with simulated return-stack "
                                   "counts at two or more depths with both sites"
                                 : "two depths where asm's chain fits the simulated return stack "
                                   "(asm, same sites, under 0.1 mispredicted returns per switch)");
        return;
    }
    double ya[MAXPTS], worst[3][2] = {{0}};
    long worst_d[3][2] = {{0}};
    int reached = 0;
    for (size_t i = 0; i < nf; i++) {
        ya[i] = count(c, im[0], DISTINCT, fit[i]);
        for (size_t j = 1; j < 3; j++)
            for (size_t l = 0; l < 2; l++) {
                double x = count(c, im[j], layout[l], fit[i]);
                if (x > worst[j][l] || i == 0)
                    worst[j][l] = x, worst_d[j][l] = fit[i];
                reached |= x >= M.valid;
            }
    }
    double slope = cq_slope(fit, ya, nf);
    long D = fit[nf - 1];
    json_t *r = json_object_get(
        cq_findf(c, cb_wl_pingpong.name, im[0], "plain", DISTINCT " depth=%ld", D), "rsbsim");
    const char *model = cb_str(r, "model");
    char label[160];
    cb_results_rsb_label(c->rsb, model ? model : "circular",
                         (long)json_integer_value(json_object_get(r, "entries")), label,
                         sizeof label);
    cb_append(o->text, sizeof o->text,
              "The argument (the long answer on the return stack buffer): a stackless resume "
              "calls down its frames and returns up them, so the return stack stays valid; a "
              "stackful switch returns into another stack. ");
    cb_append(o->text, sizeof o->text,
              "pingpong, simulated (%s), depth %ld..%ld, where the chain fits the return stack "
              "(asm with the same sites mispredicts under %.1f per switch): asm's mispredicted "
              "returns per switch with distinct sites grow by %.2f per level (%.2f at depth %ld); "
              "the most per switch, distinct and same sites: ",
              label, fit[0], D, M.valid, cq_shown(slope), cq_shown(ya[nf - 1]), D);
    for (size_t j = 1; j < 3; j++)
        cb_append(o->text, sizeof o->text, "%s %.2f (depth %ld) and %.2f (depth %ld)%s", im[j],
                  cq_shown(worst[j][0]), worst_d[j][0], cq_shown(worst[j][1]), worst_d[j][1],
                  j == 1 ? ", " : "");
    cb_append(o->text, sizeof o->text,
              " (under %.1f at every depth and layout, with asm's growing by %.1f..%.1f per level, "
              "supports; %.1f or more at one contradicts).",
              M.valid, M.about_lo, M.about_hi, M.valid);
    if (no) {
        cb_append(o->text, sizeof o->text, " Deeper, where every chain overflows the model's stack:");
        for (size_t i = 0; i < no; i++)
            cb_append(o->text, sizeof o->text,
                      "%s depth %ld, asm %.2f and %.2f, sm %.2f and %.2f, closure %.2f and %.2f",
                      i ? ";" : "", over[i], cq_shown(count(c, im[0], DISTINCT, over[i])),
                      cq_shown(count(c, im[0], SAME, over[i])),
                      cq_shown(count(c, im[1], DISTINCT, over[i])),
                      cq_shown(count(c, im[1], SAME, over[i])),
                      cq_shown(count(c, im[2], DISTINCT, over[i])),
                      cq_shown(count(c, im[2], SAME, over[i])));
        cb_append(o->text, sizeof o->text, " (distinct and same sites; not part of the verdict).");
    }
    /* What it saves in time: asm's distinct-sites switch over its same-sites one at depth D. */
    json_t *pd = cq_findf(c, cb_wl_pingpong.name, im[0], "plain", DISTINCT " depth=%ld", D),
           *ps = cq_findf(c, cb_wl_pingpong.name, im[0], "plain", SAME " depth=%ld", D);
    iv P = cq_cell_iv(pd), S = cq_cell_iv(ps);
    char f[3][32];
    if (isfinite(P.est) && isfinite(S.est)) {
        cb_append(o->text, sizeof o->text,
                  " Time at depth %ld: asm's switch costs %s ns more with distinct sites than with "
                  "the same sites",
                  D, cq_ns_fig(P.est - S.est, f[0]));
        if (P.ok && S.ok)
            cb_append(o->text, sizeof o->text, " [%s, %s]", cq_ns_fig(P.lo - S.hi, f[1]),
                      cq_ns_fig(P.hi - S.lo, f[2]));
        else
            cb_append(o->text, sizeof o->text, " (no interval: %s)", P.ok ? S.why : P.why);
        cb_append(o->text, sizeof o->text, ", what a stackless resume does not pay.");
    }
    double cal = NAN, saved = ya[nf - 1] - fmax(count(c, im[1], DISTINCT, D),
                                                count(c, im[2], DISTINCT, D));
    cb_field_number(c->rsb, "ns_per_mispredict", &cal);
    if (isfinite(cal) && !strcmp(cb_str(c->rsb, "source") ? cb_str(c->rsb, "source") : "",
                                 "calibrated")) {
        cb_append(o->text, sizeof o->text,
                  " The calibrated model (%s): %.2f mispredictions saved per switch x %.1f ns "
                  "= %s ns per switch",
                  label, cq_shown(saved), cal, cq_ns_fig(saved * cal, f[0]));
        if (isfinite(P.est) && isfinite(S.est) && saved * cal > 0)
            cb_append(o->text, sizeof o->text, " (the measured difference is %.0f%% of it)",
                      100 * (P.est - S.est) / (saved * cal));
        cb_append(o->text, sizeof o->text, ".");
    } else
        cb_append(o->text, sizeof o->text,
                  " No calibrated cost per misprediction (the model is %s; `corobench calibrate` "
                  "or `./run.sh --calibrate` measures it).",
                  label);
    o->v = reached                                          ? CB_CONTRADICTED
           : slope >= M.about_lo && slope <= M.about_hi ? CB_SUPPORTED
                                                            : CB_INCONCLUSIVE;
    if (o->v == CB_INCONCLUSIVE)
        cb_append(o->text, sizeof o->text,
                  " asm's count does not grow by about one per level here: nothing to keep valid.");
}

static const cq_claim row = {
    .number = 20,
    .id = "rsb-stackless",
    .sentence = "Stackless coroutines keep return-stack prediction valid.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"pingpong-mispredict"},
    .command = {.workloads = {&cb_wl_pingpong},
                CQ_IMPLS(CB_IMPL_ASM, CB_IMPL_SM, CB_IMPL_CLOSURE),
                .params = {"depth=0,4,8,16", "sites=distinct,same"},
                .rsb_sim = 1},
};
CQ_CLAIM(row);
