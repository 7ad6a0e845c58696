/* Claim 14 of the report (await, docs/report.md): awaits that complete at once cost stackless
 * little. await with suspend_every=never (no await suspends) at the deepest depth with both
 * families: the fastest stackless C cell over the fastest stackful C one (plain calls down a stack)
 * below 1 + EQUIV supports; above it contradicts. The languages' runtimes are not the comparators
 * (their own async functions, in another language), but every implementation at every K, with its
 * heap allocations per call, is in the table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

static void eval(const ctx *c, claim *o)
{
    long d[MAXPTS];
    size_t n = cq_values(c, cb_wl_await.name, NULL, "plain", "suspend_every=never", "depth", d);
    json_t *sl = NULL, *sf = NULL;
    long D = 0;
    for (size_t i = n; i-- > 0 && !(sl && sf);) {
        char m[64];
        snprintf(m, sizeof m, "suspend_every=never depth=%ld", d[i]);
        sl = cq_fastest_of(c, cb_wl_await.name, "stackless", m, 1);
        sf = cq_fastest_of(c, cb_wl_await.name, "stackful", m, 1);
        D = d[i];
    }
    if (!sl || !sf) {
        cq_not_measured(o, "timed await cells of a stackless and a stackful C implementation at "
                           "suspend_every=never");
        return;
    }
    iv r = cq_ratio_iv(sl, sf);
    cb_append(o->text, sizeof o->text,
              "await, depth %ld, no await suspending: the fastest stackless, %s, %.1f ns per "
              "call; the fastest stackful, %s (plain calls), %.1f ns (%s over %s ",
              D, cb_str(sl, "impl"), cq_median(sl), cb_str(sf, "impl"), cq_median(sf),
              cb_str(sl, "impl"), cb_str(sf, "impl"));
    cq_ratio_text(o->text, sizeof o->text, r, sl, sf);
    cb_append(o->text, sizeof o->text, "; under %.2f supports).", 1 + EQUIV);
    static const char *const ks[] = {"1", "10", "100", "never"};
    cb_append(o->table, sizeof o->table,
              "| implementation | K=1 | K=10 | K=100 | never | heap allocations per call "
              "(never) |\n|---|---:|---:|---:|---:|---:|\n");
    json_t *cell;
    size_t i;
    json_array_foreach(c->cells, i, cell)
    {
        if (!cq_matches(cell, cb_wl_await.name, NULL, "plain", "suspend_every=never") ||
            cq_num(cell, "params.depth") != (double)D)
            continue;
        const char *impl = cb_str(cell, "impl");
        cb_append(o->table, sizeof o->table, "| %s |", impl);
        for (size_t k = 0; k < 4; k++) {
            json_t *x = cq_findf(c, cb_wl_await.name, impl, "plain", "suspend_every=%s depth=%ld",
                                 ks[k], D);
            if (x && isfinite(cq_median(x)))
                cb_append(o->table, sizeof o->table, " %.1f ns |", cq_median(x));
            else
                cb_append(o->table, sizeof o->table, " - |");
        }
        double al = cq_num(cell, "heap_allocs_per_op"); /* run()'s alone, where recorded */
        if (!isfinite(al))
            al = cq_num(cell, "memory.totals.heap_allocs") / cq_num(cell, "ops");
        if (isfinite(al))
            cb_append(o->table, sizeof o->table, " %.2f |\n", al);
        else
            cb_append(o->table, sizeof o->table, " - |\n");
    }
    o->v = !r.ok              ? CB_INCONCLUSIVE
           : r.hi < 1 + EQUIV ? CB_SUPPORTED
           : r.lo > 1 + EQUIV ? CB_CONTRADICTED
                              : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 14,
    .id = "await",
    .sentence =
        "Awaits that complete at once cost stackless coroutines little (their fast path: no "
        "suspension).",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {NULL},
    .command = {.workloads = {&cb_wl_await},
                .all_impls = 1,
                .params = {"suspend_every=1,10,100,never"}},
};
CQ_CLAIM(row);
