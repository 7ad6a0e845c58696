/* Claim 17 of the report (cxx-away, docs/report.md): C++ coroutines can be optimised away. For each
 * compiler (cxx20: g++, cxx20-clang: clang++) at every point where it and direct (the same work
 * without coroutines) ran in one file: its heap allocations per op (heap_allocs_per_op: a frame the
 * compiler elided is not one) and its time over direct's. A coroutine is optimised away at a point
 * when it allocates under M.gone_allocs per op and its time's interval over direct's lies below 1 +
 * EQUIV; it is decidedly there when it allocates M.alloc_one or more per op, or its interval lies
 * above 1 + EQUIV. Supported when some compiler optimises it away at some point; contradicted when
 * both are decidedly there at every point. Points without a direct cell (io) show the
 * allocations only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 17). */
static const struct {
    double gone_allocs, alloc_one;
} M = {.gone_allocs = 0.01, .alloc_one = 0.5};

static void eval(const ctx *c, claim *o)
{
    const char *const im[] = {cb_impl_name(CB_IMPL_CXX20), cb_impl_name(CB_IMPL_CXX20_CLANG)};
    size_t pairs = 0, gone = 0, there = 0, i;
    int any = 0;
    json_t *x;
    cb_append(o->table, sizeof o->table,
              "| implementation | workload | point | file | heap allocations per op | ns per op "
              "| over direct [95%%] | optimised away? |\n|---|---|---|---|---:|---:|---:|---|\n");
    for (size_t k = 0; k < 2; k++)
        json_array_foreach(c->all, i, x)
        {
            double al = cq_num(x, "heap_allocs_per_op");
            if (!cb_cell_ok(x) || strcmp(cb_str(x, "impl"), im[k]) ||
                strcmp(cb_str(x, "variant"), "plain") || !isfinite(al) || !isfinite(cq_median(x)))
                continue;
            any = 1;
            json_t *d = cq_same_point(c, x, cb_impl_name(CB_IMPL_DIRECT), cq_file_of(x));
            char pk[640], rt[128] = "-";
            cq_point_key(x, pk, sizeof pk);
            const char *verdict = "no direct cell";
            if (d && isfinite(cq_median(d))) {
                iv r = cq_ratio_iv(x, d);
                rt[0] = '\0';
                cq_ratio_text(rt, sizeof rt, r, NULL, NULL);
                int away = al < M.gone_allocs && r.ok && r.hi < 1 + EQUIV,
                    present = al >= M.alloc_one || (r.ok && r.lo > 1 + EQUIV);
                pairs++;
                gone += away;
                there += present;
                verdict = away ? "yes" : present ? "no" : "undecided";
            }
            cb_append(o->table, sizeof o->table, "| %s | %s | %ld | %.2f | %.1f | %s | %s |\n",
                      im[k], pk, cq_file_of(x) + 1, al, cq_median(x), rt, verdict);
        }
    if (!any || !pairs) {
        o->table[0] = '\0';
        cq_not_measured(o,
                        any ? "cxx20 or cxx20-clang cells beside a direct cell at one point in one "
                              "file"
                            : "cxx20 or cxx20-clang cells with heap allocations per op");
        return;
    }
    cb_append(o->text, sizeof o->text,
              "Over %zu point%s of cxx20 (g++) and cxx20-clang (clang++) beside direct (the same "
              "work without coroutines) in one file: optimised away (under %.2f heap "
              "allocations per op and the time's interval over direct's under %.2f) at %zu, "
              "decidedly there (%.1f or more allocations per op, or slower than that) at %zu, "
              "undecided at %zu (one optimised away supports; all there contradicts).",
              pairs, pairs == 1 ? "" : "s", M.gone_allocs, 1 + EQUIV, gone, M.alloc_one, there,
              pairs - gone - there);
    /* Where the two compilers allocate differently at one point: frames one of them elided. */
    json_array_foreach(c->all, i, x)
    {
        if (!cb_cell_ok(x) || strcmp(cb_str(x, "impl"), cb_impl_name(CB_IMPL_CXX20)) ||
            strcmp(cb_str(x, "variant"), "plain"))
            continue;
        json_t *y = cq_same_point(c, x, cb_impl_name(CB_IMPL_CXX20_CLANG), cq_file_of(x));
        double a = cq_num(x, "heap_allocs_per_op"), b = cq_num(y, "heap_allocs_per_op");
        if (y && isfinite(a) && isfinite(b) && fabs(a - b) >= M.alloc_one) {
            char pk[640];
            cq_point_key(x, pk, sizeof pk);
            cb_append(o->text, sizeof o->text,
                      " At %s, g++ allocates %.2f per op and clang++ %.2f: %s elides %.2f "
                      "frames per op that the other allocates.",
                      pk, a, b, a > b ? "clang++" : "g++", fabs(a - b));
        }
    }
    o->v = gone ? CB_SUPPORTED : there == pairs ? CB_CONTRADICTED : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 17,
    .id = "cxx-away",
    .sentence =
        "C++ coroutines can be optimised away (no frame allocated, as fast as no coroutine), "
        "depending on the compiler.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {NULL},
    .command = {.workloads = {&cb_wl_pingpong, &cb_wl_recursive, &cb_wl_spawn, &cb_wl_await},
                CQ_IMPLS(CB_IMPL_CXX20, CB_IMPL_CXX20_CLANG, CB_IMPL_DIRECT)},
};
CQ_CLAIM(row);
