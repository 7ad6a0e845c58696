/* Claim 8 of the report (memory, docs/report.md): stackful coroutines waste memory on worst-case
 * stacks: what a stackful coroutine really occupies (the stack pages it touched plus its heap)
 * against what the stackless alternative allocates (the largest of the stackless implementations
 * measured), and against what its stack needed (stack bytes used). Supported when it is M.waste
 * times both or more; contradicted when it is at most M.no_waste times the stackless one's.
 * Reserved (virtual) bytes are reported, not counted: they cost address space, not memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 8). */
static const struct {
    double waste, no_waste;
} M = {.waste = 2.0, .no_waste = 1.25};

static void eval(const ctx *c, claim *o)
{
    const char *const im[] = {cb_impl_name(CB_IMPL_ASM)};
    long nn[MAXPTS];
    size_t n = cq_common(c, cb_wl_spawn.name, im, NULL, 1, DEPTH0, "n", nn);
    json_t *a = NULL, *less = NULL;
    long N = -1;
    for (size_t i = n; i-- > 0 && !less;) { /* the largest n with a stackless cell too */
        char mt[64];
        snprintf(mt, sizeof mt, DEPTH0 " n=%ld", nn[i]);
        a = cq_find(c, cb_wl_spawn.name, cb_impl_name(CB_IMPL_ASM), "plain", mt);
        json_t *cell;
        size_t k;
        json_array_foreach(c->cells, k, cell)
        {
            const char *f = cb_str(cell, "family");
            double hb = cq_num(cell, "memory.heap_bytes_per_coro");
            if (f && !strcmp(f, "stackless") &&
                cq_matches(cell, cb_wl_spawn.name, NULL, "plain", mt) && isfinite(hb) &&
                (!less || hb > cq_num(less, "memory.heap_bytes_per_coro")))
                less = cell;
        }
        N = nn[i];
    }
    double res = cq_num(a, "memory.reserved_bytes_per_coro"),
           tou = cq_num(a, "memory.touched_bytes_per_coro"),
           used = cq_num(a, "memory.stack_used_bytes_per_coro"),
           ah = cq_num(a, "memory.heap_bytes_per_coro"),
           lh = cq_num(less, "memory.heap_bytes_per_coro");
    if (!less || !isfinite(tou) || !isfinite(ah) || !isfinite(used) || !(lh > 0)) {
        cq_not_measured(o,
                        "asm and stackless spawn cells at depth 0 with their bytes per coroutine");
        return;
    }
    double foot = tou + ah, vs_less = foot / lh, vs_need = foot / (used + ah);
    cb_append(o->text, sizeof o->text,
              "spawn, n = %ld, depth 0, bytes per coroutine: asm reserves %.0f, touches %.0f "
              "(its stack uses %.0f of it) and allocates %.0f; %s allocates %.0f. asm occupies "
              "%.1fx what %s does and %.1fx what its stack needed (%.0fx or more of both "
              "supports; %.2fx or less of the stackless one's contradicts)",
              N, res, tou, used, ah, cb_str(less, "impl"), lh, vs_less, cb_str(less, "impl"),
              vs_need, M.waste, M.no_waste);
    double ka = cq_num(a, "memory.kernel_bytes_per_coro");
    if (isfinite(ka))
        cb_append(o->text, sizeof o->text, "; kernel bytes: asm %.0f", ka);
    cb_append(o->text, sizeof o->text, ".");
    o->v = vs_less >= M.waste && vs_need >= M.waste ? CB_SUPPORTED
           : vs_less <= M.no_waste                  ? CB_CONTRADICTED
                                                    : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 8,
    .id = "memory",
    .sentence = "Stackful coroutines waste memory on worst-case stacks.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"spawn-memory"},
    .command = {.workloads = {&cb_wl_spawn},
                CQ_IMPLS(CB_IMPL_ASM, CB_IMPL_SM, CB_IMPL_CLOSURE),
                .params = {"n=1000,10000,100000"}},
};
CQ_CLAIM(row);
