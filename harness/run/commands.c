/* `corobench run`: options, plan, run, write, table. `corobench cell --request`: one cell's
 * request (request.h) measured or counted here. `corobench list`: the registries. */
#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/common/alloc.h"
#include "harness/common/cli.h"
#include "harness/common/untrusted.h"
#include "harness/common/output.h"
#include "harness/measure/clock.h"
#include "harness/measure/counters.h"
#include "harness/results/baseline.h"
#include "harness/results/fields.h"
#include "impls/plugin.h"
#include "invocation.h"
#include "options.h"
#include "pace.h"
#include "plan.h"
#include "progress.h"
#include "request.h"
#include "harness/common/proc.h"
#include "results.h"
#include "runner.h"

/* --dry-run: what the run would do and how long it should take, nothing run or written. Per
 * workload, its implementations and how many cells; then the invocations, repetitions and the
 * estimate (harness/run/progress.c's budget: the repetitions' minimum length and each process's
 * start, memory pass and exit; a language's runtime starts slower, the load stretches it all). */
static void print_plan(const cb_run_opts *o, const cb_plan *plan, const cb_pace *pace)
{
    unsigned k = o->invocations ? o->invocations : 1;
    double total = 0;
    size_t counted = 0;
    for (size_t i = 0; i < plan->ncells; i++) {
        total += k * pace->pred[i] + pace->extra[i];
        counted += plan->cells[i].counter != NULL;
    }
    printf("plan: %zu cells, %u invocation%s each (%zu processes%s), %u warm-up and %u timed "
           "repetitions of at least %g ms per invocation\n",
           plan->ncells, k, k == 1 ? "" : "s", plan->ncells * k, counted ? ", plus a counting pass for "
                                                                          "the simulated return stack" : "",
           o->measure.warmup, o->measure.reps, o->measure.min_rep_ms);
    if (o->filter) { /* the cells it kept, by the text it matched */
        printf("  --filter '%s' keeps %zu of the %zu cells selected:\n", cb_quote(o->filter),
               plan->ncells, plan->nselected);
        for (size_t i = 0; i < plan->ncells && i < 20; i++) {
            char text[1024];
            cb_plan_cell_text(&plan->cells[i], text, sizeof text);
            printf("    %s\n", text);
        }
        if (plan->ncells > 20)
            printf("    ... and %zu more\n", plan->ncells - 20);
    }
    for (size_t w = 0; w < o->nworkloads; w++) {
        char impls[1024] = "";
        size_t cells = 0;
        for (size_t m = 0; m < o->nimpls; m++) {
            size_t c = 0;
            for (size_t i = 0; i < plan->ncells; i++)
                c += plan->cells[i].cell.wl == o->workloads[w] &&
                     plan->cells[i].cell.impl == o->impls[m];
            if (c)
                cb_append(impls, sizeof impls, "%s%s", *impls ? ", " : "", o->impls[m]->name);
            cells += c;
        }
        if (cells)
            printf("  %-10s %4zu cells: %s\n", o->workloads[w]->name, cells, impls);
    }
    char t[32];
    cb_progress_clock(total, t, sizeof t);
    printf("estimated time: %s; the run's ETA corrects it as cells finish\n", t);
    if (pace->nmeasured)
        printf("  %zu of the %zu cells at their pace in %s (each invocation's time there, "
               "its repetitions rescaled to this run's)%s\n",
               pace->nmeasured, plan->ncells, cb_quote(pace->source),
               pace->nmeasured < plan->ncells ? "; the others by the model:" : "");
    else
        printf("  by the model (%s):\n", pace->why);
    if (pace->nmeasured < plan->ncells)
        printf("  each invocation's repetitions at their minimum length (%d for the batch, %u "
               "warm-up, %u timed),\n  %g s for a process's start, memory pass and exit, %g s "
               "more for a language's runtime;\n  load stretches it, and a cell whose work "
               "outlasts the minimum takes longer\n",
               CB_PACE_CALIBRATION_REPS, o->measure.warmup, o->measure.reps, CB_PACE_PROCESS_S,
               CB_PACE_RUNTIME_S);
}

int cb_cmd_run(int argc, char **argv)
{
    cb_run_opts o = {0};
    cb_plan plan;
    cb_out out, base_out;
    int rc;
    if ((rc = cb_run_opts_parse(argc, argv, &o)) != CB_OPTS_PARSED ||
        (rc = cb_plan_build(&o, &plan)) != CB_OPTS_PARSED)
        return rc;
    cb_pace pace;
    char why[PATH_MAX + 1200];
    if (cb_pace_plan(&o, &plan, &pace, why, sizeof why)) {
        cb_plan_free(&plan);
        return cb_usage_error("%s", why);
    }
    if (o.dry_run) { /* the outputs refused as the run would refuse them: nothing made */
        rc = o.out_path ? cb_out_check("results", o.out_path, o.force)
                        : cb_out_check_default("results", "results");
        if (!rc && o.save_baseline)
            rc = cb_baseline_prepare(NULL, o.save_baseline, 1);
        if (!rc)
            print_plan(&o, &plan, &pace);
        cb_pace_free(&pace);
        cb_plan_free(&plan);
        return rc ? rc : CB_EXIT_OK;
    }
    /* The output is checked (its directory made, tried for writing) before anything runs. */
    if ((rc = o.out_path ? cb_out_prepare(&out, "results", o.out_path, o.force)
                         : cb_out_prepare_default(&out, "results", "results"))) {
        cb_pace_free(&pace);
        cb_plan_free(&plan);
        return rc;
    }
    /* A named baseline is replaced by each save (criterion's --save-baseline). */
    if (o.save_baseline && (rc = cb_baseline_prepare(&base_out, o.save_baseline, 0))) {
        cb_out_discard(&out);
        cb_pace_free(&pace);
        cb_plan_free(&plan);
        return rc;
    }
    /* From here an interrupt kills the running cell and stops the run, which then writes what
     * finished; a second one quits at once, removing a half-written output. */
    cb_proc_stop_on_interrupt(cb_out_tmp_now);

    cb_clock_init(); /* once, in the parent: every cell's child inherits the calibration */
    o.layout_seed = cb_inv_run_seed();
    json_t *doc = cb_run_results_new(&o);
    size_t bad = cb_run_plan(&o, &plan, &pace, json_object_get(doc, "cells"));
    size_t done = json_array_size(json_object_get(doc, "cells"));
    int sig = cb_proc_interrupted(), moved;
    if (sig)
        cb_results_interrupted(doc, &plan, done);
    if (cb_results_write(doc, &out, o.out_path, &moved) != 0) {
        if (o.save_baseline)
            cb_out_discard(&base_out);
        json_decref(doc);
        cb_pace_free(&pace);
        cb_plan_free(&plan);
        return sig ? 128 + sig : CB_EXIT_CELLS_FAILED;
    }
    /* A baseline only of a whole run: an interrupted one would gate on what it left out. */
    int base_failed = 0;
    if (o.save_baseline && !sig && bad) {
        /* nor of one whose cells failed: a later compare only noted them "did not run in
         * base" and passed */
        cb_out_discard(&base_out);
        base_failed = 1;
        fprintf(stderr, "corobench: baseline '%s' not saved: %zu cells failed or timed out "
                "(valid: a run whose cells all ran)\n", o.save_baseline, bad);
    } else if (o.save_baseline && !sig) {
        if (json_dumpf(doc, cb_out_stream(&base_out), JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
            abort(); /* into memory */
        base_failed = cb_out_commit(&base_out) != 0;
        if (!base_failed)
            fprintf(stderr, "corobench: baseline '%s' saved in %s\n", o.save_baseline,
                    base_out.path);
    } else if (o.save_baseline) {
        cb_out_discard(&base_out);
    }
    int latest = cb_results_link_latest(out.path);
    if (latest < 0)
        fprintf(stderr, "corobench: cannot update latest.json beside %s: %s\n", out.path,
                strerror(errno));
    if (o.print_table)
        cb_results_print_table(doc, stdout, o.wide);
    if (sig)
        fprintf(stderr,
                "corobench: interrupted by SIG%s: %zu of %zu cells finished, %zu failed or timed "
                "out; results in %s (run.interrupted true, run.unfinished lists %zu cells)%s\n",
                sigabbrev_np(sig), done, plan.ncells, bad, out.path, plan.ncells - done,
                latest > 0 ? " (latest.json points at it)" : "");
    else
        fprintf(stderr, "corobench: %zu cells, %zu failed or timed out; results in %s%s\n",
                plan.ncells, bad, out.path, latest > 0 ? " (latest.json points at it)" : "");
    json_decref(doc);
    cb_pace_free(&pace);
    cb_plan_free(&plan);
    if (sig)
        return 128 + sig;
    return bad || moved || base_failed ? CB_EXIT_CELLS_FAILED : CB_EXIT_OK;
}

int cb_cmd_cell(int argc, char **argv)
{
#define CELL_VALID "valid: --request FILE|-, one cell's request: a results file's " \
                   "cells[].request; docs/request.md"
    if (argc < 2)
        return cb_usage_error("missing option --request for cell (" CELL_VALID ")");
    if (strcmp(argv[1], "--request") || argc > 3)
        return cb_usage_error("unexpected argument '%s' for cell (" CELL_VALID ")",
                              cb_quote(argv[argc > 3 ? 3 : 1]));
    if (argc < 3)
        return cb_usage_error("option '--request' needs a value (" CELL_VALID ")");
#undef CELL_VALID
    /* The result goes on a descriptor of its own, the run's pipe that was stdout; stdout is
     * then stderr, so what a plugin prints while it loads (a constructor's printf) or runs is
     * kept as the cell's stderr, not mixed into the result (it failed every cell, asm's too:
     * "unreadable result"). Close-on-exec: a program the cell starts must not hold it. */
    fflush(stdout);
    int result_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (result_fd < 0 || dup2(2, 1) < 0) {
        fprintf(stderr, "corobench: cannot keep stdout for the cell's result: %s\n",
                strerror(errno));
        return CB_CHILD_WRITE_FAILED;
    }
    cb_request_result_fd = result_fd;
    const char *path = argv[2];
    json_error_t jerr;
    json_t *req = !strcmp(path, "-") ? json_loadf(stdin, 0, &jerr) : json_load_file(path, 0, &jerr);
    if (!req) {
        char at[64] = "";
        if (jerr.line > 0)
            snprintf(at, sizeof at, " (line %d, column %d)", jerr.line, jerr.column);
        return cb_usage_error("invalid request '%s': %s%s (valid: one JSON object of schema %s)",
                              cb_quote(path), jerr.text, at, CB_REQUEST_SCHEMA);
    }
    int rc = cb_request_serve(req);
    json_decref(req);
    return rc;
}

/* `corobench list`: 120 columns by default (a description cut at the edge with "...", the
 * parameters as NAME=DEFAULT [RANGE] side by side), --wide in full on a line each. */
enum { LIST_WIDTH = 120 };

/* One line, cut to LIST_WIDTH with "..." unless wide (then whole, however long). */
static void list_line(int wide, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void list_line(int wide, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    size_t len = n > 0 ? (size_t)n : 0;
    char *line = cb_xmalloc(len + 1), cut[LIST_WIDTH + 1];
    line[0] = '\0';
    vsnprintf(line, len + 1, fmt, again);
    va_end(again);
    /* a plugin's name and description are text from outside: cut on a character, and
     * through the terminal's sink (no escape sequence, no raw newline) */
    int cut_it = !wide && len > LIST_WIDTH;
    if (cut_it)
        cb_text_clean(cut, sizeof cut, line, len, 1);
    cb_esc_term(stdout, cut_it ? cut : line);
    putchar('\n');
    free(line);
}

static void param_range(const cb_param_def *d, char *buf, size_t len)
{
    if (d->kind == CB_PARAM_INT) {
        snprintf(buf, len, "%lld..%lld", (long long)d->min, (long long)d->max);
        return;
    }
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; d->choices[i] && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "|" : "", d->choices[i]);
}

static void print_params(const cb_param_def *d, int wide)
{
    char range[256], item[512], line[LIST_WIDTH + 1] = "";
    for (; d && d->name; d++) {
        param_range(d, range, sizeof range);
        if (wide) {
            printf("      %-12s default %-10s %s: %s\n", d->name, d->defval, range, d->help);
            continue;
        }
        /* NAME=DEFAULT [RANGE], as many to a line as fit */
        snprintf(item, sizeof item, "%s=%s [%s]", d->name, d->defval, range);
        if (line[0] && strlen(line) + 2 + strlen(item) > LIST_WIDTH) {
            puts(line);
            line[0] = '\0';
        }
        if (!line[0])
            snprintf(line, sizeof line, "      %.*s", LIST_WIDTH - 6, item);
        else
            cb_append(line, sizeof line, "  %s", item);
    }
    if (line[0])
        puts(line);
}

/* --kind's comma-separated kinds as bits of cb_impl_kind; -1 with err set for a bad one. */
static int kinds_of(const char *list, char *err, size_t errlen)
{
    int bits = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        int c = 0;
        while (c < CB_KIND_COUNT && strcmp(k, cb_impl_kind_name((cb_impl_kind)c)))
            c++;
        if (c == CB_KIND_COUNT) {
            char valid[128] = "";
            for (int v = 0; v < CB_KIND_COUNT; v++)
                cb_append(valid, sizeof valid, "%s%s", v ? ", " : "",
                          cb_impl_kind_name((cb_impl_kind)v));
            snprintf(err, errlen, "invalid value '%s' for --kind (valid: %s, comma-separated)",
                     cb_quote(k), valid);
            return -1;
        }
        bits |= 1 << c;
    }
    if (!bits)
        snprintf(err, errlen, "invalid value '%s' for --kind (valid: one kind or more, "
                 "comma-separated)", cb_quote(list));
    return bits ? bits : -1;
}

int cb_cmd_list(int argc, char **argv)
{
    static const char *const sections[] = {"impls", "workloads", "events"};
    int wide = 0, show[3] = {0, 0, 0}, any = 0, kinds = ~0;
    for (int i = 1; i < argc; i++) {
        int k = 0;
        while (k < 3 && strcmp(argv[i], sections[k]))
            k++;
        char err[PATH_MAX + 512];
        if (!strcmp(argv[i], "--wide"))
            wide = 1;
        else if (k < 3)
            show[k] = any = 1;
        else if (!strcmp(argv[i], "--impl-lib") && i + 1 < argc) { /* plugins listed too */
            if (cb_plugin_load_list(argv[++i], err, sizeof err) != 0)
                return cb_usage_error("%s", err);
        } else if (!strcmp(argv[i], "--kind") && i + 1 < argc) { /* those kinds' rows only */
            if ((kinds = kinds_of(argv[++i], err, sizeof err)) < 0)
                return cb_usage_error("%s", err);
        } else
            return cb_usage_error("unexpected argument '%s' for list (valid: impls, workloads, "
                                  "events, --wide, --impl-lib PATH[,PATH...], --kind "
                                  "KIND[,KIND...])",
                                  cb_quote(argv[i]));
    }
    if (!any)
        show[0] = show[1] = show[2] = 1;
    if (show[0]) {
        printf("implementations:%s\n", wide ? "" : " (descriptions and parameters in full: "
                                                  "corobench list impls --wide)");
        int name_w = 11; /* the built-ins' longest; a plugin's or an external's may be 32 */
        for (size_t i = 0; i < cb_nimpls; i++)
            if (kinds & 1 << cb_impls[i].kind && (int)strlen(cb_impls[i].name) > name_w)
                name_w = (int)strlen(cb_impls[i].name);
        for (size_t i = 0; i < cb_nimpls; i++) {
            const cb_impl *im = &cb_impls[i];
            if (!(kinds & 1 << im->kind))
                continue;
            const char *why = cb_impl_unavailable(im);
            list_line(wide, "  %-*s %-9s %s%s", name_w, im->name, cb_impl_family(im),
                      why ? "unavailable: " : "available", why ? why : "");
            list_line(wide, "      %s", im->description ? im->description
                                                         : im->backend->description);
            print_params(im->params, wide);
        }
    }
    if (show[1]) {
        printf("workloads:%s\n", wide ? "" : " (corobench list workloads --wide: in full)");
        for (size_t i = 0; i < cb_nworkloads; i++) {
            const cb_workload *w = cb_workloads[i];
            if (w->selftest)
                list_line(wide, "  %-10s self-test of the harness, not a benchmark ('all' never "
                                "selects it): %s",
                          w->name, w->description);
            else
                list_line(wide, "  %-10s one op = one %s%s: %s", w->name, w->unit,
                          w->unit_at ? " (unless a parameter says otherwise)" : "",
                          w->description);
            print_params(w->params, wide);
        }
    }
    if (show[2]) {
        printf("event aliases for --events (any libpfm4 event name works too):\n");
        cb_counters_list(stdout, wide ? 0 : LIST_WIDTH);
    }
    return 0;
}
