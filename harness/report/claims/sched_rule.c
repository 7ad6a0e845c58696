/* The scheduler's claims' shared queries and the queue rule (sched_rule.h). */
#include "sched_rule.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"
#include "harness/results/cell.h"
#include "harness/results/fields.h"

const cb_workload *const cq_sched_wls[2] = {&cb_wl_forkjoin, &cb_wl_yieldstorm};
enum { NWL = sizeof cq_sched_wls / sizeof *cq_sched_wls };

long cq_cpus(const ctx *c)
{
    double n = cq_num(c->doc, "machine.logical_cpus");
    return isfinite(n) && n >= 1 ? (long)n : 0;
}

/* The cell of impl in file f at cell's point with parameter name at value. */
static json_t *point_with(const ctx *c, json_t *cell, long f, const char *name, const char *value)
{
    json_t *params = json_deep_copy(json_object_get(cell, "params"));
    char *end;
    long long v = strtoll(value, &end, 10);
    int num = json_is_integer(json_object_get(params, name)) && *value && !*end;
    json_object_set_new(params, name, num ? json_integer(v) : json_string(value));
    json_t *moved = json_pack("{s:O,s:O,s:O,s:o}", "workload", json_object_get(cell, "workload"),
                              "impl", json_object_get(cell, "impl"), "impl_row",
                              json_object_get(cell, "impl_row") ?: json_null(), "params", params);
    json_t *x = cq_same_point(c, moved, cb_str(cell, "impl"), f);
    json_decref(moved);
    return x;
}

cq_pair *cq_sched_pairs(const ctx *c, const cb_workload *wl, long W, const char *match,
                        const char *name, const char *value, size_t *n)
{
    char m[256];
    snprintf(m, sizeof m, "workers=%ld %s", W, match);
    cq_pair *out = cb_xcalloc(json_array_size(c->all) + 1, sizeof *out);
    json_t *x;
    size_t i;
    *n = 0;
    json_array_foreach(c->all, i, x)
    {
        /* a coroutine family's (direct runs on one thread, whatever its workers and queue) */
        if (!cq_own_impl(x) || cq_family_index(x) < 0 || !cq_at_defaults(x) ||
            !cq_matches(x, wl->name, NULL, "plain", m))
            continue;
        json_t *y = point_with(c, x, cq_file_of(x), name, value);
        if (y && cq_num(x, "ops") == cq_num(y, "ops") &&
            !strcmp(cb_str(x, "checksum") ?: "", cb_str(y, "checksum") ?: ""))
            out[(*n)++] = (cq_pair){.own = x, .other = y};
    }
    return out;
}

long cq_sched_workers(const ctx *c, long cpus, const char *match, const char *name,
                      const char *value)
{
    long best = 0;
    for (size_t w = 0; w < NWL; w++) {
        long all[MAXPTS];
        size_t k = cq_values(c, cq_sched_wls[w]->name, NULL, "plain", "", "workers", all);
        for (size_t j = k; j-- > 0;) {
            if (all[j] < 2 || all[j] > cpus || all[j] <= best)
                continue;
            size_t n;
            free(cq_sched_pairs(c, cq_sched_wls[w], all[j], match, name, value, &n));
            if (n) {
                best = all[j];
                break;
            }
        }
    }
    return best;
}

void cq_sched_queue_rule(const ctx *c, claim *o, long min_cpus, const char *a,
                         const char *const *b, size_t nb, const char *what)
{
    long cpus = cq_cpus(c), W = 0;
    char own[64];
    snprintf(own, sizeof own, "queue=%s", a);
    for (size_t k = 0; k < nb; k++) {
        long w = cq_sched_workers(c, cpus, own, "queue", b[k]);
        W = w > W ? w : W;
    }
    if (!W) {
        char need[512];
        snprintf(need, sizeof need,
                 "forkjoin or yieldstorm cells of one of corobench's runtimes with queue=%s and "
                 "with another queue at one workers value from 2 up to the machine's CPUs, at one "
                 "point in one file",
                 a);
        cq_not_measured(o, need);
        if (!cpus)
            cb_append(o->text, sizeof o->text,
                      " The results do not say how many CPUs the machine had "
                      "(machine.logical_cpus).");
        else if (cpus < min_cpus)
            cb_append(o->text, sizeof o->text,
                      " It needs a machine with %ld CPUs or more; this one has %ld.", min_cpus,
                      cpus);
        return;
    }
    int few = cpus < min_cpus, contra = 0, all = 1;
    cb_append(o->text, sizeof o->text,
              "%s forkjoin and yieldstorm on corobench's scheduler at %ld workers on %ld CPUs, "
              "each runtime with queue=%s against ",
              what, W, cpus, a);
    for (size_t k = 0; k < nb; k++)
        cb_append(o->text, sizeof o->text, "%s%s", k ? (k + 1 == nb ? " and " : ", ") : "", b[k]);
    cb_append(o->text, sizeof o->text,
              " at one point: ns per task (per yield) of %s over the other's, faster when the 95%% "
              "interval lies below 1/%.2f, the same or slower when it lies at or above it.",
              a, 1 + DIFF);
    cb_append(o->table, sizeof o->table,
              "| workload | point | implementation | queue=%s | other queue | ns per op there "
              "| %s over it |\n|---|---|---|---:|---|---:|---:|\n",
              a, a);
    for (size_t w = 0; w < NWL; w++)
        for (size_t k = 0; k < nb; k++) {
            size_t n;
            cq_pair *p = cq_sched_pairs(c, cq_sched_wls[w], W, own, "queue", b[k], &n);
            for (size_t i = 0; i < n; i++) {
                iv r = cq_ratio_iv(p[i].own, p[i].other);
                int d = cq_decide(r, DIFF);
                cb_verdict v = d == D_FASTER                  ? CB_SUPPORTED
                               : d == D_SAME || d == D_SLOWER ? CB_CONTRADICTED
                                                              : CB_INCONCLUSIVE;
                contra |= v == CB_CONTRADICTED;
                all &= v == CB_SUPPORTED;
                char point[640], ta[128] = "", tb[128] = "", rt[160] = "";
                cb_cell_params_text(p[i].own, 0, point, sizeof point);
                cq_cell_text(ta, sizeof ta, cq_cell_iv(p[i].own));
                cq_cell_text(tb, sizeof tb, cq_cell_iv(p[i].other));
                cq_ratio_text(rt, sizeof rt, r, p[i].own, p[i].other);
                cb_append(o->text, sizeof o->text, " %s %s, %s over %s: %s (%s).",
                          cq_sched_wls[w]->name, cb_str(p[i].own, "impl"), a, b[k], rt,
                          few ? "a note" : cb_verdict_name(v));
                cb_append(o->table, sizeof o->table, "| %s | %s | %s | %s | %s | %s | %s |\n",
                          cq_sched_wls[w]->name, point, cb_str(p[i].own, "impl"), ta, b[k], tb,
                          rt);
            }
            free(p);
        }
    if (few) {
        o->v = CB_NOT_MEASURED;
        cb_append(o->text, sizeof o->text,
                  " Not decided here: the claim needs a machine with %ld CPUs or more, %ld "
                  "workers on CPUs of their own, for the queue to be contended; these at %ld are "
                  "a note.",
                  min_cpus, min_cpus, W);
        return;
    }
    cb_append(o->text, sizeof o->text,
              " Every pair faster supports the claim; one the same or slower contradicts it.");
    o->v = contra ? CB_CONTRADICTED : all ? CB_SUPPORTED : CB_INCONCLUSIVE;
}
