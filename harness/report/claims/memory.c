/* Claim 8 of the report (memory, docs/report.md): stackful coroutines waste memory on worst-case
 * stacks: what a stackful coroutine really occupies (the stack pages it touched plus its heap)
 * against what the stackless alternative allocates (the largest of the stackless implementations
 * measured), and against what its stack needed (stack bytes used). Supported when it is M.waste
 * times both or more; contradicted when it is at most M.no_waste times the stackless one's.
 * Decided at the deep point when there is one (spawn deep_share below 100: a few coroutines
 * `depth` levels down, the rest in their body, the stacks sized for the deep ones), else at
 * depth 0, where every coroutine is in its body; the other point is a note.
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

/* Where the rule reads: asm's cell, the stackless cell with the most heap at its point, their
 * ratios, and the point in words. */
typedef struct point {
    json_t *a, *less;
    double vs_less, vs_need;
    char what[160];
} point;

/* The stackless cell of the most heap bytes per coroutine at the point mt, or NULL. */
static json_t *largest_stackless(const ctx *c, const char *mt)
{
    json_t *cell, *less = NULL;
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
    return less;
}

/* Whether asm's cell a and the stackless less at its point have every figure; the ratios. */
static int measured(json_t *a, json_t *less, point *p)
{
    double tou = cq_num(a, "memory.touched_bytes_per_coro"),
           used = cq_num(a, "memory.stack_used_bytes_per_coro"),
           ah = cq_num(a, "memory.heap_bytes_per_coro"),
           lh = cq_num(less, "memory.heap_bytes_per_coro");
    if (!a || !less || !isfinite(tou) || !isfinite(ah) || !isfinite(used) || !(lh > 0))
        return 0;
    p->a = a, p->less = less;
    p->vs_less = (tou + ah) / lh;
    p->vs_need = (tou + ah) / (used + ah);
    return 1;
}

/* Depth 0: the largest n with asm and a stackless cell. */
static int depth0(const ctx *c, point *p)
{
    const char *const im[] = {cb_impl_name(CB_IMPL_ASM)};
    long nn[MAXPTS];
    size_t n = cq_common(c, cb_wl_spawn.name, im, NULL, 1, DEPTH0, "n", nn);
    for (size_t i = n; i-- > 0;) {
        char mt[64];
        snprintf(mt, sizeof mt, DEPTH0 " n=%ld", nn[i]);
        if (measured(cq_find(c, cb_wl_spawn.name, cb_impl_name(CB_IMPL_ASM), "plain", mt),
                     largest_stackless(c, mt), p)) {
            snprintf(p->what, sizeof p->what, "n = %ld, depth 0", nn[i]);
            return 1;
        }
    }
    return 0;
}

/* The deep point: asm's cell at a deep_share between 0 and 100 (exclusive), with a stackless
 * cell at its point; the largest n, then the deepest. */
static int deep(const ctx *c, point *p)
{
    json_t *x;
    size_t i;
    double bn = -1, bd = -1;
    json_array_foreach(c->cells, i, x)
    {
        double s = cq_num(x, "params.deep_share"), n = cq_num(x, "params.n"),
               d = cq_num(x, "params.depth");
        if (!(s > 0 && s < 100) || !(d > 0) || n < bn || (n == bn && d <= bd) ||
            !cq_matches(x, cb_wl_spawn.name, cb_impl_name(CB_IMPL_ASM), "plain",
                        "layout!=offset locals!=dead deep_once=0"))
            continue;
        char mt[160];
        snprintf(mt, sizeof mt,
                 "layout!=offset locals!=dead deep_once=0 n=%.0f depth=%.0f frame=%.0f "
                 "deep_share=%.0f",
                 n, d, cq_num(x, "params.frame"), s);
        point q;
        if (!measured(x, largest_stackless(c, mt), &q))
            continue;
        *p = q;
        bn = n, bd = d;
        snprintf(p->what, sizeof p->what,
                 "n = %.0f, deep_share=%.0f (%.0f%% of the coroutines go %.0f levels of %.0f "
                 "bytes down, the rest stay in their body)",
                 n, s, s, d, cq_num(x, "params.frame"));
    }
    return bn > 0;
}

static void describe(claim *o, const point *p)
{
    const char *ln = cb_str(p->less, "impl");
    cb_append(o->text, sizeof o->text,
              "spawn, %s, bytes per coroutine: asm reserves %.0f, touches %.0f (its stack uses "
              "%.0f of it) and allocates %.0f; %s allocates %.0f. asm occupies %.1fx what %s "
              "does and %.1fx what its stack needed",
              p->what, cq_num(p->a, "memory.reserved_bytes_per_coro"),
              cq_num(p->a, "memory.touched_bytes_per_coro"),
              cq_num(p->a, "memory.stack_used_bytes_per_coro"),
              cq_num(p->a, "memory.heap_bytes_per_coro"), ln,
              cq_num(p->less, "memory.heap_bytes_per_coro"), p->vs_less, ln, p->vs_need);
}

static void eval(const ctx *c, claim *o)
{
    point dp, zp;
    int has_deep = deep(c, &dp), has_zero = depth0(c, &zp);
    if (!has_deep && !has_zero) {
        cq_not_measured(o, "asm and stackless spawn cells at depth 0, or at a deep point "
                           "(deep_share below 100, depth above 0), with their bytes per "
                           "coroutine");
        return;
    }
    const point *p = has_deep ? &dp : &zp;
    if (has_deep)
        cb_append(o->text, sizeof o->text,
                  "Decided at the deep point, where every stack is reserved for the few "
                  "coroutines that go deep (the worst case). ");
    describe(o, p);
    cb_append(o->text, sizeof o->text,
              " (%.0fx or more of both supports; %.2fx or less of the stackless one's "
              "contradicts)",
              M.waste, M.no_waste);
    double ka = cq_num(p->a, "memory.kernel_bytes_per_coro");
    if (isfinite(ka))
        cb_append(o->text, sizeof o->text, "; kernel bytes: asm %.0f", ka);
    cb_append(o->text, sizeof o->text, ".");
    if (has_deep && has_zero) {
        cb_append(o->text, sizeof o->text, " Beside it, not decided: ");
        describe(o, &zp);
        cb_append(o->text, sizeof o->text, ".");
    }
    o->v = p->vs_less >= M.waste && p->vs_need >= M.waste ? CB_SUPPORTED
           : p->vs_less <= M.no_waste                     ? CB_CONTRADICTED
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
