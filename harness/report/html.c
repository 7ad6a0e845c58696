/* `corobench report --format html`: the Markdown report turned into one self-contained page.
 * The report is written once, as Markdown (report.c, claims/); this module reads back the
 * subset it writes (headings, paragraphs, "- " lists, pipe tables, **bold**, *emphasis*, code
 * spans, links and images with angle-bracketed destinations) and writes HTML with:
 *  - every plot's SVG inline (read from the plots directory beside the report), its data (the
 *    .dat files gnuplot drew it from) as a table behind a <details> click, and links to a plot
 *    turned into links to it on the page;
 *  - tables sortable by a click on a column's header (a few lines of inline script);
 *  - a table cell that starts with an implementation's name marked with its colour (style.c,
 *    the plots' colours).
 * Nothing is fetched: no external script, style sheet, font or image. */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"
#include "harness/common/untrusted.h"
#include "html.h"
#include "harness/results/style.h"

/* Every string of the page goes through the HTML sink of untrusted.h. */
static void esc(FILE *out, const char *s, size_t n) { cb_esc_html(out, s, n); }

/* A destination as written by cb_md_dest: <...> with %XX escapes; the decoded path in buf. */
static void dest_decode(const char *s, size_t n, char *buf, size_t len)
{
    size_t k = 0;
    if (n && s[0] == '<' && s[n - 1] == '>')
        s++, n -= 2;
    for (size_t i = 0; i < n && k + 1 < len; i++) {
        unsigned v;
        if (s[i] == '%' && i + 2 < n && sscanf(s + i + 1, "%2x", &v) == 1) {
            buf[k++] = (char)v;
            i += 2;
        } else
            buf[k++] = s[i];
    }
    buf[k] = '\0';
}

/* The plot's name from its PNG's path ("R-plots/io.png" -> "io"), or 0 when it is not one. */
static int plot_name(const char *path, char *name, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n < 5 || strcmp(base + n - 4, ".png"))
        return 0;
    snprintf(name, len, "%.*s", (int)(n - 4), base);
    return 1;
}

/* Inline Markdown of s[0..n) as HTML. */
static void inline_md(FILE *out, const char *s, size_t n)
{
    int strong = 0, em = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == '\\' && i + 1 < n && ispunct((unsigned char)s[i + 1])) {
            esc(out, s + i + 1, 1);
            i += 2;
        } else if (s[i] == '`') {
            size_t run = 0;
            while (i + run < n && s[i + run] == '`')
                run++;
            size_t j = i + run, end = 0;
            for (; j + run <= n; j++)
                if (!strncmp(s + j, s + i, run) && (j + run == n || s[j + run] != '`')) {
                    end = j;
                    break;
                }
            if (!end) {
                esc(out, s + i, run);
                i += run;
                continue;
            }
            size_t a = i + run, b = end;
            if (run > 1 && a < b && s[a] == ' ' && s[b - 1] == ' ')
                a++, b--;
            fputs("<code>", out);
            for (size_t k = a; k < b; k++) /* a table cell's "\|" is a pipe (GFM) */
                if (!(s[k] == '\\' && k + 1 < b && s[k + 1] == '|'))
                    esc(out, s + k, 1);
            fputs("</code>", out);
            i = end + run;
        } else if (s[i] == '*' && i + 1 < n && s[i + 1] == '*') {
            fputs(strong ? "</strong>" : "<strong>", out);
            strong = !strong;
            i += 2;
        } else if (s[i] == '*' && ((!em && i + 1 < n && isalnum((unsigned char)s[i + 1]) &&
                                    (i == 0 || !isalnum((unsigned char)s[i - 1]))) ||
                                   (em && i > 0 && isalnum((unsigned char)s[i - 1])))) {
            fputs(em ? "</em>" : "<em>", out);
            em = !em;
            i++;
        } else if (s[i] == '[' || (s[i] == '!' && i + 1 < n && s[i + 1] == '[')) {
            size_t t = i + (s[i] == '!') + 1, te = t;
            while (te < n && s[te] != ']')
                te++;
            size_t d = te + 2, de = d;
            if (te + 1 >= n || s[te + 1] != '(') {
                esc(out, s + i, 1);
                i++;
                continue;
            }
            int angle = d < n && s[d] == '<';
            while (de < n && s[de] != (angle ? '>' : ')'))
                de++;
            de += angle; /* past the '>' */
            if (de >= n || s[de] != ')') {
                esc(out, s + i, 1);
                i++;
                continue;
            }
            char path[4096], name[256];
            dest_decode(s + d, de - d, path, sizeof path);
            /* only in-page and relative targets: a link from a results file's text
             * ("javascript:...", "https://...") is shown as its text and target, not made */
            int local = cb_url_local(path);
            if (local && plot_name(path, name, sizeof name)) {
                fputs("<a href=\"#plot-", out);
                esc(out, name, strlen(name));
                fputs("\">", out);
            } else if (local) {
                fputs("<a href=\"", out);
                esc(out, path, strlen(path));
                fputs("\">", out);
            }
            inline_md(out, s + t, te - t);
            if (local) {
                fputs("</a>", out);
            } else {
                fputs(" (", out);
                esc(out, path, strlen(path));
                fputs(")", out);
            }
            i = de + 1;
        } else {
            esc(out, s + i, 1);
            i++;
        }
    }
    if (em)
        fputs("</em>", out);
    if (strong)
        fputs("</strong>", out);
}

/* "stack bytes (per op)" -> "stack-bytes": an id for a heading, from its words before any
 * parenthesis. */
static void slug(FILE *out, const char *s, size_t n)
{
    int dash = 0;
    const char *paren = memchr(s, '(', n);
    if (paren && paren > s)
        n = (size_t)(paren - s);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isalnum(c)) {
            if (dash)
                fputc('-', out);
            fputc(tolower(c), out);
            dash = 0;
        } else
            dash = 1;
    }
}

/* The cells of a table row "| a | b |" (an escaped \| stays in its cell). */
static size_t split_row(const char *line, const char **cell, size_t *len, size_t max)
{
    size_t n = 0;
    const char *p = line + (line[0] == '|');
    while (*p && *p != '\n' && n < max) {
        const char *start = p;
        while (*p && *p != '\n' && !(*p == '|' && p[-1] != '\\'))
            p++;
        const char *a = start, *b = p;
        while (a < b && *a == ' ')
            a++;
        while (b > a && b[-1] == ' ')
            b--;
        if (*p == '|' || b > a) {
            cell[n] = a;
            len[n++] = (size_t)(b - a);
        }
        if (*p == '|')
            p++;
    }
    return n;
}

/* A cell that is an implementation's label ("sm", "asm (jmpret)", "asm stack=16384", "asm,
 * ucontext", "sm 20.8 ns", "asm 106.1 [98.0, 120.3]") gets its colour's swatch; a cell of prose
 * that happens to start with a name ("ucontext is far slower ...", claim 4's text) does not:
 * after the name only a variant in parentheses, NAME=VALUE, a figure or another name may
 * follow. */
static void impl_swatch(FILE *out, const char *s, size_t n)
{
    size_t w = 0;
    while (w < n && (isalnum((unsigned char)s[w]) || s[w] == '-' || s[w] == '_'))
        w++;
    if (!w || w > 60 || (w < n && s[w] != ' ' && s[w] != ','))
        return; /* "asm, ucontext": series drawn as one line take the first one's colour */
    if (w + 1 < n && s[w] == ' ') {
        const char *t = s + w + 1;
        size_t tn = n - w - 1, word = 0;
        while (word < tn && t[word] != ' ' && t[word] != ',')
            word++;
        int figure = isdigit((unsigned char)t[0]) || strchr("([+-", t[0]) ||
                     (tn > 1 && !memcmp(t, "\xc2\xb1", 2)); /* "(jmpret)", "20.8", "[lo, hi]", "±" */
        if (!figure && !memchr(t, '=', word))
            return; /* a word of prose */
    }
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)w, s);
    size_t ns;
    const cb_plot_style *st = cb_plot_styles(&ns);
    for (size_t k = 0; k < ns && st[k].impl; k++)
        if (!strcmp(st[k].impl, name)) {
            fprintf(out, "<span class=\"sw\" style=\"background:%s\"></span>", st[k].colour);
            return;
        }
}

static void table(FILE *out, char **lines, size_t n)
{
    const char *cell[64];
    size_t len[64];
    /* the separator row's alignment: "---:" right (numbers), anything else left */
    int right[64] = {0};
    size_t na = split_row(lines[1], cell, len, 64);
    for (size_t k = 0; k < na; k++)
        right[k] = len[k] && cell[k][len[k] - 1] == ':';
    fputs("<div class=\"tw\"><table class=\"sortable\">\n<thead><tr>", out);
    size_t nc = split_row(lines[0], cell, len, 64);
    for (size_t k = 0; k < nc; k++) {
        fputs(k < 64 && right[k] ? "<th class=\"r\">" : "<th>", out);
        impl_swatch(out, cell[k], len[k]);
        inline_md(out, cell[k], len[k]);
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    for (size_t r = 2; r < n; r++) {
        size_t m = split_row(lines[r], cell, len, 64);
        fputs("<tr>", out);
        for (size_t k = 0; k < m; k++) {
            fputs(k < 64 && right[k] ? "<td class=\"r\">" : "<td>", out);
            impl_swatch(out, cell[k], len[k]);
            inline_md(out, cell[k], len[k]);
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table></div>\n", out);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n + 65536 > cap)
            buf = cb_xrealloc(buf, cap = 2 * cap + 65536);
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* One data file of a plot as a table: a row per point, the series' name first. */
static void data_table(FILE *out, const char *text, const char *path)
{
    const char *base = strrchr(path, '/');
    fputs("<p class=\"src\">", out);
    esc(out, base ? base + 1 : path, strlen(base ? base + 1 : path));
    fputs("</p>\n<div class=\"tw\"><table class=\"sortable\">\n", out);
    char series[512] = "";
    int header = 0;
    for (const char *l = text; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        if (l[0] == '"') {
            snprintf(series, sizeof series, "%.*s", (int)(n > 2 ? n - 2 : 0), l + 1);
        } else if (l[0] == '#' && n > 2 && series[0] && !header) {
            fputs("<thead><tr><th>series</th>", out);
            for (const char *p = l + 2; p < l + n;) {
                size_t w = strcspn(p, " \n");
                if (w > (size_t)(l + n - p))
                    w = (size_t)(l + n - p);
                fputs("<th>", out);
                esc(out, p, w);
                fputs("</th>", out);
                p += w;
                while (p < l + n && *p == ' ')
                    p++;
            }
            fputs("</tr></thead>\n<tbody>\n", out);
            header = 1;
        } else if (n && l[0] != '#' && series[0]) {
            fputs("<tr><td>", out);
            impl_swatch(out, series, strlen(series));
            esc(out, series, strlen(series));
            fputs("</td>", out);
            for (const char *p = l; p < l + n;) {
                size_t w = strcspn(p, " \n");
                if (w > (size_t)(l + n - p))
                    w = (size_t)(l + n - p);
                fputs("<td class=\"r\">", out);
                esc(out, p, w);
                fputs("</td>", out);
                p += w;
                while (p < l + n && *p == ' ')
                    p++;
            }
            fputs("</tr>\n", out);
        }
        l += n + (e != NULL);
    }
    fputs("</tbody></table></div>\n", out);
}

/* An embedded plot "![NAME](<dir/NAME.png>) ..." as its inline SVG and its data. */
static void figure(FILE *out, const char *line, const char *dir)
{
    const char *d = strstr(line, "](");
    const char *de = d ? strchr(d, ')') : NULL;
    char rel[4096], name[256], path[8192];
    if (!d || !de) {
        fputs("<p>", out);
        inline_md(out, line, strlen(line));
        fputs("</p>\n", out);
        return;
    }
    dest_decode(d + 2, (size_t)(de - d - 2), rel, sizeof rel);
    if (!cb_url_local(rel) || strstr(rel, "..") || !plot_name(rel, name, sizeof name))
        return;
    snprintf(path, sizeof path, "%s%s%.*s.svg", dir, *dir ? "/" : "", (int)strlen(rel) - 4, rel);
    fputs("<figure id=\"plot-", out);
    esc(out, name, strlen(name));
    fputs("\">\n", out);
    char *svg = slurp(path);
    const char *start = svg ? strstr(svg, "<svg") : NULL;
    if (start)
        fputs(start, out);
    else {
        fputs("<p>(the SVG ", out);
        esc(out, path, strlen(path));
        fputs(" could not be read)</p>", out);
    }
    free(svg);
    fputs("\n<details><summary>Data of this plot</summary>\n", out);
    for (int k = 0;; k++) {
        snprintf(path, sizeof path, "%s%s%.*s-%d.dat", dir, *dir ? "/" : "",
                 (int)strlen(rel) - 4, rel, k);
        char *dat = slurp(path);
        if (!dat)
            break;
        data_table(out, dat, path);
        free(dat);
    }
    fputs("</details>\n</figure>\n", out);
}

static const char style_css[] =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1200px;"
    "margin:0 auto;padding:0 1.2em 3em;color:#1b1b1b}"
    "h1{border-bottom:2px solid #ddd;padding-bottom:.2em}h2{margin-top:2em;border-bottom:1px "
    "solid #eee}h3{margin-top:1.6em}"
    "code{background:#f3f3f3;padding:0 .25em;border-radius:3px;font-size:90%}"
    ".tw{overflow-x:auto}table{border-collapse:collapse;margin:.6em 0;font-size:13px}"
    "th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}"
    "th.r,td.r{text-align:right;font-variant-numeric:tabular-nums}"
    "th{background:#f6f6f6;cursor:pointer;user-select:none;position:sticky;top:0}"
    "th.asc::after{content:' \\25B2'}th.desc::after{content:' \\25BC'}"
    "tbody tr:nth-child(even){background:#fafafa}"
    ".sw{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:.35em;"
    "vertical-align:-.05em}"
    "figure{margin:1em 0}figure svg{max-width:100%;height:auto}"
    "details{margin:.4em 0}summary{cursor:pointer;color:#1f5fa8}p.src{margin:.4em 0 0;"
    "color:#666;font-size:12px}"
    "#summary+p+.tw table,#summary+p+.tw+p{font-size:14px}";

/* Sorting: a click on a header sorts by that column, numbers as numbers (the leading figure
 * of "18.65 [+16.79]" or "2.10x [1.95, 2.31]"), text otherwise; a second click reverses. */
static const char sort_js[] =
    "document.querySelectorAll('table.sortable').forEach(function(t){"
    "t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){"
    "var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows),"
    "asc=!th.classList.contains('asc');"
    "t.querySelectorAll('th').forEach(function(h){h.classList.remove('asc','desc')});"
    "th.classList.add(asc?'asc':'desc');"
    "function key(r){var c=r.cells[i],s=c?c.textContent.trim():'',"
    "m=s.match(/^[-+]?[0-9]*\\.?[0-9]+(e[-+]?[0-9]+)?/i);return m?parseFloat(m[0]):s}"
    "rows.sort(function(x,y){var a=key(x),c=key(y);"
    "if(typeof a==='number'&&typeof c==='number')return asc?a-c:c-a;"
    "a=String(a);c=String(c);return asc?a.localeCompare(c):c.localeCompare(a)});"
    "rows.forEach(function(r){b.appendChild(r)})})})});";

int cb_html_from_md(FILE *out, const char *md, const char *dir)
{
    char *text = cb_xstrdup(md);
    size_t cap = 1024, n = 0;
    char **lines = cb_xcalloc(cap, sizeof *lines);
    for (char *p = text, *e; *p; p = e + 1) {
        e = strchr(p, '\n');
        if (n + 1 >= cap)
            lines = cb_xrealloc(lines, (cap *= 2) * sizeof *lines);
        lines[n++] = p;
        if (!e)
            break;
        *e = '\0';
    }
    const char *title = "corobench report";
    json_t *used = json_object(); /* heading id -> how many headings had it */
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n",
            title, style_css);
    for (size_t i = 0; i < n;) {
        char *l = lines[i];
        if (!l[0]) {
            i++;
        } else if (l[0] == '#') {
            int h = 0;
            while (l[h] == '#')
                h++;
            const char *t = l + h + (l[h] == ' ');
            /* a heading's id is its slug, made unique by "-2", "-3"... for a later heading of
             * the same slug (the report had two "recursive", "io" and "spawn-memory" ids) */
            char *id = NULL;
            size_t idlen = 0;
            FILE *ids = open_memstream(&id, &idlen);
            slug(ids, t, strlen(t));
            fclose(ids);
            json_int_t seen = json_integer_value(json_object_get(used, id)) + 1;
            json_object_set_new(used, id, json_integer(seen));
            fprintf(out, "<h%d id=\"%s", h, id);
            if (seen > 1)
                fprintf(out, "-%lld", (long long)seen);
            fputs("\">", out);
            free(id);
            inline_md(out, t, strlen(t));
            fprintf(out, "</h%d>\n", h);
            i++;
        } else if (l[0] == '|') {
            size_t j = i;
            while (j < n && lines[j][0] == '|')
                j++;
            if (j - i >= 2)
                table(out, lines + i, j - i);
            i = j;
        } else if (l[0] == '-' && l[1] == ' ') {
            fputs("<ul>\n", out);
            for (; i < n && lines[i][0] == '-' && lines[i][1] == ' '; i++) {
                /* the item with its continuation lines (indented) as one text: a span (bold,
                 * code, a link) may go on over a line's end (mdfit.c wraps at any space) */
                char *item = NULL;
                size_t len = 0;
                FILE *m = open_memstream(&item, &len);
                if (!m)
                    abort();
                fputs(lines[i] + 2, m);
                while (i + 1 < n && lines[i + 1][0] == ' ' && lines[i + 1][1]) {
                    fprintf(m, " %s", lines[i + 1] + strspn(lines[i + 1], " "));
                    i++;
                }
                fclose(m);
                fputs("<li>", out);
                inline_md(out, item, len);
                fputs("</li>\n", out);
                free(item);
            }
            fputs("</ul>\n", out);
        } else if (l[0] == '!' && l[1] == '[') {
            figure(out, l, dir);
            i++;
        } else {
            /* the paragraph's lines as one text, as an item's */
            char *para = NULL;
            size_t len = 0;
            FILE *m = open_memstream(&para, &len);
            if (!m)
                abort();
            for (; i < n && lines[i][0] && lines[i][0] != '|' && lines[i][0] != '#' &&
                   !(lines[i][0] == '-' && lines[i][1] == ' ') &&
                   !(lines[i][0] == '!' && lines[i][1] == '[');
                 i++)
                fprintf(m, "%s\n", lines[i]);
            fclose(m);
            fputs("<p>", out);
            inline_md(out, para, len);
            fputs("</p>\n", out);
            free(para);
        }
    }
    fprintf(out, "<script>%s</script>\n</body>\n</html>\n", sort_js);
    json_decref(used);
    free(lines);
    free(text);
    return 0;
}
