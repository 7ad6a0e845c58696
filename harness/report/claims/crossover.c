/* Claim 5 of the report (crossover, docs/report.md): sm is faster at shallow depth and slower past
 * a crossover depth, against the fastest stackful plain build at each depth, per sites layout. The
 * crossover is the smallest depth from which sm is slower beyond DIFF at every deeper depth
 * measured. A layout with none up to the deepest depth contradicts when sm is still faster there
 * and its per-level cost is no larger than the stackful one's (no crossover coming), else is
 * inconclusive. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

static cb_verdict crossover_layout(const ctx *c, claim *o, const char *sites)
{
    long d[MAXPTS], dd[MAXPTS];
    const char *const im[] = {cb_impl_name(CB_IMPL_SM)};
    char m[64];
    snprintf(m, sizeof m, "sites=%s", sites);
    size_t n = cq_common(c, cb_wl_pingpong.name, im, NULL, 1, m, "depth", d), k = 0;
    json_t *sm[MAXPTS], *sf[MAXPTS];
    for (size_t i = 0; i < n; i++) {
        char mt[96];
        snprintf(mt, sizeof mt, "sites=%s depth=%ld", sites, d[i]);
        json_t *s = cq_find(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_SM), "plain", mt),
               *f = cq_fastest_of(c, cb_wl_pingpong.name, "stackful", mt, 0);
        if (s && f && isfinite(cq_median(s)) && isfinite(cq_median(f)))
            dd[k] = d[i], sm[k] = s, sf[k++] = f;
    }
    if (k < 2) {
        cb_append(o->text, sizeof o->text, " Sites %s: not measured at two depths.", sites);
        return CB_NOT_MEASURED;
    }
    iv r[MAXPTS];
    int dir[MAXPTS];
    double ys[MAXPTS], yf[MAXPTS];
    for (size_t i = 0; i < k; i++) {
        r[i] = cq_ratio_iv(sm[i], sf[i]);
        dir[i] = cq_decide(r[i], DIFF);
        ys[i] = cq_median(sm[i]);
        yf[i] = cq_median(sf[i]);
    }
    long cross = -1;
    for (size_t i = k; i-- > 0 && dir[i] == D_SLOWER;)
        cross = dd[i];
    double s_sm = cq_slope(dd, ys, k), s_sf = cq_slope(dd, yf, k);
    cb_append(o->text, sizeof o->text,
              " Sites %s, sm over the fastest stackful plain build:", sites);
    for (size_t i = 0; i < k; i++) {
        cb_append(o->text, sizeof o->text, "%s depth %ld %s ", i ? ";" : "", dd[i],
                  cb_str(sf[i], "impl"));
        cq_ratio_text(o->text, sizeof o->text, r[i], sm[i], sf[i]);
    }
    cb_append(o->text, sizeof o->text, ". Per level: sm %.1f ns, stackful %.1f ns.", s_sm, s_sf);
    cb_verdict v;
    if (dir[0] == D_FEW || dir[0] == D_OPEN || dir[0] == D_SAME) {
        cb_append(o->text, sizeof o->text, " sm is not decided faster at depth %ld.", dd[0]);
        v = CB_INCONCLUSIVE;
    } else if (dir[0] == D_SLOWER) {
        cb_append(o->text, sizeof o->text, " sm is slower already at depth %ld.", dd[0]);
        v = CB_CONTRADICTED;
    } else if (cross >= 0) {
        cb_append(o->text, sizeof o->text, " Crossover depth: %ld.", cross);
        v = CB_SUPPORTED;
    } else if (dir[k - 1] == D_FASTER && !(s_sm > s_sf)) {
        cb_append(o->text, sizeof o->text,
                  " No crossover up to depth %ld, and none coming: sm is faster there and its "
                  "cost per level is not larger.",
                  dd[k - 1]);
        v = CB_CONTRADICTED;
    } else {
        cb_append(o->text, sizeof o->text, " No crossover up to depth %ld", dd[k - 1]);
        if (s_sm > s_sf && yf[k - 1] > ys[k - 1])
            cb_append(o->text, sizeof o->text, "; the per-level costs meet near depth %.0f",
                      (double)dd[k - 1] + (yf[k - 1] - ys[k - 1]) / (s_sm - s_sf));
        cb_append(o->text, sizeof o->text, ".");
        v = CB_INCONCLUSIVE;
    }
    return v;
}

static void eval(const ctx *c, claim *o)
{
    cb_verdict v[2] = {crossover_layout(c, o, "distinct"), crossover_layout(c, o, "same")};
    if (v[0] == CB_NOT_MEASURED && v[1] == CB_NOT_MEASURED) {
        o->text[0] = '\0';
        cq_not_measured(o, "sm and stackful pingpong cells at two or more depths");
        return;
    }
    if (v[0] == CB_CONTRADICTED || v[1] == CB_CONTRADICTED)
        o->v = CB_CONTRADICTED;
    else if ((v[0] == CB_SUPPORTED || v[0] == CB_NOT_MEASURED) &&
             (v[1] == CB_SUPPORTED || v[1] == CB_NOT_MEASURED))
        o->v = CB_SUPPORTED;
    else
        o->v = CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 5,
    .id = "crossover",
    .sentence =
        "Stackless state machines resume faster at shallow depth but pay re-entry through every "
        "frame as depth grows: there is a crossover depth against stackful switches.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"pingpong-depth-distinct", "pingpong-depth-same"},
    .command = {.workloads = {&cb_wl_pingpong},
                CQ_IMPLS(CB_IMPL_ASM, CB_IMPL_ASMJMP, CB_IMPL_SM),
                .params = {"depth=0,2,4,8,16,32", "sites=distinct,same"}},
};
CQ_CLAIM(row);
