/* Claim 13 of the report (asymmetric, docs/report.md): asymmetric switching reduces return
 * mispredictions. Simulated mispredicted returns per op (one hand-over between the sides: the same
 * work in both modes) of asm pingpong, distinct sites, symmetric against asymmetric at every common
 * depth: M.asym_gain fewer at every depth supports; not fewer at some depth contradicts. Per switch
 * (asymmetric makes two per op) are reported. The counts are the simulator's: no interval. The
 * answers claim a cost in time, so a second part decides on it: asymmetric over symmetric per op
 * at the deepest common depth (where the mispredictions are most) below 1/(1 + DIFF) supports,
 * within DIFF or slower contradicts. The claim: supported when both parts are, contradicted when
 * one is, otherwise inconclusive. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 13). */
static const struct {
    double asym_gain;
} M = {.asym_gain = 0.5};

static void eval(const ctx *c, claim *o)
{
    long ds[MAXPTS], da[MAXPTS], d[MAXPTS];
    size_t ns = cq_values(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain", DISTINCT,
                          "depth", ds);
    size_t na =
        cq_values(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain", ASYM, "depth", da);
    size_t n = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t k = 0; k < na; k++)
            if (ds[i] == da[k] &&
                isfinite(cq_num(cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                                         DISTINCT " depth=%ld", ds[i]),
                                "rsbsim.mispredicted_per_op")) &&
                isfinite(cq_num(cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                                         ASYM " depth=%ld", ds[i]),
                                "rsbsim.mispredicted_per_op")))
                d[n++] = ds[i];
    if (!n) {
        cq_not_measured(o, "asm pingpong cells in both modes with simulated return-stack counts");
        return;
    }
    {
        json_t *two[2] = {cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                                   DISTINCT " depth=%ld", d[n - 1]),
                          cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                                   ASYM " depth=%ld", d[n - 1])};
        if (cq_untimed(o, two, 2))
            return;
    }
    int fewer = 0, not_fewer = 0;
    cb_append(o->table, sizeof o->table,
              "| depth | symmetric, per op (1 switch) | asymmetric, per op (2 switches) | "
              "asymmetric, per switch | asymmetric over symmetric, time per op |\n"
              "|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < n; i++) {
        json_t *s = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                             DISTINCT " depth=%ld", d[i]),
               *a = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                             ASYM " depth=%ld", d[i]);
        double ms = cq_num(s, "rsbsim.mispredicted_per_op"),
               ma = cq_num(a, "rsbsim.mispredicted_per_op");
        fewer += ma <= ms - M.asym_gain;
        not_fewer += ma >= ms;
        char rt[128] = "";
        if (isfinite(cq_median(a)) && isfinite(cq_median(s)))
            cq_ratio_text(rt, sizeof rt, cq_ratio_iv(a, s), a, s);
        cb_append(o->table, sizeof o->table, "| %ld | %.2f | %.2f | %.2f | %s |\n", d[i], ms, ma,
                  ma / 2, rt[0] ? rt : "not timed");
    }
    cb_append(o->text, sizeof o->text,
              "The argument (the answers on the return stack): switching through a root coroutine "
              "keeps returns predicted, and that saves time. ");
    cb_append(o->text, sizeof o->text,
              "asm pingpong, distinct sites, simulated (%s model): an asymmetric op (side to root, "
              "root to the other side: two switches) mispredicts at least %.1f fewer returns "
              "than a symmetric one (one switch) at %d of %zu depths, and not fewer at %d (%.1f "
              "fewer at every depth supports; not fewer at one contradicts). Per switch the "
              "asymmetric count is also halved by the second switch, which is not a saving: the "
              "verdict compares ops, the same work.",
              cb_str(c->rsb, "model") ? cb_str(c->rsb, "model") : "the run's", M.asym_gain, fewer,
              n, not_fewer, M.asym_gain);
    double npm = cq_num(c->rsb, "ns_per_mispredict");
    if (isfinite(npm))
        cb_append(o->text, sizeof o->text,
                  " The calibration measured %.1f ns per misprediction on this CPU.", npm);
    cb_verdict vc = (size_t)fewer == n ? CB_SUPPORTED : not_fewer ? CB_CONTRADICTED : CB_INCONCLUSIVE;
    json_t *s = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                         DISTINCT " depth=%ld", d[n - 1]),
           *a = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                         ASYM " depth=%ld", d[n - 1]);
    iv t = cq_ratio_iv(a, s);
    int dir = cq_decide(t, DIFF);
    cb_verdict vt = dir == D_FASTER                     ? CB_SUPPORTED
                    : dir == D_SAME || dir == D_SLOWER ? CB_CONTRADICTED
                                                       : CB_INCONCLUSIVE;
    cb_append(o->text, sizeof o->text,
              " The parts: mispredictions %s; time per op at depth %ld, asymmetric over "
              "symmetric ",
              cb_verdict_name(vc), d[n - 1]);
    cq_ratio_text(o->text, sizeof o->text, t, a, s);
    cb_append(o->text, sizeof o->text,
              " (below 1/%.2f supports, within %.0f%% or slower contradicts): %s. Both supported "
              "supports the claim; one contradicted contradicts it.",
              1 + DIFF, 100 * DIFF, cb_verdict_name(vt));
    o->v = vc == CB_CONTRADICTED || vt == CB_CONTRADICTED ? CB_CONTRADICTED
           : vc == CB_SUPPORTED && vt == CB_SUPPORTED     ? CB_SUPPORTED
                                                          : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 13,
    .id = "asymmetric",
    .sentence = "Asymmetric switching (through a root coroutine) reduces return mispredictions.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"pingpong-modes"},
    .command = {.workloads = {&cb_wl_pingpong},
                CQ_IMPLS(CB_IMPL_ASM),
                .params = {"depth=0,8,16,32", "mode=symmetric,asymmetric"},
                .rsb_sim = 1},
};
CQ_CLAIM(row);
