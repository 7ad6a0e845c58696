/* Claim 4 of the report (ucontext, docs/report.md): ucontext is an order of magnitude slower than
 * asm: the ratio's interval at or above M.factor supports, below it contradicts. The claim's cause
 * (a system call per switch) is said only as far as the results time one: they time none, so the
 * report says it is untested. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 4). */
static const struct {
    double factor;
} M = {.factor = 10.0};

static void eval(const ctx *c, claim *o)
{
    const char *const im[] = {cb_impl_name(CB_IMPL_UCONTEXT), cb_impl_name(CB_IMPL_ASM)};
    long d[MAXPTS];
    size_t n = cq_common(c, cb_wl_pingpong.name, im, NULL, 2, DISTINCT, "depth", d);
    if (!n) {
        cq_not_measured(o, "ucontext and asm pingpong cells at a common depth");
        return;
    }
    json_t *u = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_UCONTEXT), "plain",
                         DISTINCT " depth=%ld", d[0]),
           *a = cq_findf(c, cb_wl_pingpong.name, cb_impl_name(CB_IMPL_ASM), "plain",
                         DISTINCT " depth=%ld", d[0]);
    json_t *two[2] = {u, a};
    if (cq_untimed(o, two, 2))
        return;
    iv r = cq_ratio_iv(u, a);
    cb_append(o->text, sizeof o->text,
              "pingpong depth %ld: ucontext %.0f ns per switch, asm %.1f ns (ucontext over asm ",
              d[0], cq_median(u), cq_median(a));
    cq_ratio_text(o->text, sizeof o->text, r, u, a);
    cb_append(o->text, sizeof o->text,
              "; %.0fx or more supports). The difference is %.0f ns per switch; these results "
              "time no system call, so they do not show that it is one (glibc's swapcontext "
              "calling rt_sigprocmask is the claim's explanation, not tested here).",
              M.factor, cq_median(u) - cq_median(a));
    o->v = !r.ok              ? CB_INCONCLUSIVE
           : r.lo >= M.factor ? CB_SUPPORTED
           : r.hi < M.factor  ? CB_CONTRADICTED
                              : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 4,
    .id = "ucontext",
    .sentence = "ucontext is far slower (10x or more) than an asm switch: it makes a system call "
                "per switch for the signal mask.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"pingpong-depth-distinct"},
    .command = {.workloads = {&cb_wl_pingpong},
                CQ_IMPLS(CB_IMPL_ASM, CB_IMPL_UCONTEXT),
                .params = {"depth=0"}},
};
CQ_CLAIM(row);
