/* Runs each cell in --invocations separate processes (optionally pinned), interleaved across the
 * cells (A1 B1 C1 ... A2 B2 C2 ...) so slow drift spreads over all of them; every invocation
 * execs a fresh binary (its own address-space randomisation, its own placement) and varies its
 * layout on purpose: the size of its environment, the start offsets of the stack and the heap
 * below the measured code, all drawn from a recorded seed (docs/measurement.md). A crash, an
 * overflow report or a hang in any invocation marks that cell failed or timeout, with the
 * reason, and the run goes on. The child sends its
 * measured fields back as one JSON object on its stdout; its stderr is kept for the error. A cell
 * of another build variant (bin/corobench-jmpret) runs by exec'ing that binary from the cell's
 * child, with the same run arguments and the cell's index (`corobench cell INDEX time|count
 * ARGS`); the counting pass runs the workload once in bin/corobench[-jmpret]-rsbsim, with
 * counting on around run() only (docs/rsb.md). Timing never comes from an instrumented binary. */
#include "runner.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/common/alloc.h"
#include "harness/results/cell.h"
#include "harness/common/build.h"
#include "harness/common/cli.h"
#include "harness/measure/cell.h"
#include "harness/measure/clock.h"
#include "harness/common/proc.h"
#include "harness/common/untrusted.h"
#include "harness/measure/rsbsim.h"
#include "harness/results/fields.h"
#include "invocation.h"
#include "progress.h"
#include "results.h"
#include "workloads/run_once.h"

/* Writes all of text to fd 1. */
static int write_all(const char *text)
{
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t k = write(1, text + off, len - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        off += (size_t)k;
    }
    return 0;
}

/* Prints a cell's JSON on stdout, for the parent. */
static int print_cell(json_t *res)
{
    char *text = json_dumps(res, JSON_COMPACT);
    int rc = text ? write_all(text) : -1; /* NULL: a string that was not UTF-8 */
    free(text);
    json_decref(res);
    return rc ? CB_CHILD_WRITE_FAILED : 0;
}

/* A cell's child. */
typedef struct child {
    const cb_run_opts *o;
    const cb_plan_cell *pc;
    int counting;
    const char *self;          /* this binary: the timing build of its own variant */
    const cb_inv_layout *lay;  /* the invocation's layout; NULL for the counting pass */
} child;

/* `BINARY cell INDEX time|count RUN-ARGS...`, with this process's clock calibration. */
static int exec_cell(const child *ch, const char *path)
{
    char index[32];
    snprintf(index, sizeof index, "%zu", ch->pc->index);
    char **argv = cb_xcalloc((size_t)ch->o->argc + 5, sizeof *argv);
    size_t n = 0;
    argv[n++] = (char *)path;
    argv[n++] = "cell";
    argv[n++] = index;
    argv[n++] = ch->counting ? "count" : "time";
    for (int i = 1; i < ch->o->argc; i++) /* argv[0] is "run" */
        argv[n++] = ch->o->argv[i];
    argv[n] = NULL;
    /* The model the run resolved once (run/options.c): the cell does not read the calibration
     * file again. */
    char rsb[64];
    snprintf(rsb, sizeof rsb, "%s:%u", cb_rsb_model_name((cb_rsb_model)ch->o->measure.rsb_model),
             ch->o->measure.rsb_entries);
    setenv("COROBENCH_CELL_RSB", rsb, 1);
    char hz[64];
    if (cb_clock_hz() > 0) {
        snprintf(hz, sizeof hz, "%.3f", cb_clock_hz());
        setenv("COROBENCH_TSC_HZ", hz, 1);
    }
    if (ch->lay)
        cb_inv_layout_export(ch->lay);
    return cb_proc_exec(argv);
}

/* The body of a cell's child: exec the binary the plan names, or measure here. */
static int child_body(void *arg)
{
    const child *ch = arg;
    const char *binary = ch->counting ? ch->pc->counter : ch->pc->binary;
    if (!binary && !ch->counting)
        binary = ch->self;
    if (binary)
        return exec_cell(ch, binary);
    return print_cell(cb_cell_measure(&ch->pc->cell, &ch->o->measure));
}

/* Runs one pass of a cell in a child; the cell's JSON object, or NULL with the reason in why
 * (and *timed_out set when it ran out of time). */
static json_t *run_child(const cb_run_opts *o, const cb_plan_cell *pc, const cb_inv_layout *lay,
                         int counting, double timeout_s, int *timed_out, char *why, size_t len)
{
    child ch = {o, pc, counting, cb_inv_self(), lay};
    /* A cell never outlives its run, and ends by its own timer if the run cannot end it. */
    cb_proc_opts po = {.own_group = 1, .pin_cpu = o->pin_cpu, .die_with_parent = 1,
                       .backstop_s = timeout_s * 1.5 + 1};
    cb_proc p;
    cb_proc_result r;
    json_t *m = NULL;
    *timed_out = 0;
    if (cb_proc_start(&p, &po, child_body, &ch, why, len) != 0)
        return NULL;
    cb_proc_wait(&p, timeout_s, &r);
    if (r.timed_out) {
        *timed_out = 1;
        snprintf(why, len, "timed out after %g s", timeout_s);
    } else if (WIFSIGNALED(r.wait_status) && WTERMSIG(r.wait_status) == SIGALRM) {
        *timed_out = 1;
        snprintf(why, len, "timed out after %g s (ended by the cell's own backstop timer)",
                 timeout_s);
    } else if (cb_proc_exit_code(r.wait_status) != 0) {
        cb_proc_failure(&r, why, len);
    } else if (!r.out_len) {
        snprintf(why, len, "the cell's process exited with status 0 without sending its result");
    } else {
        json_error_t jerr;
        if (!(m = json_loads(r.out, 0, &jerr)))
            snprintf(why, len, "unreadable result from the cell's process: %s", jerr.text);
    }
    cb_proc_result_free(&r);
    return m;
}

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
    char buf[1024], why[768];
    int timed_out;
    json_t *m = run_child(o, pc, NULL, 1, CB_COUNT_TIMEOUT_FACTOR * o->timeout_s, &timed_out,
                          why, sizeof why);
    if (!m) {
        snprintf(buf, sizeof buf, "rsbsim pass: %s", why);
    } else if (strcmp(json_string_value(json_object_get(m, "status")) ?: "", "ok") != 0) {
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
    char buf[1024], reason[900];
    const char *why = cb_wl_unsupported(pc->cell.wl, pc->cell.impl, &pc->cell.params, reason,
                                        sizeof reason);
    if (why) {
        snprintf(buf, sizeof buf, "unsupported: %s", why);
        set_outcome(cell, "unsupported", buf);
        return 1;
    }
    if (cb_impl_is_language(pc->cell.impl) && strcmp(pc->variant, "plain") != 0) {
        snprintf(buf, sizeof buf, "unsupported: the %s variant rewrites corobench's own code, "
                 "and the %s runtime is not corobench's code", pc->variant, pc->cell.impl->name);
        set_outcome(cell, "unsupported", buf);
        return 1;
    }
    if (!pc->cell.impl->external && !cb_wl_family(pc->cell.wl, pc->cell.impl)) {
        char why[512];
        cb_wl_no_body(pc->cell.wl, pc->cell.impl, why, sizeof why);
        snprintf(buf, sizeof buf, "unsupported: %s", why);
        set_outcome(cell, "unsupported", buf);
        return 1;
    }
    return 0;
}

/* Invocation inv of a cell: its result (status ok), or NULL after setting the cell's outcome
 * (failed or timeout, the invocation named when there are several); *killed when an interrupt
 * ended it (then the cell's outcome is left alone). The counting pass runs after the first. */
static json_t *run_invocation(const cb_run_opts *o, const cb_plan_cell *pc, unsigned inv,
                              json_t *cell, int *killed)
{
    char buf[1024], msg[1100];
    int timed_out;
    cb_inv_layout lay;
    cb_inv_layout_draw(o->layout_seed, pc->index, inv, &lay);
    json_t *m = run_child(o, pc, &lay, 0, o->timeout_s, &timed_out, buf, sizeof buf);
    const char *st = m ? json_string_value(json_object_get(m, "status")) : NULL;
    if (m && st && !strcmp(st, "ok") && inv == 0 && pc->counter)
        count_pass(o, pc, m);
    st = m ? json_string_value(json_object_get(m, "status")) : NULL;
    *killed = 0;
    if (m && st && !strcmp(st, "ok"))
        return m;
    if (cb_proc_interrupted()) {
        *killed = 1; /* killed by the interrupt: unfinished, not failed */
        json_decref(m);
        return NULL;
    }
    if (m)
        snprintf(buf, sizeof buf, "%s",
                 json_string_value(json_object_get(m, "error")) ?: "no reason given");
    if (o->invocations > 1 && !(st && !strcmp(st, "unsupported")))
        snprintf(msg, sizeof msg, "invocation %u of %u: %s", inv + 1, o->invocations, buf);
    else
        snprintf(msg, sizeof msg, "%s", buf);
    set_outcome(cell, m ? (st ? st : "failed") : timed_out ? "timeout" : "failed", msg);
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

size_t cb_run_plan(const cb_run_opts *o, const cb_plan *plan, json_t *cells_out)
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
    /* Interleaved: round r runs invocation r of every cell, in plan order. */
    for (unsigned r = 0; r < k && !stop; r++) {
        for (size_t i = 0; i < n; i++) {
            const cb_plan_cell *pc = &plan->cells[i];
            if (cb_proc_interrupted()) {
                stop = 1;
                break;
            }
            if (r == 0) {
                cell[i] = cb_cell_header(pc);
                invs[i] = json_array();
                started = i + 1;
                done[i] = (char)unsupported(pc, cell[i]);
            }
            double share = step_s + (r == 0 && pc->counter ? step_s : 0);
            if (done[i]) {
                cb_progress_skip(&pr, 1, share);
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
            json_t *m = run_invocation(o, pc, r, cell[i], &killed);
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
                bad += failed(cell[i]);
                char why[300];
                snprintf(why, sizeof why, "%s: %s", cb_str(cell[i], "status"),
                         cb_str(cell[i], "error") ? cb_str(cell[i], "error") : "no reason given");
                cb_progress_end(&pr, i, r, what, why, share);
                continue;
            }
            char fig[128];
            double med =
                json_number_value(json_object_get(json_object_get(m, "ns_per_op"), "median"));
            snprintf(fig, sizeof fig, med >= 1000 ? "%.0f ns/%s" : "%.4g ns/%s", med,
                     cb_str(cell[i], "unit") ? cb_str(cell[i], "unit") : "op");
            cb_progress_end(&pr, i, r, what, fig, share);
            cb_inv_layout lay; /* as run_invocation drew it */
            cb_inv_layout_draw(o->layout_seed, pc->index, r, &lay);
            cb_inv_record(m, r, seq++, &lay);
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

int cb_run_cell_here(const cb_run_opts *o, const cb_plan_cell *pc)
{
    if (strcmp(pc->variant, cb_build_variant) != 0)
        return cb_usage_error("cell %zu is a %s cell, this binary is %s (valid: run it with "
                              "bin/corobench%s%s)", pc->index, pc->variant, cb_build_variant,
                              strcmp(pc->variant, "plain") ? "-" : "",
                              strcmp(pc->variant, "plain") ? pc->variant : "");
    json_t *res;
    if (o->cell_mode == CB_CELL_COUNT) {
        res = cb_cell_count(&pc->cell, &o->measure);
    } else {
        cb_clock_init(); /* the parent's calibration when it passed one (docs/rsb.md) */
        res = cb_inv_measure(&pc->cell, &o->measure);
    }
    return print_cell(res);
}
