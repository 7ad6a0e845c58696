/* Claim 7 of the report (recursive, docs/report.md): a recursive async function keeps its stack
 * anyway, in heap frames, and the answer says it is "the same" stack: closure's heap bytes per
 * level of recursion over asm's stack bytes per level (what a stack keeps for it) within
 * [M.same_lo, M.same_hi] supports; outside [M.far_lo, M.far_hi] contradicts; between, it is
 * inconclusive. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 7). */
static const struct {
    double same_lo, same_hi, far_lo, far_hi;
} M = {.same_lo = 0.5, .same_hi = 2, .far_lo = 0.25, .far_hi = 4};

static double per_level(const ctx *c, const char *impl, const char *field, const long *h, size_t n)
{
    double y[MAXPTS];
    for (size_t i = 0; i < n; i++)
        y[i] = cq_num(cq_findf(c, cb_wl_recursive.name, impl, "plain", "height=%ld", h[i]), field);
    return cq_slope(h, y, n);
}

static void eval(const ctx *c, claim *o)
{
    const char *const im[] = {cb_impl_name(CB_IMPL_CLOSURE), cb_impl_name(CB_IMPL_ASM)};
    long h[MAXPTS];
    size_t n = cq_common(c, cb_wl_recursive.name, im, NULL, 2, "alloc!=pool", "height", h);
    double cl =
        n >= 2 ? per_level(c, cb_impl_name(CB_IMPL_CLOSURE), "memory.heap_bytes_per_coro", h, n)
               : NAN;
    double sf =
        n >= 2 ? per_level(c, cb_impl_name(CB_IMPL_ASM), "memory.stack_used_bytes_per_coro", h, n)
               : NAN;
    if (!isfinite(cl) || !isfinite(sf) || !(sf > 0)) {
        cq_not_measured(o, n < 2 ? "closure and asm recursive cells at two or more heights"
                                 : "closure heap bytes and asm stack bytes growing with the height "
                                   "in the recursive cells");
        return;
    }
    double sm = per_level(c, cb_impl_name(CB_IMPL_SM), "memory.heap_bytes_per_coro", h, n),
           q = cl / sf;
    cb_append(o->text, sizeof o->text,
              "The argument (the answer on C#'s Task chain): a recursive async call keeps the same "
              "stack as a stackful one, in the chain of heap frames. ");
    cb_append(o->text, sizeof o->text,
              "recursive, height %ld..%ld: closure holds %.0f heap bytes per level, asm's stack "
              "%.0f bytes per level: %.2fx of it (\"the same\": %.2f..%.2fx supports, outside "
              "%.2f..%.2fx contradicts)",
              h[0], h[n - 1], cl, sf, q, M.same_lo, M.same_hi, M.far_lo, M.far_hi);
    if (isfinite(sm))
        cb_append(o->text, sizeof o->text, "; sm %.0f heap bytes per level", sm);
    cb_append(o->text, sizeof o->text, ".");
    o->v = q >= M.same_lo && q <= M.same_hi  ? CB_SUPPORTED
           : q < M.far_lo || q > M.far_hi ? CB_CONTRADICTED
                                          : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 7,
    .id = "recursive",
    .sentence = "A recursive async function keeps its stack anyway, in heap frames.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"recursive"},
    .command = {.workloads = {&cb_wl_recursive},
                CQ_IMPLS(CB_IMPL_ASM, CB_IMPL_CLOSURE, CB_IMPL_SM),
                .params = {"height=8,12,16,20"}},
};
CQ_CLAIM(row);
