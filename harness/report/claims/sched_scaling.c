/* Claim 26 of the report (sched-scaling, docs/report.md): stackless tasks scale over cores at
 * least as well as stackful coroutines (the thread's last answer: an N:M scheduler of stackless
 * micro-threads). forkjoin and yieldstorm on the scheduler (docs/sched.md), work stealing
 * (queue=steal), each of corobench's own runtimes at workers=1 and at W, the most workers up to
 * the machine's CPUs with such pairs (more workers than CPUs share them: no scaling to measure).
 * A runtime's speed-up is T(1)/T(W) of ns per task, its efficiency that over W; per workload
 * and point, each stackless runtime's speed-up over each stackful one's (their efficiencies'
 * ratio), its interval the widest combination of the two speed-ups' (the four cells'). A pair
 * supports at or above 1/M.equiv (at least as well, within the shared equivalence margin) and
 * contradicts below it; the claim is contradicted when one pair is, supported when every pair
 * is, otherwise inconclusive. A machine with one CPU cannot measure it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "sched_rule.h"

/* Its margins (docs/report.md, claim 26): the equivalence margin every "as ... as" takes. */
static const struct {
    double equiv;
    long cpus; /* the fewest CPUs that can show a speed-up */
} M = {.equiv = 1 + EQUIV, .cpus = 2};

#define WLS cq_sched_wls
enum { NWL = sizeof cq_sched_wls / sizeof *cq_sched_wls };

/* The speed-up T(1)/T(W) of a pair (own: the W cell, other: the one-worker cell). */
static iv speedup(cq_pair p) { return cq_ratio_iv(p.other, p.own); }

/* One row of the table: a runtime's cells at 1 and W workers. */
static void row_text(claim *o, const cb_workload *wl, cq_pair p, long W)
{
    char point[640], t1[128] = "", tw[128] = "", s[128] = "";
    iv sp = speedup(p);
    cb_cell_params_text(p.own, 0, point, sizeof point);
    cq_cell_text(t1, sizeof t1, cq_cell_iv(p.other));
    cq_cell_text(tw, sizeof tw, cq_cell_iv(p.own));
    cq_ratio_text(s, sizeof s, sp, p.other, p.own);
    cb_append(o->table, sizeof o->table, "| %s | %s | %s | %s | %s | %s | %.2f |\n", wl->name,
              point, cb_str(p.own, "impl"), t1, tw, s, sp.est / (double)W);
}

static void eval(const ctx *c, claim *o)
{
    long cpus = cq_cpus(c), W;
    cq_pair *p[NWL] = {NULL};
    size_t np[NWL] = {0};
    if (cpus && cpus < M.cpus) {
        o->v = CB_NOT_MEASURED;
        cb_append(o->text, sizeof o->text,
                  "Not measured here: the machine has %ld CPU, and a speed-up needs %ld or more "
                  "(workers beyond the CPUs share them).",
                  cpus, M.cpus);
        return;
    }
    /* The most workers at which some runtime has both points, in any of the workloads. */
    W = cq_sched_workers(c, cpus, "queue=steal", "workers", "1");
    for (size_t w = 0; w < NWL && W; w++)
        p[w] = cq_sched_pairs(c, WLS[w], W, "queue=steal", "workers", "1", &np[w]);
    /* Each stackless runtime against each stackful one at one point of one file. */
    int any = 0, contra = 0, all = 1;
    char pairs[4096] = "";
    for (size_t w = 0; w < NWL; w++)
        for (size_t i = 0; i < np[w]; i++)
            for (size_t j = 0; j < np[w]; j++) {
                cq_pair sf = p[w][i], sl = p[w][j];
                char ka[640], kb[640];
                cq_point_key(sf.own, ka, sizeof ka);
                cq_point_key(sl.own, kb, sizeof kb);
                if (cq_family_index(sf.own) != 0 || cq_family_index(sl.own) != 1 ||
                    cq_file_of(sf.own) != cq_file_of(sl.own) || strcmp(ka, kb))
                    continue;
                iv a = speedup(sl), b = speedup(sf);
                iv q = {.est = a.est / b.est, .lo = a.lo / b.hi, .hi = a.hi / b.lo,
                        .ok = a.ok && b.ok, .why = !a.ok ? a.why : b.why};
                cb_verdict v = !q.ok                   ? CB_INCONCLUSIVE
                               : q.lo >= 1 / M.equiv  ? CB_SUPPORTED
                               : q.hi < 1 / M.equiv   ? CB_CONTRADICTED
                                                      : CB_INCONCLUSIVE;
                any = 1;
                contra |= v == CB_CONTRADICTED;
                all &= v == CB_SUPPORTED;
                cb_append(pairs, sizeof pairs, " %s %s over %s: ", WLS[w]->name,
                          cb_str(sl.own, "impl"), cb_str(sf.own, "impl"));
                if (q.ok)
                    cb_append(pairs, sizeof pairs, "%.2fx [%.2f, %.2f]", q.est, q.lo, q.hi);
                else
                    cb_append(pairs, sizeof pairs, "%.2fx, no interval: %s", q.est, q.why);
                cb_append(pairs, sizeof pairs, " (%s).", cb_verdict_name(v));
            }
    if (!any) {
        cq_not_measured(o, "forkjoin or yieldstorm cells (queue=steal) of a stackful and a "
                           "stackless runtime of corobench's at workers=1 and at one workers "
                           "value from 2 up to the machine's CPUs, at one point in one file");
        if (!cpus)
            cb_append(o->text, sizeof o->text,
                      " The results do not say how many CPUs the machine had "
                      "(machine.logical_cpus).");
        goto out;
    }
    cb_append(o->text, sizeof o->text,
              "The argument (the thread's last answer): an N:M scheduler of stackless "
              "micro-threads over the cores. forkjoin and yieldstorm on corobench's scheduler with "
              "work stealing (a Chase-Lev deque per worker, random victims), at 1 and %ld workers "
              "on %ld CPUs. A runtime's speed-up is its ns per task at 1 worker over at %ld, its "
              "efficiency the speed-up over %ld. Each stackless runtime's speed-up over each "
              "stackful one's (the ratio of their efficiencies), its interval the widest "
              "combination of the two speed-ups' 95%% intervals: at least as well when it lies at "
              "1/%.2f or above, not when it lies below.",
              W, cpus, W, W, M.equiv);
    cb_append(o->text, sizeof o->text, "%s", pairs);
    cb_append(o->text, sizeof o->text,
              " Every pair at least as well supports the claim; one below contradicts it.");
    cb_append(o->table, sizeof o->table,
              "| workload | point | implementation | ns per task, 1 worker | ns per task, %ld "
              "workers | speed-up | efficiency |\n|---|---|---|---:|---:|---:|---:|\n",
              W);
    for (size_t w = 0; w < NWL; w++)
        for (size_t i = 0; i < np[w]; i++)
            row_text(o, WLS[w], p[w][i], W);
    o->v = contra ? CB_CONTRADICTED : all ? CB_SUPPORTED : CB_INCONCLUSIVE;
out:
    for (size_t w = 0; w < NWL; w++)
        free(p[w]);
}

static const cq_claim row = {
    .number = 26,
    .id = "sched-scaling",
    .sentence = "Stackless tasks scale over cores at least as well as stackful coroutines.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {NULL},
    .command = {.workloads = {&cb_wl_forkjoin, &cb_wl_yieldstorm},
                CQ_IMPLS(CB_IMPL_ASM, CB_IMPL_SM, CB_IMPL_CLOSURE),
                .params = {"workers=1,2", "queue=steal"}},
};
CQ_CLAIM(row);
