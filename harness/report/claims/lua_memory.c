/* Claim 18 of the report (lua-memory, docs/report.md): Lua keeps a whole state per coroutine, so it
 * costs more memory. spawn at depth 0, the largest n with a Lua cell (lua, luajit) and a stackless
 * C cell in one file: each Lua runtime's bytes per coroutine at rest (memory.heap_bytes_per_coro:
 * its allocator's for lua, the runtime's own count for luajit) over the largest stackless C
 * implementation's heap bytes (a coroutine that keeps only its frames). Supported when every Lua
 * runtime holds M.lua_more times it or more; contradicted when one holds M.lua_no_more times or
 * less. Against the stackful C family (asm: its touched stack plus heap) the ratio is reported, not
 * decided: a stack page is not a state. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 18). */
static const struct {
    double lua_more, lua_no_more;
} M = {.lua_more = 2.0, .lua_no_more = 1.25};

static void eval(const ctx *c, claim *o)
{
    const char *const luas[] = {cb_impl_name(CB_IMPL_LUA), cb_impl_name(CB_IMPL_LUAJIT)};
    json_t *l[2] = {NULL, NULL}, *less = NULL, *x;
    size_t i;
    long N = -1;
    /* The largest n where a Lua runtime and a stackless C implementation ran in one file. */
    json_array_foreach(c->all, i, x)
    {
        const char *impl = cb_str(x, "impl");
        if (!cq_matches(x, cb_wl_spawn.name, NULL, "plain", DEPTH0) ||
            (strcmp(impl, cb_impl_name(CB_IMPL_LUA)) &&
             strcmp(impl, cb_impl_name(CB_IMPL_LUAJIT))) ||
            !isfinite(cq_num(x, "memory.heap_bytes_per_coro")))
            continue;
        long n = (long)cq_num(x, "params.n");
        json_t *y;
        size_t k;
        json_array_foreach(c->all, k, y)
        {
            const char *f = cb_str(y, "family");
            if (cq_file_of(y) == cq_file_of(x) && f && !strcmp(f, "stackless") && !cq_language(y) &&
                cq_num(y, "params.n") == (double)n &&
                cq_matches(y, cb_wl_spawn.name, NULL, "plain", DEPTH0) &&
                cq_num(y, "memory.heap_bytes_per_coro") > 0 && n > N)
                N = n;
        }
    }
    if (N < 0) {
        cq_not_measured(o, "spawn cells at depth 0 of a Lua runtime and a stackless C "
                           "implementation in one file, with their bytes per coroutine");
        return;
    }
    char mt[64];
    snprintf(mt, sizeof mt, DEPTH0 " n=%ld", N);
    json_array_foreach(c->all, i, x)
    {
        const char *f = cb_str(x, "family"), *impl = cb_str(x, "impl");
        if (!cq_matches(x, cb_wl_spawn.name, NULL, "plain", mt))
            continue;
        for (size_t k = 0; k < 2; k++)
            if (!strcmp(impl, luas[k]) && !l[k] &&
                isfinite(cq_num(x, "memory.heap_bytes_per_coro")))
                l[k] = x;
        double hb = cq_num(x, "memory.heap_bytes_per_coro");
        if (f && !strcmp(f, "stackless") && !cq_language(x) && isfinite(hb) &&
            (!less || hb > cq_num(less, "memory.heap_bytes_per_coro")))
            less = x;
    }
    json_t *sf = cq_find(c, cb_wl_spawn.name, cb_impl_name(CB_IMPL_ASM), "plain", mt);
    double lh = cq_num(less, "memory.heap_bytes_per_coro"),
           sfb = cq_num(sf, "memory.touched_bytes_per_coro") +
                 cq_num(sf, "memory.heap_bytes_per_coro");
    cb_append(
        o->table, sizeof o->table,
        "| implementation | bytes per coroutine | over %s (%.0f) | over asm (touched + heap%s) "
        "|\n|---|---:|---:|---:|\n",
        cb_str(less, "impl"), lh, isfinite(sfb) ? "" : ": not measured");
    int more = 1, no_more = 0;
    for (size_t k = 0; k < 2; k++) {
        if (!l[k])
            continue;
        double b = cq_num(l[k], "memory.heap_bytes_per_coro"), q = b / lh;
        more &= q >= M.lua_more;
        no_more |= q <= M.lua_no_more;
        char s[32] = "-";
        if (isfinite(sfb) && sfb > 0)
            snprintf(s, sizeof s, "%.2fx", b / sfb);
        cb_append(o->table, sizeof o->table, "| %s | %.0f | %.2fx | %s |\n", luas[k], b, q, s);
    }
    cb_append(o->text, sizeof o->text,
              "spawn, n = %ld, depth 0, bytes per coroutine at rest: %s%s%s against the largest "
              "stackless C implementation's heap, %s's %.0f (%.0fx or more for every Lua runtime "
              "supports, %.2fx or less for one contradicts; table below). A stackful C coroutine "
              "is reported, not decided: ",
              N, l[0] ? cb_impl_name(CB_IMPL_LUA) : "", l[0] && l[1] ? " and " : "",
              l[1] ? cb_impl_name(CB_IMPL_LUAJIT) : "", cb_str(less, "impl"), lh, M.lua_more,
              M.lua_no_more);
    if (isfinite(sfb))
        cb_append(o->text, sizeof o->text,
                  "asm occupies %.0f bytes (its touched stack and heap; each Lua runtime over it "
                  "in the table).",
                  sfb);
    else
        cb_append(o->text, sizeof o->text, "no asm spawn cell at this point.");
    o->v = more ? CB_SUPPORTED : no_more ? CB_CONTRADICTED : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 18,
    .id = "lua-memory",
    .sentence =
        "Lua keeps a whole state per coroutine, so it costs more memory (against the C families' "
        "coroutines that keep only their frames).",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"spawn-memory"},
    .command = {.workloads = {&cb_wl_spawn},
                CQ_IMPLS(CB_IMPL_LUA, CB_IMPL_LUAJIT, CB_IMPL_ASM, CB_IMPL_SM, CB_IMPL_CLOSURE,
                         CB_IMPL_CXX20),
                .params = {"n=1000,10000"}},
};
CQ_CLAIM(row);
