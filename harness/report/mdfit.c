/* The report's Markdown brought within a width (mdfit.h), after it is written and before it is
 * saved or turned into HTML: prose wrapped at spaces, a heading too long cut with its whole text
 * under it, a table too wide narrowed (the parameters every row shares said once under it),
 * then split into tables of the same rows, then, when one column alone does not fit, written
 * as a list. Nothing is dropped: every word and every cell is still there. */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"
#include "mdfit.h"

enum { MAX_COLS = 64 };

/* Appends to a growing string (*s NULL at first; *len its length). */
static void app(char **s, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    *s = cb_xrealloc(*s, *len + (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(*s + *len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    *len += (size_t)n;
}

/* Would a line starting with s be read as something else than more of the text: a heading, a
 * table row, a list item, a quote, an image? */
static int starts_block(const char *s)
{
    if (strchr("#|>", s[0]) || (strchr("-+*", s[0]) && s[1] == ' ') ||
        (s[0] == '!' && s[1] == '['))
        return 1;
    size_t d = 0;
    while (isdigit((unsigned char)s[d]))
        d++;
    return d && (s[d] == '.' || s[d] == ')') && s[d + 1] == ' ';
}

typedef struct row {
    char *cell[MAX_COLS];
    size_t n;
} row;

/* The cells of "| a | b |", trimmed, each its own string. */
static void split(const char *line, row *r)
{
    r->n = 0;
    const char *p = line + (line[0] == '|');
    while (*p && r->n < MAX_COLS) {
        const char *e = strchr(p, '|');
        if (!e)
            e = p + strlen(p);
        const char *a = p, *b = e;
        while (a < b && *a == ' ')
            a++;
        while (b > a && b[-1] == ' ')
            b--;
        if (*e || b > a) {
            r->cell[r->n] = cb_xmalloc((size_t)(b - a) + 1);
            memcpy(r->cell[r->n], a, (size_t)(b - a));
            r->cell[r->n++][b - a] = '\0';
        }
        if (!*e)
            break;
        p = e + 1;
    }
}

static void row_free(row *r)
{
    for (size_t k = 0; k < r->n; k++)
        free(r->cell[k]);
    r->n = 0;
}

/* Writes s as lines of at most width columns, broken at spaces: the first line starts with
 * first, the others with indent (a word longer than a line stays whole). */
static void wrap(FILE *out, const char *first, const char *indent, const char *s, size_t width)
{
    const char *lead = first;
    while (*s == ' ')
        s++;
    while (*s) {
        size_t room = width > strlen(lead) ? width - strlen(lead) : 1, n = strlen(s);
        if (n > room) {
            /* the last space within the room after which the next line does not start a block */
            size_t cut = room;
            while (cut > 0 && (s[cut] != ' ' || starts_block(s + cut + strspn(s + cut, " "))))
                cut--;
            if (cut == 0) /* one word past the width: whole, up to its end */
                cut = strcspn(s, " ");
            n = cut;
        }
        size_t m = n;
        while (m > 0 && s[m - 1] == ' ')
            m--;
        fprintf(out, "%s%.*s\n", lead, (int)m, s);
        s += n;
        while (*s == ' ')
            s++;
        lead = indent;
    }
}

static size_t row_width(char *const *cell, const size_t *cols, size_t ncols)
{
    size_t w = 1; /* the leading '|' */
    for (size_t k = 0; k < ncols; k++)
        w += strlen(cell[cols[k]]) + 3; /* " cell |" */
    return w;
}

/* The table's widest line with only these columns. */
static size_t table_width(row *rows, size_t nrows, const size_t *cols, size_t ncols)
{
    size_t w = 0;
    for (size_t r = 0; r < nrows; r++)
        if (r != 1) { /* the separator row is as narrow as the others allow */
            size_t x = row_width(rows[r].cell, cols, ncols);
            w = x > w ? x : w;
        }
    return w;
}

static void put_row(FILE *out, const row *r, const size_t *cols, size_t ncols)
{
    fputc('|', out);
    for (size_t k = 0; k < ncols; k++)
        fprintf(out, " %s |", r->cell[cols[k]]);
    fputc('\n', out);
}

/* Is tok ("switches=20000") a word of every body row's cell of column c whose column g (the
 * group, e.g. the workload; SIZE_MAX: none) equals group? */
static int shared(row *rows, size_t nrows, size_t c, size_t g, const char *group, const char *tok)
{
    size_t tl = strlen(tok);
    for (size_t r = 2; r < nrows; r++) {
        if (g != (size_t)-1 && strcmp(rows[r].cell[g], group))
            continue;
        const char *s = rows[r].cell[c], *hit = s;
        int found = 0;
        while ((hit = strstr(hit, tok))) {
            if ((hit == s || hit[-1] == ' ') && (hit[tl] == ' ' || !hit[tl])) {
                found = 1;
                break;
            }
            hit += tl;
        }
        if (!found)
            return 0;
    }
    return 1;
}

/* Removes the word tok from s (in place). */
static void drop_word(char *s, const char *tok)
{
    size_t tl = strlen(tok);
    for (char *hit = s; (hit = strstr(hit, tok));) {
        if ((hit == s || hit[-1] == ' ') && (hit[tl] == ' ' || !hit[tl])) {
            char *end = hit + tl + (hit[tl] == ' ');
            if (hit > s && !hit[tl])
                hit--; /* the last word: its space before it */
            memmove(hit, end, strlen(end) + 1);
            return;
        }
        hit += tl;
    }
}

static int col_named(const row *head, const char *name)
{
    for (size_t k = 0; k < head->n; k++)
        if (!strcmp(head->cell[k], name))
            return (int)k;
    return -1;
}

/* The "point" column's NAME=VALUE words that every row shares (every row of one workload, when
 * the table has a workload column), taken out of the rows and said once under the table. */
static int factor_points(row *rows, size_t nrows, char **note, size_t *notelen)
{
    int pc = col_named(&rows[0], "point"), wc = col_named(&rows[0], "workload");
    if (pc < 0 || nrows < 4)
        return 0;
    size_t g = wc < 0 ? (size_t)-1 : (size_t)wc;
    for (size_t r = 2; r < nrows; r++) {
        const char *group = g == (size_t)-1 ? "" : rows[r].cell[g];
        /* each group once: its first row */
        int seen = 0;
        for (size_t q = 2; q < r && g != (size_t)-1; q++)
            seen |= !strcmp(rows[q].cell[g], group);
        if (seen || (g == (size_t)-1 && r > 2))
            continue;
        char common[512] = "";
        char *copy = cb_xstrdup(rows[r].cell[pc]), *save = NULL;
        for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
            if (strchr(tok, '=') && shared(rows, nrows, (size_t)pc, g, group, tok))
                snprintf(common + strlen(common), sizeof common - strlen(common), "%s%s",
                         common[0] ? " " : "", tok);
        free(copy);
        if (!common[0])
            continue;
        copy = cb_xstrdup(common);
        for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
            for (size_t q = 2; q < nrows; q++)
                if (g == (size_t)-1 || !strcmp(rows[q].cell[g], group))
                    drop_word(rows[q].cell[pc], tok);
        free(copy);
        for (size_t q = 2; q < nrows; q++)
            if (!rows[q].cell[pc][0]) { /* every word of it shared */
                free(rows[q].cell[pc]);
                rows[q].cell[pc] = cb_xstrdup("(see below)");
            }
        if (g == (size_t)-1)
            app(note, notelen, "%s", common);
        else
            app(note, notelen, "%s%s: %s", *note && **note ? "; " : "", group, common);
    }
    return g != (size_t)-1;
}

/* A table of nrows lines (head, separator, body) within width: see the file's comment. */
static void fit_table(FILE *out, char **lines, size_t nrows, size_t width)
{
    row *rows = cb_xcalloc(nrows, sizeof *rows);
    size_t all[MAX_COLS], ncols = SIZE_MAX;
    for (size_t r = 0; r < nrows; r++) {
        split(lines[r], &rows[r]);
        ncols = rows[r].n < ncols ? rows[r].n : ncols;
    }
    for (size_t k = 0; k < ncols; k++)
        all[k] = k;
    char *note = NULL;
    size_t notelen = 0;
    int grouped = 0;
    if (ncols && table_width(rows, nrows, all, ncols) > width)
        grouped = factor_points(rows, nrows, &note, &notelen);
    /* The row's name: the columns up to "point" when it is among the first three, else the
     * first; each part repeats them. */
    int pc = col_named(&rows[0], "point");
    size_t nkey = pc >= 0 && pc < 3 ? (size_t)pc + 1 : 1;
    if (nkey >= ncols)
        nkey = ncols ? ncols - 1 : 0;
    /* A table of a row or two, wide for its columns (the appendix's memory tables: a column
     * per implementation), turned a quarter: a row per column, a column per row. */
    size_t tw = 0;
    row *tr = NULL;
    if (ncols && table_width(rows, nrows, all, ncols) > width && nrows - 2 <= 2) {
        size_t nt = ncols - nkey + 2;
        tr = cb_xcalloc(nt, sizeof *tr);
        for (size_t t = 0; t < nt; t++) {
            tr[t].n = nrows - 1;
            for (size_t r = 0, c = 0; r < nrows; r++) {
                if (r == 1)
                    continue;
                char *key = NULL;
                size_t kl = 0;
                if (t == 0) /* the head: the rows' names */
                    for (size_t j = 0; j < nkey; j++)
                        app(&key, &kl, "%s%s", j ? " " : "", rows[r].cell[j]);
                else if (t == 1) /* the separator */
                    key = cb_xstrdup(r ? "---:" : "---");
                else
                    key = cb_xstrdup(rows[r].cell[nkey + t - 2]);
                tr[t].cell[c++] = key;
            }
        }
        size_t tall[MAX_COLS];
        for (size_t k = 0; k < nrows - 1; k++)
            tall[k] = k;
        tw = table_width(tr, nt, tall, nrows - 1);
        if (tw <= width) {
            for (size_t t = 0; t < nt; t++)
                put_row(out, &tr[t], tall, nrows - 1);
        }
        for (size_t t = 0; t < nt; t++)
            row_free(&tr[t]);
        free(tr);
    }
    if (tw && tw <= width) {
        /* written turned */
    } else if (!ncols || table_width(rows, nrows, all, ncols) <= width) {
        for (size_t r = 0; r < nrows; r++)
            put_row(out, &rows[r], all, ncols);
    } else {
        /* Parts: the key and as many of the next columns as fit. */
        size_t parts[MAX_COLS][MAX_COLS], plen[MAX_COLS], np = 0, k = nkey;
        int fits = 1;
        while (k < ncols && fits) {
            size_t *c = parts[np];
            size_t n = 0;
            for (size_t j = 0; j < nkey; j++)
                c[n++] = j;
            while (k < ncols) {
                c[n] = k;
                if (table_width(rows, nrows, c, n + 1) > width)
                    break;
                n++, k++;
            }
            if (n == nkey)
                fits = 0; /* one column alone is too wide beside the key */
            plen[np++] = n;
        }
        if (fits) {
            for (size_t p = 0; p < np; p++) {
                if (p)
                    fprintf(out, "\nThe same rows, continued:\n\n");
                for (size_t r = 0; r < nrows; r++)
                    put_row(out, &rows[r], parts[p], plen[p]);
            }
        } else {
            /* A list: a row per item, each cell with its column's name. */
            for (size_t r = 2; r < nrows; r++) {
                char *item = NULL;
                size_t len = 0;
                for (size_t j = 0; j < ncols; j++) {
                    if (j < nkey)
                        app(&item, &len, "%s%s", j ? " " : "", rows[r].cell[j]);
                    else
                        app(&item, &len, "%s%s: %s", j == nkey ? ": " : "; ",
                                  rows[0].cell[j], rows[r].cell[j]);
                }
                wrap(out, "- ", "  ", item, width);
                free(item);
            }
        }
    }
    if (note) {
        fputc('\n', out);
        char *line = NULL;
        size_t len = 0;
        app(&line, &len, "%s: %s.",
            grouped ? "Parameters every point of a workload above has, left out of them"
                    : "Parameters every point above has, left out of it",
            note);
        wrap(out, "", "", line, width);
        free(line);
        free(note);
    }
    for (size_t r = 0; r < nrows; r++)
        row_free(&rows[r]);
    free(rows);
}

char *cb_md_fit(const char *md, size_t width)
{
    char *text = cb_xstrdup(md), *res = NULL;
    size_t reslen = 0, n = 0, cap = 0;
    char **lines = NULL;
    /* lines, empty ones kept (strtok would drop them) */
    for (char *p = text; *p;) {
        char *e = strchr(p, '\n');
        if (e)
            *e = '\0';
        if (n == cap)
            lines = cb_xrealloc(lines, (cap = 2 * cap + 256) * sizeof *lines);
        lines[n++] = p;
        if (!e)
            break;
        p = e + 1;
    }
    FILE *out = open_memstream(&res, &reslen);
    if (!out)
        abort();
    for (size_t i = 0; i < n;) {
        char *l = lines[i];
        if (l[0] == '|') {
            size_t j = i;
            while (j < n && lines[j][0] == '|')
                j++;
            if (j - i >= 3)
                fit_table(out, lines + i, j - i, width);
            else
                for (size_t k = i; k < j; k++)
                    fprintf(out, "%s\n", lines[k]);
            i = j;
            continue;
        }
        i++;
        const char *svg = l[0] == '!' ? strstr(l, ") ([") : NULL;
        if (strlen(l) <= width || (l[0] == '!' && !svg)) {
            fprintf(out, "%s\n", l);
        } else if (svg) {
            /* "![plot](<a.png>) ([SVG](<a.svg>))": the image, then the link on a line of its
             * own (each a path long, and a path is not cut) */
            fprintf(out, "%.*s\n%s\n", (int)(svg + 1 - l), l, svg + 2);
        } else if (l[0] == '#') {
            /* "### 1. A long claim ...": the heading cut at a space, its whole text under it */
            size_t h = strspn(l, "#"), cut = width - 4;
            while (cut > h && l[cut] != ' ')
                cut--;
            fprintf(out, "%.*s ...\n\n", (int)cut, l);
            wrap(out, "In full: ", "", l + h + 1, width); /* not "1. ...": a list */
        } else if (l[0] == '-' && l[1] == ' ') {
            wrap(out, "- ", "  ", l + 2, width);
        } else if (l[0] == ' ') {
            size_t ind = strspn(l, " ");
            char pad[64];
            memset(pad, ' ', sizeof pad);
            pad[ind < 63 ? ind : 63] = '\0';
            wrap(out, pad, pad, l + ind, width);
        } else {
            wrap(out, "", "", l, width);
        }
    }
    fclose(out);
    /* the input's last newline, as it had it */
    if (reslen && md[0] && md[strlen(md) - 1] != '\n' && res[reslen - 1] == '\n')
        res[--reslen] = '\0';
    free(lines);
    free(text);
    return res;
}
