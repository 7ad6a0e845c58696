/* The report's "## Summary" (docs/report.md): which model is faster where, from claim 10's
 * points, and the claims by verdict. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"
#include "harness/report/plots.h"
#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

static int by_est(const void *a, const void *b)
{
    double x = (*(const xpoint *const *)a)->r.est, y = (*(const xpoint *const *)b)->r.est;
    return (x > y) - (x < y);
}

/* A runtime from outside corobench (a plugin or an external program) at one point: its ratio to
 * the fastest of corobench's own runtimes of its family there, in the same file. */
typedef struct outside {
    json_t *cell, *own;
    iv r;
} outside;

/* By runtime, then workload, then ratio. */
static int by_runtime(const void *a, const void *b)
{
    const outside *x = a, *y = b;
    int d = strcmp(cb_str(x->cell, "impl"), cb_str(y->cell, "impl"));
    if (!d)
        d = strcmp(cb_str(x->cell, "workload"), cb_str(y->cell, "workload"));
    return d ? d : (x->r.est > y->r.est) - (x->r.est < y->r.est);
}

/* The Summary's rows for the user's own runtimes, loaded as plugins or run as external
 * programs, which the table above shows only where a plugin is the fastest of its family: each
 * against the fastest of corobench's runtimes of its family at the same points (workload
 * parameters; the implementations' own parameters at their defaults), in the same file, as
 * claim 11 pairs them; an external program, of no family ("external"), against the faster of
 * corobench's fastest stackful and stackless there. */
static void outsiders(FILE *out, const ctx *c)
{
    size_t n;
    cq_pair *pr = cq_own_pairs(c, cq_outside, 1, &n);
    outside *o = cb_xcalloc(n + 1, sizeof *o);
    for (size_t i = 0; i < n; i++)
        o[i] = (outside){pr[i].other, pr[i].own, cq_ratio_iv(pr[i].other, pr[i].own)};
    free(pr);
    if (n) {
        qsort(o, n, sizeof *o, by_runtime);
        fprintf(out, "\nYour runtimes (plugins, external programs) against the fastest of "
                     "corobench's own runtimes of their family at the same points (an external "
                     "program, of no family: the faster of the two families'; one file; over "
                     "1x: yours slower):\n\n"
                     "| runtime | family | workload | points | typical yours / corobench's "
                     "[95%%] | range |\n|---|---|---|---:|---|---|\n");
    }
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a; b < n && !strcmp(cb_str(o[b].cell, "impl"), cb_str(o[a].cell, "impl")) &&
                    !strcmp(cb_str(o[b].cell, "workload"), cb_str(o[a].cell, "workload"));
             b++)
            ;
        const outside *t = &o[a + (b - a) / 2];
        char typ[256] = "", params[512];
        cq_ratio_text(typ, sizeof typ, t->r, NULL, NULL);
        cb_cell_params_text(t->cell, 0, params, sizeof params);
        char lo[32], hi[32];
        fprintf(out, "| %s | %s | %s | %zu | %s %s/%s at %s | %sx .. %sx |\n",
                cb_str(t->cell, "impl"), cb_str(t->cell, "family"), cb_str(t->cell, "workload"),
                b - a, typ, cb_str(t->cell, "impl"), cb_str(t->own, "impl"), params,
                cb_fig(o[a].r.est, CB_FIG_SIG3, lo, sizeof lo),
                cb_fig(o[b - 1].r.est, CB_FIG_SIG3, hi, sizeof hi));
    }
    free(o);
}

/* The tokens ("depth=16") of t's parameters that some point of mine[0..k) lacks: what differs
 * between a workload's points, joined by sep. */
static void varying(const xpoint *const *mine, size_t k, const xpoint *t, const char *sep,
                    char *out, size_t len)
{
    char params[512], *save = NULL;
    out[0] = '\0';
    cb_cell_params_text(t->sf, 0, params, sizeof params);
    for (char *tok = strtok_r(params, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        int differs = 0;
        for (size_t j = 0; j < k && !differs; j++) {
            char other[512];
            cb_cell_params_text(mine[j]->sf, 0, other, sizeof other);
            differs = !cb_has_token(other, tok);
        }
        if (differs)
            cb_append(out, len, "%s%s", *out ? sep : "", tok);
    }
}

/* The points of x[0..n) of x[i]'s workload, in their order, into mine; how many. */
static size_t of_workload(const xpoint *x, size_t n, size_t i, const xpoint **mine)
{
    const char *wl = cb_str(x[i].sf, "workload");
    size_t k = 0;
    for (size_t j = i; j < n; j++)
        if (!strcmp(cb_str(x[j].sf, "workload"), wl))
            mine[k++] = &x[j];
    return k;
}

json_t *cq_headline_rows(const ctx *c)
{
    xpoint *x;
    json_t *points, *rows = json_array(), *done = json_object();
    size_t n = cq_crossover_points(c, &x, &points);
    const xpoint **mine = cb_xcalloc(n + 1, sizeof *mine);
    for (size_t i = 0; i < n; i++) {
        const char *wl = cb_str(x[i].sf, "workload");
        if (json_object_get(done, wl))
            continue;
        json_object_set_new(done, wl, json_true());
        size_t k = of_workload(x, n, i, mine);
        for (size_t j = 0; j < k; j++) {
            const xpoint *t = mine[j];
            char vary[256];
            varying(mine, k, t, ",", vary, sizeof vary);
            /* a figure jansson cannot hold (not finite) is null */
            int ok = t->r.ok && isfinite(t->r.lo) && isfinite(t->r.hi);
            json_array_append_new(
                rows, json_pack("{s:s, s:s, s:o?, s:o?, s:o?, s:b, s:i, s:s, s:s}", "workload",
                                wl, "point", vary, "ratio",
                                isfinite(t->r.est) ? json_real(t->r.est) : NULL, "lo",
                                ok ? json_real(t->r.lo) : NULL, "hi",
                                ok ? json_real(t->r.hi) : NULL, "ok", ok, "winner", t->winner,
                                "stackful", cb_str(t->sf, "impl"), "stackless",
                                cb_str(t->sl, "impl")));
        }
    }
    free(mine);
    json_decref(done);
    free(x);
    json_decref(points);
    return rows;
}

/* The headline plot (the Summary table as a picture) right under the table, or why it is not
 * there; nothing when the report draws no plots. */
static void headline(FILE *out, json_t *plots, const char *rel)
{
    json_t *p;
    size_t i;
    json_array_foreach(plots, i, p)
    {
        if (strcmp(cb_str(p, "name") ?: "", CB_HEADLINE_PLOT))
            continue;
        fputc('\n', out);
        if (cb_plot_picture_md(out, p, rel)) {
            fprintf(out, "\n\nThe table above as a picture: at each point, the fastest "
                         "stackful over the fastest stackless implementation with the ratio's "
                         "95%% interval (log axis; 1x dashed; under 1x: stackful faster), one "
                         "colour per workload, a point a family wins filled, an undecided one "
                         "open.\n");
        } else {
            fputs("The headline plot (this table as a picture) is not drawn: ", out);
            cb_plot_why_md(out, p);
            fputs(".\n", out);
        }
        return;
    }
}

/* "## Summary": the answer first. Per workload, claim 10's points (the fastest stackful against
 * the fastest stackless implementation at each point, both from the file whose figures the
 * point takes: harness/report/pick.h): how many each family wins, the typical point (the median
 * ratio) with its interval and the parameters that vary, the range; the headline plot; then
 * which claims hold. Every figure is the claims' own, on the same rules. */
void cq_summary(FILE *out, json_t *doc, const ctx *c, const claim *res, size_t nclaims,
                json_t *plots, const char *plots_rel)
{
    json_t *m = json_object_get(doc, "machine");
    const char *cpu = json_string_value(json_object_get(m, "cpu_model"));
    fprintf(out,
            "\n## Summary\n\nWhich model is faster where on this machine (%s, %lld logical "
            "CPUs; the caveats below say what limits it): at each workload point, the fastest "
            "stackful implementation against the fastest stackless one (plain builds, both "
            "from the one file whose figures the point takes; under 1x: stackful faster; a "
            "point is won when the ratio's 95%% interval lies beyond %.0f%% and Holm-corrected "
            "p < %.2g, as claim 10).\n\n",
            cpu ? cpu : "unknown CPU",
            (long long)json_integer_value(json_object_get(m, "logical_cpus")), 100 * DIFF, ALPHA);
    xpoint *x;
    json_t *points;
    size_t n = cq_crossover_points(c, &x, &points);
    if (!n)
        fprintf(out, "No workload point has both a stackful and a stackless cell: nothing to "
                     "compare (`corobench run --workload all`).\n");
    else
        fprintf(out, "| workload | points | stackful faster | stackless faster | undecided | "
                     "typical stackful / stackless [95%%] | range |\n"
                     "|---|---:|---:|---:|---:|---|---|\n");
    json_t *done = json_object();
    const xpoint **mine = cb_xcalloc(n + 1, sizeof *mine);
    for (size_t i = 0; i < n; i++) {
        const char *wl = cb_str(x[i].sf, "workload");
        if (json_object_get(done, wl))
            continue;
        json_object_set_new(done, wl, json_true());
        size_t k = of_workload(x, n, i, mine), wins[2] = {0, 0}, open = 0;
        for (size_t j = 0; j < k; j++) {
            if (mine[j]->winner >= 0)
                wins[mine[j]->winner]++;
            else
                open++;
        }
        qsort(mine, k, sizeof *mine, by_est);
        const xpoint *t = mine[k / 2];
        /* the typical point's parameters that differ between the workload's points */
        char vary[256];
        varying(mine, k, t, " ", vary, sizeof vary);
        char typ[256] = "";
        if (t->r.ok)
            cb_append(typ, sizeof typ, "%.2fx [%.2f, %.2f]", t->r.est, t->r.lo, t->r.hi);
        else
            cb_append(typ, sizeof typ, "%.2fx (no interval)", t->r.est);
        fprintf(out, "| %s | %zu | %zu | %zu | %zu | %s %s/%s%s%s | %.2gx .. %.2gx |\n", wl, k,
                wins[0], wins[1], open, typ, cb_str(t->sf, "impl"), cb_str(t->sl, "impl"),
                *vary ? " at " : "", vary, mine[0]->r.est, mine[k - 1]->r.est);
    }
    free(mine);
    json_decref(done);
    free(x);
    json_decref(points);
    if (n)
        headline(out, plots, plots_rel);
    outsiders(out, c);
    fprintf(out, "\nClaims on this machine (numbered as in the Claims section):");
    for (int v = 0; v < CB_VERDICTS; v++) {
        char list[256] = "";
        for (size_t i = 0; i < nclaims; i++)
            if ((int)res[i].v == v)
                cb_append(list, sizeof list, "%s%zu", *list ? ", " : "", i + 1);
        fprintf(out, "%s **%s** %s", v ? ";" : "", cb_verdict_name((cb_verdict)v),
                *list ? list : "none");
    }
    fprintf(out, ".\n");
}
