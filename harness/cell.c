/* One cell, measured inside its own child process: warm-up, batch calibration, repetitions.
 * Only run() sits between the two clock reads; setup (coroutine creation, stack mapping) and
 * finish (checksum, teardown) of every instance happen outside. The warm-up repetition is timed
 * only to choose the batch and is dropped; it also takes the first-touch page faults of pooled
 * stacks and allocator arenas, so the kept repetitions measure warm runs. Memory is measured on
 * the first run, at the workload's rest point, with the clock paused (memory.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "clock.h"
#include "counters.h"
#include "harness.h"
#include "impls/runtime.h"
#include "memory.h"

enum { CB_MAX_BATCH = 1024 };

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

/* Around a memory snapshot inside a counted repetition. Resuming does not reset: the window
 * before the pause has not been read yet, so the counts keep adding up (counters.h). */
static void counters_pause(void *ctr) { cb_counters_disable(ctr); }
static void counters_resume(void *ctr) { cb_counters_reset_enable(ctr); }

json_t *cb_cell_measure(const cb_cell *c, const cb_run_opts *o)
{
    const cb_family_ops *f = &c->wl->family[c->impl->style];
    json_t *cell = json_object();
    char err[512] = "";
    double hz = cb_clock_hz();
    uint64_t cap = c->wl->max_batch ? c->wl->max_batch(&c->params) : CB_MAX_BATCH;
    cap = cap < 1 ? 1 : cap > CB_MAX_BATCH ? CB_MAX_BATCH : cap;
    uint64_t batch = 1;
    void **inst = calloc(CB_MAX_BATCH, sizeof *inst);
    double *samples = calloc(o->reps ? o->reps : 1, sizeof *samples);
    cb_wl_result first = {0, 0};
    uint64_t susp_per_run = 0;
    int have_first = 0;

    /* Counters count the kept repetitions only: enabled right before each one's first clock
     * read, disabled right after its second, read (accumulated) outside. */
    cb_counters *ctr = o->events ? cb_counters_open(o->events, o->events_kernel) : NULL;
    double counted_ops = 0;
    /* Involuntary context switches during the kept repetitions: on a shared machine a preempted
     * repetition includes another task's time, so the count says how far to trust the spread. */
    long preempted = 0;

    /* Memory is measured on the first run, create_ns_per_coro on every kept one (memory.h). */
    double *create = calloc(o->reps ? o->reps : 1, sizeof *create);
    int have_create = 1;
    cb_mem_install();
    if (ctr && o->warmup == 0)
        cb_mem_on_snapshot(counters_pause, counters_resume, ctr);

    cb_impl_configure(c->impl, &c->params);
    for (unsigned r = 0; r < o->warmup + o->reps; r++) {
        int counted = ctr && r >= o->warmup;
        uint64_t made = 0;
        if (r == 0)
            cb_mem_begin();
        for (; made < batch; made++)
            if (!(inst[made] = f->setup(c->impl, &c->params, err, sizeof err)))
                break;
        int rc = made < batch ? -1 : 0;
        uint64_t s0 = cb_rt.suspensions;
        cb_mem_rep_begin();
        struct rusage ru0, ru1;
        getrusage(RUSAGE_SELF, &ru0);
        if (counted)
            cb_counters_reset_enable(ctr);
        uint64_t t0 = cb_clock_now();
        for (uint64_t b = 0; b < made && rc == 0; b++)
            rc = f->run(inst[b], err, sizeof err);
        uint64_t t1 = cb_clock_now();
        if (counted)
            cb_counters_disable(ctr);
        getrusage(RUSAGE_SELF, &ru1);
        if (counted)
            cb_counters_read(ctr);
        uint64_t susp = cb_rt.suspensions - s0;
        if (r == 0)
            cb_mem_end();
        for (uint64_t b = 0; b < made; b++) {
            cb_wl_result res;
            f->finish(inst[b], &res);
            if (rc)
                continue;
            if (!have_first) {
                first = res;
                have_first = 1;
            } else if (res.checksum != first.checksum || res.ops != first.ops) {
                snprintf(err, sizeof err,
                         "nondeterministic result: checksum 0x%016" PRIx64 " then 0x%016" PRIx64,
                         first.checksum, res.checksum);
                rc = -1;
            }
        }
        if (rc)
            break;
        if (r == 0)
            susp_per_run = susp / batch;
        if (susp != susp_per_run * batch) {
            snprintf(err, sizeof err,
                     "nondeterministic suspensions: %" PRIu64 " per run, then %" PRIu64
                     " over %" PRIu64 " runs",
                     susp_per_run, susp, batch);
            rc = -1;
            break;
        }
        double ns = (double)(t1 - t0 - cb_mem_rep_paused()) * 1e9 / hz;
        if (r < o->warmup) {
            /* Choose the batch so one repetition lasts at least min_rep_ms. */
            double per_run = ns / (double)batch;
            double want = o->min_rep_ms * 1e6 / (per_run > 1 ? per_run : 1);
            batch = want < 1 ? 1 : want > (double)cap ? cap : (uint64_t)(want + 0.999);
        } else {
            samples[r - o->warmup] = ns / ((double)first.ops * (double)batch);
            counted_ops += (double)first.ops * (double)batch;
            preempted += ru1.ru_nivcsw - ru0.ru_nivcsw;
            uint64_t rest_ticks, alive;
            if (cb_mem_rep_rest(t0, &rest_ticks, &alive) && alive)
                create[r - o->warmup] = (double)rest_ticks * 1e9 / hz / (double)alive;
            else
                have_create = 0;
        }
    }
    free(inst);
    if (err[0]) {
        free(samples);
        free(create);
        cb_counters_close(ctr);
        return failed(cell, err);
    }
    cb_counters_to_json(ctr, counted_ops, cell);
    cb_counters_close(ctr);
    char sum[19];
    cb_checksum_text(first.checksum, sum);
    json_object_set_new(cell, "status", json_string("ok"));
    json_object_set_new(cell, "error", json_null());
    json_object_set_new(cell, "ops", json_integer((json_int_t)first.ops));
    json_object_set_new(cell, "checksum", json_string(sum));
    json_object_set_new(cell, "suspensions", json_integer((json_int_t)susp_per_run));
    json_object_set_new(cell, "batch", json_integer((json_int_t)batch));
    const char *modes = cb_stack_modes_used();
    json_object_set_new(cell, "stack_mode", modes ? json_string(modes) : json_null());
    json_object_set_new(cell, "ns_per_op", stats_object(samples, o->reps));
    json_object_set_new(cell, "create_ns_per_coro",
                        have_create ? stats_object(create, o->reps) : json_null());
    free(create);
    json_t *arr = json_array();
    for (unsigned i = 0; i < o->reps; i++)
        json_array_append_new(arr, json_real(samples[i]));
    json_object_set_new(cell, "samples_ns_per_op", arr);
    json_object_set_new(cell, "preemptions", json_integer(preempted));
    json_object_set_new(cell, "memory", cb_mem_json(first.ops));
    free(samples);
    return cell;
}
