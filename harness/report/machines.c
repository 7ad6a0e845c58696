/* The report's view of machines (machines.h): the line saying where a document was measured,
 * the documents of one machine merged into one, and several machines side by side. */
#include "machines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "harness/common/alloc.h"
#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "harness/results/load.h"
#include "harness/common/untrusted.h"
#include "pick.h"
#include "record.h"
#include "tables.h"

/* A string member the loader checked but a file may lack (the CI baseline): "?" then. */
static const char *text_or(json_t *obj, const char *key)
{
    const char *s = cb_str(obj, key);
    return s ? s : "?";
}

void cb_report_machine_line(FILE *out, const char *in, json_t *doc)
{
    json_t *m = json_object_get(doc, "machine"), *b = json_object_get(doc, "build");
    /* every string of the file through the Markdown sink (untrusted.h) */
    fprintf(out, "- results: ");
    cb_md_code(out, in);
    fputs(" (", out);
    cb_esc_md(out, text_or(doc, "created_utc"));
    fputs(", commit ", out);
    cb_esc_md(out, text_or(doc, "git_commit"));
    fputs(")\n- machine: ", out);
    cb_esc_md(out, text_or(m, "hostname"));
    fputs(", ", out);
    cb_esc_md(out, text_or(m, "cpu_model"));
    fprintf(out, ", %lld logical CPUs, kernel ",
            (long long)json_integer_value(json_object_get(m, "logical_cpus")));
    cb_esc_md(out, text_or(m, "kernel"));
    fputs(", clock ", out);
    cb_esc_md(out, text_or(m, "clock"));
    fputs("\n- build: ", out);
    cb_esc_md(out, text_or(b, "compiler"));
    fputs(", ", out);
    cb_esc_md_code(out, text_or(b, "cflags"));
    fputs("\n", out);
    json_t *run = json_object_get(doc, "run"), *inv = json_object_get(run, "invocations");
    if (json_is_integer(json_object_get(run, "reps")))
        fprintf(out, "- each cell: %lld invocations (processes, interleaved) x %lld repetitions%s\n",
                json_is_integer(inv) ? (long long)json_integer_value(inv) : 1LL,
                (long long)json_integer_value(json_object_get(run, "reps")),
                json_is_integer(inv) && json_integer_value(inv) >= 2
                    ? ""
                    : " (one process per cell: no interval, no difference counts)");
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(doc, "unavailable"), k, v)
    {
        fprintf(out, "- unavailable: %s: ", k);
        cb_esc_md(out, json_string_value(v));
        fputs("\n", out);
    }
}

/* A table's head after its leading columns: a column per machine (A, B...), then the rule line,
 * lead (the leading columns' part) and rule for each machine's column. */
static void machine_columns(FILE *out, size_t n, const char *lead, const char *rule)
{
    for (size_t f = 0; f < n; f++) {
        char label[16];
        cb_machine_label(f, label, sizeof label);
        fprintf(out, " %s |", label);
    }
    fprintf(out, "\n%s", lead);
    for (size_t f = 0; f < n; f++)
        fputs(rule, out);
    fputs("\n", out);
}

/* Several machines: a table per workload, a row per (point, impl) of plain cells, a column per
 * results file with its median and the ratio to the first file's. */
void cb_report_side_by_side(FILE *out, json_t **docs, const char **ins, size_t n)
{
    cb_report_names wl_names = cb_report_names_new();
    json_t *rows = json_object(), *wls = wl_names.arr, *c, *v;
    json_t *mixed = json_object(); /* workloads whose cells differ in their unit */
    size_t i, w;
    fprintf(out, "\n## Machines side by side\n\n");
    for (size_t f = 0; f < n; f++) {
        json_t *cells = json_object_get(docs[f], "cells");
        json_t *decided = json_object(); /* each workload of the file once, not once per cell */
        json_array_foreach(cells, i, c)
        {
            const char *wl = cb_str(c, "workload");
            if (json_object_get(decided, wl))
                continue;
            json_object_set_new_nocheck(decided, wl, json_true());
            const char *u = cb_results_unit(cells, wl);
            for (size_t g = 0; g < n && u; g++) {
                const char *o = cb_results_unit(json_object_get(docs[g], "cells"), wl);
                if (!o || (strcmp(o, "op") && strcmp(o, u)))
                    u = NULL;
            }
            if (!u)
                json_object_set_new(mixed, wl, json_true());
        }
        json_decref(decided);
    }
    for (size_t f = 0; f < n; f++) {
        json_t *m = json_object_get(docs[f], "machine");
        char label[16];
        cb_machine_label(f, label, sizeof label);
        fprintf(out, "- %s: ", label);
        cb_esc_md(out, text_or(m, "hostname"));
        fputs(", ", out);
        cb_esc_md(out, text_or(m, "cpu_model"));
        fputs(" (", out);
        cb_md_code(out, ins[f]);
        fprintf(out, ")\n");
    }
    for (size_t f = 0; f < n; f++)
        json_array_foreach(json_object_get(docs[f], "cells"), i, c)
        {
            if (strcmp(cb_str(c, "status"), "ok") || strcmp(cb_str(c, "variant"), "plain"))
                continue;
            char params[512], key[768];
            cb_cell_params_text(c, 1, params, sizeof params);
            if (json_object_get(mixed, cb_str(c, "workload")))
                cb_append(params, sizeof params, " (per %s)", cb_str(c, "unit") ?: "op");
            snprintf(key, sizeof key, "%s\t%s | %s", cb_str(c, "workload"), params,
                     cb_str(c, "impl"));
            cb_report_intern(&wl_names, cb_str(c, "workload"));
            json_t *row = json_object_get(rows, key);
            if (!row) {
                row = json_array();
                for (size_t k = 0; k < n; k++)
                    json_array_append_new(row, json_null());
                json_object_set_new(rows, key, row);
            }
            json_array_set(row, f, json_object_get(c, "ns_per_op"));
        }
    json_array_foreach(wls, w, v)
    {
        const char *wl = json_string_value(v), *key;
        json_t *row;
        fprintf(out, "\n### %s (median ns per op; x = times machine A)\n\n| point | impl |", wl);
        machine_columns(out, n, "|---|---|", "---:|");
        json_object_foreach(rows, key, row)
        {
            const char *tab = strchr(key, '\t');
            if (strncmp(key, wl, (size_t)(tab - key)) || wl[tab - key])
                continue;
            fprintf(out, "| %s |", tab + 1);
            double a = json_real_value(json_object_get(json_array_get(row, 0), "median"));
            for (size_t f = 0; f < n; f++) {
                json_t *ns = json_array_get(row, f);
                double x = json_real_value(json_object_get(ns, "median"));
                char xb[32];
                if (json_is_null(ns))
                    fprintf(out, " - |");
                else if (f && a > 0)
                    fprintf(out, " %s (%.2fx) |", cb_report_fig(x, xb), x / a);
                else
                    fprintf(out, " %s |", cb_report_fig(x, xb));
            }
            fprintf(out, "\n");
        }
    }
    json_decref(rows);
    cb_report_names_free(&wl_names);
    json_decref(mixed);
}

/* The key figure of a claim's figures: its first ratio with an interval, "0.79x [0.70, 0.99]"
 * (digits, '.', '-' and the punctuation alone, so it goes into Markdown as it is), into buf;
 * "" when it has none. */
static void key_figure(const char *text, char *buf, size_t len)
{
    buf[0] = '\0';
    for (const char *at = text ? strstr(text, "x [") : NULL; at; at = strstr(at + 1, "x [")) {
        const char *b = at, *e = strchr(at, ']');
        while (b > text && (strchr("0123456789.", b[-1])))
            b--;
        if (b == at || !e || (size_t)(e + 1 - b) >= len)
            continue;
        size_t k = 0;
        for (const char *p = b; p <= e; p++)
            k += strchr("0123456789.-x[], ", *p) != NULL;
        if (k != (size_t)(e + 1 - b))
            continue;
        snprintf(buf, len, "%.*s", (int)(e + 1 - b), b);
        return;
    }
}

/* Machine label, host name, CPU model and kind, as the table's legend names them. */
static void machine_legend(FILE *out, size_t f, json_t *doc)
{
    json_t *m = json_object_get(doc, "machine");
    char label[16], kind[96];
    cb_machine_label(f, label, sizeof label);
    fprintf(out, "- %s: ", label);
    cb_esc_md(out, text_or(m, "hostname"));
    fputs(", ", out);
    cb_esc_md(out, text_or(m, "cpu_model"));
    if (!cb_record_kind(doc, kind, sizeof kind, NULL))
        fprintf(out, " (%s)", kind);
    fputs(cb_results_is_record(doc) ? ", from its record\n" : "\n", out);
}

void cb_report_claims_by_machine(FILE *out, json_t **docs, size_t n)
{
    json_t **claims = cb_xcalloc(n, sizeof *claims);
    for (size_t f = 0; f < n; f++)
        claims[f] = cb_claims_json(docs[f]);
    fprintf(out, "\n## Claims by machine\n\nEach claim's verdict on each machine's results, with "
                 "its first ratio and 95%% interval (the figures in full are in the machine's "
                 "own Claims section below).\n\n");
    for (size_t f = 0; f < n; f++)
        machine_legend(out, f, docs[f]);
    fprintf(out, "\n| claim |");
    machine_columns(out, n, "|---|", "---|");
    size_t nc = json_array_size(claims[0]), differ = 0;
    for (size_t k = 0; k < nc; k++) {
        json_t *c0 = json_array_get(claims[0], k);
        fprintf(out, "| %lld. %s |", (long long)json_integer_value(json_object_get(c0, "number")),
                cb_str(c0, "id"));
        int same = 1;
        for (size_t f = 0; f < n; f++) {
            json_t *c = json_array_get(claims[f], k);
            char fig[96];
            key_figure(cb_str(c, "figures"), fig, sizeof fig);
            fprintf(out, " **%s**%s%s |", cb_str(c, "verdict"), fig[0] ? " " : "", fig);
            same &= !strcmp(cb_str(c, "verdict"), cb_str(c0, "verdict"));
        }
        fprintf(out, "\n");
        differ += !same;
    }
    fprintf(out, "\n### Verdicts that differ between machines\n\n");
    if (!differ)
        fprintf(out, "None: every claim has one verdict on every machine.\n");
    for (size_t k = 0; k < nc; k++) {
        json_t *c0 = json_array_get(claims[0], k);
        int same = 1;
        for (size_t f = 1; f < n; f++)
            same &= !strcmp(cb_str(json_array_get(claims[f], k), "verdict"), cb_str(c0, "verdict"));
        if (same)
            continue;
        for (size_t f = 0; f < n; f++) {
            json_t *c = json_array_get(claims[f], k);
            char label[16];
            cb_machine_label(f, label, sizeof label);
            fprintf(out, "- %lld. %s on %s, **%s**: ",
                    (long long)json_integer_value(json_object_get(c0, "number")), cb_str(c0, "id"),
                    label, cb_str(c, "verdict"));
            cb_esc_md(out, cb_str(c, "figures"));
            fputs("\n", out);
        }
    }
    for (size_t f = 0; f < n; f++)
        json_decref(claims[f]);
    free(claims);
}

/* A point's ratio on one machine, as the Summary writes it ("0.50x [0.49, 0.51]", or without
 * its interval "0.50x (no interval)"), bold when the point is won, then the two
 * implementations. */
static void point_cell(FILE *out, json_t *p)
{
    json_t *r = json_object_get(p, "ratio");
    const char *bold = strcmp(cb_str(p, "winner"), "undecided") ? "**" : "";
    fprintf(out, " %s%.2fx", bold, json_number_value(json_array_get(r, 0)));
    if (json_array_size(r) == 3)
        fprintf(out, " [%.2f, %.2f]", json_number_value(json_array_get(r, 1)),
                json_number_value(json_array_get(r, 2)));
    else
        fputs(" (no interval)", out);
    fprintf(out, "%s %s/%s |", bold, cb_str(p, "stackful"), cb_str(p, "stackless"));
}

void cb_report_points_by_machine(FILE *out, json_t **docs, size_t n)
{
    json_t **pts = cb_xcalloc(n, sizeof *pts), *rows = json_object(), *p, *row;
    cb_report_names wl_names = cb_report_names_new();
    size_t i;
    for (size_t f = 0; f < n; f++) {
        pts[f] = cb_claims_points(docs[f]);
        json_array_foreach(pts[f], i, p)
        {
            char key[768];
            snprintf(key, sizeof key, "%s | %s", cb_str(p, "workload"), cb_str(p, "point"));
            if (!(row = json_object_get(rows, key))) {
                row = json_array();
                for (size_t g = 0; g < n; g++)
                    json_array_append_new(row, json_null());
                json_object_set_new(rows, key, row);
                cb_report_intern(&wl_names, cb_str(p, "workload"));
            }
            json_array_set(row, f, p);
        }
    }
    fprintf(out, "\n## Stackful against stackless by machine\n\nThe Summary's points on each "
                 "machine: at each workload point, the fastest stackful implementation's time "
                 "over the fastest stackless one's with its 95%% interval (under 1x: stackful "
                 "faster), in bold where the point is won as the Summary counts it; a dash where "
                 "the machine has no such point. From a record, the figures its results gave.\n\n");
    if (!json_object_size(rows)) {
        fprintf(out, "No machine has a workload point with both a stackful and a stackless "
                     "cell.\n");
    } else {
        fprintf(out, "| workload | point |");
        machine_columns(out, n, "|---|---|", "---|");
    }
    json_t *v;
    size_t w;
    json_array_foreach(wl_names.arr, w, v)
    {
        const char *key;
        json_object_foreach(rows, key, row)
        {
            json_t *any = NULL;
            for (size_t f = 0; f < n && !any; f++)
                if (!json_is_null(json_array_get(row, f)))
                    any = json_array_get(row, f);
            if (strcmp(cb_str(any, "workload"), json_string_value(v)))
                continue;
            fprintf(out, "| %s | %s |", cb_str(any, "workload"), cb_str(any, "point"));
            for (size_t f = 0; f < n; f++) {
                if (json_is_null(json_array_get(row, f)))
                    fputs(" - |", out);
                else
                    point_cell(out, json_array_get(row, f));
            }
            fputs("\n", out);
        }
    }
    json_decref(rows);
    cb_report_names_free(&wl_names);
    for (size_t f = 0; f < n; f++)
        json_decref(pts[f]);
    free(pts);
}

void cb_report_rsb_by_machine(FILE *out, json_t **docs, size_t n)
{
    fprintf(out, "\n## Return-stack models by machine\n\nThe model that stood for each CPU in "
                 "its simulated counts (docs/rsb.md): calibrated on it, or its vendor's "
                 "default.\n\n| machine | model | entries | ns per mispredicted return | "
                 "source |\n|---|---|---:|---:|---|\n");
    for (size_t f = 0; f < n; f++) {
        json_t *rsb = json_object_get(json_object_get(docs[f], "machine"), "rsb");
        json_t *entries = json_object_get(rsb, "entries"), *ns;
        ns = json_object_get(rsb, "ns_per_mispredict");
        char label[16];
        cb_machine_label(f, label, sizeof label);
        fprintf(out, "| %s | ", label);
        cb_esc_md(out, rsb ? text_or(rsb, "model") : "not recorded");
        if (json_is_integer(entries))
            fprintf(out, " | %lld | ", (long long)json_integer_value(entries));
        else
            fputs(" | - | ", out);
        if (json_is_number(ns))
            fprintf(out, "%.1f | ", json_number_value(ns));
        else
            fputs("- | ", out);
        cb_esc_md(out, rsb ? text_or(rsb, "source") : "-");
        fputs(" |\n", out);
    }
}

/* What the claims need to know of the file a machine's cells came from (claims.h): each cell
 * of doc tagged with the file's index among its machine's files (CB_CLAIMS_FILE_KEY), and the
 * file's name, run, build and environment appended to into's CB_CLAIMS_FILES_KEY, so that the
 * Caveats name each file's conditions and a ratio never pairs cells of two runs unmarked. */
static void note_file(json_t *into, json_t *doc, const char *name)
{
    json_t *files = json_object_get(into, CB_CLAIMS_FILES_KEY), *c;
    if (!files) {
        files = json_array();
        json_object_set_new(into, CB_CLAIMS_FILES_KEY, files);
    }
    json_int_t index = (json_int_t)json_array_size(files);
    size_t i;
    json_array_foreach(json_object_get(doc, "cells"), i, c)
        json_object_set_new(c, CB_CLAIMS_FILE_KEY, json_integer(index));
    json_array_append_new(
        files, json_pack("{s:s, s:O?, s:O?, s:O?, s:O?}", "file", name, "run",
                         json_object_get(doc, "run"), "build", json_object_get(doc, "build"),
                         "environment",
                         json_object_get(json_object_get(doc, "machine"), "environment"),
                         "unavailable", json_object_get(doc, "unavailable")));
}

/* Merges every document into the first one of its machine (host name and CPU model): its
 * cells appended (those it does not have yet; the others kept aside for the claims, which pair
 * cells within one file), what was unavailable added, its file name listed in also[]; then
 * each cell measured in several files is the one pick.h's rule takes. Returns
 * the number of machines; docs[] and ins[] are compacted to one entry per machine. */
size_t cb_report_group_by_machine(json_t **docs, const char **ins, size_t n, json_t **also)
{
    size_t m = 0;
    for (size_t f = 0; f < n; f++) {
        json_t *mf = json_object_get(docs[f], "machine");
        size_t g = 0;
        while (g < m && !(json_equal(json_object_get(mf, "hostname"),
                                     json_object_get(json_object_get(docs[g], "machine"),
                                                     "hostname")) &&
                          json_equal(json_object_get(mf, "cpu_model"),
                                     json_object_get(json_object_get(docs[g], "machine"),
                                                     "cpu_model"))))
            g++;
        if (g == m) {
            note_file(docs[f], docs[f], ins[f]);
            docs[m] = docs[f];
            ins[m] = ins[f];
            also[m++] = json_array();
            continue;
        }
        /* A cell the machine already has (the same workload point, implementation and
         * variant, measured again in a later file) goes aside until the pick below. */
        note_file(docs[g], docs[f], ins[f]);
        json_t *have = json_object(), *c, *cells = json_object_get(docs[g], "cells");
        json_t *aside = json_object_get(docs[g], CB_CLAIMS_ASIDE_KEY);
        if (!aside) {
            aside = json_array();
            json_object_set_new(docs[g], CB_CLAIMS_ASIDE_KEY, aside);
        }
        size_t i;
        char key[1024];
        json_array_foreach(cells, i, c)
        {
            cb_pick_identity(c, key, sizeof key);
            json_object_set_new(have, key, json_true());
        }
        json_array_foreach(json_object_get(docs[f], "cells"), i, c)
        {
            cb_pick_identity(c, key, sizeof key);
            json_array_append(json_object_get(have, key) ? aside : cells, c);
        }
        json_decref(have);
        json_object_update_missing(json_object_get(docs[g], "unavailable"),
                                   json_object_get(docs[f], "unavailable"));
        json_array_append_new(also[g], json_string(ins[f]));
        json_decref(docs[f]);
    }
    /* One figure per point: each cell the measurement the rule picks (pick.h), the others
     * aside. */
    for (size_t g = 0; g < m; g++)
        cb_pick_figures(docs[g]);
    return m;
}
