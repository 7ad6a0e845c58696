/* The claims table and the report's claims section (claims.h): every row a claim's file
 * registered (CQ_CLAIM), in number order; each claim evaluated on the document; the Summary
 * (summary.c), the Caveats (caveats.c), then the list of verdicts and one subsection per claim
 * with its numbers, its plots, its table, and when it is not measured the command that would
 * measure it (built here from the row, in run's vocabulary). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"
#include "harness/report/plots.h"
#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "harness/results/load.h"
#include "query.h"

/* The rows' pointers, gathered by the linker (CQ_CLAIM). */
extern const cq_claim *const __start_cb_claims[], *const __stop_cb_claims[];

static int by_number(const void *a, const void *b)
{
    int x = (*(const cq_claim *const *)a)->number, y = (*(const cq_claim *const *)b)->number;
    return (x > y) - (x < y);
}

const cq_claim *const *cq_claims(size_t *n)
{
    static const cq_claim **sorted;
    static size_t count;
    if (!sorted) {
        count = (size_t)(__stop_cb_claims - __start_cb_claims);
        sorted = cb_xcalloc(count + 1, sizeof *sorted);
        memcpy(sorted, __start_cb_claims, count * sizeof *sorted);
        qsort(sorted, count, sizeof *sorted, by_number);
    }
    *n = count;
    return sorted;
}

size_t cb_claims_count(void)
{
    size_t n;
    cq_claims(&n);
    return n;
}

static const cq_claim *row_at(size_t k)
{
    size_t n;
    const cq_claim *const *claims = cq_claims(&n);
    return k < n ? claims[k] : NULL;
}

const char *cb_claims_id(size_t k) { return row_at(k) ? row_at(k)->id : NULL; }
int cb_claims_number(size_t k) { return row_at(k) ? row_at(k)->number : 0; }
unsigned cb_claims_verdicts(size_t k) { return row_at(k) ? row_at(k)->verdicts : 0; }

void cb_claims_command(size_t k, char *buf, size_t len)
{
    buf[0] = '\0';
    if (row_at(k))
        cq_command_text(&row_at(k)->command, buf, len);
}

void cq_command_text(const cq_command *cmd, char *buf, size_t len)
{
    buf[0] = '\0';
    cb_append(buf, len, "corobench run --workload ");
    if (!cmd->workloads[0])
        cb_append(buf, len, "all");
    for (size_t i = 0; i < sizeof cmd->workloads / sizeof cmd->workloads[0] && cmd->workloads[i];
         i++)
        cb_append(buf, len, "%s%s", i ? "," : "", cmd->workloads[i]->name);
    if (cmd->nimpls || cmd->all_impls)
        cb_append(buf, len, " --impl %s", cmd->all_impls ? "all" : "");
    for (size_t i = 0; i < cmd->nimpls; i++)
        cb_append(buf, len, "%s%s", i ? "," : "", cb_impl_name(cmd->impls[i]));
    for (size_t i = 0; i < sizeof cmd->params / sizeof cmd->params[0] && cmd->params[i]; i++)
        cb_append(buf, len, " --param %s", cmd->params[i]);
    if (cmd->variants)
        cb_append(buf, len, " --variant %s", cmd->variants);
    if (cmd->rsb_sim)
        cb_append(buf, len, " --rsb sim");
    if (cmd->quick)
        cb_append(buf, len, " --quick");
}

static ctx make_ctx(json_t *doc)
{
    ctx c = {.doc = doc,
             .cells = json_object_get(doc, "cells"),
             .all = json_array(),
             .rsb = json_object_get(json_object_get(doc, "machine"), "rsb"),
             .limits = json_object_get(json_object_get(doc, "machine"), "limits"),
             .kept = cb_results_is_record(doc) ? json_object_get(doc, "claims") : NULL,
             .points = cb_results_is_record(doc) ? json_object_get(doc, "summary") : NULL};
    json_array_extend(c.all, c.cells);
    json_t *aside = json_object_get(doc, CB_CLAIMS_ASIDE_KEY);
    if (json_is_array(aside))
        json_array_extend(c.all, aside);
    return c;
}

/* A record's verdict of the claim (by its id) and its figures, as the rule gave them on the
 * full results; a claim the record does not have (a build newer than the record's) is not
 * measured. */
static void kept(const ctx *c, const cq_claim *row, claim *o)
{
    json_t *k;
    size_t i;
    json_array_foreach(c->kept, i, k)
    {
        if (strcmp(cb_str(k, "id"), row->id))
            continue;
        const char *v = cb_str(k, "verdict");
        o->v = CB_SUPPORTED;
        while (o->v < CB_NOT_MEASURED && strcmp(cb_verdict_name(o->v), v))
            o->v++;
        snprintf(o->text, sizeof o->text, "%s", cb_str(k, "figures"));
        return;
    }
    o->v = CB_NOT_MEASURED;
    snprintf(o->text, sizeof o->text, "The record has no verdict for this claim (its build "
                                      "predates it).");
}

static void eval(const ctx *c, const cq_claim *row, claim *o)
{
    memset(o, 0, sizeof *o);
    if (c->kept)
        kept(c, row, o);
    else
        row->eval(c, o);
}

json_t *cb_claims_json(json_t *doc)
{
    ctx c = make_ctx(doc);
    size_t n;
    const cq_claim *const *claims = cq_claims(&n);
    claim *o = cb_xmalloc(sizeof *o);
    json_t *out = json_array();
    for (size_t i = 0; i < n; i++) {
        eval(&c, claims[i], o);
        json_array_append_new(out, json_pack("{s:i, s:s, s:s, s:s}", "number", claims[i]->number,
                                             "id", claims[i]->id, "verdict",
                                             cb_verdict_name(o->v), "figures",
                                             o->text + (o->text[0] == ' ')));
    }
    free(o);
    json_decref(c.all);
    return out;
}

json_t *cb_claims_points(json_t *doc)
{
    ctx c = make_ctx(doc);
    xpoint *x;
    json_t *keys, *out = json_array();
    size_t n = cq_crossover_points(&c, &x, &keys);
    for (size_t k = 0; k < n; k++) {
        char params[512];
        cb_cell_params_text(x[k].sf, 0, params, sizeof params);
        /* a ratio JSON cannot hold (not finite) is no point to keep */
        json_t *ratio = x[k].r.ok ? json_pack("[f, f, f]", x[k].r.est, x[k].r.lo, x[k].r.hi)
                                  : json_pack("[f]", x[k].r.est);
        json_t *p = ratio ? json_pack("{s:s, s:s, s:s, s:s, s:o, s:f, s:s}", "workload",
                                      cb_str(x[k].sf, "workload"), "point", params, "stackful",
                                      cb_str(x[k].sf, "impl"), "stackless",
                                      cb_str(x[k].sl, "impl"), "ratio", ratio, "p", x[k].p,
                                      "winner", cq_winner_name(x[k].winner))
                          : NULL;
        if (p)
            json_array_append_new(out, p);
    }
    free(x);
    json_decref(keys);
    json_decref(c.all);
    return out;
}

json_t *cb_claims_headline(json_t *doc)
{
    ctx c = make_ctx(doc);
    json_t *rows = cq_headline_rows(&c);
    json_decref(c.all);
    return rows;
}

json_t *cb_claims_yours(json_t *doc)
{
    ctx c = make_ctx(doc);
    json_t *by = cq_yours_by_point(&c);
    json_decref(c.all);
    return by;
}

cb_verdict cb_claims_verdict(json_t *doc, size_t k)
{
    if (!row_at(k))
        return CB_VERDICTS;
    ctx c = make_ctx(doc);
    claim *o = cb_xmalloc(sizeof *o);
    eval(&c, row_at(k), o);
    cb_verdict v = o->v;
    free(o);
    json_decref(c.all);
    return v;
}

/* The plot's link (relative to the report) or why it is missing. */
static void plot_ref(FILE *out, json_t *plots, const char *name, const char *rel)
{
    json_t *p;
    size_t i;
    json_array_foreach(plots, i, p)
    {
        if (strcmp(cb_str(p, "name"), name))
            continue;
        if (!cb_plot_link_md(out, p, rel)) {
            fprintf(out, "%s (not drawn: ", name);
            cb_plot_why_md(out, p);
            fputc(')', out);
        }
        return;
    }
    fprintf(out,
            "%s (plots not drawn: run `corobench report` with -o FILE.md, without "
            "--no-plots)",
            name);
}

void cb_claims_section(FILE *out, json_t *doc, json_t *plots, const char *plots_rel, int parts)
{
    ctx c = make_ctx(doc);
    size_t n;
    const cq_claim *const *claims = cq_claims(&n);
    claim *res = cb_xcalloc(n, sizeof *res);
    for (size_t i = 0; i < n; i++)
        eval(&c, claims[i], &res[i]);
    if (parts & CB_CLAIMS_SUMMARY)
        cq_summary(out, doc, &c, res, n, plots, plots_rel);
    if (!(parts & CB_CLAIMS_REST)) {
        free(res);
        json_decref(c.all);
        return;
    }
    cq_caveats(out, doc, &c, res, n);
    fprintf(
        out,
        "\n## Claims\n\nEach verdict is computed from the cells of these results by the rule "
        "docs/report.md states. A time difference counts when the 95%% interval of the ratio "
        "of two cells lies beyond %.0f%% either way; \"as fast as\" is that interval below "
        "%.2f. A rule whose interval straddles its margin, or that has no interval (a cell of "
        "one invocation), is *inconclusive*. Ratios compare plain builds with plain builds.\n\n",
        100 * DIFF, 1 + EQUIV);
    /* A list, not a table: a claim's sentence is too long for a row of 120 columns. */
    for (size_t i = 0; i < n; i++)
        fprintf(out, "- %zu. **%s**: %s\n", i + 1, cb_verdict_name(res[i].v), claims[i]->sentence);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "\n### %zu. %s\n\n**%s.** %s", i + 1, claims[i]->sentence,
                cb_verdict_name(res[i].v), res[i].text + (res[i].text[0] == ' '));
        if (res[i].v == CB_NOT_MEASURED) {
            char cmd[512];
            cq_command_text(&claims[i]->command, cmd, sizeof cmd);
            fprintf(out, " To measure it: `%s`.", cmd);
        }
        fprintf(out, "\nPlots: ");
        for (size_t k = 0; k < 3 && claims[i]->plots[k]; k++) {
            fprintf(out, "%s", k ? ", " : "");
            plot_ref(out, plots, claims[i]->plots[k], plots_rel);
        }
        fprintf(out, "%s.\n",
                claims[i]->plots[0] ? ""
                : res[i].table[0]   ? "none (the table below)"
                                    : "none");
        if (res[i].table[0])
            fprintf(out, "\n%s", res[i].table);
    }
    free(res);
    json_decref(c.all);
}
