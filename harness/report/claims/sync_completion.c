/* Claim 21 of the report (sync-completion, docs/report.md): a C# await that completes at once is
 * cheap, and Go has no such path (the answer on C# and Go). await cells at suspend_every=never
 * (no await suspends) and suspend_every=1 (every one does), per runtime at the deepest depth where
 * csharp and go have both: the ratio never/1 with its interval. Two parts: csharp's under
 * M.cs_cheap supports, above it contradicts; go's above 1/M.go_near supports, under it
 * contradicts. The claim: supported when both parts are, contradicted when one is, otherwise
 * inconclusive. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 21). */
static const struct {
    double cs_cheap, go_near;
} M = {.cs_cheap = 0.5, .go_near = 1.5};

static void eval(const ctx *c, claim *o)
{
    const char *const im[] = {cb_impl_name(CB_IMPL_CSHARP), cb_impl_name(CB_IMPL_GO)};
    const char *const ks[] = {"never", "1"};
    long d[MAXPTS];
    size_t n = cq_common(c, cb_wl_await.name, im, NULL, 2, "suspend_every=never", "depth", d);
    json_t *x[2][2] = {{NULL}};
    long D = -1;
    for (size_t i = n; i-- > 0 && D < 0;) { /* the deepest depth with all four cells */
        int all = 1;
        for (size_t j = 0; j < 2; j++)
            for (size_t k = 0; k < 2; k++)
                all &= (x[j][k] = cq_findf(c, cb_wl_await.name, im[j], "plain",
                                           "suspend_every=%s depth=%ld", ks[k], d[i])) != NULL;
        if (all)
            D = d[i];
    }
    if (D < 0) {
        cq_not_measured(o, "csharp and go await cells at suspend_every=never and =1 at one depth");
        return;
    }
    json_t *four[4] = {x[0][0], x[0][1], x[1][0], x[1][1]};
    if (cq_untimed(o, four, 4))
        return;
    iv r[2] = {cq_ratio_iv(x[0][0], x[0][1]), cq_ratio_iv(x[1][0], x[1][1])};
    cb_verdict v[2];
    v[0] = !r[0].ok                  ? CB_INCONCLUSIVE
           : r[0].hi < M.cs_cheap    ? CB_SUPPORTED
           : r[0].lo > M.cs_cheap    ? CB_CONTRADICTED
                                     : CB_INCONCLUSIVE;
    v[1] = !r[1].ok                  ? CB_INCONCLUSIVE
           : r[1].lo > 1 / M.go_near ? CB_SUPPORTED
           : r[1].hi < 1 / M.go_near ? CB_CONTRADICTED
                                     : CB_INCONCLUSIVE;
    cb_append(o->text, sizeof o->text,
              "The argument (the answer on C# and Go): a C# await whose task has already completed "
              "goes on synchronously, cheaply; Go has no such path (a `go` always starts a "
              "goroutine). await, depth %ld, a call that never suspends over one that always does: "
              "csharp %.1f ns over %.1f ns, ",
              D, cq_median(x[0][0]), cq_median(x[0][1]));
    cq_ratio_text(o->text, sizeof o->text, r[0], x[0][0], x[0][1]);
    cb_append(o->text, sizeof o->text, " (under %.2f supports: %s); go %.1f ns over %.1f ns, ",
              M.cs_cheap, cb_verdict_name(v[0]), cq_median(x[1][0]), cq_median(x[1][1]));
    cq_ratio_text(o->text, sizeof o->text, r[1], x[1][0], x[1][1]);
    cb_append(o->text, sizeof o->text,
              " (above 1/%.1f supports: %s). Both supported supports the claim; one contradicted "
              "contradicts it.",
              M.go_near, cb_verdict_name(v[1]));
    if (v[1] == CB_CONTRADICTED)
        cb_append(o->text, sizeof o->text,
                  " Go's body awaits by a blocking channel receive inside one goroutine and takes a "
                  "value that is there with a plain call (impls/go/await.go): it starts no "
                  "goroutine per call, so it has the cheap path the answer says it lacks; a body "
                  "with a `go` per call is not measured.");
    o->v = v[0] == CB_CONTRADICTED || v[1] == CB_CONTRADICTED ? CB_CONTRADICTED
           : v[0] == CB_SUPPORTED && v[1] == CB_SUPPORTED     ? CB_SUPPORTED
                                                              : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 21,
    .id = "sync-completion",
    .sentence = "A C# await that completes at once is cheap; Go has no such path.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {NULL},
    .command = {.workloads = {&cb_wl_await},
                CQ_IMPLS(CB_IMPL_CSHARP, CB_IMPL_GO),
                .params = {"suspend_every=1,never"}},
};
CQ_CLAIM(row);
