/* Claim 24 of the report (stackless-memory, docs/report.md): stackless runtimes keep less per
 * suspended coroutine than stackful ones, as the thread argues it in each language (the question,
 * and the answers on C# Tasks, goroutines, generators and Lua). Decided pairwise, stackless
 * against stackful, in every pair the thread opposes: C# against Go, JavaScript against Go, C#
 * against each Lua runtime, and in C each of sm, closure and cxx20 against asm and fcontext. One
 * figure for every implementation: memory.rss_bytes_per_coro, the process's anonymous resident
 * memory grown by spawn's rest point per suspended coroutine (depth 0, layout aligned), at the
 * largest n both cells of a pair share in one file; each runtime's own heap statistics beside it.
 * Each cell's figure is taken in each of its processes (a garbage-collected runtime's differs
 * between them): a pair supports when the stackful one keeps M.less times the stackless one's
 * bytes or more in every pairing of their processes (its least over the other's most), and
 * contradicts when it keeps 1 / M.less times or less in every one. The claim: contradicted when one pair contradicts, supported
 * when every measured pair supports, otherwise inconclusive. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 24). */
static const struct {
    double less;
} M = {.less = 1.25};

/* The pairs the thread opposes: stackless first. */
static const struct {
    cb_impl_id less, more;
    const char *where;
} pairs[] = {
    {CB_IMPL_CSHARP, CB_IMPL_GO, "C# / Go"},      {CB_IMPL_NODE, CB_IMPL_GO, "JS / Go"},
    {CB_IMPL_CSHARP, CB_IMPL_LUA, "C# / Lua"},    {CB_IMPL_CSHARP, CB_IMPL_LUAJIT, "C# / Lua"},
    {CB_IMPL_SM, CB_IMPL_ASM, "C"},               {CB_IMPL_SM, CB_IMPL_FCONTEXT, "C"},
    {CB_IMPL_CLOSURE, CB_IMPL_ASM, "C"},          {CB_IMPL_CLOSURE, CB_IMPL_FCONTEXT, "C"},
    {CB_IMPL_CXX20, CB_IMPL_ASM, "C"},            {CB_IMPL_CXX20, CB_IMPL_FCONTEXT, "C"},
};
enum { NPAIRS = sizeof pairs / sizeof pairs[0] };

/* "a, b or c": the names (cb_impls[]) on one side of the pairs of group where (stackless: 0,
 * stackful: 1), each once, in the table's order. */
static void side_text(char *buf, size_t len, const char *where, int stackful)
{
    const char *seen[NPAIRS];
    size_t n = 0;
    for (size_t p = 0; p < NPAIRS; p++) {
        const char *name = cb_impl_name(stackful ? pairs[p].more : pairs[p].less);
        size_t k = 0;
        while (k < n && strcmp(seen[k], name))
            k++;
        if (!strcmp(pairs[p].where, where) && k == n)
            seen[n++] = name;
    }
    for (size_t k = 0; k < n; k++)
        cb_append(buf, len, "%s%s", !k ? "" : k + 1 < n ? ", " : " or ", seen[k]);
}

/* The pairs, a group (where) at a time: "csharp and go, ..., sm, closure or cxx20 and asm or
 * fcontext". */
static void pairs_text(char *buf, size_t len)
{
    for (size_t p = 0; p < NPAIRS; p++) {
        size_t first = 0;
        while (strcmp(pairs[first].where, pairs[p].where))
            first++;
        if (first < p)
            continue;
        cb_append(buf, len, "%s", *buf ? ", " : "");
        side_text(buf, len, pairs[p].where, 0);
        cb_append(buf, len, " and ");
        side_text(buf, len, pairs[p].where, 1);
    }
}

/* An ok depth-0 spawn cell of impl with a per-coroutine RSS, its own parameters at defaults. */
static int usable(json_t *x, const char *impl)
{
    iv r;
    cq_mem_range(x, "rss_bytes_per_coro", &r);
    return cq_matches(x, cb_wl_spawn.name, impl, "plain", DEPTH0) && cq_at_defaults(x) && r.ok;
}

/* The pair's cells at the largest n they share in one file: 1, or 0 when there is none. */
static int pair_cells(const ctx *c, const char *less, const char *more, json_t **a, json_t **b)
{
    json_t *x, *y;
    size_t i, k;
    long best = -1;
    json_array_foreach(c->all, i, x)
    {
        if (!usable(x, less))
            continue;
        long n = (long)cq_num(x, "params.n");
        json_array_foreach(c->all, k, y) if (usable(y, more) && cq_file_of(y) == cq_file_of(x) &&
                                             (long)cq_num(y, "params.n") == n && n > best)
        {
            best = n;
            *a = x;
            *b = y;
        }
    }
    return best >= 0;
}

static void eval(const ctx *c, claim *o)
{
    size_t measured = 0, support = 0, contra = 0;
    char missing[512] = "";
    for (size_t p = 0; p < NPAIRS; p++) {
        const char *l = cb_impl_name(pairs[p].less), *m = cb_impl_name(pairs[p].more);
        json_t *a = NULL, *b = NULL;
        if (!pair_cells(c, l, m, &a, &b)) {
            cb_append(missing, sizeof missing, "%s%s / %s", missing[0] ? ", " : "", l, m);
            continue;
        }
        if (!measured++)
            cb_append(o->table, sizeof o->table,
                      "| thread's pair | stackless | stackful | n | stackless bytes [processes] | "
                      "stackful bytes [processes] | stackful / stackless [over every pairing] | "
                      "own heap statistics (stackless, stackful) "
                      "| verdict |\n|---|---|---|---:|---:|---:|---:|---|---|\n");
        iv ra, rb;
        cq_mem_range(a, "rss_bytes_per_coro", &ra);
        cq_mem_range(b, "rss_bytes_per_coro", &rb);
        iv q = cq_pairing_ratio(&rb, &ra);
        cb_verdict v = q.lo >= M.less       ? CB_SUPPORTED
                       : q.hi <= 1 / M.less ? CB_CONTRADICTED
                                            : CB_INCONCLUSIVE;
        support += v == CB_SUPPORTED;
        contra += v == CB_CONTRADICTED;
        cb_append(o->table, sizeof o->table,
                  "| %s | %s | %s | %.0f | %.0f [%.0f, %.0f] | %.0f [%.0f, %.0f] | %.2fx [%.2f, "
                  "%.2f] | %.0f, %.0f | %s |\n",
                  pairs[p].where, l, m, cq_num(a, "params.n"), ra.est, ra.lo, ra.hi, rb.est, rb.lo,
                  rb.hi, q.est, q.lo, q.hi, cq_num(a, "memory.heap_bytes_per_coro"),
                  cq_num(b, "memory.heap_bytes_per_coro"),
                  cb_verdict_name(v));
    }
    if (!measured) {
        char what[512] = "", names[256] = "";
        pairs_text(names, sizeof names);
        cb_append(what, sizeof what,
                  "spawn cells at depth 0 of a stackless and a stackful implementation the "
                  "thread opposes (%s) at one n in one file, with their resident bytes per "
                  "coroutine",
                  names);
        cq_not_measured(o, what);
        return;
    }
    cb_append(o->text, sizeof o->text,
              "The argument (the question, and the answers on C# Tasks, goroutines, generators "
              "and Lua): a stackless coroutine keeps only its frames, a stackful one a stack, so "
              "stackless runtimes keep less per suspended coroutine. spawn at depth 0, resident "
              "bytes per suspended coroutine at rest (the process's anonymous resident memory "
              "grown by the rest point, one definition for every runtime; each runtime's own heap "
              "statistics beside it), each pair at the largest n it shares in one file, each "
              "figure in each process (median [least, most]): the stackful one at %.2fx the "
              "stackless one's or more in every pairing of their processes supports the pair, at "
              "%.2fx or less in every one contradicts it. %zu of %zu measured pairs support, %zu contradict (table "
              "below); one pair contradicted contradicts the claim, every pair supported "
              "supports it.",
              M.less, 1 / M.less, support, measured, contra);
    if (missing[0])
        cb_append(o->text, sizeof o->text, " Not measured: %s.", missing);
    o->v = contra ? CB_CONTRADICTED : support == measured ? CB_SUPPORTED : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 24,
    .id = "stackless-memory",
    .sentence = "Stackless runtimes keep less per suspended coroutine than stackful ones (in each "
                "language pair the thread opposes, and in C).",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"spawn-memory"},
    .command = {.workloads = {&cb_wl_spawn},
                CQ_IMPLS(CB_IMPL_CSHARP, CB_IMPL_NODE, CB_IMPL_GO, CB_IMPL_LUA, CB_IMPL_LUAJIT,
                         CB_IMPL_SM, CB_IMPL_CLOSURE, CB_IMPL_CXX20, CB_IMPL_ASM,
                         CB_IMPL_FCONTEXT),
                .params = {"n=10000"}},
};
CQ_CLAIM(row);
