/* `corobench ab` (docs/ci.md, "Paired A/B"): one plan, two arms, measured in the same window
 * pair by pair and decided on the pairs' ratios.
 *  - The plan is run's (its own parser and plan builder over run's cell selection options); a
 *    cell reaches each arm's build as its request (run/request.h: workload, parameters,
 *    implementation, variant, repetitions, layout), never by an index another build may number
 *    differently.
 *  - An arm is another built checkout (--base DIR, and --new DIR; new is this build by
 *    default), a version of a plugin (--base-lib/--new-lib, run in this build), or a version of
 *    an external program (--base-external/--new-external NAME=COMMAND). Both arms' binaries run
 *    from symbolic links of equal length in a temporary directory (argv[0] and the executable's
 *    name sit on the initial stack), with the same environment: COROBENCH_TEST_SLOWDOWN reaches
 *    the new arm only, and the base arm gets a variable of the same length in its place.
 *  - The schedule (schedule.h): R rounds, each visiting every cell once in a shuffled order,
 *    the two arms at once taking turns repetition by repetition (measure/turns.h; or back to
 *    back, --pairs sequential) with one layout draw, the first arm alternating (ABBA). Cells not
 *    unchanged after R rounds get fresh rounds, R at a time up to --max-rounds, and are decided
 *    on those alone, each leaving once they decide it (decide.h).
 *  - The decision is decide.h's; the output compare's (report/cmpout.h), with exit status as
 *    compare's: 1 when a cell or the whole run regressed, a cell failed in new, new lacks a cell
 *    (unless --allow-missing) or the arms did different work; 2 on bad input.
 *  - Files: the verdict (schema corobench-ab/1, docs/ci.md) and each arm's results file beside
 *    it (NAME.base.json, NAME.new.json), which compare, export and report read as they are. */
#include "ab.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "arms.h"
#include "decide.h"
#include "instr.h"
#include "harness/common/alloc.h"
#include "harness/common/build.h"
#include "harness/common/cli.h"
#include "harness/common/output.h"
#include "harness/common/proc.h"
#include "harness/common/stats.h"
#include "harness/measure/clock.h"
#include "harness/report/cmpout.h"
#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "harness/run/invocation.h"
#include "harness/run/options.h"
#include "harness/run/plan.h"
#include "harness/run/progress.h"
#include "harness/run/request.h"
#include "harness/run/results.h"
#include "params/params.h"
#include "schedule.h"



/* One cell of the plan as the two arms measure it. */
typedef struct abcell {
    const cb_plan_cell *pc;
    char key[640];
    json_t *head[2], *invs[2]; /* each arm's cell header and its ok invocations */
    double *ratio, *fig[2];    /* per pair: new/base, and each arm's figure (ns per op) */
    unsigned *round;           /* the round of each pair */
    size_t n, n1;              /* pairs in all, in the first R rounds */
    int out;                   /* 1: no more pairs (an arm lacks it, failed, other work) */
    char *lacks[2], *failed[2], *other_work;
    cb_ab_est first, final;
    double cg[2]; /* instructions per op under callgrind (instr.h), 0: not counted */
} abcell;

typedef struct ab_ctx {
    ab_opts *a;
    cb_run_opts o;
    cb_plan plan;
    abcell *cells;
    size_t n;
    size_t seq[2];
    cb_progress pr;
    double step_s;
    int cpus[CPU_SETSIZE]; /* the CPUs this process may run on: a pair's pin, by round */
    size_t ncpus;
    char cg_source[160], cg_why[300]; /* callgrind's count: valgrind's version; why none */
} ab_ctx;

static double ns_median(json_t *res)
{
    return json_number_value(json_object_get(json_object_get(res, "ns_per_op"), "median"));
}

static void set_outcome(json_t *cell, const char *status, const char *error)
{
    json_object_set_new(cell, "status", json_string(status));
    json_object_set_new(cell, "error", json_string(error));
}

/* The first work field (checksum, suspensions, ops) where the arms differ, or NULL. */
static char *work_differs(json_t *b, json_t *n)
{
    for (const cb_det_field *f = cb_det_fields; f->path; f++) {
        if (f->kind != CB_DET_WORK)
            continue;
        json_t *bv = cb_field(b, f->path), *nv = cb_field(n, f->path);
        if (bv && nv && json_equal(bv, nv))
            continue;
        char *bt = bv ? json_dumps(bv, JSON_ENCODE_ANY) : NULL;
        char *nt = nv ? json_dumps(nv, JSON_ENCODE_ANY) : NULL;
        char *s = cb_xasprintf("%s %s -> %s", f->path, bt ? bt : "absent", nt ? nt : "absent");
        free(bt);
        free(nt);
        return s;
    }
    return NULL;
}

static void progress_fig(json_t *res, char *fig, size_t len)
{
    const char *st = cb_str(res, "status");
    if (st && !strcmp(st, "ok"))
        snprintf(fig, len, "%.4g ns/op", ns_median(res));
    else
        snprintf(fig, len, "%s: %s", st ? st : "failed",
                 cb_str(res, "error") ?: "no reason given");
}

/* Both arms' processes at once, taking turns repetition by repetition on a socket pair
 * (measure/turns.h), the first arm's first; both on the pair's CPU, each with twice --timeout.
 * 0, or -1 when the socket could not be made (then the pair runs one after the other). */
static int run_alternating(ab_ctx *x, abcell *c, json_t *req, int first, json_t *res[2])
{
    int sp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0)
        return -1;
    cb_request_child ch[2];
    /* each side waits through the other's turns: twice the time of one alone */
    json_t *r = json_deep_copy(req), *t = json_object_get(req, "timeout_s");
    if (json_is_number(t))
        json_object_set_new(r, "timeout_s", json_real(2 * json_number_value(t)));
    for (int j = 0; j < 2; j++) {
        int k = j == 0 ? first : !first;
        cb_ab_arm_start(x->a, k, c->pc, r, sp[j], j == 0, NULL, &ch[k]);
        close(sp[j]);
    }
    json_decref(r);
    for (int j = 0; j < 2; j++) {
        int k = j == 0 ? first : !first;
        if (j == 1 && cb_proc_interrupted() && ch[k].p.pid > 0)
            kill(-ch[k].p.pid, SIGKILL); /* the interrupt ended the other one's wait */
        res[k] = cb_request_finish(&ch[k]);
    }
    return 0;
}

/* One pair of cell c in round (pi: its place in the round, for the progress line): both arms,
 * the first as the schedule says, one request (so one layout draw) for both; at once, taking
 * turns (the default), or back to back (--pairs sequential). 0, or 1 when an interrupt stopped
 * it. */
static int run_pair(ab_ctx *x, abcell *c, unsigned round, size_t pi)
{
    json_t *req = cb_request_build(&x->o, c->pc, round, CB_REQUEST_TIME), *res[2] = {NULL, NULL};
    int first = cb_ab_first_arm(round);
    char what[700], fig[2][160];
    if (!x->a->sequential && x->ncpus && json_is_null(json_object_get(req, "pin_cpu")))
        json_object_set_new(req, "pin_cpu", json_integer(x->cpus[round % x->ncpus]));
    int alternated = 0;
    if (!x->a->sequential) {
        snprintf(what, sizeof what, "%s (both arms, in turns)", c->key);
        cb_progress_begin(&x->pr, pi, round * 2, what);
        alternated = run_alternating(x, c, req, first, res) == 0;
    }
    if (!alternated) {
        for (int j = 0; j < 2 && !cb_proc_interrupted(); j++) {
            int k = j == 0 ? first : !first;
            snprintf(what, sizeof what, "%s (%s)", c->key, x->a->arms[k].name);
            cb_progress_begin(&x->pr, pi, round * 2 + (unsigned)j, what);
            res[k] = cb_ab_arm_run(x->a, k, c->pc, req);
            progress_fig(res[k], fig[0], sizeof fig[0]);
            cb_progress_end(&x->pr, pi, round * 2 + (unsigned)j, what, fig[0], x->step_s);
        }
    } else if (!cb_proc_interrupted()) {
        progress_fig(res[CB_AB_BASE], fig[0], sizeof fig[0]);
        progress_fig(res[CB_AB_NEW], fig[1], sizeof fig[1]);
        char both[400];
        snprintf(both, sizeof both, "base %s, new %s", fig[0], fig[1]);
        cb_progress_end(&x->pr, pi, round * 2, what, both, x->step_s);
        cb_progress_skip(&x->pr, pi, 1, x->step_s);
    }
    if (cb_proc_interrupted()) {
        json_decref(req);
        json_decref(res[0]);
        json_decref(res[1]);
        return 1;
    }
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        const char *st = cb_str(res[k], "status") ?: "failed";
        if (!strcmp(st, "ok"))
            continue;
        ok = 0;
        const char *err = cb_str(res[k], "error") ?: "no reason given";
        if (!strcmp(st, "unsupported")) {
            c->lacks[k] = cb_xstrdup(err);
            set_outcome(c->head[k], "unsupported", err);
        } else {
            c->failed[k] = cb_xasprintf("round %u: %s", round + 1, err);
            set_outcome(c->head[k], !strcmp(st, "timeout") ? "timeout" : "failed",
                        c->failed[k]);
        }
    }
    if (ok && (c->other_work = work_differs(res[CB_AB_BASE], res[CB_AB_NEW])))
        ok = 0;
    if (ok) {
        double b = ns_median(res[CB_AB_BASE]), n = ns_median(res[CB_AB_NEW]);
        c->ratio[c->n] = n / b;
        c->fig[CB_AB_BASE][c->n] = b;
        c->fig[CB_AB_NEW][c->n] = n;
        c->round[c->n++] = round;
    } else {
        c->out = 1;
    }
    for (int k = 0; k < 2; k++) {
        if (cb_str(res[k], "status") && !strcmp(cb_str(res[k], "status"), "ok")) {
            cb_inv_record(res[k], (unsigned)json_array_size(c->invs[k]), x->seq[k]++,
                          json_object_get(req, "layout"));
            json_array_append(c->invs[k], res[k]);
        }
        json_decref(res[k]);
    }
    json_decref(req);
    return 0;
}

/* Rounds [from, to) over the cells that want[] selects; 1 when interrupted. */
static int run_rounds(ab_ctx *x, const char *want, unsigned from, unsigned to)
{
    size_t *sel = cb_xcalloc(x->n + 1, sizeof *sel), *order = cb_xcalloc(x->n + 1, sizeof *order);
    size_t m = 0;
    for (size_t i = 0; i < x->n; i++)
        if (want[i])
            sel[m++] = i;
    double budget = (double)m * 2 * (to - from) * x->step_s;
    cb_progress_start(&x->pr, stderr, m, 2 * to, budget);
    x->pr.done = (size_t)m * 2 * from; /* the progress counts this stage's steps only */
    x->pr.steps = (size_t)m * 2 * to;
    int stop = 0;
    for (unsigned r = from; r < to && !stop; r++) {
        cb_ab_round_order(x->a->seed, r, sel, m, order);
        for (size_t i = 0; i < m && !stop; i++) {
            abcell *c = &x->cells[order[i]];
            if (c->out) {
                cb_progress_skip(&x->pr, SIZE_MAX, 2, 2 * x->step_s);
                continue;
            }
            stop = run_pair(x, c, r, i);
        }
    }
    cb_progress_finish(&x->pr);
    free(sel);
    free(order);
    return stop;
}

static json_t *est_json(const cb_ab_est *e)
{
    return json_pack("{s:o, s:o, s:o, s:f, s:I, s:s}", "ratio",
                     isfinite(e->est) ? json_real(e->est) : json_null(), "lo",
                     isfinite(e->lo) ? json_real(e->lo) : json_null(), "hi",
                     isfinite(e->hi) ? json_real(e->hi) : json_null(), "level", e->level, "pairs",
                     (json_int_t)e->n, "verdict", cb_ab_verdict_name(e->verdict));
}

static cb_cmp_verdict cmp_verdict(cb_ab_verdict v)
{
    switch (v) {
    case CB_AB_REGRESSED: return CB_CMP_REGRESSED;
    case CB_AB_IMPROVED: return CB_CMP_IMPROVED;
    case CB_AB_UNCHANGED: return CB_CMP_UNCHANGED;
    case CB_AB_UNKNOWN: return CB_CMP_UNKNOWN;
    default: return CB_CMP_INCONCLUSIVE;
    }
}

/* The source of a count under callgrind, as the verdict and each arm's results file name it. */
static void callgrind_source(const ab_ctx *x, char *buf, size_t len)
{
    snprintf(buf, len, "callgrind (%s), user mode, a fixed op count", x->cg_source);
}

/* --events instructions where the PMU counted none (a VM): each cell's instructions per op in
 * both arms under callgrind (instr.h), after the timed rounds; x->cg_why says why not. */
static void count_instructions(ab_ctx *x)
{
    const char *ev = x->o.measure.events, *why = NULL;
    if (!ev || !strstr(ev, "instructions"))
        return;
    for (size_t i = 0; i < x->n; i++)
        if (isfinite(cb_invs_instructions(x->cells[i].invs[CB_AB_BASE], &why)))
            return; /* the PMU's count stands */
    if (cb_ab_callgrind_ready(x->cg_source, sizeof x->cg_source) != 0) {
        snprintf(x->cg_why, sizeof x->cg_why, "%s; %s", why ? why : "no PMU count",
                 x->cg_source);
        x->cg_source[0] = '\0';
        return;
    }
    size_t todo = 0;
    for (size_t i = 0; i < x->n; i++)
        todo += x->cells[i].n > 0 && !x->cells[i].other_work;
    fprintf(stderr, "corobench: ab: instructions per op under callgrind (%s): %zu cells, both "
                    "arms at once\n", x->cg_source, todo);
    cb_progress pr;
    cb_progress_start(&pr, stderr, todo, 1, (double)todo * CB_AB_CALLGRIND_STEP_S);
    for (size_t i = 0, done = 0; i < x->n && !cb_proc_interrupted(); i++) {
        abcell *c = &x->cells[i];
        if (!c->n || c->other_work)
            continue;
        char what[700];
        snprintf(what, sizeof what, "%s (instructions, both arms)", c->key);
        cb_progress_begin(&pr, done, 0, what);
        json_t *req = cb_request_build(&x->o, c->pc, 0, CB_REQUEST_TIME);
        char w[2][300];
        double v[2];
        cb_ab_callgrind_cell(x->a, c->pc, req, v, w);
        for (int k = 0; k < 2; k++) {
            c->cg[k] = isfinite(v[k]) ? v[k] : 0;
            if (!isfinite(v[k]) && !x->cg_why[0])
                snprintf(x->cg_why, sizeof x->cg_why, "%.80s: %s: %.200s", c->key, x->a->arms[k].name,
                         w[k]);
        }
        char fig[96];
        if (c->cg[0] > 0 && c->cg[1] > 0)
            snprintf(fig, sizeof fig, "base %.4g, new %.4g instructions/op", c->cg[0], c->cg[1]);
        else
            snprintf(fig, sizeof fig, "not counted");
        cb_progress_end(&pr, done++, 0, what, fig, CB_AB_CALLGRIND_STEP_S);
        json_decref(req);
    }
    cb_progress_finish(&pr);
}

/* The counts the exit status and the summary come from. */
typedef struct tally {
    size_t v[CB_AB_NONE + 1], reran, failed_new, failed_base, lacks_new, lacks_base, lacks_both,
        other_work, timed, counted,     /* counted: cells with instructions in both arms */
        instr_changed, instr_missing;   /* beyond --instr-threshold; timed but not counted */
    double instr_worst;                 /* the log of new/base instructions per op farthest from 0 */
    const char *instr_cell, *instr_why; /* its cell; why instructions were not counted */
} tally;

/* Each cell's problems, decision and line; its entry in the verdict file. */
static void decide_cells(ab_ctx *x, const cb_ab_rule *rule, cb_cmp_out *out, json_t *vcells,
                         tally *t)
{
    double level = cb_ab_cell_level(rule), thr = rule->threshold;
    for (size_t i = 0; i < x->n; i++) {
        abcell *c = &x->cells[i];
        json_t *pairs = json_array(), *vc = json_pack("{s:s, s:O, s:O, s:O, s:O}", "cell", c->key,
                                                      "workload", json_object_get(c->head[0],
                                                                                  "workload"),
                                                      "impl", json_object_get(c->head[0], "impl"),
                                                      "variant", json_object_get(c->head[0],
                                                                                 "variant"),
                                                      "params", json_object_get(c->head[0],
                                                                                "params"));
        for (size_t p = 0; p < c->n; p++)
            json_array_append_new(
                pairs, json_pack("{s:i, s:s, s:f, s:f, s:f}", "round", (int)c->round[p], "first",
                                 cb_ab_first_arm(c->round[p]) == CB_AB_BASE ? "base" : "new",
                                 "base_ns_per_op", c->fig[CB_AB_BASE][p], "new_ns_per_op",
                                 c->fig[CB_AB_NEW][p], "ratio", c->ratio[p]));
        json_object_set_new(vc, "pairs", pairs);
        /* Each arm's problem, for that arm, with its reason: new's are errors (lacking it:
         * unless --allow-missing), base's notes; a cell neither arm supports is only counted. */
        char problem[160] = "";
        if (c->lacks[CB_AB_BASE] && c->lacks[CB_AB_NEW]) {
            t->lacks_both++;
            snprintf(problem, sizeof problem, "unsupported in both arms");
            json_object_set_new(vc, "reason", json_string(c->lacks[CB_AB_NEW]));
        } else {
            json_t *reasons = json_object();
            for (int k = CB_AB_NEW; k >= CB_AB_BASE; k--) {
                const char *why = c->lacks[k] ? c->lacks[k] : c->failed[k];
                if (!why)
                    continue;
                int lack = !!c->lacks[k], err = k == CB_AB_NEW && !(lack && x->a->allow_missing);
                const char *what = lack ? "missing" : k == CB_AB_NEW ? "failed" : "did not run";
                cb_cmp_out_problem(out, err ? "ERROR" : "note", c->key, "%s in %s: %s", what,
                                   x->a->arms[k].name, why);
                if (k == CB_AB_NEW)
                    *(lack ? &t->lacks_new : &t->failed_new) += 1;
                else
                    *(lack ? &t->lacks_base : &t->failed_base) += 1;
                cb_append(problem, sizeof problem, "%s%s in %s", problem[0] ? "; " : "", what,
                          x->a->arms[k].name);
                json_object_set_new(reasons, x->a->arms[k].name, json_string(why));
            }
            if (!problem[0] && c->other_work) {
                cb_cmp_out_problem(out, "ERROR", c->key, "different work: %s", c->other_work);
                t->other_work++;
                snprintf(problem, sizeof problem, "different work");
                json_object_set_new(reasons, "both", json_string(c->other_work));
            }
            if (problem[0])
                json_object_set_new(vc, "reason", reasons);
            else
                json_decref(reasons);
        }
        if (problem[0]) {
            json_object_set_new(vc, "verdict", json_string(problem));
            json_array_append_new(vcells, vc);
            continue;
        }
        cb_ab_cell_staged(c->ratio, c->n1, c->n, level, cb_ab_fresh_level(rule), thr,
                          x->a->seed, &c->first, &c->final);
        t->v[c->final.verdict]++;
        t->timed += c->n > 0;
        t->reran += c->n > c->n1;
        char why[200];
        if (c->n > c->n1)
            snprintf(why, sizeof why, "%.4g%% CI %.3f-%.3f, %zu fresh pairs (first %zu: %s, "
                     "%.3f-%.3f)",
                     100 * c->final.level, c->final.lo, c->final.hi, c->final.n, c->first.n,
                     cb_ab_verdict_name(c->first.verdict), c->first.lo, c->first.hi);
        else
            snprintf(why, sizeof why, "%.4g%% CI %.3f-%.3f, %zu pairs", 100 * level,
                     c->final.lo, c->final.hi, c->final.n);
        double b = c->n ? cb_median(c->fig[CB_AB_BASE], c->n) : NAN;
        double nw = c->n ? cb_median(c->fig[CB_AB_NEW], c->n) : NAN;
        cb_cmp_out_cell(out, c->key, b, nw, c->final.est, c->final.lo, c->final.hi, why,
                        cmp_verdict(c->final.verdict));
        /* Instructions per op (--events instructions): shown, never gated; a time regression
         * is never vetoed by unchanged instructions. */
        double bi = cb_invs_instructions(c->invs[CB_AB_BASE], &t->instr_why);
        double ni = cb_invs_instructions(c->invs[CB_AB_NEW], &t->instr_why);
        char src[200];
        snprintf(src, sizeof src, "%s", cb_instr_source_pmu);
        if (!(isfinite(bi) && isfinite(ni)) && c->cg[0] > 0 && c->cg[1] > 0) {
            bi = c->cg[CB_AB_BASE], ni = c->cg[CB_AB_NEW];
            callgrind_source(x, src, sizeof src);
        }
        t->instr_missing += c->n > 0 && !(isfinite(bi) && isfinite(ni));
        if (isfinite(bi) && isfinite(ni)) {
            int changed = fabs(log(ni / bi)) > log1p(x->a->instr_threshold / 100);
            t->counted++;
            t->instr_changed += (size_t)changed;
            if (!t->instr_cell || fabs(log(ni / bi)) > fabs(t->instr_worst))
                t->instr_worst = log(ni / bi), t->instr_cell = c->key;
            json_object_set_new(vc, "instructions_per_op",
                                json_pack("{s:f, s:f, s:f, s:b, s:s}", "base", bi, "new", ni, "ratio",
                                          ni / bi, "changed", changed, "source", src));
            cb_cmp_out_instr(out, bi, ni, changed);
        }
        json_object_set_new(vc, "first", est_json(&c->first));
        json_object_set_new(vc, "final", est_json(&c->final));
        json_object_set_new(vc, "verdict", json_string(cb_ab_verdict_name(c->final.verdict)));
        json_array_append_new(vcells, vc);
    }
}

/* The whole run over the cells with a pair in every one of the first R rounds: per round the
 * geometric mean of their ratios, a t interval over the rounds. */
static json_t *decide_run(ab_ctx *x, const cb_ab_rule *rule, cb_cmp_out *out, int *regressed)
{
    unsigned R = x->a->rounds;
    double *geo = cb_xcalloc(R, sizeof *geo);
    size_t cells = 0;
    for (size_t i = 0; i < x->n; i++) {
        abcell *c = &x->cells[i];
        if (c->n1 < R || c->other_work)
            continue;
        cells++;
        for (unsigned r = 0; r < R; r++)
            geo[r] += log(c->ratio[r]);
    }
    for (unsigned r = 0; r < R; r++)
        geo[r] = exp(geo[r] / (double)(cells ? cells : 1));
    cb_ab_est w = {.verdict = CB_AB_NONE, .est = NAN, .lo = NAN, .hi = NAN};
    if (cells)
        cb_ab_whole(geo, R, cb_ab_run_level(rule), rule->threshold, &w);
    *regressed = w.verdict == CB_AB_REGRESSED;
    if (cells)
        cb_cmp_out_summary(out, "whole_run",
                           "whole run: geomean %.3fx [%.4g%% CI %.3f, %.3f] over %u rounds of %zu "
                           "cells: %s",
                           w.est, 100 * w.level, w.lo, w.hi, R, cells,
                           w.verdict == CB_AB_REGRESSED ? "REGRESSED"
                                                        : cb_ab_verdict_name(w.verdict));
    else
        cb_cmp_out_summary(out, "whole_run", "whole run: none (no cell has a pair in every "
                                             "round)");
    json_t *j = est_json(&w), *g = json_array();
    for (unsigned r = 0; cells && r < R; r++)
        json_array_append_new(g, json_real(geo[r]));
    json_object_set_new(j, "round_geomeans", g);
    json_object_set_new(j, "cells", json_integer((json_int_t)cells));
    free(geo);
    return j;
}

/* --dry-run: the arms, the plan, the time it should take, and the schedule of the first rounds
 * (every cell once a round, shuffled; the arm that goes first). */
static void print_plan(const ab_ctx *x)
{
    const ab_opts *a = x->a;
    for (int k = 0; k < 2; k++) {
        const arm *m = &a->arms[k];
        printf("%-4s arm: %s%s\n", m->name,
               m->dir ? "the build in " : m->lib ? "plugin " : m->ext ? "program " : "this build",
               m->dir ? m->dir : m->lib ? m->lib : m->ext ? m->ext : "");
    }
    double first = (double)x->n * 2 * a->rounds * x->step_s;
    double most = (double)x->n * 2 * a->max_rounds * x->step_s;
    char t1[32], t2[32];
    cb_progress_clock(first, t1, sizeof t1);
    cb_progress_clock(most, t2, sizeof t2);
    printf("plan: %zu cells, %u rounds (up to %u for cells sent to fresh rounds), 2 processes a "
           "pair: %zu processes, at most %zu\n",
           x->n, a->rounds, a->max_rounds, x->n * 2 * a->rounds, x->n * 2 * a->max_rounds);
    printf("estimated time: %s at the least, %s if every cell needs fresh rounds (%.2f s per "
           "process)\n",
           t1, t2, x->step_s);
    printf("seed: 0x%016" PRIx64 "\n", a->seed);
    for (size_t i = 0; i < x->n; i++)
        printf("  cell %zu: %s\n", i, x->cells[i].key);
    size_t *all = cb_xcalloc(x->n + 1, sizeof *all), *order = cb_xcalloc(x->n + 1, sizeof *order);
    for (size_t i = 0; i < x->n; i++)
        all[i] = i;
    for (unsigned r = 0; r < a->rounds; r++) {
        cb_ab_round_order(a->seed, r, all, x->n, order);
        int f = cb_ab_first_arm(r);
        printf("round %u (%s first):", r + 1, f == CB_AB_BASE ? "base" : "new");
        for (size_t i = 0; i < x->n; i++)
            printf(" %zu", order[i]);
        putchar('\n');
    }
    free(all);
    free(order);
}

/* An arm as the verdict names it ({kind, source, results}), or as its own results file's run.ab
 * does (results NULL: {kind, source, arm}). */
static json_t *arm_json(const arm *m, const char *results)
{
    return json_pack("{s:s, s:o, s:s}", "kind",
                     m->dir ? "build" : m->lib ? "plugin" : m->ext ? "external" : "this build",
                     "source",
                     m->dir ? json_string(m->dir) : m->lib ? json_string(m->lib)
                                          : m->ext ? json_string(m->ext) : json_null(),
                     results ? "results" : "arm", results ? results : m->name);
}

static void free_cells(ab_ctx *x)
{
    for (size_t i = 0; i < x->n; i++) {
        abcell *c = &x->cells[i];
        for (int k = 0; k < 2; k++) {
            json_decref(c->head[k]);
            json_decref(c->invs[k]);
            free(c->fig[k]);
            free(c->lacks[k]);
            free(c->failed[k]);
        }
        free(c->ratio);
        free(c->round);
        free(c->other_work);
    }
    free(x->cells);
}

/* The arms' files beside the verdict path: PATH.base.json and PATH.new.json (PATH without
 * its .json). */
static void arm_names(const ab_opts *a, const char *path, char names[2][4096])
{
    size_t len = strlen(path);
    if (len > 5 && !strcmp(path + len - 5, ".json"))
        len -= 5;
    for (int k = 0; k < 2; k++)
        snprintf(names[k], sizeof names[k], "%.*s.%s.json", (int)len, path, a->arms[k].name);
}

/* --dry-run: the checks prepare_outputs makes, nothing made. 0, or the exit status after one
 * line. */
static int check_outputs(const ab_opts *a)
{
    char names[2][4096];
    int rc;
    if (!a->out_path)
        return cb_out_check_default("verdict", "results/ab");
    if ((rc = cb_out_check("verdict", a->out_path, a->force)))
        return rc;
    arm_names(a, a->out_path, names);
    for (int k = 0; k < 2; k++)
        if ((rc = cb_out_check("results", names[k], a->force)))
            return rc;
    return 0;
}

/* The outputs: the verdict path (-o, or a new name in results/ab/) and the arms' files beside
 * it. 0, or the exit status after one line. */
static int prepare_outputs(ab_opts *a, cb_out *vout, char names[2][4096])
{
    int rc = a->out_path ? cb_out_prepare(vout, "verdict", a->out_path, a->force)
                         : cb_out_prepare_default(vout, "verdict", "results/ab");
    if (rc)
        return rc;
    arm_names(a, vout->path, names);
    for (int k = 0; k < 2; k++) {
        if ((rc = cb_out_prepare(&a->arms[k].out, "results", names[k], a->force))) {
            if (k)
                cb_out_discard(&a->arms[0].out);
            cb_out_discard(vout);
            return rc;
        }
    }
    return 0;
}

int cb_cmd_ab(int argc, char **argv)
{
    const cb_ab_defaults *d = &cb_ab_default;
    ab_opts a = {.rounds = d->rounds, .threshold = d->threshold, .budget = d->budget,
                 .instr_threshold = d->instr_threshold,
                 .arms = {{.name = "base"}, {.name = "new"}}};
    ab_ctx x = {.a = &a};
    int rc;
    if ((rc = cb_ab_parse(argc, argv, &a)) != CB_OPTS_PARSED ||
        (rc = cb_run_opts_parse(a.run_argc, a.run_argv, &x.o)) != CB_OPTS_PARSED ||
        (rc = cb_plan_build(&x.o, &x.plan)) != CB_OPTS_PARSED) {
        free(a.run_argv);
        return rc;
    }
    if (!a.seed_set)
        a.seed = cb_inv_run_seed();
    x.o.layout_seed = a.seed;
    x.o.invocations = a.rounds;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &allowed))
                x.cpus[x.ncpus++] = c;
    x.step_s = cb_progress_budget(x.o.measure.warmup, x.o.measure.reps, x.o.measure.min_rep_ms);
    x.n = x.plan.ncells;
    x.cells = cb_xcalloc(x.n + 1, sizeof *x.cells);
    for (size_t i = 0; i < x.n; i++) {
        abcell *c = &x.cells[i];
        c->pc = &x.plan.cells[i];
        for (int k = 0; k < 2; k++) {
            c->head[k] = cb_cell_header(c->pc);
            c->invs[k] = json_array();
            c->fig[k] = cb_xcalloc(a.max_rounds, sizeof *c->fig[k]);
        }
        c->ratio = cb_xcalloc(a.max_rounds, sizeof *c->ratio);
        c->round = cb_xcalloc(a.max_rounds, sizeof *c->round);
        char p[512];
        cb_cell_params_text(c->head[0], 1, p, sizeof p);
        snprintf(c->key, sizeof c->key, "%s %s %s/%s", c->pc->cell.wl->name, p,
                 c->pc->cell.impl->name, c->pc->variant);
    }
    if (a.dry_run) { /* the outputs refused as the run would refuse them: nothing made */
        if (!(rc = check_outputs(&a)))
            print_plan(&x);
        free_cells(&x);
        cb_plan_free(&x.plan);
        free(a.run_argv);
        return rc ? rc : CB_EXIT_OK;
    }
    cb_out vout;
    char names[2][4096];
    if ((rc = prepare_outputs(&a, &vout, names)) || (rc = cb_ab_links_make(&a))) {
        if (a.tmp[0]) { /* the links failed after the outputs were prepared */
            cb_out_discard(&vout);
            for (int k = 0; k < 2; k++)
                cb_out_discard(&a.arms[k].out);
        }
        cb_ab_links_remove(&a);
        free_cells(&x);
        cb_plan_free(&x.plan);
        free(a.run_argv);
        return rc;
    }
    cb_proc_stop_on_interrupt(cb_out_tmp_now);
    cb_clock_init(); /* once: both arms' requests carry this calibration */
    char *slow = getenv(SLOW_VAR) ? cb_xstrdup(getenv(SLOW_VAR)) : NULL;
    a.slow = slow;
    for (int k = 0; k < 2; k++) {
        a.arms[k].doc = cb_run_results_new(&x.o);
        json_object_set_new(json_object_get(a.arms[k].doc, "run"), "ab",
                            arm_json(&a.arms[k], NULL));
    }

    /* The first R rounds, every cell; then fresh rounds for those not unchanged, in batches of
     * R up to the cap, each cell leaving once its fresh pairs decide it (decide.h). */
    char *want = cb_xcalloc(x.n + 1, 1);
    memset(want, 1, x.n);
    int stop = run_rounds(&x, want, 0, a.rounds);
    cb_ab_rule rule = {.threshold = a.threshold / 100, .budget = a.budget / 100,
                       .looks = cb_ab_looks(a.rounds, a.max_rounds)};
    for (size_t i = 0; i < x.n; i++) {
        x.cells[i].n1 = x.cells[i].n;
        rule.cells += !x.cells[i].out && x.cells[i].n >= 2;
    }
    size_t rerun = 0;
    for (size_t i = 0; i < x.n && !stop; i++) {
        abcell *c = &x.cells[i];
        cb_ab_est e;
        want[i] = 0;
        if (c->out || c->n < 2 ||
            cb_ab_cell(c->ratio, c->n, cb_ab_cell_level(&rule), rule.threshold, a.seed, &e))
            continue;
        want[i] = (char)cb_ab_needs_rerun(e.verdict);
        rerun += (size_t)want[i];
    }
    for (unsigned done = a.rounds, look = 1; rerun && done < a.max_rounds && !stop; look++) {
        unsigned to = a.max_rounds - done > a.rounds ? done + a.rounds : a.max_rounds;
        if (look == 1)
            fprintf(stderr, "corobench: ab: %zu of %zu cells not unchanged after %u rounds: "
                            "fresh rounds %u to %u for them (up to %u)\n",
                    rerun, x.n, a.rounds, done + 1, to, a.max_rounds);
        else
            fprintf(stderr, "corobench: ab: %zu cells unknown on their fresh rounds: rounds %u "
                            "to %u for them\n",
                    rerun, done + 1, to);
        stop = run_rounds(&x, want, done, to);
        done = to;
        rerun = 0;
        for (size_t i = 0; i < x.n && !stop; i++) {
            abcell *c = &x.cells[i];
            want[i] = want[i] && !c->out &&
                      cb_ab_fresh_continues(c->ratio + c->n1, c->n - c->n1, &rule, a.seed);
            rerun += (size_t)want[i];
        }
    }
    free(want);
    if (!stop)
        count_instructions(&x);
    stop = stop || cb_proc_interrupted();
    cb_ab_env_restore(&a);
    cb_ab_links_remove(&a);

    /* Each arm's cells, as run would have written them. */
    for (size_t i = 0; i < x.n; i++)
        for (int k = 0; k < 2; k++) {
            abcell *c = &x.cells[i];
            if (!c->lacks[k] && !c->failed[k]) {
                if (json_array_size(c->invs[k])) {
                    cb_inv_merge(c->head[k], c->invs[k], a.rounds);
                    if (c->cg[k] > 0) { /* no PMU: the count under callgrind */
                        char src[200];
                        callgrind_source(&x, src, sizeof src);
                        cb_cell_set_instructions(c->head[k], c->cg[k], src);
                    }
                }
                else
                    set_outcome(c->head[k], "failed",
                                stop ? "not run: ab was interrupted"
                                     : "not run: the other arm failed or lacks the cell");
            }
            json_array_append(json_object_get(a.arms[k].doc, "cells"), c->head[k]);
        }

    cb_cmp_out *out = cb_cmp_out_new(a.format, a.only_changed);
    cb_cmp_out_command(out, "ab");
    for (int k = 0; k < 2; k++)
        cb_cmp_out_files(out, a.arms[k].name, names[k]);
    json_t *vcells = json_array();
    tally t = {0};
    decide_cells(&x, &rule, out, vcells, &t);
    int run_regressed = 0;
    json_t *whole = decide_run(&x, &rule, out, &run_regressed);
    cb_cmp_out_summary(out, "time",
                       "time: %zu regressed, %zu improved, %zu unchanged, %zu unknown, %zu "
                       "without 2 pairs; %zu cells had fresh rounds",
                       t.v[CB_AB_REGRESSED], t.v[CB_AB_IMPROVED], t.v[CB_AB_UNCHANGED],
                       t.v[CB_AB_UNKNOWN], t.v[CB_AB_NONE], t.reran);
    cb_cmp_out_summary(out, "rule",
                       "rule: a cell regressed when its interval of new/base lies above 1 + %g%% "
                       "(improved: below 1 / (1 + %g%%)); false-alarm budget %g%%: each cell's "
                       "interval at %.4g%% (%zu cells; %.4g%% at each of %u looks at its "
                       "fresh rounds), the whole run's at %.4g%%",
                       a.threshold, a.threshold, a.budget, 100 * cb_ab_cell_level(&rule),
                       rule.cells, 100 * cb_ab_fresh_level(&rule), rule.looks,
                       100 * cb_ab_run_level(&rule));
    cb_cmp_out_summary(out, "schedule",
                       "schedule: seed 0x%016" PRIx64 ", %u rounds (up to %u), each cell's arms "
                       "%s with one layout draw, the first arm alternating",
                       a.seed, a.rounds, a.max_rounds,
                       a.sequential ? "back to back" : "at once, taking turns by repetition");
    if (x.o.measure.events && t.counted)
        cb_cmp_out_summary(out, "instructions",
                           "instructions per op (%s): in both arms for %zu cells; %zu changed "
                           "beyond %g%%; the largest change %+.2f%% (%s): reported, not gated; "
                           "user mode only: a cell's system calls (a signal mask saved per "
                           "switch, a futex, a socket call) are not in its count; %zu timed "
                           "cells not counted%s%s",
                           x.cg_source[0] ? "callgrind" : "instructions:u", t.counted,
                           t.instr_changed, a.instr_threshold, 100 * (exp(t.instr_worst) - 1),
                           t.instr_cell, t.instr_missing, x.cg_why[0] ? ": the first, " : "",
                           x.cg_why);
    else if (x.o.measure.events)
        cb_cmp_out_summary(out, "instructions", "instructions per op: unavailable: %s",
                           x.cg_why[0] ? x.cg_why
                           : t.instr_why ? t.instr_why
                                         : "no cell counted them (--events instructions counts "
                                           "them)");
    cb_cmp_out_summary(out, "cells",
                       "cells: %zu failed in new, %zu missing in new%s, %zu missing in base, %zu "
                       "did not run in base, %zu unsupported in both, %zu did different work",
                       t.failed_new, t.lacks_new, a.allow_missing ? " (allowed)" : "",
                       t.lacks_base, t.failed_base, t.lacks_both, t.other_work);
    rc = CB_EXIT_OK;
    if (t.v[CB_AB_REGRESSED] || run_regressed || t.failed_new || t.other_work ||
        (t.lacks_new && !a.allow_missing) || !t.timed)
        rc = CB_EXIT_CELLS_FAILED;
    if (!t.timed && !stop)
        fprintf(stderr, "corobench: ab: no cell ran in both arms, nothing was compared (valid: "
                        "two arms that run the same cells)\n");
    if (stop) /* the verdict file says what the command returns */
        rc = 128 + cb_proc_interrupted();

    /* The files: each arm's results, then the verdict. */
    int moved, werr = 0;
    for (int k = 0; k < 2; k++)
        werr |= cb_results_write(a.arms[k].doc, &a.arms[k].out, names[k], &moved) != 0;
    char created[32];
    time_t now = time(NULL);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    char seed[32];
    snprintf(seed, sizeof seed, "0x%016" PRIx64, a.seed);
    json_t *v = json_pack("{s:s, s:s, s:s, s:{s:o, s:o}, s:s, s:i, s:i, s:f, s:f, s:f, s:f, "
                          "s:i, s:f, s:s, s:f, s:i, s:b, s:o, s:o}",
                          "schema", "corobench-ab/1", "created_utc", created, "commit",
                          cb_build_commit, "arms", "base", arm_json(&a.arms[0], names[0]), "new",
                          arm_json(&a.arms[1], names[1]), "seed", seed, "rounds",
                          (int)a.rounds, "max_rounds", (int)a.max_rounds, "threshold_percent",
                          a.threshold, "budget_percent", a.budget, "cell_level",
                          cb_ab_cell_level(&rule), "fresh_level", cb_ab_fresh_level(&rule),
                          "looks", (int)rule.looks, "run_level", cb_ab_run_level(&rule),
                          "pairs", a.sequential ? "sequential" : "alternate",
                          "instr_threshold_percent", a.instr_threshold, "status", rc, "interrupted", stop, "whole_run", whole, "cells", vcells);
    if (json_dumpf(v, cb_out_stream(&vout), JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
        abort(); /* into memory */
    werr |= cb_out_commit(&vout) != 0;
    json_decref(v);
    cb_cmp_out_finish(out, rc);
    fprintf(stderr, "corobench: ab: verdict in %s; base's results in %s, new's in %s\n",
            vout.path, names[0], names[1]);
    for (int k = 0; k < 2; k++)
        json_decref(a.arms[k].doc);
    free(slow);
    free_cells(&x);
    cb_plan_free(&x.plan);
    free(a.run_argv);
    return werr && !rc ? CB_EXIT_CELLS_FAILED : rc;
}

