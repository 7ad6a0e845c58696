/* Runs each cell in --invocations separate processes (optionally pinned), interleaved across the
 * cells (A1 B1 C1 ... A2 B2 C2 ...) so slow drift spreads over all of them; every invocation
 * execs a fresh binary (its own address-space randomisation, its own placement) and varies its
 * layout on purpose: the size of its environment, the start offsets of the stack and the heap
 * below the measured code, all drawn from a recorded seed (docs/measurement.md). A crash, an
 * overflow report or a hang in any invocation marks that cell failed or timeout, with the
 * reason, and the run goes on. Each invocation is one request (request.h: the cell, how to
 * measure it, its layout), which the binary of the cell's variant (bin/corobench,
 * bin/corobench-jmpret) serves in the child (`corobench cell --request -`), sending its measured
 * fields back as one JSON object on its stdout; its stderr is kept for the error. The counting
 * pass is a request too, served by bin/corobench[-jmpret]-rsbsim, with counting on around run()
 * only (docs/rsb.md). Timing never comes from an instrumented binary. */
#include "runner.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/common/alloc.h"
#include "harness/common/proc.h"
#include "harness/common/untrusted.h"
#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "invocation.h"
#include "progress.h"
#include "request.h"
#include "results.h"

static void set_outcome(json_t *cell, const char *status, const char *error)
{
    json_object_set_new(cell, "status", json_string(status));
    /* An error is text from outside (a child's stderr line, a runtime's reply): valid UTF-8
     * and bounded, or json_string would be NULL and the cell written without it. */
    char *text = error ? cb_text_clean_dup(error, strlen(error), CB_TEXT_ERROR_MAX, 1) : NULL;
    json_object_set_new(cell, "error", text ? json_string(text) : json_null());
    free(text);
}

/* The counting pass, after an ok timed run: adds "rsbsim", or fails the cell (its timed fields
 * stay: they were measured). */
static void count_pass(const cb_run_opts *o, const cb_plan_cell *pc, json_t *cell)
{
    char buf[1024];
    json_t *req = cb_request_build(o, pc, 0, CB_REQUEST_COUNT);
    json_t *m = cb_request_run(cb_request_binary(pc, CB_REQUEST_COUNT), req);
    json_decref(req);
    if (strcmp(json_string_value(json_object_get(m, "status")), "ok") != 0) {
        snprintf(buf, sizeof buf, "rsbsim pass: %s",
                 json_string_value(json_object_get(m, "error")) ?: "no reason given");
    } else if (!json_equal(json_object_get(m, "checksum"), json_object_get(cell, "checksum")) ||
               !json_equal(json_object_get(m, "suspensions"),
                           json_object_get(cell, "suspensions"))) {
        /* The instrumented build must do exactly the work the timed one did. */
        snprintf(buf, sizeof buf, "rsbsim pass: checksum %s, %" PRId64 " suspensions; the timed "
                 "run had %s, %" PRId64,
                 json_string_value(json_object_get(m, "checksum")),
                 (int64_t)json_integer_value(json_object_get(m, "suspensions")),
                 json_string_value(json_object_get(cell, "checksum")),
                 (int64_t)json_integer_value(json_object_get(cell, "suspensions")));
    } else {
        buf[0] = '\0';
        json_object_set(cell, "rsbsim", json_object_get(m, "rsbsim"));
    }
    if (buf[0])
        set_outcome(cell, "failed", buf);
    json_decref(m);
}

/* A cell this build cannot run: its header gets the unsupported outcome; 1 if so. */
static int unsupported(const cb_plan_cell *pc, json_t *cell)
{
    char buf[1024];
    if (!cb_request_unsupported(&pc->cell, pc->variant, buf, sizeof buf))
        return 0;
    set_outcome(cell, "unsupported", buf);
    return 1;
}

/* Invocation inv of a cell, by its request req: its result (status ok), or NULL after setting
 * the cell's outcome (failed, timeout or unsupported, the invocation named when there are
 * several); *killed when an interrupt ended it (then the cell's outcome is left alone). The
 * counting pass runs after the first. */
static json_t *run_invocation(const cb_run_opts *o, const cb_plan_cell *pc, unsigned inv,
                              const json_t *req, json_t *cell, int *killed)
{
    char msg[1100];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    json_t *m = cb_request_run(cb_request_binary(pc, CB_REQUEST_TIME), req);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* The process's wall time on the parent's clock, its counting pass left out: the cell's
     * pace (pace.h) for the ETA of this run and of later ones. */
    json_object_set_new(m, "wall_s", json_real((double)(t1.tv_sec - t0.tv_sec) +
                                               (t1.tv_nsec - t0.tv_nsec) / 1e9));
    if (!strcmp(json_string_value(json_object_get(m, "status")), "ok") && inv == 0 && pc->counter)
        count_pass(o, pc, m);
    const char *st = json_string_value(json_object_get(m, "status"));
    *killed = 0;
    if (!strcmp(st, "ok"))
        return m;
    if (cb_proc_interrupted()) {
        *killed = 1; /* killed by the interrupt: unfinished, not failed */
        json_decref(m);
        return NULL;
    }
    const char *why = json_string_value(json_object_get(m, "error")) ?: "no reason given";
    if (o->invocations > 1 && strcmp(st, "unsupported"))
        snprintf(msg, sizeof msg, "invocation %u of %u: %s", inv + 1, o->invocations, why);
    else
        snprintf(msg, sizeof msg, "%s", why);
    set_outcome(cell, st, msg);
    json_decref(m);
    return NULL;
}

/* Every variant of a cell must have done the same work (checksum, suspensions) as the first; a
 * cell that did not is failed. Variants of one cell are adjacent in the plan. */
static size_t cross_check(const cb_run_opts *o, const cb_plan *plan, json_t *cells_out)
{
    size_t bad = 0;
    for (size_t i = 0; o->nvariants > 1 && i < plan->ncells; i++) {
        size_t first = i - i % o->nvariants;
        json_t *ref = json_array_get(cells_out, first), *c = json_array_get(cells_out, i);
        const char *rs = json_string_value(json_object_get(ref, "status"));
        const char *cs = json_string_value(json_object_get(c, "status"));
        if (i == first || !rs || !cs || strcmp(rs, "ok") || strcmp(cs, "ok"))
            continue;
        if (json_equal(json_object_get(ref, "checksum"), json_object_get(c, "checksum")) &&
            json_equal(json_object_get(ref, "suspensions"), json_object_get(c, "suspensions")))
            continue;
        char buf[256];
        snprintf(buf, sizeof buf, "variant %s did different work than %s: checksum %s, not %s",
                 plan->cells[i].variant, plan->cells[first].variant,
                 json_string_value(json_object_get(c, "checksum")),
                 json_string_value(json_object_get(ref, "checksum")));
        set_outcome(c, "failed", buf);
        bad++;
    }
    return bad;
}

/* 1 when the cell failed or timed out (unsupported is not a failure of the run). */
static int failed(json_t *cell)
{
    const char *st = json_string_value(json_object_get(cell, "status"));
    return st && (!strcmp(st, "failed") || !strcmp(st, "timeout"));
}

size_t cb_run_plan(const cb_run_opts *o, const cb_plan *plan, const cb_pace *pace,
                   json_t *cells_out)
{
    size_t n = plan->ncells, started = 0, seq = 0, bad = 0;
    unsigned k = o->invocations ? o->invocations : 1;
    json_t **cell = cb_xcalloc(n + 1, sizeof *cell), **invs = cb_xcalloc(n + 1, sizeof *invs);
    char *done = cb_xcalloc(n + 1, 1); /* 1: the cell's outcome is settled (not ok) */
    int stop = 0;
    /* Progress on stderr (progress.h): cell i of n, invocation r of k. */
    cb_progress pr;
    double step_s = cb_progress_budget(o->measure.warmup, o->measure.reps, o->measure.min_rep_ms),
           budget = 0;
    for (size_t i = 0; i < n; i++)
        budget += k * step_s + (plan->cells[i].counter ? step_s : 0);
    cb_progress_start(&pr, stderr, n, k, budget);
    cb_progress_cells(&pr, pace->pred, pace->extra, pace->measured);
    /* Interleaved: round r runs invocation r of every cell, in plan order. */
    for (unsigned r = 0; r < k && !stop; r++) {
        for (size_t i = 0; i < n; i++) {
            const cb_plan_cell *pc = &plan->cells[i];
            if (cb_proc_interrupted()) {
                stop = 1;
                break;
            }
            json_t *req = cb_request_build(o, pc, r, CB_REQUEST_TIME);
            if (r == 0) {
                cell[i] = cb_cell_header(pc);
                /* What reruns the cell (corobench cell --request): invocation 1's request. */
                json_object_set(cell[i], "request", req);
                invs[i] = json_array();
                started = i + 1;
                done[i] = (char)unsupported(pc, cell[i]);
            }
            if (done[i])
                cb_progress_settled(&pr, i); /* its later rounds will skip it: no time left */
            double share = step_s + (r == 0 && pc->counter ? step_s : 0);
            if (done[i]) {
                json_decref(req);
                cb_progress_skip(&pr, i, 1, share);
                continue;
            }
            char what[640], p[512];
            cb_cell_params_text(cell[i], 1, p, sizeof p);
            snprintf(what, sizeof what, "%s %s%s%s%s %s", pc->cell.wl->name, pc->cell.impl->name,
                     strcmp(pc->variant, "plain") ? " (" : "",
                     strcmp(pc->variant, "plain") ? pc->variant : "",
                     strcmp(pc->variant, "plain") ? ")" : "", p);
            cb_progress_begin(&pr, i, r, what);
            int killed;
            json_t *m = run_invocation(o, pc, r, req, cell[i], &killed);
            if (m) {
                cb_inv_record(m, r, seq++, json_object_get(req, "layout"));
                cb_progress_timed(&pr, i, json_number_value(json_object_get(m, "wall_s")));
            }
            json_decref(req);
            if (killed) {
                if (r == 0) {
                    started = i; /* the cell never finished an invocation */
                    json_decref(cell[i]);
                    json_decref(invs[i]);
                }
                stop = 1;
                break;
            }
            if (!m) {
                done[i] = 1; /* failed, timed out, or unsupported (said by the child) */
                cb_progress_settled(&pr, i);
                bad += failed(cell[i]);
                char why[300];
                snprintf(why, sizeof why, "%s: %s", cb_str(cell[i], "status"),
                         cb_str(cell[i], "error") ? cb_str(cell[i], "error") : "no reason given");
                cb_progress_end(&pr, i, r, what, why, share);
                continue;
            }
            char fig[640], sched[512];
            double med =
                json_number_value(json_object_get(json_object_get(m, "ns_per_op"), "median"));
            const char *unit = cb_str(cell[i], "unit") ? cb_str(cell[i], "unit") : "op";
            /* a body on the scheduler: its workers' figures in this invocation's timed runs */
            cb_cell_sched_text(json_object_get(m, "sched"), unit, sched, sizeof sched);
            snprintf(fig, sizeof fig, med >= 1000 ? "%.0f ns/%s%s%s" : "%.4g ns/%s%s%s", med,
                     unit, sched[0] ? "; scheduler: " : "", sched);
            cb_progress_end(&pr, i, r, what, fig, share);
            json_array_append_new(invs[i], m);
        }
    }
    cb_progress_finish(&pr);
    for (size_t i = 0; i < started; i++) {
        if (!done[i]) {
            cb_inv_merge(cell[i], invs[i], k);
            bad += failed(cell[i]);
        }
        json_decref(invs[i]);
        json_array_append_new(cells_out, cell[i]);
    }
    free(cell);
    free(invs);
    free(done);
    return bad + cross_check(o, plan, cells_out);
}
