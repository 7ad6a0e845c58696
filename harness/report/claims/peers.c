/* Claim 11 of the report (peers, docs/report.md): corobench's runtimes are as fast as the fastest
 * peers: at every point (workload and parameters, the implementations' own parameters at their
 * defaults) where a peer and one of corobench's runtimes of its family ran in the same file, the
 * fastest of corobench's there over the peer. "As fast" is that ratio's interval below 1 + EQUIV
 * (faster counts). Supported when it holds for every pair; contradicted when a pair's interval lies
 * above it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* A peer: any implementation not corobench's own. */
static int peer(json_t *cell)
{
    return !cq_own_impl(cell);
}

/* The built-in implementations of kind k (and k2), stackful or stackless, in their table's order,
 * as "a, b, c": the claim's prose names them from impls/, not from a list of its own. */
static void names_of(char *buf, size_t len, cb_impl_kind k, cb_impl_kind k2)
{
    buf[0] = '\0';
    for (size_t i = 0; i < cb_nimpls; i++) {
        const cb_impl *im = &cb_impls[i];
        if ((im->kind == k || im->kind == k2) &&
            (!strcmp(im->family, "stackful") || !strcmp(im->family, "stackless")))
            cb_append(buf, len, "%s%s", buf[0] ? ", " : "", im->name);
    }
}

static void eval(const ctx *c, claim *o)
{
    char peers[512], own[512];
    names_of(peers, sizeof peers, CB_KIND_PEER, CB_KIND_LANGUAGE);
    names_of(own, sizeof own, CB_KIND_OWN, CB_KIND_OWN);
    size_t pairs, same = 0, slower = 0, open = 0, faster_rows = 0;
    cq_pair *pr = cq_own_pairs(c, peer, 0, &pairs);
    cb_append(o->table, sizeof o->table,
              "| workload | point | file | corobench's fastest | peer | corobench's / peer "
              "[95%%] | as fast? |\n|---|---|---|---|---|---:|---|\n");
    for (size_t i = 0; i < pairs; i++) {
        json_t *own = pr[i].own, *p = pr[i].other;
        iv r = cq_ratio_iv(own, p);
        int as_fast = r.ok && r.hi <= 1 + EQUIV, behind = r.ok && r.lo > 1 + EQUIV;
        same += as_fast;
        slower += behind;
        open += !as_fast && !behind;
        if (!(r.est > 1))
            continue;
        faster_rows++;
        char rt[128] = "", f[2][32], point[640];
        cq_ratio_text(rt, sizeof rt, r, own, p);
        cq_point_key(p, point, sizeof point);
        cb_append(o->table, sizeof o->table, "| %s | %ld | %s %s ns | %s %s ns | %s | %s |\n",
                  point, cq_file_of(p) + 1, cb_str(own, "impl"), cq_ns_fig(cq_median(own), f[0]),
                  cb_str(p, "impl"), cq_ns_fig(cq_median(p), f[1]), rt,
                  as_fast  ? "yes (within the margin)"
                  : behind ? "no"
                           : "undecided");
    }
    free(pr);
    if (!pairs) {
        o->table[0] = '\0';
        char what[1200];
        snprintf(what, sizeof what,
                 "points where a peer (%s) and one of corobench's runtimes of its family ran in "
                 "the same file",
                 peers);
        cq_not_measured(o, what);
        return;
    }
    cb_append(o->text, sizeof o->text,
              "Over %zu pairs (a point, a peer, and the fastest of corobench's runtimes of the "
              "peer's family there: %s, all in one file): as fast (the ratio's interval "
              "under %.2f) at %zu, slower beyond that at %zu, undecided at %zu. Where a peer "
              "is faster by the estimate: %s.",
              pairs, own, 1 + EQUIV, same, slower, open, faster_rows ? "the table below" : "nowhere");
    if (!faster_rows)
        o->table[0] = '\0';
    o->v = slower ? CB_CONTRADICTED : same == pairs ? CB_SUPPORTED : CB_INCONCLUSIVE;
}

/* ---- The thread's four remaining claims (issue 21): hooks, asymmetric switching, awaits
 * that complete at once, depth-first scheduling. ---- */

static const cq_claim row = {
    .number = 11,
    .id = "peers",
    .sentence = "corobench's own runtimes are as fast as the fastest peers (other libraries and "
                "languages).",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"pingpong-depth-distinct"},
    .command = {.workloads = {&cb_wl_pingpong}, .all_impls = 1, .params = {"depth=0"}},
};
CQ_CLAIM(row);
