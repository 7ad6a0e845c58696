/* Claim 18 of the report (lua-memory, docs/report.md): Lua keeps a whole state per coroutine, so
 * it costs more memory, as the answer states it: against C#'s Tasks ("后者的运行时内存占用会大",
 * the latter's runtime memory is large). spawn at depth 0, the largest n with a Lua cell (lua,
 * luajit) and a csharp cell in one file: each Lua runtime's resident bytes per suspended coroutine
 * at rest (memory.rss_bytes_per_coro: the process's anonymous resident memory, one definition for
 * every runtime) over csharp's, each in every one of their processes. Supported when every Lua
 * runtime holds M.lua_more times it or more in every pairing of processes (its least over
 * csharp's most); contradicted when one holds M.lua_no_more times or less in every pairing. Each runtime's own heap
 * statistics are beside it; the C families (the largest stackless C implementation, asm) are a
 * note at the same n, reported, not decided. */
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

/* The cell's resident bytes per coroutine: the median over its processes (NAN: none). */
static double rss(json_t *cell)
{
    iv r;
    cq_mem_range(cell, "rss_bytes_per_coro", &r);
    return r.ok ? r.est : NAN;
}

static int usable(json_t *x, const char *impl)
{
    return cq_matches(x, cb_wl_spawn.name, impl, "plain", DEPTH0) && isfinite(rss(x)) &&
           rss(x) > 0;
}

static void eval(const ctx *c, claim *o)
{
    const char *const luas[] = {cb_impl_name(CB_IMPL_LUA), cb_impl_name(CB_IMPL_LUAJIT)};
    const char *cs = cb_impl_name(CB_IMPL_CSHARP);
    json_t *l[2] = {NULL, NULL}, *ref = NULL, *x, *y;
    size_t i, k;
    long N = -1, F = -1;
    /* The largest n where a Lua runtime and csharp ran in one file. */
    json_array_foreach(c->all, i, x)
    {
        if (!usable(x, cs))
            continue;
        long n = (long)cq_num(x, "params.n");
        json_array_foreach(c->all, k, y) if ((usable(y, luas[0]) || usable(y, luas[1])) &&
                                             cq_file_of(y) == cq_file_of(x) &&
                                             cq_num(y, "params.n") == (double)n && n > N)
        {
            N = n;
            F = cq_file_of(x);
            ref = x;
        }
    }
    if (N < 0) {
        cq_not_measured(o, "spawn cells at depth 0 of a Lua runtime and csharp in one file, with "
                           "their resident bytes per coroutine");
        return;
    }
    char mt[96];
    snprintf(mt, sizeof mt, DEPTH0 " n=%ld", N);
    for (size_t j = 0; j < 2; j++) {
        l[j] = cq_find_in(c->all, cb_wl_spawn.name, luas[j], "plain", mt, F);
        if (l[j] && !usable(l[j], luas[j]))
            l[j] = NULL;
    }
    /* The note: the largest stackless C implementation and asm at the same point. */
    json_t *less = NULL, *sf = cq_find_in(c->all, cb_wl_spawn.name, cb_impl_name(CB_IMPL_ASM),
                                          "plain", mt, F);
    json_array_foreach(c->all, i, x)
    {
        const char *f = cb_str(x, "family");
        if (cq_file_of(x) == F && f && !strcmp(f, "stackless") && !cq_language(x) &&
            usable(x, NULL) && cq_num(x, "params.n") == (double)N && (!less || rss(x) > rss(less)))
            less = x;
    }
    double cb = rss(ref);
    cb_append(o->table, sizeof o->table,
              "| implementation | resident bytes per coroutine [processes] | own heap statistics "
              "| over %s (%.0f) [over every pairing] | note: over %s | note: over asm |\n|---|---:|---:|---:|---:|---:|\n",
              cs, cb, less ? cb_str(less, "impl") : "a stackless C implementation (not measured)");
    int more = 1, no_more = 0;
    iv rc;
    cq_mem_range(ref, "rss_bytes_per_coro", &rc);
    for (size_t j = 0; j < 2; j++) {
        if (!l[j])
            continue;
        iv r;
        cq_mem_range(l[j], "rss_bytes_per_coro", &r);
        double b = r.est;
        iv q = cq_pairing_ratio(&r, &rc);
        more &= q.lo >= M.lua_more;
        no_more |= q.hi <= M.lua_no_more;
        char s1[32] = "-", s2[32] = "-";
        if (less)
            snprintf(s1, sizeof s1, "%.2fx", b / rss(less));
        if (sf && isfinite(rss(sf)) && rss(sf) > 0)
            snprintf(s2, sizeof s2, "%.2fx", b / rss(sf));
        cb_append(o->table, sizeof o->table,
                  "| %s | %.0f [%.0f, %.0f] | %.0f | %.2fx [%.2f, %.2f] | %s | %s |\n", luas[j], b,
                  r.lo, r.hi, cq_num(l[j], "memory.heap_bytes_per_coro"), q.est, q.lo, q.hi, s1,
                  s2);
    }
    cb_append(o->table, sizeof o->table, "| %s | %.0f [%.0f, %.0f] | %.0f | 1.00x | | |\n", cs,
              cb, rc.lo, rc.hi, cq_num(ref, "memory.heap_bytes_per_coro"));
    cb_append(o->text, sizeof o->text,
              "The argument (the answer on Lua and C#): Lua keeps a whole state per coroutine, so "
              "its runtime memory is larger than C#'s Tasks. spawn, n = %ld, depth 0, resident "
              "bytes per suspended coroutine at rest (the process's anonymous resident memory, one "
              "definition for every runtime, the median of its processes; its own heap statistics "
              "beside it): %s%s%s against csharp's %.0f (%.0fx or more for every Lua runtime in "
              "every pairing of their processes supports, %.2fx or less for one in every pairing "
              "contradicts; table below). Note, not decided: the C families at the same n",
              N, l[0] ? luas[0] : "", l[0] && l[1] ? " and " : "", l[1] ? luas[1] : "", cb,
              M.lua_more, M.lua_no_more);
    if (less)
        cb_append(o->text, sizeof o->text, ", the largest stackless C implementation %s %.0f",
                  cb_str(less, "impl"), rss(less));
    if (sf && isfinite(rss(sf)))
        cb_append(o->text, sizeof o->text, ", asm %.0f (a stack page is not a state)", rss(sf));
    if (!less && !(sf && isfinite(rss(sf))))
        cb_append(o->text, sizeof o->text, ": not measured in this file");
    cb_append(o->text, sizeof o->text, ".");
    o->v = more ? CB_SUPPORTED : no_more ? CB_CONTRADICTED : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 18,
    .id = "lua-memory",
    .sentence = "Lua keeps a whole state per coroutine, so it costs more memory than C#'s Tasks "
                "(the C families kept as a note).",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"spawn-memory"},
    .command = {.workloads = {&cb_wl_spawn},
                CQ_IMPLS(CB_IMPL_LUA, CB_IMPL_LUAJIT, CB_IMPL_CSHARP, CB_IMPL_ASM, CB_IMPL_SM,
                         CB_IMPL_CLOSURE, CB_IMPL_CXX20),
                .params = {"n=10000"}},
};
CQ_CLAIM(row);
