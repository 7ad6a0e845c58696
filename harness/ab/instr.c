/* Instructions per op under callgrind, for ab without a PMU (instr.h). */
#include "instr.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ab.h"
#include "harness/common/alloc.h"
#include "harness/common/cli.h"
#include "harness/common/stats.h"
#include "harness/common/proc.h"
#include "harness/results/fields.h"
#include "harness/run/request.h"
#include "impls/languages.h"

/* A fixed op count: one warm-up and this many kept repetitions of one instance. */
enum { CG_REPS = 3 };
/* valgrind runs a program some 50 times slower: the count's own timeout. */
#define CG_TIMEOUT_S 600.0

/* valgrind's path, found on PATH by cb_ab_callgrind_ready. */
static char valgrind[PATH_MAX];

int cb_ab_callgrind_ready(char *buf, size_t len)
{
    if (cb_lang_find_in_path("valgrind", valgrind, sizeof valgrind) != 0) {
        snprintf(buf, len, "valgrind is not installed here (scripts/install-deps.sh installs it)");
        return -1;
    }
    char *argv[] = {valgrind, "--version", NULL};
    cb_proc p;
    cb_proc_opts o = {.stdin_null = 1};
    cb_proc_result r;
    if (cb_proc_start(&p, &o, cb_proc_exec, argv, buf, len) != 0)
        return -1;
    cb_proc_wait(&p, 30, &r);
    int ok = cb_proc_exit_code(r.wait_status) == 0 && r.out_len > 0;
    if (ok)
        cb_proc_last_line(r.out, buf, len);
    else
        snprintf(buf, len, "valgrind is not installed here (scripts/install-deps.sh installs it)");
    cb_proc_result_free(&r);
    return ok ? 0 : -1;
}

/* The "totals:" line of a callgrind output file: the events collected, NaN when absent. */
static double totals(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    double v = NAN;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "totals:", 7)) {
            char *end;
            double x = strtod(line + 7, &end);
            if (end != line + 7 && x >= 0)
                v = x;
        }
    if (f)
        fclose(f);
    return v;
}

void cb_ab_callgrind_cell(const ab_opts *a, const cb_plan_cell *pc, const json_t *req,
                          double per_op[2], char why[2][300])
{
    json_t *r = json_deep_copy(req);
    json_object_set_new(r, "warmup", json_integer(1));
    json_object_set_new(r, "reps", json_integer(CG_REPS));
    json_object_set_new(r, "min_rep_ms", json_real(1e-6));
    json_object_set_new(r, "events", json_null());
    json_object_set_new(r, "pin_cpu", json_null());
    json_object_set_new(r, "timeout_s", json_real(CG_TIMEOUT_S));
    char out[2][PATH_MAX + 64], opt[2][PATH_MAX + 128];
    cb_request_child ch[2];
    for (int k = 0; k < 2; k++) {
        snprintf(out[k], sizeof out[k], "%.4000s/callgrind.%.8s.out", a->tmp, a->arms[k].name);
        snprintf(opt[k], sizeof opt[k], "--callgrind-out-file=%.4060s", out[k]);
        unlink(out[k]);
        const char *const wrap[] = {valgrind, "-q", "--tool=callgrind", "--collect-atstart=no",
                                    opt[k], NULL};
        cb_ab_arm_start(a, k, pc, r, -1, 0, wrap, &ch[k]);
    }
    for (int k = 0; k < 2; k++) {
        json_t *res = cb_request_finish(&ch[k]);
        const char *st = cb_str(res, "status");
        double ops = json_number_value(json_object_get(res, "collected_ops"));
        double ir = totals(out[k]);
        per_op[k] = NAN;
        if (!st || strcmp(st, "ok"))
            snprintf(why[k], sizeof why[k], "%s under callgrind: %s", st ? st : "failed",
                     cb_str(res, "error") ?: "no reason given");
        else if (!(ops > 0))
            snprintf(why[k], sizeof why[k], "the cell's process under valgrind counted no ops "
                                            "(a build without the collection toggles?)");
        else if (!(ir > 0))
            snprintf(why[k], sizeof why[k], "callgrind wrote no totals (its output file %.200s)",
                     out[k]);
        else
            per_op[k] = ir / ops;
        json_decref(res);
        unlink(out[k]);
    }
    json_decref(r);
}
