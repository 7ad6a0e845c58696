/* Claim 9 of the report (io, docs/report.md): for I/O-bound work the switch cost disappears in the
 * system calls: the switch's share of a message (the switch's time at pingpong depth 0, from the io
 * cell's own file where it has one, times the io cell's switches per message, over its time per
 * message), for the fastest stackful and the fastest stackless implementation (by that switch time)
 * and for ucontext, at every io point. Supported when every share's interval lies under
 * M.share_max; contradicted when one lies at or above it. How the implementations differ on io is a
 * note, not a verdict. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 9). */
static const struct {
    double share_max;
} M = {.share_max = 0.10};

/* The switch io is measured against: pingpong at depth 0, as the io cells switch. */
static const char switch_point[] = DISTINCT " depth=0 work!=none fpu!=0";

static json_t *fastest_switch(const ctx *c, const char *fam)
{
    json_t *cell, *best = NULL;
    size_t i;
    json_array_foreach(c->cells, i, cell)
    {
        const char *f = cb_str(cell, "family");
        if (f && !strcmp(f, fam) &&
            cq_matches(cell, cb_wl_pingpong.name, NULL, "plain", switch_point) &&
            cq_find(c, cb_wl_io.name, cb_str(cell, "impl"), "plain",
                    IO_EXPLICIT) &&
            (!best || cq_median(cell) < cq_median(best)))
            best = cell;
    }
    return best;
}

/* The rows of one implementation; 1 when it had any. Raises *lo_max and *hi_max. */
static int io_rows(const ctx *c, claim *o, const char *impl, double *lo_max, double *hi_max)
{
    json_t *cell, *sw0 = cq_find(c, cb_wl_pingpong.name, impl, "plain", switch_point);
    size_t i;
    int any = 0;
    json_array_foreach(c->all, i, cell)
    {
        if (!sw0 ||
            !cq_matches(cell, cb_wl_io.name, impl, "plain", IO_EXPLICIT))
            continue;
        json_t *sw =
            cq_find_in(c->all, cb_wl_pingpong.name, impl, "plain", switch_point, cq_file_of(cell));
        int across = !sw;
        if (!sw)
            sw = sw0;
        double s = cq_num(cell, "suspensions") / cq_num(cell, "ops");
        if (!isfinite(s))
            continue;
        iv t = cq_cell_iv(sw), m = cq_cell_iv(cell);
        double share = s * t.est / m.est, lo = s * t.lo / m.hi, hi = s * t.hi / m.lo;
        if (!isfinite(share)) /* no timing: not a row */
            continue;
        int ok = t.ok && m.ok;
        /* Without an interval the estimate bounds nothing: it may not decide a contradiction. */
        if (ok)
            *lo_max = fmax(*lo_max, lo);
        *hi_max = ok ? fmax(*hi_max, hi) : INFINITY;
        char sh[64] = "";
        if (ok)
            snprintf(sh, sizeof sh, "%.1f%% [%.1f, %.1f]", 100 * share, 100 * lo, 100 * hi);
        else
            snprintf(sh, sizeof sh, "%.1f%% (no interval)", 100 * share);
        cb_append(
            o->table, sizeof o->table, "| %s | %lld | %ld%s | %.2f | %.1f | %.0f | %s |\n", impl,
            (long long)json_integer_value(
                json_object_get(json_object_get(cell, "params"), "conns")),
            cq_file_of(cell) + 1, across ? " (switch from another file)" : "", s, t.est, m.est, sh);
        any = 1;
    }
    return any;
}

static void eval(const ctx *c, claim *o)
{
    json_t *sf = fastest_switch(c, "stackful"), *sl = fastest_switch(c, "stackless");
    if (!sf || !sl) {
        cq_not_measured(o,
                        "io cells (unix transport) and pingpong cells at depth 0 of a stackful and "
                        "a stackless implementation");
        return;
    }
    const char *impls[3] = {cb_str(sf, "impl"), cb_str(sl, "impl"), cb_impl_name(CB_IMPL_UCONTEXT)};
    size_t ni = strcmp(impls[0], cb_impl_name(CB_IMPL_UCONTEXT)) ? 3 : 2;
    cb_append(o->table, sizeof o->table,
              "| implementation | conns | file | switches per message | ns per switch (depth 0) "
              "| ns per message | switch share |\n|---|---:|---|---:|---:|---:|---:|\n");
    double lo = 0, hi = 0;
    int had[3] = {0, 0, 0};
    for (size_t k = 0; k < ni; k++)
        had[k] = io_rows(c, o, impls[k], &lo, &hi);
    if (!had[0] || !had[1]) {
        o->table[0] = '\0';
        cq_not_measured(o, "timed io cells with switch counts (suspensions, ops) of a stackful and "
                           "a stackless implementation");
        return;
    }
    cb_append(o->text, sizeof o->text,
              "The switch's share of an io message (switches per message x ns per switch at "
              "pingpong depth 0, over ns per message) for the fastest stackful (%s) and "
              "stackless (%s) switch%s, at every io point (table below): the largest share's "
              "interval reaches from %.1f%% to ",
              impls[0], impls[1], ni == 3 && had[2] ? " and for ucontext" : "", 100 * lo);
    if (isfinite(hi))
        cb_append(o->text, sizeof o->text, "%.1f%%", 100 * hi);
    else
        cb_append(o->text, sizeof o->text,
                  "an unknown bound (a cell with one invocation has no interval)");
    cb_append(o->text, sizeof o->text, " (under %.0f%% supports, %.0f%% or more contradicts).%s",
              100 * M.share_max, 100 * M.share_max,
              ni == 3 && !had[2] ? " ucontext has no io cells." : "");
    /* The note: do two implementations still differ on io, beyond the switch? */
    const char *const im[] = {cb_impl_name(CB_IMPL_ASM), cb_impl_name(CB_IMPL_SM)};
    long cn[MAXPTS];
    size_t n =
        cq_common(c, cb_wl_io.name, im, NULL, 2, IO_EXPLICIT, "conns", cn);
    if (n) {
        json_t *ia = cq_findf(c, cb_wl_io.name, cb_impl_name(CB_IMPL_ASM), "plain",
                              IO_EXPLICIT " conns=%ld", cn[n - 1]),
               *is = cq_findf(c, cb_wl_io.name, cb_impl_name(CB_IMPL_SM), "plain",
                              IO_EXPLICIT " conns=%ld", cn[n - 1]);
        iv r = cq_ratio_iv(ia, is);
        cb_append(o->text, sizeof o->text,
                  " Note (not part of the verdict): asm over sm on io at "
                  "%ld connections: ",
                  cn[n - 1]);
        cq_ratio_text(o->text, sizeof o->text, r, ia, is);
        int dir = cq_decide(r, DIFF);
        cb_append(o->text, sizeof o->text, "%s.",
                  dir == D_SLOWER || dir == D_FASTER
                      ? "; a difference the switch does not explain (stack memory, the order "
                        "of the work)"
                      : "");
    }
    o->v = lo >= M.share_max ? CB_CONTRADICTED : hi < M.share_max ? CB_SUPPORTED : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 9,
    .id = "io",
    .sentence = "For I/O-bound work the switch cost disappears in the system calls (under 10% of a "
                "message).",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {"io"},
    .command = {.workloads = {&cb_wl_io, &cb_wl_pingpong},
                CQ_IMPLS(CB_IMPL_ASM, CB_IMPL_UCONTEXT, CB_IMPL_SM),
                .params = {"conns=1,16,256", "depth=0"}},
};
CQ_CLAIM(row);
