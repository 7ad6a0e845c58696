/* Claim 16 of the report (csharp-go, docs/report.md): C#'s async/await is much faster than Go's
 * goroutines (the answer on C# and Go: "性能却好的多", much better performance). At every point
 * (workload and parameters, each runtime's own at its defaults) where csharp and go ran in one
 * file: csharp/go's interval below 1/M.much is much faster. Supported when csharp is much faster
 * at every point; contradicted when, at some point, the interval lies above 1/M.much (not much
 * faster, decided). Whether it is faster at all (below 1/(1 + DIFF)) is reported beside it. A
 * table per point. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 16). */
static const struct {
    double much;
} M = {.much = 1.5};

static void eval(const ctx *c, claim *o)
{
    size_t pairs = 0, faster = 0, not_faster = 0, much = 0, not_much = 0, i;
    json_t *cs;
    cb_append(o->table, sizeof o->table,
              "| workload | point | file | csharp | go | csharp / go [95%%] | decided | much "
              "faster (%.1fx) |\n"
              "|---|---|---|---:|---:|---:|---|---|\n",
              M.much);
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
        int m = r.ok && r.hi < 1 / M.much ? 1 : r.ok && r.lo > 1 / M.much ? 0 : -1;
        much += m == 1;
        not_much += m == 0;
        char pk[640], rt[128] = "";
        cq_point_key(cs, pk, sizeof pk);
        cq_ratio_text(rt, sizeof rt, r, NULL, NULL);
        cb_append(o->table, sizeof o->table, "| %s | %ld | %.1f ns | %.1f ns | %s | %s | %s |\n", pk,
                  cq_file_of(cs) + 1, cq_median(cs), cq_median(go), rt,
                  d == D_FASTER   ? "csharp faster"
                  : d == D_SLOWER ? "go faster"
                  : d == D_SAME   ? "the same"
                                  : "undecided",
                  m == 1 ? "yes" : m == 0 ? "no" : "undecided");
    }
    if (!pairs) {
        o->table[0] = '\0';
        cq_not_measured(o, "timed csharp and go cells at a common point in one file");
        return;
    }
    cb_append(o->text, sizeof o->text,
              "The argument (the answer on C# and Go): C#'s async/await performs much better than "
              "Go's goroutines. Over %zu point%s where csharp (Mono's async/await over Task) and go "
              "(goroutines and unbuffered channels) ran in one file: csharp is much faster (its "
              "time's interval under 1/%.1f of go's) at %zu, decided not much faster at %zu, "
              "undecided at %zu (much faster at every point supports; not much faster at one "
              "contradicts). Faster at all (beyond %.0f%%): at %zu, the same or slower at %zu, "
              "undecided at %zu. Mono is not current .NET (docs/external.md).",
              pairs, pairs == 1 ? "" : "s", M.much, much, not_much, pairs - much - not_much,
              100 * DIFF, faster, not_faster, pairs - faster - not_faster);
    o->v = much == pairs ? CB_SUPPORTED : not_much ? CB_CONTRADICTED : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 16,
    .id = "csharp-go",
    .sentence = "C#'s async/await is much faster than Go's goroutines.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {NULL},
    .command = {.workloads = {&cb_wl_pingpong, &cb_wl_recursive, &cb_wl_spawn, &cb_wl_io},
                CQ_IMPLS(CB_IMPL_CSHARP, CB_IMPL_GO),
                .quick = 1},
};
CQ_CLAIM(row);
