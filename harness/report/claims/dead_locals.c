/* Claim 22 of the report (dead-locals, docs/report.md): a compiler's coroutine frame keeps more
 * than the live state (two answers: C++ cannot destroy dead locals early, the compiler saves every
 * variable across the states, a person only the live ones). spawn at locals=dead (each level fills
 * `frame` bytes of locals and folds them into the one word it reads after the suspension): per
 * compiler (cxx20: g++, cxx20-clang: clang++), its heap bytes per coroutine at rest (the frames'
 * allocation sizes) against sm's (the state a person keeps: one word per level), at every depth
 * both have at sm's frame and n, and per level (the least-squares slope over depth). A compiler
 * keeps more when both ratios are M.more or more at every depth; it keeps the live state when its
 * bytes per level are M.same times sm's or less. The claim: supported when one compiler keeps
 * more, contradicted when every compiler measured keeps the live state, otherwise inconclusive. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 22). */
static const struct {
    double more, same;
} M = {.more = 1.5, .same = 1.25};

#define HEAP "memory.heap_bytes_per_coro"

static void eval(const ctx *c, claim *o)
{
    const char *const sm = cb_impl_name(CB_IMPL_SM);
    const char *const cx[] = {cb_impl_name(CB_IMPL_CXX20), cb_impl_name(CB_IMPL_CXX20_CLANG)};
    /* sm's point: the frame and n of its first locals=dead cell with heap bytes. */
    json_t *first = NULL, *cell;
    size_t i;
    json_array_foreach(c->cells, i, cell) if (!first &&
                                              cq_matches(cell, cb_wl_spawn.name, sm, "plain",
                                                         "locals=dead layout=aligned") &&
                                              isfinite(cq_num(cell, HEAP))) first = cell;
    char mt[96] = "";
    if (first)
        snprintf(mt, sizeof mt, "locals=dead layout=aligned frame=%.0f n=%.0f",
                 cq_num(first, "params.frame"), cq_num(first, "params.n"));
    const char *const ks[2] = {sm, cx[0]}, *const kc[2] = {sm, cx[1]};
    long d[2][MAXPTS];
    size_t nd[2] = {first ? cq_common(c, cb_wl_spawn.name, ks, NULL, 2, mt, "depth", d[0]) : 0,
                    first ? cq_common(c, cb_wl_spawn.name, kc, NULL, 2, mt, "depth", d[1]) : 0};
    if (nd[0] < 2 && nd[1] < 2) {
        cq_not_measured(o, "spawn cells at locals=dead of sm and cxx20 or cxx20-clang at two or "
                           "more depths (same frame and n), with their heap bytes per coroutine");
        return;
    }
    cb_append(o->text, sizeof o->text,
              "The argument (two answers): a C++ compiler cannot destroy dead locals early and "
              "saves every variable across the states; a person keeps only the live ones. spawn, "
              "locals=dead, %s: each level fills %.0f bytes of locals and folds them into the one "
              "word it reads after the suspension. Heap bytes per coroutine at rest (the frames' "
              "allocation sizes) against sm's, which keeps that word per level.",
              mt + strlen("locals=dead layout=aligned "), cq_num(first, "params.frame"));
    cb_append(o->table, sizeof o->table,
              "| implementation | depth | bytes per coroutine | sm's | ratio |\n"
              "|---|---:|---:|---:|---:|\n");
    int measured = 0, keeps_more = 0, all_live = 1;
    for (size_t k = 0; k < 2; k++) {
        if (nd[k] < 2)
            continue;
        double y[MAXPTS], ys[MAXPTS], worst = INFINITY;
        int ok = 1;
        for (size_t j = 0; j < nd[k]; j++) {
            json_t *a = cq_findf(c, cb_wl_spawn.name, cx[k], "plain", "%s depth=%ld", mt, d[k][j]);
            json_t *s = cq_findf(c, cb_wl_spawn.name, sm, "plain", "%s depth=%ld", mt, d[k][j]);
            y[j] = cq_num(a, HEAP);
            ys[j] = cq_num(s, HEAP);
            ok &= isfinite(y[j]) && ys[j] > 0;
            if (ok && y[j] / ys[j] < worst)
                worst = y[j] / ys[j];
            if (ok)
                cb_append(o->table, sizeof o->table, "| %s | %ld | %.0f | %.0f | %.2fx |\n", cx[k],
                          d[k][j], y[j], ys[j], y[j] / ys[j]);
        }
        double pl = cq_slope(d[k], y, nd[k]), pls = cq_slope(d[k], ys, nd[k]);
        if (!ok || !isfinite(pl) || !(pls > 0)) {
            cb_append(o->text, sizeof o->text, " %s: no heap bytes at every depth.", cx[k]);
            all_live = 0;
            continue;
        }
        measured = 1;
        double q = pl / pls;
        int more = q >= M.more && worst >= M.more, live = q <= M.same;
        keeps_more |= more;
        all_live &= live;
        /* What the same compiler keeps of live locals at the same point, when measured. */
        char lm[96], lt[96] = "";
        snprintf(lm, sizeof lm, "locals=live%s", mt + strlen("locals=dead"));
        double yl[MAXPTS];
        int have_live = 1;
        for (size_t j = 0; j < nd[k]; j++)
            have_live &= isfinite(yl[j] = cq_num(cq_findf(c, cb_wl_spawn.name, cx[k], "plain",
                                                          "%s depth=%ld", lm, d[k][j]),
                                                 HEAP));
        if (have_live)
            snprintf(lt, sizeof lt, "; with the same locals live, %.0f", cq_slope(d[k], yl, nd[k]));
        cb_append(o->text, sizeof o->text,
                  " %s keeps %.0f bytes per level to sm's %.0f (%.2fx%s; at depth %ld..%ld the "
                  "lowest ratio per coroutine is %.2fx): %s.",
                  cx[k], pl, pls, q, lt, d[k][0], d[k][nd[k] - 1], worst,
                  more   ? "its frame keeps the dead locals"
                  : live ? "its frame keeps the live state only"
                         : "between the two margins");
    }
    if (!measured) {
        o->v = CB_INCONCLUSIVE;
        cb_append(o->text, sizeof o->text, " nothing to decide on.");
        return;
    }
    cb_append(o->text, sizeof o->text,
              " %.1fx or more per level and at every depth for one compiler supports; %.2fx or "
              "less per level for every compiler measured contradicts (table below). The "
              "locals' address escapes (an empty asm reads them, as a call given the buffer "
              "would), so no compiler may drop them as unused; one whose scope ends before the "
              "await is another body, not measured.",
              M.more, M.same);
    o->v = keeps_more ? CB_SUPPORTED : all_live ? CB_CONTRADICTED : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 22,
    .id = "dead-locals",
    .sentence = "A compiler's coroutine frame keeps more than the live state: C++ cannot destroy "
                "dead locals early.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {NULL},
    .command = {.workloads = {&cb_wl_spawn},
                CQ_IMPLS(CB_IMPL_SM, CB_IMPL_CXX20, CB_IMPL_CXX20_CLANG),
                .params = {"locals=dead", "depth=1,4", "frame=1024", "n=1000"}},
};
CQ_CLAIM(row);
