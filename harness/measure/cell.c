/* One cell, measured inside its own child process, in named steps (as google benchmark's
 * BenchmarkRunner): the memory pass, the cell's first run, on its own (memory.h); the warm-up,
 * which grows the batch until a repetition lasts min_rep_ms and then runs at that final batch at
 * least `warmup` times; the timed repetitions, each checked to last min_rep_ms (or the cell says
 * why it could not: batch_limited); in each, a check that every instance did the same work; the
 * drift between the first and second half of the samples; steal time; and the cell's JSON.
 * Only run() sits between the two clock reads; setup (coroutine creation, stack mapping) and
 * finish (checksum, teardown) of every instance happen outside. docs/measurement.md. */
#include "cell.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include "clock.h"
#include "counters.h"
#include "env.h"
#include "impls/closure.h"
#include "impls/runtime.h"
#include "impls/stack.h"
#include "impls/tasks.h"
#include "memory.h"
#include "rsbsim.h"
#include "turns.h"
#include "harness/common/alloc.h"
#include "harness/common/stats.h"
#include "workloads/run_once.h"
#include "workloads/sched_wl.h"

enum {
    CB_MAX_BATCH = 16384,
    /* Warm-up repetitions before the batch must have settled (it only grows, so it settles far
     * sooner: each growth aims past min_rep_ms by CB_BATCH_MARGIN). */
    CB_MAX_WARMUPS = 32,
};
#define CB_BATCH_MARGIN 1.125
/* A preempted repetition is redone when its process was off the CPU for more than this share
 * of its clock time: 1%, a fifth of compare's default 5% threshold, which a kernel thread's
 * tens of microseconds in a 2 ms repetition stay under (without it, 2,918 redos in a quiet
 * default suite; with it, 371: docs/measurement.md). */
#define CB_PREEMPT_REDO_SHARE 0.01
/* Medians of the two halves of the samples further apart than this: the cell is unstable. */
#define CB_DRIFT_PCT 3.0

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
    int have_susp;
    unsigned warmups;      /* warm-up repetitions run */
    unsigned redone;       /* kept repetitions redone at a larger batch because they were short */
    unsigned redone_preempted; /* kept repetitions redone because they were preempted */
    unsigned short_reps;   /* kept repetitions shorter than min_rep_ms */
    double shortest_ns;    /* the shortest kept repetition */
    uint64_t steal_ns;     /* steal time of the cell's CPU (or all) over the kept repetitions */
    int have_steal;
    /* Counters count the kept repetitions only: enabled right before each one's first clock
     * read, disabled right after its second, read (accumulated) outside. */
    cb_counters *ctr;
    double counted_ops;
    double copied; /* stack bytes copied by switches in the kept repetitions (copystack) */
    double hooked; /* calls through the interposition layer in them (io style=blocking) */
    double allocs; /* cb_rt allocations made by run() in the kept repetitions */
    /* A cell on the scheduler (forkjoin, yieldstorm): its workers' counts over the kept
     * repetitions, their time, and the load average when the first began. */
    int have_sched, have_load;
    cb_swl_counts sched;
    double sched_ns;
    double load1;
    /* Involuntary context switches during the kept repetitions: on a shared machine a preempted
     * repetition includes another task's time, so the count says how far to trust the spread. */
    long preempted;
    /* Ops in every repetition inside callgrind's collection (kept ones and the redone), for
     * instructions per op under valgrind (ab's count without a PMU). */
    double collected_ops;
    /* COROBENCH_TEST_SLOWDOWN (docs/ci.md, the A/A test): every timed repetition made this many
     * times longer by spinning on the clock inside the timed region; 1: off. */
    double slowdown;
    /* closure cells: one malloc/free pair of the frame size the runtime allocated last */
    double *malloc_free;
    size_t malloc_free_bytes;
    char err[512];
} measure;

/* What one repetition measured. */
typedef struct rep {
    uint64_t t0;     /* clock at its start */
    double ns;       /* its time, the memory snapshot's pause subtracted */
    uint64_t copied; /* stack bytes copied by switches during it */
    uint64_t hooked; /* calls through the interposition layer during it */
    uint64_t allocs; /* cb_rt allocations made by its runs (setup's and finish's not counted) */
    int have_sched;  /* its runs were on the scheduler: */
    cb_swl_counts sched; /* what the workers counted during them */
    long preempted;  /* involuntary context switches during it */
    double off_cpu_ns; /* its clock time the process spent off the CPU (clock minus CPU time) */
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

json_t *cb_params_json(const cb_params *p)
{
    json_t *o = json_object();
    for (size_t i = 0; i < p->n; i++) {
        const cb_param_val *v = &p->v[i];
        json_object_set_new(o, v->def->name, v->def->kind == CB_PARAM_INT
                                                 ? json_integer((json_int_t)v->i)
                                                 : json_string(v->s));
    }
    return o;
}

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
static int check_suspensions(measure *ms, uint64_t susp)
{
    if (!ms->have_susp) {
        ms->susp_per_run = susp / ms->batch;
        ms->have_susp = 1;
    }
    if (susp != ms->susp_per_run * ms->batch) {
        snprintf(ms->err, sizeof ms->err,
                 "nondeterministic suspensions: %" PRIu64 " per run, then %" PRIu64
                 " over %" PRIu64 " runs",
                 ms->susp_per_run, susp, ms->batch);
        return -1;
    }
    return 0;
}

/* One repetition: set up the batch, run it back to back between two clock reads, finish it and
 * check it did the same work. With `memory` it is the memory pass: the baseline before its
 * setup, the snapshot inside it, closed before its finish. `counted`: a kept repetition, its
 * run() inside the counters (--events) and callgrind's collection (ab's instructions). */
static int repetition(measure *ms, int memory, int counted, rep *out)
{
    uint64_t made = 0;
    int pmu = counted && ms->ctr;
    if (memory)
        cb_mem_begin();
    for (; made < ms->batch; made++)
        if (!(ms->inst[made] = ms->f->setup(ms->c->impl, &ms->c->params, ms->err, sizeof ms->err)))
            break;
    int rc = made < ms->batch ? -1 : 0;
    uint64_t s0 = cb_rt.suspensions, copied0 = cb_rt.stack_copy_bytes,
             allocs0 = cb_rt.heap_allocs;
    uint64_t hooked0 = cb_rt.hooked_calls;
    cb_swl_counts sc0;
    out->have_sched = cb_swl_counts_now(&sc0) == 0;
    if (out->have_sched && counted && !ms->have_load) /* the load when the kept ones begin */
        ms->have_load = getloadavg(&ms->load1, 1) == 1;
    cb_mem_rep_begin();
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    if (pmu)
        cb_counters_reset_enable(ms->ctr);
    if (counted) /* under callgrind --collect-atstart=no: count this region (ab's count) */
        CALLGRIND_TOGGLE_COLLECT;
    uint64_t t0 = cb_clock_now();
    for (uint64_t b = 0; b < made && rc == 0; b++)
        rc = ms->f->run(ms->inst[b], ms->err, sizeof ms->err);
    uint64_t t1 = cb_clock_now();
    if (counted)
        CALLGRIND_TOGGLE_COLLECT;
    if (ms->slowdown > 1) {
        uint64_t until = t0 + (uint64_t)((double)(t1 - t0) * ms->slowdown);
        while ((t1 = cb_clock_now()) < until)
            ;
    }
    if (pmu)
        cb_counters_disable(ms->ctr);
    getrusage(RUSAGE_SELF, &ru1);
    if (pmu)
        cb_counters_read(ms->ctr);
    uint64_t susp = cb_rt.suspensions - s0, allocs = cb_rt.heap_allocs - allocs0;
    if (out->have_sched) {
        cb_swl_counts_now(&out->sched);
        cb_swl_counts_sub(&out->sched, &sc0);
    }
    if (memory)
        cb_mem_end();
    for (uint64_t b = 0; b < made; b++) {
        cb_wl_result res;
        int frc = ms->f->finish(ms->inst[b], &res, rc ? NULL : ms->err, rc ? 0 : sizeof ms->err);
        if (rc == 0)
            rc = frc ? -1 : check_result(ms, &res);
    }
    if (rc || check_suspensions(ms, susp))
        return -1;
    out->t0 = t0;
    out->ns = (double)(t1 - t0 - cb_mem_rep_paused()) * 1e9 / ms->hz;
    out->preempted = ru1.ru_nivcsw - ru0.ru_nivcsw;
    double cpu_ns = ((double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
                     (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec)) * 1e9 +
                    ((double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) +
                     (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec)) * 1e3;
    out->off_cpu_ns = (double)(t1 - t0) * 1e9 / ms->hz - cpu_ns;
    if (counted)
        ms->collected_ops += (double)ms->first.ops * (double)made;
    out->copied = cb_rt.stack_copy_bytes - copied0;
    out->hooked = cb_rt.hooked_calls - hooked0;
    out->allocs = allocs;
    return 0;
}

/* A repetition in this side's turn when the cell's process is one of an ab pair (turns.h): the
 * turn is taken before the setup and passed after the finish, outside the clock. */
static int run_repetition(measure *ms, int memory, int counted, rep *out)
{
    cb_turns_take();
    int rc = repetition(ms, memory, counted, out);
    cb_turns_pass();
    return rc;
}

/* After a repetition that lasted w->ns: when it was shorter than min_rep_ms and the batch can
 * grow, grow it so the next lasts min_rep_ms with a margin; 1 if it grew. Never shrinks: warm runs
 * are faster than the cold memory pass, so the estimate only rises, and the warm-up settles. */
static int grow_batch(measure *ms, const rep *w)
{
    double min_ns = ms->m->min_rep_ms * 1e6;
    if (w->ns >= min_ns || ms->batch >= ms->cap)
        return 0;
    double per_run = w->ns / (double)ms->batch;
    double want = min_ns * CB_BATCH_MARGIN / (per_run > 1 ? per_run : 1);
    uint64_t next = want > (double)ms->cap ? ms->cap : (uint64_t)(want + 0.999);
    if (next <= ms->batch)
        next = ms->batch + 1;
    ms->batch = next;
    return 1;
}

/* Step 1, the memory pass: the cell's first run, one instance in the fresh process (the cold
 * run: first-touch faults, the heap's growth), measured at its rest point and dropped; its time
 * is the batch's first estimate. With --warmup 0 there is no separate pass: the first kept
 * repetition is it (cold runs, measured on purpose). */
static int memory_pass(measure *ms)
{
    rep w;
    if (ms->m->warmup == 0)
        return 0;
    if (run_repetition(ms, 1, 0, &w))
        return -1;
    grow_batch(ms, &w);
    return 0;
}

/* Step 2, the warm-up: repetitions until `warmup` in a row ran at the final batch (each lasted
 * min_rep_ms, or the batch is at its cap), dropped. */
static int warm_up(measure *ms)
{
    unsigned at_final = 0;
    while (at_final < ms->m->warmup) {
        rep w;
        if (run_repetition(ms, 0, 0, &w))
            return -1;
        ms->warmups++;
        if (grow_batch(ms, &w) && ms->warmups < CB_MAX_WARMUPS)
            at_final = 0;
        else
            at_final++;
    }
    return 0;
}

/* Step 3, the kept repetitions: ns per op, and create_ns_per_coro where the workload has a rest
 * point. A repetition shorter than min_rep_ms (a quieter moment than the warm-up's) is redone at
 * a larger batch while the batch can grow (at most `reps` redos); one still short is kept and
 * counted (batch_limited). A repetition during which the process was preempted (an involuntary
 * context switch) for more than CB_PREEMPT_REDO_SHARE of its clock time (the clock minus the
 * process's CPU time: another task's time in its clock) is redone, at most `reps` times, and
 * one still preempted is kept and counted (preemptions); a kernel thread's few microseconds
 * are not worth a repetition. Not for coroutines that are OS threads, whose own hand-offs
 * preempt each other on the pinned CPU. Steal time is read around them all. */
static int time_repetitions(measure *ms)
{
    int cpu = cb_env_pinned_cpu();
    uint64_t steal0 = 0, steal1 = 0;
    ms->have_steal = cb_env_steal_ns(cpu, &steal0) == 0;
    for (unsigned k = 0; k < ms->m->reps; k++) {
        rep t;
        int memory = ms->m->warmup == 0 && k == 0;
        if (run_repetition(ms, memory, 1, &t))
            return -1;
        if (t.ns < ms->m->min_rep_ms * 1e6 && !memory && ms->redone < ms->m->reps &&
            grow_batch(ms, &t)) {
            ms->redone++;
            k--;
            continue;
        }
        if (t.preempted > 0 && t.off_cpu_ns > CB_PREEMPT_REDO_SHARE * t.ns && !memory &&
            ms->redone_preempted < ms->m->reps &&
            !(ms->c->impl->backend && ms->c->impl->backend->own_thread)) {
            ms->redone_preempted++;
            k--;
            continue;
        }
        if (t.ns < ms->m->min_rep_ms * 1e6)
            ms->short_reps++;
        if (k == 0 || t.ns < ms->shortest_ns)
            ms->shortest_ns = t.ns;
        double ops = (double)ms->first.ops * (double)ms->batch;
        ms->samples[k] = t.ns / ops;
        ms->counted_ops += ops;
        ms->preempted += t.preempted;
        ms->copied += (double)t.copied;
        ms->hooked += (double)t.hooked;
        ms->allocs += (double)t.allocs;
        if (t.have_sched) {
            ms->have_sched = 1;
            cb_swl_counts_add(&ms->sched, &t.sched);
            ms->sched_ns += t.ns;
        }
        uint64_t rest_ticks, alive;
        if (cb_mem_rep_rest(t.t0, &rest_ticks, &alive) && alive)
            ms->create[k] = (double)rest_ticks * 1e9 / ms->hz / (double)alive;
        else
            ms->have_create = 0;
    }
    ms->have_steal = ms->have_steal && cb_env_steal_ns(cpu, &steal1) == 0;
    ms->steal_ns = ms->have_steal ? steal1 - steal0 : 0;
    return 0;
}

/* Step 4, closure cells only: what one malloc/free pair of the runtime's frame size costs here,
 * timed beside the cell (the same process, CPU, clock and number of repetitions), so that the
 * cell's per-level cost can be set against the allocation it cannot avoid (docs/measurement.md).
 * The size is that of the last frame the runtime took from malloc (pingpong at depth > 0: a chain
 * frame). Each pair writes a word of its block, as a frame's header is written, which also keeps
 * the compiler from removing the pair. Repetitions of `n` pairs, n grown until one lasts
 * min_rep_ms, after one dropped run. */
static void time_malloc_free(measure *ms)
{
    size_t bytes = cb_cl_frame_bytes_;
    unsigned reps = ms->m->reps;
    if (ms->c->impl->body != CB_BODY_CLOSURE || !bytes || !reps)
        return;
    ms->malloc_free = cb_xcalloc(reps, sizeof *ms->malloc_free);
    ms->malloc_free_bytes = bytes;
    uint64_t n = 4096;
    double min_ns = ms->m->min_rep_ms * 1e6;
    for (unsigned k = 0, dropped = 0; k < reps;) {
        uint64_t t0 = cb_clock_now();
        for (uint64_t i = 0; i < n; i++) {
            void *p = malloc(bytes);
            *(volatile uint64_t *)p = i;
            free(p);
        }
        double ns = (double)(cb_clock_now() - t0) * 1e9 / ms->hz;
        if (ns < min_ns && n < ((uint64_t)1 << 40)) {
            n = (uint64_t)((double)n * (ns > 0 ? min_ns * CB_BATCH_MARGIN / ns : 2) + 1);
            continue;
        }
        if (!dropped++)
            continue;
        ms->malloc_free[k++] = ns / (double)n;
    }
}

/* Why kept repetitions were shorter than min_rep_ms, or NULL when none was. */
static const char *batch_limit_reason(const measure *ms, char *buf, size_t len)
{
    if (!ms->short_reps)
        return NULL;
    if (ms->m->warmup == 0)
        snprintf(buf, len, "--warmup 0: the batch is not sized (cold runs, one instance each)");
    else if (ms->batch >= ms->cap && ms->cap == CB_MAX_BATCH)
        snprintf(buf, len, "the batch is at the harness's limit of %d instances per repetition",
                 CB_MAX_BATCH);
    else if (ms->batch >= ms->cap)
        snprintf(buf, len,
                 "the workload allows at most %llu instances per repetition (max_batch, which "
                 "bounds the memory the batch sets up before the clock starts)",
                 (unsigned long long)ms->cap);
    else
        snprintf(buf, len, "%u repetitions stayed short after %u redone at larger batches",
                 ms->short_reps, ms->redone);
    return buf;
}

/* The drift check: medians of the first and the second half of the samples (the middle one
 * left out when odd). Samples that still fall (or rise) from one half to the next come from a
 * cell that had not settled, or a machine whose load changed: the median then depends on when
 * it was taken. */
static void drift_to_json(const measure *ms, json_t *cell)
{
    unsigned n = ms->m->reps, h = n / 2;
    if (h == 0) {
        json_object_set_new(cell, "drift_pct", json_null());
        json_object_set_new(cell, "unstable", json_null());
        return;
    }
    double a = cb_median(ms->samples, h), b = cb_median(ms->samples + (n - h), h);
    double pct = (b - a) / a * 100;
    json_object_set_new(cell, "drift_pct", json_real(pct));
    json_object_set_new(cell, "unstable",
                        pct > CB_DRIFT_PCT || pct < -CB_DRIFT_PCT
                            ? json_pack("{s:f, s:f, s:f, s:f}", "first_half_median", a,
                                        "second_half_median", b, "drift_pct", pct, "threshold_pct",
                                        CB_DRIFT_PCT)
                            : json_null());
}

/* The cell's `sched` object (docs/results-schema.md): the scheduler's workers, where they ran,
 * and what they counted in the kept repetitions, per op and as idle shares. */
static json_t *sched_to_json(const measure *ms)
{
    const cb_swl_counts *c = &ms->sched;
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    double ops = ms->counted_ops > 0 ? ms->counted_ops : 1;
    double wall = ms->sched_ns > 0 ? ms->sched_ns : 1;
    json_t *cpus = json_null(), *idle = json_array();
    if (c->pinned) { /* worker i on CPU i % nproc (impls/sched/sched.c); -1: its affinity failed */
        cpus = json_array();
        for (unsigned i = 0; i < c->workers && i < CB_SWL_LISTED; i++)
            json_array_append_new(cpus, json_integer(c->cpu[i]));
    }
    for (unsigned i = 0; i < c->workers && i < CB_SWL_LISTED; i++)
        json_array_append_new(idle, json_real((double)c->idle_ns[i] / wall));
    json_t *mem = json_null();
    cb_stask_counts n = cb_stask_counts_now();
    uint64_t resident, used;
    if (ms->c->impl->body == CB_BODY_STACKFUL && n.carriers > 0 &&
        cb_stack_usage(&resident, &used) == 0) {
        /* What a live stackful task holds: a carrier, its stack as far as it was touched. The
         * carriers are at least the most tasks alive at once (made only when a pool is empty). */
        cb_co_cfg cfg = cb_impl_co_cfg(ms->c->impl, &ms->c->params);
        double k = (double)n.carriers;
        mem = json_pack("{s:I, s:f, s:f, s:I, s:f, s:I}", "carriers", (json_int_t)n.carriers,
                        "stack_resident_bytes", (double)resident / k, "stack_used_bytes",
                        (double)used / k, "stack_reserved_bytes", (json_int_t)cfg.stack_size,
                        "bytes", ((double)resident + k * (double)cb_stask_carrier_bytes(&cfg)) / k,
                        "heap_bytes", (json_int_t)cb_stask_carrier_bytes(&cfg));
    } else if (c->sum.frames > 0) {
        /* A stackless task's whole state is its heap frame (or its slot of one shared array):
         * the bytes malloc gave the frames the kept repetitions' tasks were given, per task. */
        mem = json_pack("{s:I, s:f}", "tasks_with_frames", (json_int_t)c->sum.frames,
                        "frame_bytes", (double)c->sum.frame_bytes / (double)c->sum.frames);
        json_object_set_new(mem, "bytes", json_real((double)c->sum.frame_bytes /
                                                    (double)c->sum.frames));
    }
    return json_pack("{s:i, s:s, s:I, s:b, s:b, s:o, s:o, s:f, s:f, s:f, s:f, s:f, s:o, s:o}",
                     "workers", (int)c->workers, "queue", cb_sched_queue_name(c->queue), "nproc",
                     (json_int_t)nproc, "oversubscribed", nproc > 0 && c->workers > nproc,
                     "pinned", c->pinned, "cpus", cpus, "load1",
                     ms->have_load ? json_real(ms->load1) : json_null(), "steals_per_op",
                     (double)c->sum.steals / ops, "failed_steals_per_op",
                     (double)c->sum.failed_steals / ops, "migrations_per_op",
                     (double)c->sum.migrations / ops, "parks_per_op",
                     (double)c->sum.parks / ops, "idle_share",
                     (double)c->sum.idle_ns / (wall * (c->workers ? c->workers : 1)),
                     "idle_share_per_worker", idle, "per_live_task", mem);
}

static json_t *to_json(const measure *ms, json_t *cell)
{
    cb_counters_to_json(ms->ctr, ms->counted_ops, cell);
    char sum[19];
    cb_checksum_text(ms->first.checksum, sum);
    json_object_set_new(cell, "status", json_string("ok"));
    json_object_set_new(cell, "error", json_null());
    json_object_set_new(cell, "ops", json_integer((json_int_t)ms->first.ops));
    if (RUNNING_ON_VALGRIND)
        json_object_set_new(cell, "collected_ops", json_real(ms->collected_ops));
    json_object_set_new(cell, "checksum", json_string(sum));
    json_object_set_new(cell, "suspensions", json_integer((json_int_t)ms->susp_per_run));
    json_object_set_new(cell, "batch", json_integer((json_int_t)ms->batch));
    const char *modes = cb_stack_modes_used();
    json_object_set_new(cell, "stack_mode", modes ? json_string(modes) : json_null());
    json_object_set_new(cell, "ns_per_op", stats_object(ms->samples, ms->m->reps));
    /* The same samples in TSC cycles (reference cycles at the TSC's rate, not core clocks). */
    if (!strcmp(cb_clock_source(), "tsc")) {
        double *cyc = cb_xcalloc(ms->m->reps ? ms->m->reps : 1, sizeof *cyc);
        for (unsigned i = 0; i < ms->m->reps; i++)
            cyc[i] = ms->samples[i] * ms->hz / 1e9;
        json_object_set_new(cell, "tsc_cycles_per_op", stats_object(cyc, ms->m->reps));
        free(cyc);
    } else {
        json_object_set_new(cell, "tsc_cycles_per_op", json_null());
    }
    if (ms->c->impl->backend && ms->c->impl->backend->share_stack)
        json_object_set_new(cell, "stack_copy_bytes_per_op",
                            json_real(ms->counted_ops > 0 ? ms->copied / ms->counted_ops : 0));
    if (ms->hooked > 0)
        json_object_set_new(cell, "hooked_calls_per_op",
                            json_real(ms->counted_ops > 0 ? ms->hooked / ms->counted_ops : 0));
    /* Frames and control blocks allocated while the coroutines ran (a stackless frame the
     * compiler elided into its caller's is not among them; docs/results-schema.md). */
    json_object_set_new(cell, "heap_allocs_per_op",
                        json_real(ms->counted_ops > 0 ? ms->allocs / ms->counted_ops : 0));
    if (ms->have_sched)
        json_object_set_new(cell, "sched", sched_to_json(ms));
    json_object_set_new(cell, "create_ns_per_coro",
                        ms->have_create ? stats_object(ms->create, ms->m->reps) : json_null());
    json_t *arr = json_array();
    for (unsigned i = 0; i < ms->m->reps; i++)
        json_array_append_new(arr, json_real(ms->samples[i]));
    json_object_set_new(cell, "samples_ns_per_op", arr);
    json_object_set_new(cell, "preemptions", json_integer(ms->preempted));
    json_object_set_new(cell, "preempted_redone", json_integer(ms->redone_preempted));
    json_object_set_new(cell, "steal_ns_per_rep",
                        ms->have_steal ? json_real((double)ms->steal_ns / ms->m->reps)
                                       : json_null());
    json_object_set_new(cell, "warmup_reps", json_integer(ms->warmups));
    char why[256];
    const char *limited = batch_limit_reason(ms, why, sizeof why);
    json_object_set_new(cell, "shortest_rep_ms", json_real(ms->shortest_ns / 1e6));
    json_object_set_new(cell, "batch_limited", json_boolean(limited != NULL));
    json_object_set_new(cell, "batch_limited_why", limited ? json_string(limited) : json_null());
    drift_to_json(ms, cell);
    json_object_set_new(cell, "memory", cb_mem_json(ms->first.ops));
    if (ms->slowdown > 1) /* never silent: a slowed cell says so */
        json_object_set_new(cell, "test_slowdown", json_real(ms->slowdown));
    if (ms->malloc_free) {
        json_object_set_new(cell, "malloc_free_ns", stats_object(ms->malloc_free, ms->m->reps));
        json_object_set_new(cell, "malloc_free_bytes",
                            json_integer((json_int_t)ms->malloc_free_bytes));
    }
    return cell;
}

/* The test knob COROBENCH_TEST_SLOWDOWN=FACTOR[@IMPL/WORKLOAD]: this cell's factor, 1 when it
 * is unset, malformed or names another cell. Never set by corobench itself: tests/aa.sh sets it
 * to prove that compare catches a known slowdown. */
static double test_slowdown(const cb_cell *c)
{
    const char *v = getenv("COROBENCH_TEST_SLOWDOWN");
    char *end, want[160];
    if (!v || !*v)
        return 1;
    double f = strtod(v, &end);
    if (end == v || !(f > 1 && f < 100))
        return 1;
    snprintf(want, sizeof want, "%s/%s", c->impl->name, c->wl->name);
    return *end == '\0' || (*end == '@' && !strcmp(end + 1, want)) ? f : 1;
}

/* A plugin's proof of identical work (docs/plugin.md), and an in-process language's (lua; the
 * languages run as programs are checked in external.c): after its repetitions, the same point
 * once on corobench's own asm switch, whose checksum, ops and suspensions per run the cell's
 * must equal. Run last, so its stacks and heap are in none of the cell's figures. */
static int plugin_same_work(measure *ms)
{
    /* a plugin's parameters are the stackful ones, asm's; a language's the workload's alone,
     * which the sm body takes (as check-external's reference) */
    const char *refname = cb_impl_plugin_path(ms->c->impl) ? "asm" : "sm";
    const cb_impl *ref = cb_impl_find(refname);
    cb_wl_once once;
    char err[400];
    if (!ref || cb_wl_run_once(ms->c->wl, ref, &ms->c->params, NULL, &once, err, sizeof err)) {
        snprintf(ms->err, sizeof ms->err, "the reference run on %s failed: %s", refname,
                 ref ? err : "no such implementation in this build");
        return -1;
    }
    if (once.res.checksum == ms->first.checksum && once.res.ops == ms->first.ops &&
        (!ms->have_susp || once.suspensions == ms->susp_per_run))
        return 0;
    snprintf(ms->err, sizeof ms->err,
             "%s %s did different work than %s on the same point: checksum 0x%016" PRIx64
             ", ops %" PRIu64 ", suspensions %" PRIu64 " per run; %s: 0x%016" PRIx64
             ", %" PRIu64 ", %" PRIu64,
             cb_impl_plugin_path(ms->c->impl) ? "plugin" : "runtime", ms->c->impl->name,
             refname, ms->first.checksum, ms->first.ops, ms->susp_per_run, refname,
             once.res.checksum, once.res.ops, once.suspensions);
    return -1;
}

json_t *cb_cell_measure(const cb_cell *c, const cb_measure_opts *m)
{
    json_t *cell = json_object();
    measure ms = {.c = c, .m = m, .f = cb_wl_family(c->wl, c->impl), .hz = cb_clock_hz(),
                  .batch = 1, .have_create = 1, .slowdown = test_slowdown(c)};
    if (!ms.f) {
        cb_wl_no_body(c->wl, c->impl, ms.err, sizeof ms.err);
        return failed(cell, ms.err);
    }
    uint64_t cap = c->wl->max_batch ? c->wl->max_batch(&c->params) : CB_MAX_BATCH;
    ms.cap = cap < 1 ? 1 : cap > CB_MAX_BATCH ? CB_MAX_BATCH : cap;
    ms.inst = cb_xcalloc(CB_MAX_BATCH, sizeof *ms.inst);
    ms.samples = cb_xcalloc(m->reps ? m->reps : 1, sizeof *ms.samples);
    ms.create = cb_xcalloc(m->reps ? m->reps : 1, sizeof *ms.create);
    ms.ctr = m->events ? cb_counters_open(m->events, m->events_kernel) : NULL;
    cb_mem_install();
    if (ms.ctr && m->warmup == 0)
        cb_mem_on_snapshot(counters_pause, counters_resume, ms.ctr);

    cb_co_install_fault_reporter(); /* stack overflows named, in every family */
    int ok = memory_pass(&ms) == 0 && warm_up(&ms) == 0 && time_repetitions(&ms) == 0;
    cb_turns_take(); /* what follows the repetitions, in this side's turn too */
    if (ok && ((!cb_impl_plugin_path(c->impl) && !cb_impl_is_language(c->impl)) ||
               plugin_same_work(&ms) == 0)) {
        time_malloc_free(&ms);
        to_json(&ms, cell);
    } else {
        failed(cell, ms.err);
    }
    cb_turns_end();
    free(ms.malloc_free);
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
