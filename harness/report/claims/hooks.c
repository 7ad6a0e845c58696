/* Claim 12 of the report (hooks, docs/report.md): hooks make blocking code asynchronous at a small
 * cost per call. At the most connections with both styles (stackful_order's first): the blocking
 * cell must do explicit's work with suspensions (it went asynchronous; else contradicted), and
 * blocking over explicit below 1 + EQUIV supports (the hooks cost under 10% of a message), above it
 * contradicts. The cost per call = (blocking - explicit) ns per message / calls through the hooks
 * per message, its interval from the ratio's, not below 0. */
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
    if (!cq_pair_point(c, cb_wl_io.name, IO_BLOCKING, IO_EXPLICIT, "conns", &impl, &n)) {
        cq_not_measured(o, "io cells of a stackful implementation in both styles");
        return;
    }
    json_t *b = cq_findf(c, cb_wl_io.name, impl, "plain", IO_BLOCKING " conns=%ld", n),
           *e = cq_findf(c, cb_wl_io.name, impl, "plain", IO_EXPLICIT " conns=%ld", n);
    json_t *two[2] = {b, e};
    if (cq_untimed(o, two, 2))
        return;
    double calls = cq_num(b, "hooked_calls_per_op");
    iv r = cq_ratio_iv(b, e);
    cb_append(o->text, sizeof o->text,
              "io, %s, %ld connections: blocking read/write through the hooks %.0f ns per "
              "message, explicit %.0f ns (blocking over explicit ",
              impl, n, cq_median(b), cq_median(e));
    cq_ratio_text(o->text, sizeof o->text, r, b, e);
    cb_append(o->text, sizeof o->text, "; under %.2f supports). ", 1 + EQUIV);
    if (isfinite(calls) && calls > 0) {
        cb_append(o->text, sizeof o->text,
                  "%.2f calls per message went through the hooks: %.1f ns per call", calls,
                  (cq_median(b) - cq_median(e)) / calls);
        /* The interval from the ratio's (one bootstrap over both cells' invocations), times
         * explicit's time per call: the two cells' own intervals subtracted made a cost below
         * zero ([-199.8, 281.1]). A cost cannot be negative: a bound under 0 is shown as 0,
         * and said. */
        if (r.ok) {
            double lo = (r.lo - 1) * cq_median(e) / calls, hi = (r.hi - 1) * cq_median(e) / calls;
            cb_append(o->text, sizeof o->text, " [%.1f, %.1f]%s", lo > 0 ? lo : 0, hi > 0 ? hi : 0,
                      lo < 0 ? " (the interval's lower end clipped at 0: blocking and explicit "
                               "are not told apart there, and a cost is not negative)"
                             : "");
        }
        cb_append(o->text, sizeof o->text, ".");
    } else {
        cb_append(o->text, sizeof o->text, "The blocking cell counts no call through the hooks.");
    }
    int work = cq_same_work(b, e) && cq_num(b, "suspensions") > 0;
    cb_append(o->text, sizeof o->text,
              work ? " The same checksum and %.0f suspensions as explicit: the blocking code ran "
                     "asynchronously."
                   : " The blocking cell did not do explicit's work with suspensions (it made "
                     "%.0f).",
              cq_num(b, "suspensions"));
    o->v = !work              ? CB_CONTRADICTED
           : !r.ok            ? CB_INCONCLUSIVE
           : r.hi < 1 + EQUIV ? CB_SUPPORTED
           : r.lo > 1 + EQUIV ? CB_CONTRADICTED
                              : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 12,
    .id = "hooks",
    .sentence =
        "With hooks, stackful coroutines make existing blocking code asynchronous, at a small "
        "cost per call through the hooks.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"io"},
    .command = {.workloads = {&cb_wl_io},
                CQ_IMPLS(CB_IMPL_ASM),
                .params = {"style=explicit,blocking", "conns=16"}},
};
CQ_CLAIM(row);
