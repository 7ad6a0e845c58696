/* compare's output in text, md or json (cmpout.h). */
#include "cmpout.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"
#include "harness/common/untrusted.h"

typedef struct cmp_cell {
    char *cell, *detail;
    double base, new, ratio, lo, hi;
    cb_cmp_verdict v;
    size_t seq; /* the order given: ties keep it (qsort is not stable) */
    double ibase, inew; /* instructions per op (cb_cmp_out_instr), NaN: none */
    int ichanged;
} cmp_cell;

struct cb_cmp_out {
    cb_cmp_format f;
    const char *command; /* the md heading's: "compare", "ab" */
    int only_changed;
    json_t *files;    /* {"base": [...], "new": [...]} */
    json_t *problems; /* [{kind, cell, text}] */
    json_t *summary;  /* {name: text}, in order */
    cmp_cell *cells;
    size_t n, cap;
    int instr; /* a cell has instructions: their column is shown */
};

static const char *const verdict_name[] = {"REGRESSED", "improved", "inconclusive", "unknown",
                                           "unchanged"};

int cb_cmp_format_parse(const char *name, cb_cmp_format *f)
{
    static const char *const names[] = {"text", "md", "json"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, names[i])) {
            *f = (cb_cmp_format)i;
            return 0;
        }
    return -1;
}

cb_cmp_out *cb_cmp_out_new(cb_cmp_format f, int only_changed)
{
    cb_cmp_out *o = cb_xcalloc(1, sizeof *o);
    o->f = f;
    o->only_changed = only_changed;
    o->command = "compare";
    o->files = json_pack("{s:[], s:[]}", "base", "new");
    o->problems = json_array();
    o->summary = json_object();
    return o;
}

void cb_cmp_out_command(cb_cmp_out *o, const char *name)
{
    o->command = name;
}

void cb_cmp_out_files(cb_cmp_out *o, const char *side, const char *file)
{
    json_array_append_new(json_object_get(o->files, side), json_string(file));
}

static char *vformat(const char *fmt, va_list ap)
{
    char *s;
    if (vasprintf(&s, fmt, ap) < 0)
        abort();
    return s;
}

void cb_cmp_out_problem(cb_cmp_out *o, const char *kind, const char *cell, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = vformat(fmt, ap);
    va_end(ap);
    json_array_append_new(o->problems,
                          json_pack("{s:s, s:s, s:s}", "kind", kind, "cell", cell, "text", text));
    free(text);
}

void cb_cmp_out_cell(cb_cmp_out *o, const char *cell, double base, double new, double ratio,
                     double lo, double hi, const char *detail, cb_cmp_verdict v)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->cells = cb_xrealloc(o->cells, o->cap * sizeof *o->cells);
    }
    o->cells[o->n] = (cmp_cell){cb_xstrdup(cell), cb_xstrdup(detail), base, new, ratio, lo, hi,
                                 v, o->n, NAN, NAN, 0};
    o->n++;
}

void cb_cmp_out_instr(cb_cmp_out *o, double base, double new, int changed)
{
    if (!o->n || !(base > 0) || !(new > 0))
        return;
    cmp_cell *c = &o->cells[o->n - 1];
    c->ibase = base;
    c->inew = new;
    c->ichanged = changed;
    o->instr = 1;
}

/* The instructions column's text: new/base of instructions per op, "changed" past its
 * threshold; "-" for a cell without them. */
static void instr_text(const cmp_cell *c, char *buf, size_t len)
{
    if (isfinite(c->ibase))
        snprintf(buf, len, "%.4f%s", c->inew / c->ibase, c->ichanged ? " changed" : "");
    else
        snprintf(buf, len, "-");
}

void cb_cmp_out_summary(cb_cmp_out *o, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = vformat(fmt, ap);
    va_end(ap);
    json_object_set_new(o->summary, name, json_string(text));
    free(text);
}

/* Problems by kind (errors, changes, notes), each kind in the order found. */
static int kind_rank(json_t *p)
{
    const char *k = json_string_value(json_object_get(p, "kind"));
    return !strcmp(k, "ERROR") ? 0 : !strcmp(k, "CHANGED") ? 1 : 2;
}

/* Regressions first, then improvements, inconclusive, unchanged; within a verdict the larger
 * change first (an equal one keeps BASE's order). */
static int cell_order(const void *a, const void *b)
{
    const cmp_cell *x = a, *y = b;
    if (x->v != y->v)
        return (int)x->v - (int)y->v;
    double dx = fabs(log(x->ratio)), dy = fabs(log(y->ratio));
    if (dx != dy)
        return (dx < dy) - (dx > dy);
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* One logical line within CB_CMP_COLUMNS: broken at the last space that fits, each
 * continuation indented by 4 (a word longer than a line is cut). */
static void wrapped(const char *s)
{
    int indent = 0;
    while (strlen(s) + (size_t)indent > CB_CMP_COLUMNS) {
        size_t room = CB_CMP_COLUMNS - (size_t)indent, cut = room;
        while (cut > room / 2 && s[cut] != ' ')
            cut--;
        if (s[cut] != ' ')
            cut = room;
        printf("%*s%.*s\n", indent, "", (int)cut, s);
        s += cut;
        while (*s == ' ')
            s++;
        indent = 4;
    }
    printf("%*s%s\n", indent, "", s);
}

static void change_text(double ratio, char *buf, size_t len)
{
    snprintf(buf, len, "%+.1f%%", (ratio - 1) * 100);
}

static int shown(const cb_cmp_out *o, const cmp_cell *c)
{
    return !o->only_changed || c->v != CB_CMP_UNCHANGED;
}

static void write_text(cb_cmp_out *o, json_t *probs)
{
    size_t i;
    json_t *p;
    json_array_foreach(probs, i, p)
    {
        /* a note about the whole comparison has no cell: "note: text" */
        const char *cell = json_string_value(json_object_get(p, "cell"));
        char *line = cb_xasprintf("%s%s%s: %s", json_string_value(json_object_get(p, "kind")),
                                  *cell ? " " : "", cell,
                                  json_string_value(json_object_get(p, "text")));
        /* the text quotes the files: the terminal's sink (control characters as '?') */
        char *safe = cb_text_clean_dup(line, strlen(line), strlen(line) * 3 + 4, 1);
        wrapped(safe);
        free(safe);
        free(line);
    }
    size_t hidden = 0;
    for (i = 0; i < o->n; i++)
        hidden += !shown(o, &o->cells[i]);
    if (o->n > hidden)
        printf("%-12s %8s %12s %12s %9s%s  %s\n", "verdict", "change", "base ns/op", "new ns/op",
               "new/base", o->instr ? "  instr/op n/b" : "", "decided by");
    /* Each cell: its figures, then its name on the next line (a cell's name alone is up to
     * ~90 characters: side by side they would not fit). */
    for (i = 0; i < o->n; i++) {
        cmp_cell *c = &o->cells[i];
        if (!shown(o, c))
            continue;
        char ch[32], line[512], in[40] = "", it[32];
        change_text(c->ratio, ch, sizeof ch);
        instr_text(c, it, sizeof it);
        if (o->instr)
            snprintf(in, sizeof in, "  %13s", it);
        snprintf(line, sizeof line, "%-12s %8s %12.2f %12.2f %9.3f%s  %s", verdict_name[c->v], ch,
                 c->base, c->new, c->ratio, in, c->detail);
        wrapped(line);
        char *name = cb_xasprintf("    %s", c->cell);
        wrapped(name);
        free(name);
    }
    if (hidden)
        printf("(%zu unchanged cells not shown: --only-changed)\n", hidden);
    const char *k;
    json_t *v;
    json_object_foreach(o->summary, k, v) wrapped(json_string_value(v));
}


static void write_md(cb_cmp_out *o, json_t *probs, int status)
{
    size_t i;
    json_t *p;
    printf("### corobench %s: %s\n\n", o->command,
           status == 0 ? "no regression" : "**regressed, failed or changed**");
    if (json_array_size(probs)) {
        json_array_foreach(probs, i, p)
        {
            const char *kind = json_string_value(json_object_get(p, "kind"));
            const char *cell = json_string_value(json_object_get(p, "cell"));
            /* the text quotes the files (a cell's error, a host name): the Markdown sink */
            printf("- %s%s%s", strcmp(kind, "note") ? "**" : "", kind,
                   strcmp(kind, "note") ? "**" : "");
            if (*cell) {
                putchar(' ');
                cb_esc_md_code(stdout, cell);
            }
            fputs(": ", stdout);
            cb_esc_md(stdout, json_string_value(json_object_get(p, "text")));
            putchar('\n');
        }
        putchar('\n');
    }
    size_t hidden = 0;
    for (i = 0; i < o->n; i++)
        hidden += !shown(o, &o->cells[i]);
    if (o->n > hidden) {
        printf("| verdict | change | base ns/op | new ns/op | new/base |%s decided by | cell |\n",
               o->instr ? " instructions/op new/base |" : "");
        printf("|---|---:|---:|---:|---:|%s---|---|\n", o->instr ? "---:|" : "");
    }
    for (i = 0; i < o->n; i++) {
        cmp_cell *c = &o->cells[i];
        if (!shown(o, c))
            continue;
        char ch[32];
        change_text(c->ratio, ch, sizeof ch);
        printf("| %s%s%s | %s | %.2f | %.2f | %.3f | ", c->v == CB_CMP_REGRESSED ? "**" : "",
               verdict_name[c->v], c->v == CB_CMP_REGRESSED ? "**" : "", ch, c->base, c->new,
               c->ratio);
        if (o->instr) {
            char it[32];
            instr_text(c, it, sizeof it);
            printf("%s | ", it);
        }
        cb_esc_md(stdout, c->detail);
        printf(" | ");
        cb_esc_md_code(stdout, c->cell);
        printf(" |\n");
    }
    if (hidden)
        printf("\n%zu unchanged cells not shown (`--only-changed`).\n", hidden);
    putchar('\n');
    const char *k;
    json_t *v;
    json_object_foreach(o->summary, k, v) printf("- %s\n", json_string_value(v));
}

static void write_json(cb_cmp_out *o, json_t *probs, int status)
{
    json_t *cells = json_array();
    for (size_t i = 0; i < o->n; i++) {
        cmp_cell *c = &o->cells[i];
        if (!shown(o, c))
            continue;
        json_t *ci = isfinite(c->lo) && isfinite(c->hi) ? json_pack("[f, f]", c->lo, c->hi)
                                                        : json_null();
        json_array_append_new(cells,
                              json_pack("{s:s, s:s, s:f, s:f, s:f, s:o, s:f, s:s}", "cell",
                                        c->cell, "verdict", verdict_name[c->v], "base_ns_per_op",
                                        c->base, "new_ns_per_op", c->new, "ratio", c->ratio,
                                        "ratio_ci95", ci, "change_percent",
                                        (c->ratio - 1) * 100, "decided_by", c->detail));
        if (isfinite(c->ibase))
            json_object_set_new(json_array_get(cells, json_array_size(cells) - 1),
                                "instructions_per_op",
                                json_pack("{s:f, s:f, s:f, s:b}", "base", c->ibase, "new",
                                          c->inew, "ratio", c->inew / c->ibase, "changed",
                                          c->ichanged));
    }
    json_t *doc = json_pack("{s:s, s:O, s:O, s:i, s:O, s:o, s:O}", "schema",
                            "corobench-compare/1", "base", json_object_get(o->files, "base"),
                            "new", json_object_get(o->files, "new"), "status", status,
                            "problems", probs, "cells", cells, "summary", o->summary);
    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    putchar('\n');
    json_decref(doc);
}

static void out_free(cb_cmp_out *o)
{
    for (size_t i = 0; i < o->n; i++) {
        free(o->cells[i].cell);
        free(o->cells[i].detail);
    }
    free(o->cells);
    json_decref(o->files);
    json_decref(o->problems);
    json_decref(o->summary);
    free(o);
}

void cb_cmp_out_discard(cb_cmp_out *o)
{
    out_free(o);
}

void cb_cmp_out_finish(cb_cmp_out *o, int status)
{
    json_t *probs = json_array(), *p;
    size_t i;
    for (int r = 0; r < 3; r++)
        json_array_foreach(o->problems, i, p) if (kind_rank(p) == r) json_array_append(probs, p);
    if (o->n) /* qsort may not be given NULL, even for no elements */
        qsort(o->cells, o->n, sizeof *o->cells, cell_order);
    if (o->f == CB_CMP_TEXT)
        write_text(o, probs);
    else if (o->f == CB_CMP_MD)
        write_md(o, probs, status);
    else
        write_json(o, probs, status);
    fflush(stdout);
    json_decref(probs);
    out_free(o);
}
