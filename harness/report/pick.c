/* One figure per point (pick.h): which file's cells a point measured in several files takes,
 * for every section of the report. */
#include "pick.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "harness/common/untrusted.h"
#include "harness/results/cell.h"
#include "harness/results/fields.h"

long cb_pick_file_of(json_t *cell)
{
    json_t *f = json_object_get(cell, CB_CLAIMS_FILE_KEY);
    return json_is_integer(f) ? (long)json_integer_value(f) : 0;
}

void cb_pick_point_key(json_t *cell, char *buf, size_t len)
{
    char params[512];
    cb_cell_params_text(cell, 0, params, sizeof params);
    snprintf(buf, len, "%s | %s", cb_str(cell, "workload"), params);
}

long cb_pick_point_file(json_t *doc, json_t *cell)
{
    char key[640];
    cb_pick_point_key(cell, key, sizeof key);
    json_t *order = json_object_get(json_object_get(doc, CB_PICK_POINTS_KEY), key);
    json_t *first = json_array_get(order, 0);
    return json_is_integer(first) ? (long)json_integer_value(first) : cb_pick_file_of(cell);
}

double cb_pick_median(json_t *c)
{
    json_t *m = json_object_get(json_object_get(c, "ns_per_op"), "median");
    return json_is_number(m) ? json_number_value(m) : NAN;
}

int cb_pick_family_index(json_t *c)
{
    const char *f = cb_str(c, "family");
    return !f ? -1 : !strcmp(f, "stackful") ? 0 : !strcmp(f, "stackless") ? 1 : -1;
}

/* An ok plain cell with a time: what the families' comparison takes. */
static int timed_plain(json_t *c)
{
    const char *v = cb_str(c, "variant");
    return cb_cell_ok(c) && v && !strcmp(v, "plain") && isfinite(cb_pick_median(c));
}

void cb_pick_identity(json_t *c, char *buf, size_t len)
{
    char params[768];
    cb_cell_params_text(c, 1, params, sizeof params);
    snprintf(buf, len, "%s %s %s/%s", cb_str(c, "workload"), params, cb_str(c, "impl"),
             cb_str(c, "variant"));
}

/* One file at one point: whether it measured each family there, its invocations per cell. */
typedef struct fscore {
    long file;
    int fam[2];
    long long inv;
} fscore;

/* The rule (pick.h): both families, then the most invocations, then the file given first. */
static int by_rule(const void *a, const void *b)
{
    const fscore *x = a, *y = b;
    int bx = x->fam[0] && x->fam[1], by = y->fam[0] && y->fam[1];
    if (bx != by)
        return by - bx;
    if (x->inv != y->inv)
        return x->inv < y->inv ? 1 : -1;
    return (x->file > y->file) - (x->file < y->file);
}

static long long invocations_of(json_t *files, long f)
{
    json_t *run = json_object_get(json_array_get(files, (size_t)f), "run");
    json_t *inv = json_object_get(run, "invocations");
    return json_is_integer(inv) && json_integer_value(inv) > 0 ? (long long)json_integer_value(inv)
                                                               : 1;
}

/* {point: [its files in the rule's order]} over the cells of all. */
static json_t *point_orders(json_t *all, json_t *files)
{
    enum { MAXF = 64 };
    json_t *seen = json_object(), *c; /* point -> [[file, stackful, stackless], ...] */
    size_t i;
    char key[640];
    json_array_foreach(all, i, c)
    {
        cb_pick_point_key(c, key, sizeof key);
        json_t *list = json_object_get(seen, key), *e = NULL, *x;
        if (!list)
            json_object_set_new(seen, key, list = json_array());
        long f = cb_pick_file_of(c);
        size_t k;
        json_array_foreach(list, k, x) if (json_integer_value(json_array_get(x, 0)) == f) e = x;
        if (!e)
            json_array_append_new(list, e = json_pack("[I, b, b]", (json_int_t)f, 0, 0));
        int fam = cb_pick_family_index(c);
        if (fam >= 0 && timed_plain(c))
            json_array_set_new(e, (size_t)fam + 1, json_true());
    }
    json_t *orders = json_object(), *list;
    const char *pk;
    json_object_foreach(seen, pk, list)
    {
        fscore s[MAXF];
        size_t n = 0, k;
        json_t *x;
        json_array_foreach(list, k, x) if (n < MAXF)
        {
            long f = (long)json_integer_value(json_array_get(x, 0));
            s[n] = (fscore){.file = f, .inv = invocations_of(files, f)};
            s[n].fam[0] = json_is_true(json_array_get(x, 1));
            s[n++].fam[1] = json_is_true(json_array_get(x, 2));
        }
        qsort(s, n, sizeof *s, by_rule);
        json_t *order = json_array();
        for (k = 0; k < n; k++)
            json_array_append_new(order, json_integer((json_int_t)s[k].file));
        json_object_set_new(orders, pk, order);
    }
    json_decref(seen);
    return orders;
}

/* A file's place in its point's order (the rule's), or a place after all of them. */
static size_t place(json_t *orders, json_t *c)
{
    char key[640];
    cb_pick_point_key(c, key, sizeof key);
    json_t *order = json_object_get(orders, key), *f;
    size_t k;
    json_array_foreach(order, k, f) if (json_integer_value(f) == cb_pick_file_of(c)) return k;
    return (size_t)-1;
}

void cb_pick_figures(json_t *doc)
{
    json_t *files = json_object_get(doc, CB_CLAIMS_FILES_KEY), *c;
    json_t *all = json_array(), *aside = json_object_get(doc, CB_CLAIMS_ASIDE_KEY);
    json_array_extend(all, json_object_get(doc, "cells"));
    if (json_is_array(aside))
        json_array_extend(all, aside);
    json_t *orders = point_orders(all, files);
    /* each identity's measurement at the place of its first one: an ok cell before one that
     * did not run, then the file the rule puts first at its point */
    json_t *slot = json_object(), *picked = json_array(), *rest = json_array();
    size_t i;
    char key[1024];
    json_array_foreach(all, i, c)
    {
        cb_pick_identity(c, key, sizeof key);
        json_t *at = json_object_get(slot, key);
        if (!at) {
            json_object_set_new(slot, key, json_integer((json_int_t)json_array_size(picked)));
            json_array_append(picked, c);
            continue;
        }
        size_t k = (size_t)json_integer_value(at);
        json_t *have = json_array_get(picked, k);
        int ok = cb_cell_ok(c), had = cb_cell_ok(have);
        if (ok > had || (ok == had && place(orders, c) < place(orders, have))) {
            json_array_append(rest, have);
            json_array_set(picked, k, c);
        } else {
            json_array_append(rest, c);
        }
    }
    json_object_set_new(doc, "cells", picked);
    if (json_array_size(rest) || json_is_array(aside))
        json_object_set_new(doc, CB_CLAIMS_ASIDE_KEY, rest);
    else
        json_decref(rest);
    json_object_set_new(doc, CB_PICK_POINTS_KEY, orders);
    json_decref(slot);
    json_decref(all);
}

json_t *cb_pick_fastest(json_t *doc)
{
    json_t *out = json_object(), *c;
    size_t i;
    char key[640];
    json_array_foreach(json_object_get(doc, "cells"), i, c)
    {
        int k = cb_pick_family_index(c);
        if (k < 0 || !timed_plain(c) || cb_pick_file_of(c) != cb_pick_point_file(doc, c))
            continue;
        cb_pick_point_key(c, key, sizeof key);
        json_t *e = json_object_get(out, key);
        if (!e)
            json_object_set_new(out, key, e = json_pack("[n, n]"));
        json_t *best = json_array_get(e, (size_t)k);
        if (json_is_null(best) || cb_pick_median(c) < cb_pick_median(best))
            json_array_set(e, (size_t)k, c);
    }
    return out;
}

void cb_pick_note(FILE *out, json_t *doc)
{
    json_t *orders = json_object_get(doc, CB_PICK_POINTS_KEY), *order;
    json_t *files = json_object_get(doc, CB_CLAIMS_FILES_KEY);
    json_t *by_file = json_object(); /* file -> [points] */
    const char *pk;
    size_t several = 0;
    json_object_foreach(orders, pk, order)
    {
        if (json_array_size(order) < 2)
            continue;
        several++;
        char fk[32];
        snprintf(fk, sizeof fk, "%lld", (long long)json_integer_value(json_array_get(order, 0)));
        json_t *list = json_object_get(by_file, fk);
        if (!list)
            json_object_set_new(by_file, fk, list = json_array());
        json_array_append_new(list, json_string(pk));
    }
    if (several) {
        fprintf(out, "- one figure per point: %zu point%s measured in more than one file; each "
                     "takes every figure from one file, the first that measured both families "
                     "there (the Summary compares them within one file), then the one with the "
                     "most invocations per cell, then the one given first (docs/report.md, \"One "
                     "figure per point\"); the other files' cells there are set aside",
                several, several == 1 ? " was" : "s were");
        const char *fk;
        json_t *list;
        json_object_foreach(by_file, fk, list)
        {
            long f = strtol(fk, NULL, 10);
            fprintf(out, "; from file %ld (", f + 1);
            cb_md_code(out, cb_str(json_array_get(files, (size_t)f), "file") ?: "?");
            fputs("):", out);
            json_t *p;
            size_t k;
            json_array_foreach(list, k, p)
            {
                /* "workload | params" as "workload params" (a '|' would be a table's) */
                const char *s = json_string_value(p), *bar = strstr(s, " | ");
                char text[640];
                snprintf(text, sizeof text, "%.*s%s%s", bar ? (int)(bar - s) : (int)strlen(s), s,
                         bar && bar[3] ? " " : "", bar ? bar + 3 : "");
                fputs(k ? ", " : " ", out);
                cb_esc_md(out, text);
            }
        }
        fputs("\n", out);
    }
    json_decref(by_file);
}
