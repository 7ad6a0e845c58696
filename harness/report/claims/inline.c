/* Claim 19 of the report (inline, docs/report.md): a stackful switch inlined at the call site costs
 * about as much as a stackless resume. pingpong at depth 0, distinct sites, symmetric, work=none
 * where both ran it (the switches alone), else work=chain: inline over sm. inline with fpu=0 where
 * it ran (sm keeps no floating-point control state either; the bound is on that pair), else
 * with fpu=1, and the text says so. "About as much" is the ratio's interval under M.inline_max
 * (cheaper counts: the claim answers "stackful must be slower"); above it, contradicted. asmjmp
 * with fpu=0, the fastest function-call switch, is a note. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 19). */
static const struct {
    double inline_max;
} M = {.inline_max = 1.30};

static void eval(const ctx *c, claim *o)
{
    static const char *const works[] = {"none", "chain"}, *const fpus[] = {"0", "1"};
    json_t *in = NULL, *sm = NULL;
    const char *work = NULL, *fpu = NULL;
    for (size_t w = 0; w < 2 && !in; w++) {
        sm = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_SM), "plain",
                      DISTINCT " depth=0 work=%s", works[w]);
        for (size_t f = 0; f < 2 && sm && !in; f++)
            if ((in = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_INLINE), "plain",
                               DISTINCT " depth=0 work=%s fpu=%s", works[w], fpus[f])))
                work = works[w], fpu = fpus[f];
    }
    if (!in) {
        cq_not_measured(o, "pingpong cells of inline and sm at depth 0 (distinct sites)");
        return;
    }
    json_t *two[2] = {in, sm};
    if (cq_untimed(o, two, 2))
        return;
    iv r = cq_ratio_iv(in, sm);
    cb_append(o->text, sizeof o->text,
              "pingpong, depth 0, distinct sites, work=%s: inline (fpu=%s) %.2f ns per switch, "
              "sm %.2f ns per resume (inline over sm ",
              work, fpu, cq_median(in), cq_median(sm));
    cq_ratio_text(o->text, sizeof o->text, r, in, sm);
    cb_append(o->text, sizeof o->text, "; under %.2f supports).", M.inline_max);
    if (!strcmp(fpu, "1"))
        cb_append(o->text, sizeof o->text,
                  " No inline cell with fpu=0 here: this one also keeps MXCSR and the x87 "
                  "control word per coroutine, which sm does not.");
    json_t *f1 = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_INLINE), "plain",
                          DISTINCT " depth=0 work=%s fpu=1", work);
    if (f1 && f1 != in && isfinite(cq_median(f1))) {
        cb_append(o->text, sizeof o->text,
                  " With fpu=1 (the FPU control words kept per coroutine): %.2f ns (",
                  cq_median(f1));
        cq_ratio_text(o->text, sizeof o->text, cq_ratio_iv(f1, sm), f1, sm);
        cb_append(o->text, sizeof o->text, " sm's).");
    }
    json_t *aj = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASMJMP), "plain",
                          DISTINCT " depth=0 work=%s fpu=%s", work, fpu);
    if (aj && isfinite(cq_median(aj))) {
        cb_append(o->text, sizeof o->text,
                  " asmjmp, the fastest switch through a call, with fpu=%s: %.2f ns (inline over "
                  "asmjmp ",
                  fpu, cq_median(aj));
        cq_ratio_text(o->text, sizeof o->text, cq_ratio_iv(in, aj), in, aj);
        cb_append(o->text, sizeof o->text, ").");
    }
    o->v = !r.ok                 ? CB_INCONCLUSIVE
           : r.hi < M.inline_max ? CB_SUPPORTED
           : r.lo > M.inline_max ? CB_CONTRADICTED
                                 : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 19,
    .id = "inline",
    .sentence =
        "A stackful switch inlined at the call site costs about as much as a stackless resume.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {NULL},
    .command = {.workloads = {&cb_wl_pingpong},
                CQ_IMPLS(CB_IMPL_INLINE, CB_IMPL_SM, CB_IMPL_ASMJMP),
                .params = {"depth=0", "work=none", "fpu=0,1"}},
};
CQ_CLAIM(row);
