/* Claim 23 of the report (deep-once, docs/report.md): a stackful coroutine keeps memory for the
 * deepest it has been, a stackless one for where it is now (the answer on worst-case stacks: they
 * are sized too large, and fixed stacks do not shrink). spawn where every coroutine makes a plain
 * recursion of deep_once levels once and returns before its suspension, against the same point at
 * deep_once=0: each implementation's bytes per coroutine at rest (touched stack + runtime heap).
 * Two parts: asm's ratio M.keeps or more supports, under M.near contradicts; sm's M.near or less
 * supports, M.keeps or more contradicts. The claim: supported when both parts are, contradicted
 * when one is, otherwise inconclusive. Every other implementation with both cells is a row of the
 * table (copystack keeps the image it saved at the suspension, thread its stack's pages). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 23). */
static const struct {
    double keeps, near;
} M = {.keeps = 2.0, .near = 1.25};

/* Touched stack + runtime heap per coroutine; NAN when the heap is not measured. */
static double footprint(json_t *cell)
{
    double t = cq_num(cell, "memory.touched_bytes_per_coro"),
           h = cq_num(cell, "memory.heap_bytes_per_coro");
    return isfinite(h) ? h + (isfinite(t) ? t : 0) : NAN;
}

static void eval(const ctx *c, claim *o)
{
    const char *const asm_ = cb_impl_name(CB_IMPL_ASM), *const sm = cb_impl_name(CB_IMPL_SM);
    /* The point: asm's cell with the largest deep_once whose point sm and deep_once=0 share. */
    json_t *x, *pair[2][2] = {{NULL}};
    size_t i;
    long D = 0;
    char mt[128] = "";
    json_array_foreach(c->cells, i, x)
    {
        long d = (long)cq_num(x, "params.deep_once");
        if (!cq_matches(x, cb_wl_spawn.name, asm_, "plain", "layout=aligned locals!=dead") ||
            !(d > D) || !isfinite(footprint(x)))
            continue;
        char m[128];
        snprintf(m, sizeof m, "layout=aligned locals!=dead n=%.0f depth=%.0f frame=%.0f",
                 cq_num(x, "params.n"), cq_num(x, "params.depth"), cq_num(x, "params.frame"));
        json_t *a0 = cq_findf(c, cb_wl_spawn.name, asm_, "plain", "%s deep_once=0", m),
               *s0 = cq_findf(c, cb_wl_spawn.name, sm, "plain", "%s deep_once=0", m),
               *s1 = cq_findf(c, cb_wl_spawn.name, sm, "plain", "%s deep_once=%ld", m, d);
        if (!a0 || !s0 || !s1 || !isfinite(footprint(a0)) || !isfinite(footprint(s0)) ||
            !isfinite(footprint(s1)))
            continue;
        D = d;
        snprintf(mt, sizeof mt, "%s", m);
        pair[0][0] = a0, pair[0][1] = x, pair[1][0] = s0, pair[1][1] = s1;
    }
    if (D <= 0) {
        cq_not_measured(o, "asm and sm spawn cells at deep_once=0 and at one deep_once above 0 "
                           "(same n, depth and frame), with their bytes per coroutine");
        return;
    }
    double q[2];
    for (int k = 0; k < 2; k++)
        q[k] = footprint(pair[k][1]) / footprint(pair[k][0]);
    cb_verdict v[2] = {q[0] >= M.keeps  ? CB_SUPPORTED
                       : q[0] < M.near  ? CB_CONTRADICTED
                                        : CB_INCONCLUSIVE,
                       q[1] <= M.near   ? CB_SUPPORTED
                       : q[1] >= M.keeps ? CB_CONTRADICTED
                                         : CB_INCONCLUSIVE};
    cb_append(o->text, sizeof o->text,
              "The argument (the answer on worst-case stacks): stacks are sized for the worst case "
              "and fixed stacks do not shrink, so a coroutine that went deep once keeps those "
              "pages; a stackless one keeps only the frames it is suspended in. spawn, %s: every "
              "coroutine makes a plain recursion of %ld levels once and returns before its "
              "suspension, against the same point without it. Bytes per coroutine at rest "
              "(touched stack + runtime heap): asm %.0f over %.0f, %.2fx (%.1fx or more "
              "supports, under %.2fx contradicts: %s); sm %.0f over %.0f, %.2fx (%.2fx or less "
              "supports, %.1fx or more contradicts: %s). Both supported supports the claim; one "
              "contradicted contradicts it. Every implementation with both cells is in the table.",
              mt + strlen("layout=aligned locals!=dead "), D, footprint(pair[0][1]),
              footprint(pair[0][0]), q[0], M.keeps, M.near, cb_verdict_name(v[0]),
              footprint(pair[1][1]), footprint(pair[1][0]), q[1], M.near, M.keeps,
              cb_verdict_name(v[1]));
    cb_append(o->table, sizeof o->table,
              "| implementation | deep_once=0 | deep_once=%ld | ratio | touched stack | heap |\n"
              "|---|---:|---:|---:|---:|---:|\n",
              D);
    json_array_foreach(c->cells, i, x)
    {
        if (!cq_matches(x, cb_wl_spawn.name, NULL, "plain", mt) ||
            (long)cq_num(x, "params.deep_once") != D || !cq_at_defaults(x))
            continue;
        json_t *z = cq_findf(c, cb_wl_spawn.name, cb_str(x, "impl"), "plain", "%s deep_once=0",
                             mt);
        double a = footprint(z), b = footprint(x);
        if (!isfinite(a) || !isfinite(b) || !(a > 0))
            continue;
        cb_append(o->table, sizeof o->table, "| %s | %.0f | %.0f | %.2fx | %.0f | %.0f |\n",
                  cb_str(x, "impl"), a, b, b / a, cq_num(x, "memory.touched_bytes_per_coro"),
                  cq_num(x, "memory.heap_bytes_per_coro"));
    }
    o->v = v[0] == CB_CONTRADICTED || v[1] == CB_CONTRADICTED ? CB_CONTRADICTED
           : v[0] == CB_SUPPORTED && v[1] == CB_SUPPORTED     ? CB_SUPPORTED
                                                              : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 23,
    .id = "deep-once",
    .sentence = "A stackful coroutine keeps memory for the deepest it has been; a stackless one for "
                "where it is now.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {NULL},
    .command = {.workloads = {&cb_wl_spawn},
                CQ_IMPLS(CB_IMPL_ASM, CB_IMPL_SM, CB_IMPL_COPYSTACK, CB_IMPL_CLOSURE,
                         CB_IMPL_CXX20),
                .params = {"deep_once=0,16", "depth=1", "frame=1024", "n=1000"}},
};
CQ_CLAIM(row);
