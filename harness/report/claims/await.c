/* Claim 14 of the report (await, docs/report.md): awaits that complete at once cost stackless
 * little. await with suspend_every=never (no await suspends) at the deepest depth with both
 * families: the fastest stackless C cell over the fastest stackful C one (plain calls down a stack)
 * below 1 + EQUIV supports; above it contradicts. The languages' runtimes are not the comparators
 * (their own async functions, in another language), but every implementation at every K, with its
 * heap allocations per call, is in the table (a column without a figure in any row left out). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"
#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* The table's columns: the time at each K (suspend_every), then the heap allocations per call
 * without suspending. */
static const char *const ks[] = {"1", "10", "100", "never"};
enum { NK = sizeof ks / sizeof ks[0], NCOLS = NK + 1 };
static const char *const heads[NCOLS] = {"K=1", "K=10", "K=100", "never",
                                         "heap allocations per call (never)"};

/* Every implementation with a never cell at depth D, a row each; a column no row has a figure in
 * is left out (a run at never alone has no K columns). */
static void table(const ctx *c, long D, claim *o)
{
    typedef struct {
        const char *impl;
        char fig[NCOLS][32]; /* "" where none */
    } row;
    row *rows = cb_xcalloc(json_array_size(c->cells) + 1, sizeof *rows);
    size_t n = 0, i;
    int has[NCOLS] = {0};
    json_t *cell;
    json_array_foreach(c->cells, i, cell)
    {
        if (!cq_matches(cell, cb_wl_await.name, NULL, "plain", "suspend_every=never") ||
            cq_num(cell, "params.depth") != (double)D)
            continue;
        row *w = &rows[n++];
        w->impl = cb_str(cell, "impl");
        for (size_t k = 0; k < NK; k++) {
            json_t *x = cq_findf(c, cb_wl_await.name, w->impl, "plain",
                                 "suspend_every=%s depth=%ld", ks[k], D);
            if (x && isfinite(cq_median(x)))
                snprintf(w->fig[k], sizeof w->fig[k], "%.1f ns", cq_median(x));
        }
        double al = cq_num(cell, "heap_allocs_per_op"); /* run()'s alone, where recorded */
        if (!isfinite(al))
            al = cq_num(cell, "memory.totals.heap_allocs") / cq_num(cell, "ops");
        if (isfinite(al))
            snprintf(w->fig[NK], sizeof w->fig[NK], "%.2f", al);
        for (size_t k = 0; k < NCOLS; k++)
            has[k] |= w->fig[k][0] != '\0';
    }
    cb_append(o->table, sizeof o->table, "| implementation |");
    for (size_t k = 0; k < NCOLS; k++)
        if (has[k])
            cb_append(o->table, sizeof o->table, " %s |", heads[k]);
    cb_append(o->table, sizeof o->table, "\n|---|");
    for (size_t k = 0; k < NCOLS; k++)
        if (has[k])
            cb_append(o->table, sizeof o->table, "---:|");
    for (size_t r = 0; r < n; r++) {
        cb_append(o->table, sizeof o->table, "\n| %s |", rows[r].impl);
        for (size_t k = 0; k < NCOLS; k++) {
            const char *f = rows[r].fig[k];
            if (has[k])
                cb_append(o->table, sizeof o->table, " %s |", *f ? f : "-");
        }
    }
    cb_append(o->table, sizeof o->table, "\n");
    free(rows);
}

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
    table(c, D, o);
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
