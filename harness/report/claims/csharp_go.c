/* Claim 16 of the report (csharp-go, docs/report.md): C#'s async/await is faster than Go's
 * goroutines. At every point (workload and parameters, each runtime's own at its defaults) where
 * csharp and go ran in one file: csharp/go's interval below 1/(1 + DIFF) is faster. Supported when
 * csharp is faster at every point; contradicted when, at some point, it is decided the same (within
 * DIFF) or slower. A table per point. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

static void eval(const ctx *c, claim *o)
{
    size_t pairs = 0, faster = 0, not_faster = 0, i;
    json_t *cs;
    cb_append(o->table, sizeof o->table,
              "| workload | point | file | csharp | go | csharp / go [95%%] | decided |\n"
              "|---|---|---|---:|---:|---:|---|\n");
    json_array_foreach(c->all, i, cs)
    {
        if (!cb_cell_ok(cs) || strcmp(cb_str(cs, "impl"), cb_impl_name(CB_IMPL_CSHARP)) ||
            strcmp(cb_str(cs, "variant"), "plain") || !cq_at_defaults(cs) ||
            !isfinite(cq_median(cs)))
            continue;
        json_t *go = cq_same_point(c, cs, cb_impl_name(CB_IMPL_GO), cq_file_of(cs));
        if (!go || !isfinite(cq_median(go)))
            continue;
        iv r = cq_ratio_iv(cs, go);
        int d = cq_decide(r, DIFF);
        pairs++;
        faster += d == D_FASTER;
        not_faster += d == D_SAME || d == D_SLOWER;
        char pk[640], rt[128] = "";
        cq_point_key(cs, pk, sizeof pk);
        cq_ratio_text(rt, sizeof rt, r, NULL, NULL);
        cb_append(o->table, sizeof o->table, "| %s | %ld | %.1f ns | %.1f ns | %s | %s |\n", pk,
                  cq_file_of(cs) + 1, cq_median(cs), cq_median(go), rt,
                  d == D_FASTER   ? "csharp faster"
                  : d == D_SLOWER ? "go faster"
                  : d == D_SAME   ? "the same"
                                  : "undecided");
    }
    if (!pairs) {
        o->table[0] = '\0';
        cq_not_measured(o, "timed csharp and go cells at a common point in one file");
        return;
    }
    cb_append(o->text, sizeof o->text,
              "Over %zu point%s where csharp (Mono's async/await over Task) and go (goroutines "
              "and unbuffered channels) ran in one file: csharp is faster beyond %.0f%% at %zu, "
              "the same or slower at %zu, undecided at %zu (faster at every point supports; the "
              "same or slower at one contradicts). Mono is not current .NET (docs/external.md).",
              pairs, pairs == 1 ? "" : "s", 100 * DIFF, faster, not_faster,
              pairs - faster - not_faster);
    o->v = faster == pairs ? CB_SUPPORTED : not_faster ? CB_CONTRADICTED : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 16,
    .id = "csharp-go",
    .sentence = "C#'s async/await is faster than Go's goroutines.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {NULL},
    .command = {.workloads = {&cb_wl_pingpong, &cb_wl_recursive, &cb_wl_spawn, &cb_wl_io},
                CQ_IMPLS(CB_IMPL_CSHARP, CB_IMPL_GO),
                .quick = 1},
};
CQ_CLAIM(row);
