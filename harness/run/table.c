/* The table printed on stdout after a run, derived from the results document (the same JSON a
 * reader of the file sees). */
#include <stdio.h>
#include <string.h>

#include "harness/results/cell.h"
#include "results.h"
#include "harness/measure/rsbcal.h"

enum { TBL_COLS = 12, TBL_CELL = 160 };

/* One row's columns; ok rows fill them all, others put the error after the status. direct:
 * the cells' baselines (cb_cell_direct_index). */
static void table_row(json_t *direct_index, json_t *c, char col[TBL_COLS][TBL_CELL])
{
    static const char *const text_fields[] = {"workload", NULL, "impl", "variant", "status"};
    for (int k = 0; k < 5; k++)
        snprintf(col[k], TBL_CELL, "%s",
                 k == 1 ? "" : json_string_value(json_object_get(c, text_fields[k])));
    cb_cell_params_text(c, 1, col[1], TBL_CELL);
    for (int k = 5; k < TBL_COLS; k++)
        col[k][0] = '\0';
    if (strcmp(col[4], "ok")) {
        snprintf(col[5], TBL_CELL, "%s", json_string_value(json_object_get(c, "error")));
        return;
    }
    json_t *ns = json_object_get(c, "ns_per_op"), *rsb = json_object_get(c, "rsbsim");
    json_t *ci = json_object_get(ns, "ci95");
    if (json_is_array(ci))
        snprintf(col[5], TBL_CELL, "%.2f ns/%s [%.2f, %.2f]",
                 json_real_value(json_object_get(ns, "median")),
                 json_string_value(json_object_get(c, "unit")),
                 json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)));
    else
        snprintf(col[5], TBL_CELL, "%.2f ns/%s [no interval: K=1]",
                 json_real_value(json_object_get(ns, "median")),
                 json_string_value(json_object_get(c, "unit")));
    snprintf(col[6], TBL_CELL, "%.2f", json_real_value(json_object_get(ns, "mad")));
    double direct = cb_cell_direct_ns(direct_index, c);
    if (direct >= 0 && strcmp(json_string_value(json_object_get(c, "family")), "baseline"))
        snprintf(col[7], TBL_CELL, "%+.2f",
                 json_real_value(json_object_get(ns, "median")) - direct);
    snprintf(col[8], TBL_CELL, "%lld",
             (long long)json_integer_value(json_object_get(c, "suspensions")));
    snprintf(col[9], TBL_CELL, "%s", json_string_value(json_object_get(c, "checksum")));
    cb_cell_flags(c, col[10], TBL_CELL);
    if (rsb)
        snprintf(col[11], TBL_CELL, "%.3f",
                 json_real_value(json_object_get(rsb, "mispredicted_per_op")));
}

/* Writes s in a field of width w (right-aligned or not), cut with "..." when longer. */
static void field(FILE *out, const char *s, int w, int right, int lead)
{
    int n = (int)strlen(s);
    if (lead)
        fputs("  ", out);
    if (w > 3 && n > w)
        fprintf(out, "%.*s...", w - 3, s);
    else
        fprintf(out, "%*s", right ? w : -w, s);
}

void cb_results_print_table(json_t *doc, FILE *out, int wide)
{
    /* Simulated counts are named by the model that produced them (docs/rsb.md). */
    char rsb_head[256], label[200];
    json_t *run = json_object_get(doc, "run");
    cb_results_rsb_label(json_object_get(json_object_get(doc, "machine"), "rsb"),
                    json_string_value(json_object_get(run, "rsb_model")) ?: "?",
                    (long)json_integer_value(json_object_get(run, "rsb_entries")), label,
                    sizeof label);
    snprintf(rsb_head, sizeof rsb_head, "mispredicted/op (%s)", label);
    const char *const head[TBL_COLS] = {
        "workload", "params",      "impl",        "variant",  "status", "ns per op [95% CI]",
        "mad",      "over direct", "suspensions", "checksum", "flags",  rsb_head};
    /* Right-aligned numeric columns. */
    static const int right[TBL_COLS] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1};
    json_t *cells = json_object_get(doc, "cells"), *c, *direct = cb_cell_direct_index(cells);
    size_t i, w[TBL_COLS];
    char col[TBL_COLS][TBL_CELL];
    /* Within 120 columns unless --wide: without the spread inside a process (mad), the
     * suspensions and the checksum (all in the JSON), the variant when every cell is plain,
     * a flag that marks most cells, the parameters cut to fit. */
    int show[TBL_COLS], any_variant = 0;
    char keep[8], note[256];
    cb_cell_flags_telling(cells, keep, sizeof keep, note, sizeof note);
    if (wide)
        snprintf(keep, sizeof keep, "PSDB");
    for (int k = 0; k < TBL_COLS; k++) {
        w[k] = strlen(head[k]);
        show[k] = wide || (k != 6 && k != 8 && k != 9);
    }
    show[10] = show[11] = 0; /* only when some cell has one */
    json_array_foreach(cells, i, c)
    {
        table_row(direct, c, col);
        cb_cell_flags_kept(c, keep, col[10], TBL_CELL);
        show[11] |= json_object_get(c, "rsbsim") != NULL;
        show[10] |= col[10][0] != '\0';
        any_variant |= strcmp(col[3], "plain") != 0;
        if (strcmp(col[4], "ok"))
            continue; /* an error runs to the end of its line */
        for (int k = 0; k < TBL_COLS; k++)
            w[k] = strlen(col[k]) > w[k] ? strlen(col[k]) : w[k];
    }
    if (!wide && !any_variant)
        show[3] = 0;
    if (!wide) {
        size_t total = 0;
        for (int k = 0; k < TBL_COLS; k++)
            total += show[k] ? w[k] + (total ? 2 : 0) : 0;
        if (total > 120 && w[1] > 10)
            w[1] = total - w[1] > 110 ? 10 : w[1] - (total - 120);
    }
    int first = 1;
    for (int k = 0; k < TBL_COLS; k++)
        if (show[k]) {
            field(out, head[k], (int)w[k], right[k], !first);
            first = 0;
        }
    fputc('\n', out);
    json_array_foreach(cells, i, c)
    {
        table_row(direct, c, col);
        cb_cell_flags_kept(c, keep, col[10], TBL_CELL);
        int ok = !strcmp(col[4], "ok");
        first = 1;
        size_t used = 0;
        for (int k = 0; k < (ok ? TBL_COLS : 6); k++) {
            if (!show[k])
                continue;
            if (!ok && k == 5) { /* the error, to the end of the line (cut at 120) */
                fputs("  ", out);
                field(out, col[k], wide ? 0 : (int)(used + 2 < 110 ? 120 - used - 2 : 10), 0, 0);
                continue;
            }
            field(out, col[k], (int)w[k], right[k], !first);
            used += w[k] + (first ? 0 : 2);
            first = 0;
        }
        fputc('\n', out);
    }
    json_decref(direct);
    if (show[10])
        fprintf(out, "%s\n", cb_cell_flags_legend);
    if (note[0] && !wide)
        fprintf(out, "%s\n", note);
    json_t *k = json_object_get(run, "invocations");
    fprintf(out, "each cell: %lld invocations (processes, interleaved across cells) x %lld "
            "repetitions; the median of the\ninvocations' medians, [its 95%% interval from a "
            "hierarchical bootstrap]%s\n",
            json_is_integer(k) ? (long long)json_integer_value(k) : 1LL,
            (long long)json_integer_value(json_object_get(run, "reps")),
            wide ? "" : ";\n--wide: every column (mad, suspensions, checksum), uncut");
}
