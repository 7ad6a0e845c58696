/* Claim 12 of the report (hooks, docs/report.md): hooks make blocking code asynchronous, source
 * or binary, at a small cost per call. At the most connections with both styles (stackful_order's
 * first): the blocking cell must do explicit's work with suspensions (it went asynchronous; else
 * contradicted), and blocking over explicit below 1 + EQUIV supports (the hooks cost under 10% of
 * a message), above it contradicts. The cost per call = (blocking - explicit) ns per message /
 * calls through the hooks per message, its interval from the ratio's, not below 0. The binary
 * part: the style=prebuilt cell at the same point (the same blocking code in a library built
 * apart, workloads/io.c) must do explicit's work with suspensions, else contradicted (a failed or
 * timed-out cell too: its calls did not complete through the event loop); without it, or when the
 * library did not load, not measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"
#include "workloads/io_family.h"

/* The style=prebuilt cell of impl at n connections in any state but unsupported (a failed or
 * timed-out one is what calls that never reached the event loop leave), NULL when none. */
static json_t *prebuilt_cell(const ctx *c, const char *impl, long n)
{
    json_t *ok = cq_findf(c, cb_wl_io.name, impl, "plain", IO_PREBUILT " conns=%ld", n), *cell;
    size_t i;
    if (ok)
        return ok;
    json_array_foreach(c->cells, i, cell)
    {
        json_t *p = json_object_get(cell, "params");
        const char *st = cb_str(cell, "status"), *style = cb_str(p, "style");
        if (!strcmp(cb_str(cell, "workload"), cb_wl_io.name) &&
            !strcmp(cb_str(cell, "impl"), impl) && !strcmp(cb_str(cell, "variant"), "plain") &&
            style && !strcmp(style, "prebuilt") &&
            cb_str(p, "transport") && !strcmp(cb_str(p, "transport"), "unix") &&
            json_integer_value(json_object_get(p, "conns")) == n && st &&
            (!strcmp(st, "failed") || !strcmp(st, "timeout")))
            return cell;
    }
    return NULL;
}

/* Whether cell did explicit's work with suspensions (its blocking calls went through the event
 * loop), said with yes or no (each given the suspensions). */
static int async_work(claim *o, json_t *cell, json_t *e, const char *yes, const char *no)
{
    int work = cq_same_work(cell, e) && cq_num(cell, "suspensions") > 0;
    cb_append(o->text, sizeof o->text, work ? yes : no, cq_num(cell, "suspensions"));
    return work;
}

/* The binary part: 1 its calls went through the event loop, 0 they did not, -1 not measured. */
static int prebuilt_part(const ctx *c, claim *o, const char *impl, long n, json_t *e)
{
    json_t *pb = prebuilt_cell(c, impl, n);
    if (!pb) {
        cb_append(o->text, sizeof o->text,
                  " The same blocking code in a library built apart (style=prebuilt) was not "
                  "measured.");
        return -1;
    }
    const char *st = cb_str(pb, "status"), *err = cb_str(pb, "error");
    if (strcmp(st, "ok") && err && !strncmp(err, IO_PREBUILT_LOAD_ERROR,
                                            strlen(IO_PREBUILT_LOAD_ERROR))) {
        cb_append(o->text, sizeof o->text,
                  " The library built apart (style=prebuilt) did not load (its error is in the "
                  "cells that did not run): its part is not measured.");
        return -1;
    }
    if (strcmp(st, "ok")) {
        cb_append(o->text, sizeof o->text,
                  " The library built apart (style=prebuilt) %s (its error is in the cells that "
                  "did not run): its blocking calls did not complete through the event loop.",
                  strcmp(st, "timeout") ? "failed" : "timed out");
        return 0;
    }
    double calls = cq_num(pb, "hooked_calls_per_op");
    cb_append(o->text, sizeof o->text,
              " The same blocking code in a library built apart (style=prebuilt, "
              "examples/legacy-client/, compiled without corobench's headers and loaded with "
              "dlopen): %.0f ns per message, ",
              cq_median(pb));
    if (isfinite(calls) && calls > 0)
        cb_append(o->text, sizeof o->text, "%.2f of its calls per message through the hooks",
                  calls);
    else
        cb_append(o->text, sizeof o->text, "no call through the hooks");
    return async_work(o, pb, e,
                      "; the same checksum and %.0f suspensions as explicit: the binary's calls "
                      "went through the event loop.",
                      "; not explicit's work with suspensions (it made %.0f): the binary's calls "
                      "did not go through the event loop.");
}

static void eval(const ctx *c, claim *o)
{
    const char *impl;
    long n;
    if (!cq_pair_point(c, cb_wl_io.name, IO_BLOCKING, IO_EXPLICIT, "conns", &impl, &n)) {
        cq_not_measured(o, "io cells of a stackful implementation in both styles");
        return;
    }
    json_t *b = cq_findf(c, cb_wl_io.name, impl, "plain", IO_BLOCKING " conns=%ld", n),
           *e = cq_findf(c, cb_wl_io.name, impl, "plain", IO_EXPLICIT " conns=%ld", n);
    json_t *two[2] = {b, e};
    if (cq_untimed(o, two, 2))
        return;
    double calls = cq_num(b, "hooked_calls_per_op");
    iv r = cq_ratio_iv(b, e);
    cb_append(o->text, sizeof o->text,
              "io, %s, %ld connections: blocking read/write through the hooks %.0f ns per "
              "message, explicit %.0f ns (blocking over explicit ",
              impl, n, cq_median(b), cq_median(e));
    cq_ratio_text(o->text, sizeof o->text, r, b, e);
    cb_append(o->text, sizeof o->text, "; under %.2f supports). ", 1 + EQUIV);
    if (isfinite(calls) && calls > 0) {
        cb_append(o->text, sizeof o->text,
                  "%.2f calls per message went through the hooks: %.1f ns per call", calls,
                  (cq_median(b) - cq_median(e)) / calls);
        /* The interval from the ratio's (one bootstrap over both cells' invocations), times
         * explicit's time per call: the two cells' own intervals subtracted made a cost below
         * zero ([-199.8, 281.1]). A cost cannot be negative: a bound under 0 is shown as 0,
         * and said. */
        if (r.ok) {
            double lo = (r.lo - 1) * cq_median(e) / calls, hi = (r.hi - 1) * cq_median(e) / calls;
            cb_append(o->text, sizeof o->text, " [%.1f, %.1f]%s", lo > 0 ? lo : 0, hi > 0 ? hi : 0,
                      lo < 0 ? " (the interval's lower end clipped at 0: blocking and explicit "
                               "are not told apart there, and a cost is not negative)"
                             : "");
        }
        cb_append(o->text, sizeof o->text, ".");
    } else {
        cb_append(o->text, sizeof o->text, "The blocking cell counts no call through the hooks.");
    }
    int work = async_work(o, b, e,
                          " The same checksum and %.0f suspensions as explicit: the blocking code "
                          "ran asynchronously.",
                          " The blocking cell did not do explicit's work with suspensions (it made "
                          "%.0f).");
    int binary = prebuilt_part(c, o, impl, n, e);
    /* Either part contradicts the claim; a supported cost needs the binary part measured. */
    o->v = !work || !binary              ? CB_CONTRADICTED
           : r.ok && r.lo > 1 + EQUIV    ? CB_CONTRADICTED
           : binary < 0                  ? CB_NOT_MEASURED
           : !r.ok                       ? CB_INCONCLUSIVE
           : r.hi < 1 + EQUIV            ? CB_SUPPORTED
                                         : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 12,
    .id = "hooks",
    .sentence =
        "With hooks, stackful coroutines make existing blocking code asynchronous, source or "
        "binary, at a small cost per call through the hooks.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"io"},
    .command = {.workloads = {&cb_wl_io},
                CQ_IMPLS(CB_IMPL_ASM),
                .params = {"style=explicit,blocking,prebuilt", "conns=16"}},
};
CQ_CLAIM(row);
