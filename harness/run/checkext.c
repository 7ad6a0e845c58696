/* `corobench check-external COMMAND [--timeout SEC]`: the conformance test of docs/external.md's
 * protocol for a runtime of the user's. A small grid of points, each sent to COMMAND as a
 * request; the reply is checked field by field (as a run checks it) and its ops, checksum and
 * suspensions compared with corobench's own state-machine body on the same point. One line per
 * point, then a summary; exit 0 when no point disagrees or fails and at least one agrees, else
 * 1. A point without a reply within SEC s has its program ended and is FAILED. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "options.h"

#include "harness/common/cli.h"
#include "harness/measure/external.h"
#include "impls/impls.h"
#include "impls/languages.h"
#include "workloads/run_once.h"
#include "workloads/workload.h"

enum { REPS = 2 };

/* The point's parameters (the workload's defaults, then the check point's values); -1 if a value
 * does not parse (a workload changed its ranges: the points are corobench's own, not the user's). */
static int point_params(const cb_workload *wl, const char *const *set, cb_params *p, char *text,
                        size_t len)
{
    size_t used = 0;
    p->n = 0;
    for (const cb_param_def *d = wl->params; d && d->name; d++) {
        const char *v = d->defval;
        for (size_t k = 0; set[k]; k += 2)
            if (!strcmp(set[k], d->name))
                v = set[k + 1];
        char err[256];
        if (p->n >= CB_MAX_PARAMS || cb_param_parse(d, v, &p->v[p->n++], err, sizeof err))
            return -1;
        used += (size_t)snprintf(text + used, used < len ? len - used : 0, " %s=%s", d->name, v);
    }
    return 0;
}

/* COMMAND [--timeout SEC|--timeout=SEC], the option before or after COMMAND: 0 with *cmd and
 * *timeout_s set, else the exit status of a one-line error. */
static int parse_args(int argc, char **argv, const char **cmd, double *timeout_s)
{
    int timeout_given = 0;
    *cmd = NULL;
    *timeout_s = CB_CHECK_EXTERNAL_TIMEOUT_S;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--timeout")) {
            if (i + 1 >= argc)
                return cb_usage_error("option '--timeout' needs a value (valid: a positive "
                                      "number of seconds)");
            v = argv[++i];
        } else if (!strncmp(a, "--timeout=", 10))
            v = a + 10;
        else if (!*cmd && a[0] != '-') {
            *cmd = a;
            continue;
        } else
            return cb_usage_error("unexpected argument '%s' for check-external (valid: one "
                                  "COMMAND, quoted, and --timeout SEC)",
                                  cb_quote(a));
        if (timeout_given++)
            return cb_usage_error("option --timeout given twice for check-external (valid: once)");
        int rc = cb_opt_positive("--timeout", v, 1e6, timeout_s);
        if (rc)
            return rc;
    }
    if (!*cmd || !(*cmd)[0])
        return cb_usage_error("usage: corobench check-external COMMAND [--timeout SEC] (valid: "
                              "one command, quoted, that answers docs/external.md's requests)");
    return 0;
}

int cb_cmd_check_external(int argc, char **argv)
{
    const char *cmd;
    double timeout_s;
    int rc = parse_args(argc, argv, &cmd, &timeout_s);
    if (rc)
        return rc;
    const char *name = "under-test", *unsafe = cb_lang_command_unsafe(cmd);
    if (unsafe)
        return cb_usage_error("invalid value '%s' for check-external's COMMAND: it %s (valid: a "
                              "command to which the shell appends the request as its last word)",
                              cb_quote(cmd), unsafe);
    cb_lang_add_user(name, cmd);
    const cb_impl *sm = &cb_impls[CB_IMPL_SM];
    size_t agree = 0, unsupported = 0, bad = 0;
    /* Each workload's small points (its row's check_points), against corobench's own sm body. */
    for (size_t w = 0; w < cb_nworkloads; w++) {
        const cb_workload *wl = cb_workloads[w];
        for (const char *const(*pt)[CB_WL_CHECK_SET] = wl->check_points; pt && (*pt)[0]; pt++) {
            cb_params p;
            char text[512], why[1024];
            cb_wl_once want;
            if (point_params(wl, *pt, &p, text, sizeof text) ||
                cb_wl_run_once(wl, sm, &p, NULL, &want, why, sizeof why)) {
                printf("skipped     %s: corobench's own body cannot run this point here\n",
                       wl->name);
                continue;
            }
            cb_ext_request rq = {.workload = wl->name, .params = &p, .warmup = 1, .reps = REPS,
                                 .batch = 1, .min_rep_ms = 1, .max_batch = 1, .memory = 1};
            cb_ext_reply rp;
            rc = cb_ext_run(name, &rq, timeout_s, &rp, why, sizeof why);
            if (rc == 1) {
                printf("unsupported %s%s: %s\n", wl->name, text, why);
                unsupported++;
                continue;
            }
            if (rc != 0) {
                printf("FAILED      %s%s: %s\n", wl->name, text, why);
                bad++;
                continue;
            }
            char diff[512] = "";
            cb_ext_diff_work(&rp, &want, REPS, diff, sizeof diff);
            size_t n = strlen(diff);
            if (rp.batch != 1 && n < sizeof diff)
                snprintf(diff + n, sizeof diff - n, "; batch %" PRIu64 ", not the request's 1",
                         rp.batch);
            json_decref(rp.doc);
            if (diff[0]) {
                printf("DIFFERS     %s%s: %s (corobench's sm body is the reference)\n", wl->name,
                       text, diff + 2);
                bad++;
            } else {
                printf("ok          %s%s\n", wl->name, text);
                agree++;
            }
        }
    }
    printf("%zu points agree, %zu unsupported, %zu differ or failed: %s\n", agree, unsupported,
           bad, bad || !agree ? "NOT CONFORMING" : "conforming");
    return bad || !agree ? 1 : 0;
}
