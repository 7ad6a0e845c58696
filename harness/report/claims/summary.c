/* The report's "## Summary" (docs/report.md): which model is faster where, from claim 10's
 * points, and the claims by verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"
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

static int plugin(json_t *cell)
{
    const char *k = cq_kind(cell);
    return k && !strcmp(k, cb_impl_kind_name(CB_KIND_PLUGIN));
}

/* By runtime, then workload, then ratio. */
static int by_runtime(const void *a, const void *b)
{
    const outside *x = a, *y = b;
    int d = strcmp(cb_str(x->cell, "impl"), cb_str(y->cell, "impl"));
    if (!d)
        d = strcmp(cb_str(x->cell, "workload"), cb_str(y->cell, "workload"));
    return d ? d : (x->r.est > y->r.est) - (x->r.est < y->r.est);
}

/* The Summary's rows for the user's own runtimes loaded as plugins (an external program's family
 * is "external": it has none to be compared within), which the table above shows only where one
 * is the fastest of its family: each against the fastest of
 * corobench's runtimes of its family at the same points (workload parameters; the
 * implementations' own parameters at their defaults), in the same file, as claim 11 pairs them. */
static void outsiders(FILE *out, const ctx *c)
{
    size_t n;
    cq_pair *pr = cq_own_pairs(c, plugin, &n);
    outside *o = cb_xcalloc(n + 1, sizeof *o);
    for (size_t i = 0; i < n; i++)
        o[i] = (outside){pr[i].other, pr[i].own, cq_ratio_iv(pr[i].other, pr[i].own)};
    free(pr);
    if (n) {
        qsort(o, n, sizeof *o, by_runtime);
        fprintf(out, "\nYour runtimes (plugins) against the fastest of "
                     "corobench's own runtimes of their family at the same points (one file; "
                     "over 1x: yours slower):\n\n"
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

/* "## Summary": the answer first. Per workload, claim 10's points (the fastest stackful against
 * the fastest stackless implementation at each point): how many each family wins, the typical
 * point (the median ratio) with its interval and the parameters that vary, the range; then which
 * claims hold. Every figure is the claims' own, on the same rules. */
void cq_summary(FILE *out, json_t *doc, const ctx *c, const claim *res, size_t nclaims)
{
    json_t *m = json_object_get(doc, "machine");
    const char *cpu = json_string_value(json_object_get(m, "cpu_model"));
    fprintf(out,
            "\n## Summary\n\nWhich model is faster where on this machine (%s, %lld logical "
            "CPUs; the caveats below say what limits it): at each workload point, the fastest "
            "stackful implementation against the fastest stackless one (plain builds; under "
            "1x: stackful faster; a point is won when the ratio's 95%% interval lies beyond "
            "%.0f%% and Holm-corrected p < %.2g, as claim 10).\n\n",
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
        size_t k = 0, wins[2] = {0, 0}, open = 0;
        for (size_t j = i; j < n; j++)
            if (!strcmp(cb_str(x[j].sf, "workload"), wl)) {
                mine[k++] = &x[j];
                if (x[j].winner >= 0)
                    wins[x[j].winner]++;
                else
                    open++;
            }
        qsort(mine, k, sizeof *mine, by_est);
        const xpoint *t = mine[k / 2];
        /* the typical point's parameters that differ between the workload's points */
        char params[512], vary[256] = "", *save = NULL;
        cb_cell_params_text(t->sf, 0, params, sizeof params);
        for (char *tok = strtok_r(params, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
            int differs = 0;
            for (size_t j = 0; j < k && !differs; j++) {
                char other[512];
                cb_cell_params_text(mine[j]->sf, 0, other, sizeof other);
                differs = !cb_has_token(other, tok);
            }
            if (differs)
                cb_append(vary, sizeof vary, "%s%s", *vary ? " " : "", tok);
        }
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
