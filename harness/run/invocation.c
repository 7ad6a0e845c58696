/* Invocations (invocation.h): each cell's process gets a layout drawn on purpose (Mytkowicz et
 * al., ASPLOS 2009: the environment's size and link order move results; Stabilizer, ASPLOS 2013:
 * so randomise layout and measure its effect), recorded beside its figures; the parent merges
 * the processes' results into the cell with harness/common/interval.h's estimator. */
#include "invocation.h"
#include "pace.h"

#include <alloca.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/measure/clock.h"
#include "harness/measure/external.h"
#include "harness/common/alloc.h"
#include "harness/common/stats.h"
#include "harness/common/interval.h"
#include "harness/results/cell.h"

enum { LAYOUT_SPAN = CB_INV_LAYOUT_SPAN, LAYOUT_ALIGN = 16 };

static uint64_t mix(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void cb_inv_layout_draw(uint64_t run_seed, size_t index, unsigned inv, cb_inv_layout *l)
{
    uint64_t s = mix(mix(run_seed ^ mix(index)) ^ inv);
    l->seed = s;
    l->env_pad = (unsigned)(mix(s + 1) % LAYOUT_SPAN);
    l->stack_offset = (unsigned)(mix(s + 2) % (LAYOUT_SPAN / LAYOUT_ALIGN)) * LAYOUT_ALIGN;
    l->heap_offset = (unsigned)(mix(s + 3) % (LAYOUT_SPAN / LAYOUT_ALIGN)) * LAYOUT_ALIGN;
}

json_t *cb_inv_layout_json(const cb_inv_layout *l)
{
    char seed[32];
    snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)l->seed);
    return json_pack("{s:s, s:i, s:i, s:i}", "seed", seed, "env_pad_bytes", (int)l->env_pad,
                     "stack_offset_bytes", (int)l->stack_offset, "heap_offset_bytes",
                     (int)l->heap_offset);
}

uint64_t cb_inv_run_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return mix((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^ mix((uint64_t)getpid());
}

const char *cb_inv_self(void)
{
    static char self[PATH_MAX];
    static int done;
    if (!done) {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        self[n > 0 ? n : 0] = '\0';
        done = 1;
    }
    return self[0] ? self : NULL;
}

/* The measuring call, stack_offset bytes further down the stack than it would be. */
static __attribute__((noinline)) json_t *measure_below(const cb_cell *c, const cb_measure_opts *m,
                                                       unsigned stack_offset)
{
    volatile char *gap = alloca(stack_offset + 1);
    gap[0] = 0; /* the gap is used, so it is not optimised away */
    /* A program of its own times itself (go, node...: measure/external.c); the rest here. */
    json_t *r = c->impl->external ? cb_ext_measure(c, m) : cb_cell_measure(c, m);
    gap[stack_offset] = 0;
    return r;
}

json_t *cb_inv_measure(const cb_cell *c, const cb_measure_opts *m, const cb_inv_layout *l)
{
    unsigned st = l && l->stack_offset < CB_INV_LAYOUT_SPAN ? l->stack_offset : 0;
    unsigned hp = l && l->heap_offset < CB_INV_LAYOUT_SPAN ? l->heap_offset : 0;
    /* Kept for the life of the process: every later allocation starts hp bytes further on. */
    void *volatile heap_gap = hp ? malloc(hp) : NULL;
    json_t *r = measure_below(c, m, st);
    free(heap_gap);
    return r;
}

void cb_inv_record(json_t *res, unsigned inv, size_t sequence, json_t *layout)
{
    json_object_set_new(res, "invocation", json_integer(inv));
    json_object_set_new(res, "sequence", json_integer((json_int_t)sequence));
    json_object_set(res, "layout", layout);
}

/* The samples of one invocation's result (checked by the cell's own process). */
static size_t samples(json_t *m, double **out)
{
    json_t *a = json_object_get(m, "samples_ns_per_op"), *v;
    size_t i, n = 0;
    *out = cb_xmalloc((json_array_size(a) + 1) * sizeof **out);
    json_array_foreach(a, i, v)
    {
        if (json_is_number(v) && json_number_value(v) > 0)
            (*out)[n++] = json_number_value(v);
    }
    return n;
}

static double num(json_t *obj, const char *a, const char *b)
{
    json_t *v = json_object_get(obj, a);
    if (b)
        v = json_object_get(v, b);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* An interval as [lo, hi], or null. */
static json_t *ci_json(const cb_estimate *e, double scale)
{
    return e->ok ? json_pack("[f, f]", e->lo * scale, e->hi * scale) : json_null();
}

/* The statistics object of ns_per_op (or its TSC-cycle twin, scale != 1): the estimate and its
 * interval; mad the median of the invocations' MADs (the spread inside one process); min and
 * max over every sample. */
static json_t *stats_json(const cb_estimate *e, json_t *invs, const char *field, double scale,
                          size_t total)
{
    size_t k = json_array_size(invs), i;
    double *mads = cb_xmalloc((k + 1) * sizeof *mads), lo = INFINITY, hi = -INFINITY;
    json_t *m;
    json_array_foreach(invs, i, m)
    {
        mads[i] = num(m, field, "mad");
        lo = fmin(lo, num(m, field, "min"));
        hi = fmax(hi, num(m, field, "max"));
    }
    double mad = cb_median(mads, k);
    free(mads);
    json_t *o = json_pack("{s:f, s:o, s:f, s:f, s:f, s:I, s:I, s:I}", "median", e->est * scale,
                          "ci95", ci_json(e, scale), "mad", mad * scale, "min", lo * scale,
                          "max", hi * scale, "reps", (json_int_t)total, "invocations",
                          (json_int_t)k, "reps_per_invocation", (json_int_t)e->reps);
    return o;
}

/* 1 when every invocation did the work of the first; else the cell is failed, with why. */
static int same_work(json_t *cell, json_t *invs)
{
    static const char *const work[] = {"checksum", "suspensions", "ops"};
    json_t *first = json_array_get(invs, 0), *m;
    size_t i;
    json_array_foreach(invs, i, m)
    {
        for (size_t f = 0; f < sizeof work / sizeof work[0]; f++) {
            if (json_equal(json_object_get(first, work[f]), json_object_get(m, work[f])))
                continue;
            char buf[256], *a = json_dumps(json_object_get(m, work[f]), JSON_ENCODE_ANY),
                           *b = json_dumps(json_object_get(first, work[f]), JSON_ENCODE_ANY);
            snprintf(buf, sizeof buf, "invocation %zu did different work than invocation 1: %s "
                     "%s, not %s", i + 1, work[f], a ? a : "?", b ? b : "?");
            free(a);
            free(b);
            json_object_set_new(cell, "status", json_string("failed"));
            json_object_set_new(cell, "error", json_string(buf));
            return 0;
        }
    }
    return 1;
}

/* What each invocation keeps of its own: its figures, its layout, its process's conditions. */
static json_t *invocation_entry(json_t *m)
{
    static const char *const keep[] = {"invocation", "sequence", "layout", "ns_per_op",
                                       "samples_ns_per_op", "create_ns_per_coro",
                                       "malloc_free_ns", "batch",
                                       "warmup_reps", "shortest_rep_ms", "preemptions", "preempted_redone",
                                       "steal_ns_per_rep", "drift_pct", "runtime", "turns",
                                       "wall_s", "sched"};
    json_t *e = json_object();
    for (size_t f = 0; f < sizeof keep / sizeof keep[0]; f++) {
        json_t *v = json_object_get(m, keep[f]);
        if (v)
            json_object_set(e, keep[f], v);
    }
    json_t *mem = json_object_get(m, "memory");
    if (json_is_object(mem)) {
        /* A garbage-collected runtime's heap differs between processes: each one's is kept. */
        json_t *mm = json_object();
        static const char *const mk[] = {"heap_bytes_per_coro", "rss_bytes_per_coro",
                                         "peak_rss_bytes"};
        for (size_t f = 0; f < sizeof mk / sizeof mk[0]; f++)
            if (json_object_get(mem, mk[f]))
                json_object_set(mm, mk[f], json_object_get(mem, mk[f]));
        json_object_set_new(e, "memory", mm);
    }
    return e;
}

/* A per-invocation statistics object (create_ns_per_coro, malloc_free_ns) over the invocations:
 * the median of their medians, its interval from them (each process's median as its one
 * value). */
static json_t *medians_json(json_t *invs, const char *field)
{
    size_t k = json_array_size(invs), i, reps = 0;
    double *med = cb_xmalloc((k + 1) * sizeof *med);
    const double **rows = cb_xmalloc((k + 1) * sizeof *rows);
    size_t *n = cb_xmalloc((k + 1) * sizeof *n);
    json_t *m, *r = NULL;
    json_array_foreach(invs, i, m)
    {
        med[i] = num(m, field, "median");
        reps += (size_t)json_integer_value(json_object_get(json_object_get(m, field), "reps"));
        rows[i] = &med[i];
        n[i] = 1;
    }
    cb_estimate e;
    cb_inv_samples s = {rows, n, k};
    if (cb_estimate_cell(&s, &e) == 0)
        r = stats_json(&e, invs, field, 1, reps);
    free(med);
    free(rows);
    free(n);
    return r ? r : json_null();
}

void cb_inv_merge(json_t *cell, json_t *invs, unsigned asked)
{
    size_t k = json_array_size(invs), i, total = 0;
    json_t *first = json_array_get(invs, 0), *m;
    if (!same_work(cell, invs))
        return;
    json_object_update(cell, first);
    json_object_del(cell, "invocation");
    json_object_del(cell, "sequence");
    json_object_del(cell, "layout");
    json_object_del(cell, "wall_s"); /* each invocation's, in invocations; the cell's pace */

    double **x = cb_xcalloc(k + 1, sizeof *x);
    size_t *n = cb_xcalloc(k + 1, sizeof *n);
    json_t *all = json_array(), *entries = json_array();
    long preempted = 0, redone = 0;
    double steal = 0, shortest = INFINITY, worst_drift = 0;
    size_t nsteal = 0, warm = 0;
    int limited = 0, have_create = 1, have_mf = 1;
    json_t *drift = json_null(), *unstable = json_null(), *limited_why = json_null();
    json_array_foreach(invs, i, m)
    {
        n[i] = samples(m, &x[i]);
        total += n[i];
        for (size_t j = 0; j < n[i]; j++)
            json_array_append_new(all, json_real(x[i][j]));
        preempted += (long)json_integer_value(json_object_get(m, "preemptions"));
        redone += (long)json_integer_value(json_object_get(m, "preempted_redone"));
        warm += (size_t)json_integer_value(json_object_get(m, "warmup_reps"));
        if (json_is_number(json_object_get(m, "steal_ns_per_rep")))
            steal += num(m, "steal_ns_per_rep", NULL), nsteal++;
        if (num(m, "shortest_rep_ms", NULL) < shortest)
            shortest = num(m, "shortest_rep_ms", NULL);
        if (json_is_true(json_object_get(m, "batch_limited")) && !limited) {
            limited = 1;
            limited_why = json_object_get(m, "batch_limited_why");
        }
        double d = num(m, "drift_pct", NULL);
        if (isfinite(d) && (json_is_null(drift) || fabs(d) > fabs(worst_drift))) {
            worst_drift = d;
            drift = json_object_get(m, "drift_pct");
            unstable = json_object_get(m, "unstable");
        }
        have_create &= json_is_object(json_object_get(m, "create_ns_per_coro"));
        have_mf &= json_is_object(json_object_get(m, "malloc_free_ns"));
        json_array_append_new(entries, invocation_entry(m));
    }
    cb_inv_samples s = {(const double *const *)x, n, k};
    cb_estimate e;
    int ok = total == 0 ? -1 : 0;
    for (i = 0; i < k && ok == 0; i++)
        ok = n[i] ? 0 : -1;
    if (ok == 0 && cb_estimate_cell(&s, &e) == 0) {
        json_object_set_new(cell, "ns_per_op", stats_json(&e, invs, "ns_per_op", 1, total));
        json_t *tsc = json_object_get(cell, "tsc_cycles_per_op");
        if (json_is_object(tsc))
            json_object_set_new(cell, "tsc_cycles_per_op",
                                stats_json(&e, invs, "ns_per_op", cb_clock_hz() / 1e9, total));
        json_object_set_new(
            cell, "variance_split",
            json_pack("{s:o, s:o, s:b}", "between_ns2",
                      isfinite(e.var_between) ? json_real(e.var_between) : json_null(),
                      "within_ns2", isfinite(e.var_within) ? json_real(e.var_within) : json_null(),
                      "between_dominates", e.between_dominates));
        if (!e.ok)
            json_object_set_new(cell, "ci95_why", json_string(e.why));
    }
    json_object_set_new(cell, "samples_ns_per_op", all);
    json_object_set_new(cell, "preemptions", json_integer(preempted));
    json_object_set_new(cell, "preempted_redone", json_integer(redone));
    json_object_set_new(cell, "warmup_reps", json_integer((json_int_t)warm));
    json_object_set_new(cell, "steal_ns_per_rep", nsteal ? json_real(steal / (double)nsteal)
                                                         : json_null());
    if (isfinite(shortest))
        json_object_set_new(cell, "shortest_rep_ms", json_real(shortest));
    json_object_set_new(cell, "batch_limited", json_boolean(limited));
    json_object_set(cell, "batch_limited_why", limited_why);
    json_object_set(cell, "drift_pct", drift);
    json_object_set(cell, "unstable", unstable);
    if (have_create)
        json_object_set_new(cell, "create_ns_per_coro", medians_json(invs, "create_ns_per_coro"));
    if (have_mf)
        json_object_set_new(cell, "malloc_free_ns", medians_json(invs, "malloc_free_ns"));
    /* instructions:u per op where a PMU counted them: the median over the invocations (the
     * cell's counters are its first invocation's) */
    double ipo = cb_invs_instructions(invs, NULL);
    if (isfinite(ipo))
        cb_cell_set_instructions(cell, ipo, cb_instr_source_pmu);
    json_object_set_new(cell, "single_invocation", json_boolean(k == 1));
    json_object_set_new(cell, "invocations_asked", json_integer(asked));
    json_object_set_new(cell, "invocations", entries);
    json_t *pace = cb_pace_of(entries);
    if (pace)
        json_object_set_new(cell, "pace", pace);
    for (i = 0; i < k; i++)
        free(x[i]);
    free(x);
    free(n);
}
