/* One cell, measured inside its own child process, in named steps (as google benchmark's
 * BenchmarkRunner): the warm-up, which chooses the batch; the timed repetitions; in each, a check
 * that every instance did the same work; the memory pass riding on the cell's first repetition;
 * and the cell's JSON. Only run() sits between the two clock reads; setup (coroutine creation,
 * stack mapping) and finish (checksum, teardown) of every instance happen outside. The warm-up
 * repetition is timed only to choose the batch and is dropped; it also takes the first-touch page
 * faults of pooled stacks and allocator arenas, so the kept repetitions measure warm runs. Memory
 * is measured on the first run, at the workload's rest point, with the clock paused (memory.h). */
#include "cell.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "clock.h"
#include "counters.h"
#include "impls/runtime.h"
#include "memory.h"
#include "rsbsim.h"
#include "stats.h"
#include "workloads/run_once.h"

enum { CB_MAX_BATCH = 1024 };

/* A cell being measured: what the steps share. */
typedef struct measure {
    const cb_cell *c;
    const cb_measure_opts *m;
    const cb_family_ops *f;
    double hz;
    uint64_t cap, batch; /* instances per repetition: chosen by the warm-up, at most cap */
    void **inst;
    double *samples, *create; /* per kept repetition: ns per op, create ns per coroutine */
    int have_create;
    cb_wl_result first; /* the first instance's result: every other must equal it */
    int have_first;
    uint64_t susp_per_run;
    /* Counters count the kept repetitions only: enabled right before each one's first clock
     * read, disabled right after its second, read (accumulated) outside. */
    cb_counters *ctr;
    double counted_ops;
    /* Involuntary context switches during the kept repetitions: on a shared machine a preempted
     * repetition includes another task's time, so the count says how far to trust the spread. */
    long preempted;
    char err[512];
} measure;

/* What one repetition measured. */
typedef struct rep {
    uint64_t t0;     /* clock at its start */
    double ns;       /* its time, the memory snapshot's pause subtracted */
    long preempted;  /* involuntary context switches during it */
} rep;

static json_t *failed(json_t *cell, const char *err)
{
    json_object_set_new(cell, "status", json_string("failed"));
    json_object_set_new(cell, "error", json_string(err));
    return cell;
}

static json_t *stats_object(const double *x, size_t n)
{
    double med = cb_median(x, n), lo = x[0], hi = x[0];
    for (size_t i = 1; i < n; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    return json_pack("{s:f, s:f, s:f, s:f, s:I}", "median", med, "mad", cb_mad(x, n, med), "min",
                     lo, "max", hi, "reps", (json_int_t)n);
}

void cb_checksum_text(uint64_t sum, char buf[19]) { snprintf(buf, 19, "0x%016" PRIx64, sum); }

/* Around a memory snapshot inside a counted repetition. Resuming does not reset: the window
 * before the pause has not been read yet, so the counts keep adding up (counters.h). */
static void counters_pause(void *ctr) { cb_counters_disable(ctr); }
static void counters_resume(void *ctr) { cb_counters_reset_enable(ctr); }

/* Check same work, for one finished instance: the checksum and op count of the first. */
static int check_result(measure *ms, const cb_wl_result *res)
{
    if (!ms->have_first) {
        ms->first = *res;
        ms->have_first = 1;
    } else if (res->checksum != ms->first.checksum || res->ops != ms->first.ops) {
        snprintf(ms->err, sizeof ms->err,
                 "nondeterministic result: checksum 0x%016" PRIx64 " then 0x%016" PRIx64,
                 ms->first.checksum, res->checksum);
        return -1;
    }
    return 0;
}

/* Check same work, for a repetition: as many suspensions per run as the first repetition's. */
static int check_suspensions(measure *ms, unsigned r, uint64_t susp)
{
    if (r == 0)
        ms->susp_per_run = susp / ms->batch;
    if (susp != ms->susp_per_run * ms->batch) {
        snprintf(ms->err, sizeof ms->err,
                 "nondeterministic suspensions: %" PRIu64 " per run, then %" PRIu64
                 " over %" PRIu64 " runs",
                 ms->susp_per_run, susp, ms->batch);
        return -1;
    }
    return 0;
}

/* Repetition r: set up the batch, run it back to back between two clock reads, finish it and
 * check it did the same work. The memory pass is the first repetition (r == 0): the baseline
 * before its setup, the snapshot inside it, closed before its finish. */
static int run_repetition(measure *ms, unsigned r, rep *out)
{
    int counted = ms->ctr && r >= ms->m->warmup;
    uint64_t made = 0;
    if (r == 0)
        cb_mem_begin();
    for (; made < ms->batch; made++)
        if (!(ms->inst[made] = ms->f->setup(ms->c->impl, &ms->c->params, ms->err, sizeof ms->err)))
            break;
    int rc = made < ms->batch ? -1 : 0;
    uint64_t s0 = cb_rt.suspensions;
    cb_mem_rep_begin();
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    if (counted)
        cb_counters_reset_enable(ms->ctr);
    uint64_t t0 = cb_clock_now();
    for (uint64_t b = 0; b < made && rc == 0; b++)
        rc = ms->f->run(ms->inst[b], ms->err, sizeof ms->err);
    uint64_t t1 = cb_clock_now();
    if (counted)
        cb_counters_disable(ms->ctr);
    getrusage(RUSAGE_SELF, &ru1);
    if (counted)
        cb_counters_read(ms->ctr);
    uint64_t susp = cb_rt.suspensions - s0;
    if (r == 0)
        cb_mem_end();
    for (uint64_t b = 0; b < made; b++) {
        cb_wl_result res;
        ms->f->finish(ms->inst[b], &res);
        if (rc == 0)
            rc = check_result(ms, &res);
    }
    if (rc || check_suspensions(ms, r, susp))
        return -1;
    out->t0 = t0;
    out->ns = (double)(t1 - t0 - cb_mem_rep_paused()) * 1e9 / ms->hz;
    out->preempted = ru1.ru_nivcsw - ru0.ru_nivcsw;
    return 0;
}

/* Choose the batch so one repetition lasts at least min_rep_ms. */
static void choose_batch(measure *ms, const rep *w)
{
    double per_run = w->ns / (double)ms->batch;
    double want = ms->m->min_rep_ms * 1e6 / (per_run > 1 ? per_run : 1);
    ms->batch = want < 1 ? 1 : want > (double)ms->cap ? ms->cap : (uint64_t)(want + 0.999);
}

static int warm_up(measure *ms)
{
    rep w;
    for (unsigned r = 0; r < ms->m->warmup; r++) {
        if (run_repetition(ms, r, &w))
            return -1;
        choose_batch(ms, &w);
    }
    return 0;
}

/* The kept repetitions: ns per op, and create_ns_per_coro where the workload has a rest point. */
static int time_repetitions(measure *ms)
{
    for (unsigned k = 0; k < ms->m->reps; k++) {
        rep t;
        if (run_repetition(ms, ms->m->warmup + k, &t))
            return -1;
        double ops = (double)ms->first.ops * (double)ms->batch;
        ms->samples[k] = t.ns / ops;
        ms->counted_ops += ops;
        ms->preempted += t.preempted;
        uint64_t rest_ticks, alive;
        if (cb_mem_rep_rest(t.t0, &rest_ticks, &alive) && alive)
            ms->create[k] = (double)rest_ticks * 1e9 / ms->hz / (double)alive;
        else
            ms->have_create = 0;
    }
    return 0;
}

static json_t *to_json(const measure *ms, json_t *cell)
{
    cb_counters_to_json(ms->ctr, ms->counted_ops, cell);
    char sum[19];
    cb_checksum_text(ms->first.checksum, sum);
    json_object_set_new(cell, "status", json_string("ok"));
    json_object_set_new(cell, "error", json_null());
    json_object_set_new(cell, "ops", json_integer((json_int_t)ms->first.ops));
    json_object_set_new(cell, "checksum", json_string(sum));
    json_object_set_new(cell, "suspensions", json_integer((json_int_t)ms->susp_per_run));
    json_object_set_new(cell, "batch", json_integer((json_int_t)ms->batch));
    const char *modes = cb_stack_modes_used();
    json_object_set_new(cell, "stack_mode", modes ? json_string(modes) : json_null());
    json_object_set_new(cell, "ns_per_op", stats_object(ms->samples, ms->m->reps));
    json_object_set_new(cell, "create_ns_per_coro",
                        ms->have_create ? stats_object(ms->create, ms->m->reps) : json_null());
    json_t *arr = json_array();
    for (unsigned i = 0; i < ms->m->reps; i++)
        json_array_append_new(arr, json_real(ms->samples[i]));
    json_object_set_new(cell, "samples_ns_per_op", arr);
    json_object_set_new(cell, "preemptions", json_integer(ms->preempted));
    json_object_set_new(cell, "memory", cb_mem_json(ms->first.ops));
    return cell;
}

json_t *cb_cell_measure(const cb_cell *c, const cb_measure_opts *m)
{
    json_t *cell = json_object();
    measure ms = {.c = c, .m = m, .f = cb_wl_family(c->wl, c->impl), .hz = cb_clock_hz(),
                  .batch = 1, .have_create = 1};
    if (!ms.f) {
        cb_wl_no_body(c->wl, c->impl, ms.err, sizeof ms.err);
        return failed(cell, ms.err);
    }
    uint64_t cap = c->wl->max_batch ? c->wl->max_batch(&c->params) : CB_MAX_BATCH;
    ms.cap = cap < 1 ? 1 : cap > CB_MAX_BATCH ? CB_MAX_BATCH : cap;
    ms.inst = calloc(CB_MAX_BATCH, sizeof *ms.inst);
    ms.samples = calloc(m->reps ? m->reps : 1, sizeof *ms.samples);
    ms.create = calloc(m->reps ? m->reps : 1, sizeof *ms.create);
    ms.ctr = m->events ? cb_counters_open(m->events, m->events_kernel) : NULL;
    cb_mem_install();
    if (ms.ctr && m->warmup == 0)
        cb_mem_on_snapshot(counters_pause, counters_resume, ms.ctr);

    cb_impl_configure(c->impl, &c->params);
    if (warm_up(&ms) == 0 && time_repetitions(&ms) == 0)
        to_json(&ms, cell);
    else
        failed(cell, ms.err);
    free(ms.inst);
    free(ms.samples);
    free(ms.create);
    cb_counters_close(ms.ctr);
    return cell;
}

/* One candidate's counts as JSON: all of them, or (full = 0, a calibration candidate) the total
 * alone. */
static json_t *rsb_counts_json(const cb_rsb_config *c, const cb_rsb_counts *n, uint64_t ops,
                               int full)
{
    json_t *j = json_pack("{s:s, s:I, s:I, s:f}", "model", cb_rsb_model_name(c->model), "entries",
                          (json_int_t)c->entries, "mispredicted", (json_int_t)n->mispredicted,
                          "mispredicted_per_op", ops ? (double)n->mispredicted / (double)ops : 0.0);
    if (full) {
        json_object_set_new(j, "rets", json_integer((json_int_t)n->rets));
        json_object_set_new(j, "mispredicted_top", json_integer((json_int_t)n->mispredicted_top));
        json_object_set_new(j, "mispredicted_underflow",
                            json_integer((json_int_t)n->mispredicted_underflow));
        json_object_set_new(j, "underflow_predicted",
                            json_integer((json_int_t)n->underflow_predicted));
    }
    return j;
}

json_t *cb_cell_count(const cb_cell *c, const cb_measure_opts *m)
{
    char err[512] = "";
    if (!cb_rsbsim_instrumented())
        return json_pack("{s:s, s:s}", "status", "failed", "error",
                         "this binary is not instrumented for the return-stack simulator");
    /* The hooks live in the uninstrumented rsbsim.c, so they add no counted call or return.
     * The run's model first; with --rsb-candidates every calibration candidate after it. */
    cb_rsb_config cand[1 + CB_RSBSIM_CALIBRATION_CANDIDATES];
    size_t ncand = 1;
    cand[0] = (cb_rsb_config){(cb_rsb_model)m->rsb_model, m->rsb_entries};
    if (m->rsb_candidates)
        ncand += cb_rsbsim_calibration_candidates(cand + 1);
    cb_rsbsim_pass pass = {cand, ncand, 0};
    cb_wl_around around = {cb_rsbsim_begin_hook, cb_rsbsim_end_hook, &pass};
    cb_wl_once once;
    int rc = cb_wl_run_once(c->wl, c->impl, &c->params, &around, &once, err, sizeof err);
    if (pass.rc != 0)
        return json_pack("{s:s, s:s}", "status", "failed", "error",
                         "the return-stack simulator refused its configuration");
    if (rc)
        return json_pack("{s:s, s:s}", "status", "failed", "error", err);
    char sum[19];
    cb_checksum_text(once.res.checksum, sum);
    json_t *rsb = rsb_counts_json(&cand[0], cb_rsbsim_counts(0), once.res.ops, 1);
    if (m->rsb_candidates) {
        json_t *all = json_array();
        for (size_t k = 1; k < ncand; k++)
            json_array_append_new(all, rsb_counts_json(&cand[k], cb_rsbsim_counts(k),
                                                       once.res.ops, 0));
        json_object_set_new(rsb, "candidates", all);
    }
    return json_pack("{s:s, s:n, s:I, s:s, s:I, s:o}", "status", "ok", "error", "ops",
                     (json_int_t)once.res.ops, "checksum", sum, "suspensions",
                     (json_int_t)once.suspensions, "rsbsim", rsb);
}
