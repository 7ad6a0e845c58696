/* The report's plots: one per question the report answers, each drawn by gnuplot (plots/NAME.gp)
 * from data this module derives from the results with the gnuplot export, as PNG and SVG. A
 * plot whose data the results lack is skipped, and so is a series (a column of the data) with
 * no value anywhere; both are recorded with the reason, for the report to say. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "harness/common/alloc.h"
#include "harness/common/untrusted.h"
#include "harness/results/fields.h"
#include "harness/common/output.h"
#include "harness/common/proc.h"
#include "harness/results/load.h"
#include "plots.h"
#include "harness/results/style.h"

enum { PLOT_SETS = 4, PLOT_WHERE = 4, PLOT_Y = 4, PLOT_TIMEOUT_S = 60 };

/* One data file of a plot: the gnuplot variable that names it and the export that fills it. */
typedef struct plot_set {
    const char *var, *workload, *x;
    const char *where[PLOT_WHERE]; /* NAME=VALUE */
    const char *y[PLOT_Y];         /* none: the median ns with its spread */
    const char *relative_to;
    const char *label; /* for the report: what the set shows */
} plot_set;

typedef struct plot_def {
    const char *name, *script, *question;
    plot_set sets[PLOT_SETS];
    const char *vars;   /* extra gnuplot assignments */
    int list;           /* 1: pass the sets that have data as file1, file2... and `titles` */
    int pair;           /* 1: only the implementations that every set has (twins side by side) */
    const char *needs;  /* command that would measure what the plot needs */
    int bars; /* 1: the script draws a data file whose series have one x point as bars (VAR_one,
               * oneK); 0: a plot whose every file has one x point is not drawn */
} plot_def;

/* pingpong vs depth: work=chain, as work=none (the switches alone, claim 19) is measured at
 * depth 0 only: its cells drew five series of one point each, and "work=chain" in every other
 * series' name. */
#define PP_DISTINCT {"sites=distinct", "variant=plain", "mode=symmetric", "work=chain"}
#define PP_SAME {"sites=same", "variant=plain", "mode=symmetric", "work=chain"}
/* One measure of spawn's memory: a panel of its own, so identical series merge per measure. */
#define SPAWN_SET(var, y, label)                                                                  \
    {var, "spawn", "n", {"depth=0", "layout=aligned", "variant=plain"}, {y}, NULL, label}
#define MISPREDICT_HW "counters.ret-mispredicts.per_op"
#define MISPREDICT_Y {"rsbsim.mispredicted_per_op", MISPREDICT_HW}

static const plot_def plots[] = {
    {"pingpong-depth-distinct", "pingpong-depth",
     "ns per switch vs depth, sides suspending at different call sites",
     {{"data", "pingpong", "depth", PP_DISTINCT, {0}, NULL, "median ns per switch"}},
     "subtitle='(sites=distinct)'", 0, 0,
     "corobench run --workload pingpong --param depth=0,4,16 --param sites=distinct", 1},
    {"pingpong-depth-same", "pingpong-depth",
     "ns per switch vs depth, both sides suspending at the same call site",
     {{"data", "pingpong", "depth", PP_SAME, {0}, NULL, "median ns per switch"}},
     "subtitle='(sites=same)'", 0, 0,
     "corobench run --workload pingpong --param depth=0,4,16 --param sites=same", 1},
    {"pingpong-mispredict", "pingpong-mispredict",
     "mispredicted returns per switch vs depth (simulated model; hardware counter where counted)",
     {{"distinct", "pingpong", "depth", PP_DISTINCT, MISPREDICT_Y, NULL,
       "simulated / hardware mispredicted returns per switch, sites=distinct"},
      {"same", "pingpong", "depth", PP_SAME, MISPREDICT_Y, NULL,
       "simulated / hardware mispredicted returns per switch, sites=same"}},
     NULL, 0, 0,
     "corobench run --workload pingpong --param depth=0,4,16,32 --param sites=distinct,same "
     "--rsb sim [--events ret-mispredicts]", 0},
    {"pingpong-modes", "pingpong-modes",
     "mispredicted returns per op vs depth, symmetric against asymmetric switching (sites=distinct; "
     "simulated model; hardware counter where counted)",
     {{"sym", "pingpong", "depth", PP_DISTINCT, MISPREDICT_Y, NULL, "simulated / hardware mispredicted returns per op, mode=symmetric"},
      {"asym", "pingpong", "depth",
       {"sites=distinct", "variant=plain", "mode=asymmetric", "work=chain"}, MISPREDICT_Y, NULL, "simulated / hardware mispredicted returns per op, mode=asymmetric"}},
     NULL, 0, 0,
     "corobench run --workload pingpong --impl asm,asmjmp,fcontext --param depth=0,8,16,32 "
     "--param mode=symmetric,asymmetric --rsb sim [--events ret-mispredicts]", 0},
    {"pingpong-jmpret", "pingpong-jmpret",
     "plain build vs jmpret build (every ret a pop and jump) vs depth",
     {{"plain", "pingpong", "depth", PP_DISTINCT, {0}, NULL, "plain build"},
      {"jmpret", "pingpong", "depth",
       {"sites=distinct", "variant=jmpret", "mode=symmetric", "work=chain"}, {0}, NULL,
       "jmpret build"}},
     "subtitle='(sites=distinct)'", 0, 1,
     "corobench run --workload pingpong --param depth=0,4,16 --variant plain,jmpret", 0},
    {"spawn-memory", "spawn-memory",
     "bytes per coroutine (touched stack, runtime heap, RSS, kernel) vs coroutines alive",
     {SPAWN_SET("touched", "memory.touched_bytes_per_coro", "touched stack bytes per coroutine"),
      SPAWN_SET("heap", "memory.heap_bytes_per_coro", "runtime heap bytes per coroutine"),
      SPAWN_SET("rss", "memory.rss_bytes_per_coro", "RSS bytes per coroutine"),
      SPAWN_SET("kernel", "memory.kernel_bytes_per_coro", "kernel bytes per coroutine")},
     NULL, 1, 0, "corobench run --workload spawn --param n=1000,10000,100000", 1},
    {"recursive", "recursive", "recursive: ns per node and bytes per level vs height",
     {{"data", "recursive", "height", {"variant=plain"},
       {"ns_per_op.median", "memory.stack_used_bytes_per_coro", "memory.heap_bytes_per_coro"},
       NULL, "ns per node / stack bytes used / heap bytes"}},
     NULL, 0, 0, "corobench run --workload recursive --param height=8,12,16,20", 1},
    {"io", "io", "io: messages per second vs connections",
     {{"data", "io", "conns", {"transport=unix", "variant=plain", "style=explicit"}, {0}, NULL,
       "median ns per message"}},
     "subtitle='(transport=unix)'", 0, 0,
     "corobench run --workload io --param conns=1,16,256", 1},
    {"overhead", "overhead", "overhead over the baseline without coroutines (direct)",
     {{"pingpong:depth", "pingpong", "depth", PP_DISTINCT, {"ns_per_op.median"}, "direct",
       "ns per switch / direct's"},
      {"recursive:height", "recursive", "height", {"variant=plain"}, {"ns_per_op.median"},
       "direct", "ns per node / direct's"}},
     "base='direct'", 1, 0, "corobench run --workload pingpong,recursive --impl all", 1},
};

/* One series (block) of a data file, as the export wrote it. */
typedef struct block {
    char name[128];  /* the series' name: impl, "-variant" unless plain */
    char title[512]; /* its key entry: the names of every identical series drawn as this one */
    char *cols;      /* the "# x y..." line */
    char *rows;      /* the data rows, as written */
    int has;         /* some y is a number */
    int dropped;     /* no data, merged into an identical one, or without its twin */
} block;

/* One data file of a plot, in memory until it is shaped and written. */
typedef struct set_data {
    char *head; /* the export's comment lines */
    block *b;
    size_t nb;
} set_data;

/* What one data file holds: how many series, and per y column whether any value is finite
 * (any: a number; pos: a positive one). */
typedef struct set_stats {
    size_t series;
    size_t keyw; /* the longest key entry, in characters */
    int any[PLOT_Y + 4], pos[PLOT_Y + 4];
} set_stats;

static void set_data_free(set_data *d)
{
    free(d->head);
    for (size_t i = 0; i < d->nb; i++) {
        free(d->b[i].cols);
        free(d->b[i].rows);
    }
    free(d->b);
    memset(d, 0, sizeof *d);
}

static char *grow(char *s, const char *line)
{
    size_t n = s ? strlen(s) : 0, m = strlen(line);
    s = cb_xrealloc(s, n + m + 1);
    memcpy(s + n, line, m + 1);
    return s;
}

static int by_x(const void *a, const void *b)
{
    double xa = strtod(*(char *const *)a, NULL), xb = strtod(*(char *const *)b, NULL);
    return xa < xb ? -1 : xa > xb;
}

/* Whether a data row has some y value (a number after its x). */
static int row_has_y(const char *row)
{
    char *end;
    strtod(row, &end);
    for (const char *p = end;; p = end) {
        double v = strtod(p, &end);
        if (end == p)
            return 0;
        if (isfinite(v))
            return 1;
    }
}

/* A block's rows in ascending x, and without the rows of no y value: the export writes them in
 * the results' order, and a report of several files (pingpong's depths 0, 4, 16 from the
 * languages' file, then 1, 2, 8... from the suite's) drew each line back and forth across the
 * plot; a row of NaN alone broke a line in two (the languages' file has no simulated counts). */
static void sort_rows(block *b)
{
    if (!b->rows)
        return;
    size_t n = 0, len = strlen(b->rows);
    char **line = NULL, *save = NULL;
    for (char *l = strtok_r(b->rows, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!row_has_y(l))
            continue;
        line = cb_xrealloc(line, (n + 1) * sizeof *line);
        line[n++] = l;
    }
    if (n) /* no row with a value: line is NULL, which qsort may not be given */
        qsort(line, n, sizeof *line, by_x);
    char *rows = cb_xrealloc(NULL, len + 2), *p = rows;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s\n", line[i]);
    *p = '\0';
    free(line);
    free(b->rows);
    b->rows = rows;
}

/* Reads the export's text into blocks: comment lines before the first name line are the head
 * (the last of them is that block's "# name", written again at emit); a name line ("NAME")
 * opens a block; its "# x ..." line and data rows follow. */
static void parse_set(char *text, set_data *d)
{
    memset(d, 0, sizeof *d);
    char *prev_comment = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char buf[4200];
        snprintf(buf, sizeof buf, "%s\n", line);
        if (line[0] == '"') {
            d->b = cb_xrealloc(d->b, (d->nb + 1) * sizeof *d->b);
            block *b = memset(&d->b[d->nb++], 0, sizeof *b);
            snprintf(b->name, sizeof b->name, "%.*s", (int)strcspn(line + 1, "\""), line + 1);
            snprintf(b->title, sizeof b->title, "%s", b->name);
            free(prev_comment); /* the block's "# name", written again at emit */
            prev_comment = NULL;
            continue;
        }
        if (line[0] == '#') {
            if (d->nb && !d->b[d->nb - 1].cols && !d->b[d->nb - 1].rows)
                d->b[d->nb - 1].cols = grow(NULL, buf);
            else if (!d->nb) {
                if (prev_comment)
                    d->head = grow(d->head, prev_comment);
                free(prev_comment);
                prev_comment = grow(NULL, buf);
            }
            continue;
        }
        if (!d->nb)
            continue;
        block *b = &d->b[d->nb - 1];
        b->rows = grow(b->rows, buf);
        char *p = line, *end;
        strtod(p, &end); /* x */
        for (p = end;; p = end) {
            double v = strtod(p, &end);
            if (end == p)
                break;
            b->has |= isfinite(v);
        }
    }
    free(prev_comment);
    for (size_t i = 0; i < d->nb; i++)
        sort_rows(&d->b[i]);
}

/* Whether two series would draw as one line: the same x values, and every y equal within 1%,
 * or, in a column drawn on a linear axis (colmax > 0: its largest value in the whole set; 0
 * for a column on a log axis, where only the ratio shows), within 0.5% of that largest value
 * (asm's 1.00015 mispredictions per switch and ucontext's 1.00005 are one line, and so are
 * 0.0002 and 0). */
static int same_line(const char *a, const char *b, const double *colmax)
{
    while (*a && *b) {
        const char *na = strchr(a, '\n'), *nb = strchr(b, '\n');
        char la[1024], lb[1024], *pa = la, *pb = lb, *ea, *eb;
        snprintf(la, sizeof la, "%.*s", na ? (int)(na - a) : (int)strlen(a), a);
        snprintf(lb, sizeof lb, "%.*s", nb ? (int)(nb - b) : (int)strlen(b), b);
        if (strtod(pa, &ea) != strtod(pb, &eb)) /* x */
            return 0;
        for (int col = 0;; col++) {
            pa = ea, pb = eb;
            double va = strtod(pa, &ea), vb = strtod(pb, &eb);
            if (ea == pa || eb == pb) {
                if (ea != pa || eb != pb)
                    return 0;
                break;
            }
            if (isnan(va) || isnan(vb)) {
                if (isnan(va) != isnan(vb))
                    return 0;
                continue;
            }
            double diff = fabs(va - vb), big = fmax(fabs(va), fabs(vb));
            if (diff > 0.01 * big && (col >= PLOT_Y + 4 || diff > 0.005 * colmax[col]))
                return 0;
        }
        a = na ? na + 1 : a + strlen(a);
        b = nb ? nb + 1 : b + strlen(b);
    }
    return !*a && !*b;
}

/* Drops the series without data and, with merge, draws series that would be one line once,
 * labelled with every name ("sm, closure"): the first of them keeps its colour. Returns the
 * merges made ("asm, ucontext; sm, closure") into merged, for the report's notes. (Bars, a
 * set of one x point, hide none: each series keeps its own.) */
static void shape_set(set_data *d, int merge, char *merged, size_t len)
{
    double colmax[PLOT_Y + 4] = {0}, colmin[PLOT_Y + 4];
    int nonpos[PLOT_Y + 4] = {0};
    for (int col = 0; col < PLOT_Y + 4; col++)
        colmin[col] = INFINITY;
    merged[0] = '\0';
    for (size_t i = 0; i < d->nb; i++) {
        char *rows = d->b[i].rows ? cb_xstrdup(d->b[i].rows) : NULL, *save = NULL;
        for (char *line = rows ? strtok_r(rows, "\n", &save) : NULL; line;
             line = strtok_r(NULL, "\n", &save)) {
            char *p = line, *end;
            strtod(p, &end);
            for (int col = 0; col < PLOT_Y + 4 && end != p; col++) {
                p = end;
                double v = strtod(p, &end);
                if (end != p && isfinite(v)) {
                    colmax[col] = fmax(colmax[col], fabs(v));
                    if (v > 0)
                        colmin[col] = fmin(colmin[col], v);
                    else
                        nonpos[col] = 1;
                }
            }
        }
        free(rows);
    }
    /* a column whose values span more than 20x, all positive, is drawn on a log axis
     * (plots/common.gp's LOGY): no absolute tolerance there */
    for (int col = 0; col < PLOT_Y + 4; col++)
        if (!nonpos[col] && colmax[col] > 20 * colmin[col])
            colmax[col] = 0;
    for (size_t i = 0; i < d->nb; i++) {
        block *b = &d->b[i];
        b->dropped |= !b->has || !b->rows;
        for (size_t j = 0; merge && j < i && !b->dropped; j++)
            if (!d->b[j].dropped && same_line(d->b[j].rows, b->rows, colmax)) {
                cb_append(d->b[j].title, sizeof d->b[j].title, ", %s", b->name);
                b->dropped = 1;
            }
    }
    for (size_t i = 0; i < d->nb; i++)
        if (!d->b[i].dropped && strcmp(d->b[i].title, d->b[i].name))
            cb_append(merged, len, "%s%s", *merged ? "; " : "", d->b[i].title);
}

/* How many x values the series with data of d have, 2 meaning two or more; the one's text
 * into x when there is one. */
static int one_x(const set_data *d, char *x, size_t len)
{
    int n = 0;
    double first = 0;
    x[0] = '\0';
    for (size_t i = 0; i < d->nb; i++) {
        if (!d->b[i].has || !d->b[i].rows)
            continue;
        for (const char *r = d->b[i].rows; *r; r = strchr(r, '\n') + 1) {
            double v = strtod(r, NULL);
            if (!n++) {
                first = v;
                snprintf(x, len, "%.*s", (int)strcspn(r, " \n"), r);
            } else if (v != first)
                return 2;
        }
    }
    return n ? 1 : 0;
}

/* Widens [*lo, *hi] to the x values of the series with data of d. */
static void x_range(const set_data *d, double *lo, double *hi)
{
    for (size_t i = 0; i < d->nb; i++)
        for (const char *r = d->b[i].has ? d->b[i].rows : NULL; r && *r;
             r = strchr(r, '\n') + 1) {
            double v = strtod(r, NULL);
            *lo = fmin(*lo, v);
            *hi = fmax(*hi, v);
        }
}

static int in_set(const set_data *d, size_t linetype)
{
    for (size_t i = 0; i < d->nb; i++)
        if (!d->b[i].dropped && cb_plot_linetype(d->b[i].name) == linetype)
            return 1;
    return 0;
}

/* The styles of one plot's series. A series takes its implementation's linetype (style.h),
 * the first of them in the plot; each further series of that implementation (closure
 * alloc=pool beside alloc=malloc, inline fpu=0 beside fpu=1) a linetype of its own: a shade of
 * the colour (darker, lighter, by turns and further each time) and another point type, so that
 * no two series of a panel share a colour and a point type, and its key entry (its name) says
 * which. The count starts again in each data file (a panel of its own, where a series of
 * another is named otherwise: "asm fpu=1" beside "asm"), and a name keeps its style in every
 * file of the plot. A series is known by its name without the build variant of its set
 * ("asm-jmpret" is "asm"): the jmpret build keeps the plain build's style, dashed. */
enum { PLOT_STYLED = 128 };
typedef struct plot_styles {
    const cb_plot_style *table;
    size_t ntable;
    size_t n, nvar;
    size_t set_start; /* the first name of the set being written */
    char name[PLOT_STYLED][128];
    size_t lt[PLOT_STYLED];
    char colour[PLOT_STYLED][8]; /* the variants', linetypes ntable+1.. */
    int point[PLOT_STYLED];
} plot_styles;

/* A shade of hex: k=1 35% of the way to black, k=2 45% to white, then further each pair. */
static void shade(const char *hex, int k, char out[8])
{
    unsigned c[3] = {0, 0, 0};
    if (sscanf(hex, "#%2x%2x%2x", &c[0], &c[1], &c[2]) != 3)
        c[0] = c[1] = c[2] = 0x80;
    double t = (k % 2 ? 0.35 : 0.45) + 0.15 * ((k - 1) / 2);
    t = t > 0.85 ? 0.85 : t;
    double target = k % 2 ? 0 : 255;
    for (int j = 0; j < 3; j++)
        c[j] = (unsigned)lround(c[j] + (target - c[j]) * t);
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* The point type of variant k (1..) of an implementation whose point type is p: first its
 * open or filled twin, then the other shapes in turn. */
static int variant_point(int p, int k)
{
    static const int order[] = {7, 5, 9, 11, 13, 15, 6, 4, 8, 10, 12, 14, 1, 2, 3};
    enum { N = sizeof order / sizeof order[0] };
    int twin = p >= 5 && p <= 15 && p % 2 ? p - 1 : p >= 4 && p <= 14 && !(p % 2) ? p + 1 : p;
    if (twin != p && k == 1)
        return twin;
    int cand[N], n = 0;
    for (int i = 0; i < N; i++)
        if (order[i] != p && order[i] != twin)
            cand[n++] = order[i];
    return cand[(k - (twin != p ? 2 : 1)) % n];
}

/* Whether colour and point are some style's of the table or of a variant already made. */
static int style_taken(const plot_styles *ps, const char *colour, int point)
{
    for (size_t k = 0; k < ps->ntable; k++)
        if (ps->table[k].point == point && !strcasecmp(ps->table[k].colour, colour))
            return 1;
    for (size_t k = 0; k < ps->nvar; k++)
        if (ps->point[k] == point && !strcasecmp(ps->colour[k], colour))
            return 1;
    return 0;
}

/* The linetype of the series name in a set of the build variant (NULL: plain). */
static size_t style_of(plot_styles *ps, const char *series, const char *variant)
{
    char name[128];
    size_t w = strcspn(series, " ,"), vl = variant ? strlen(variant) : 0;
    if (vl && w > vl + 1 && series[w - vl - 1] == '-' && !strncmp(series + w - vl, variant, vl))
        snprintf(name, sizeof name, "%.*s%s", (int)(w - vl - 1), series, series + w);
    else
        snprintf(name, sizeof name, "%s", series);
    size_t impl = cb_plot_linetype(name), same = 0;
    for (size_t i = 0; i < ps->n; i++)
        if (!strcmp(ps->name[i], name))
            return ps->lt[i];
    for (size_t i = ps->set_start; i < ps->n; i++)
        same += cb_plot_linetype(ps->name[i]) == impl;
    if (ps->n == PLOT_STYLED)
        return impl;
    size_t lt = impl;
    if (same) {
        const cb_plot_style *base = &ps->table[impl - 1];
        char colour[8];
        int point, k = (int)same;
        do {
            shade(base->colour, k, colour);
            point = variant_point(base->point, k);
            k++;
        } while (style_taken(ps, colour, point) && k < 64);
        memcpy(ps->colour[ps->nvar], colour, sizeof colour);
        ps->point[ps->nvar++] = point;
        lt = ps->ntable + ps->nvar;
    }
    snprintf(ps->name[ps->n], sizeof ps->name[ps->n], "%s", name);
    ps->lt[ps->n++] = lt;
    return lt;
}

/* The colour and point type of linetype lt. */
static void style_get(const plot_styles *ps, size_t lt, const char **colour, int *point)
{
    if (lt > ps->ntable) {
        *colour = ps->colour[lt - ps->ntable - 1];
        *point = ps->point[lt - ps->ntable - 1];
    } else {
        *colour = ps->table[lt - 1].colour;
        *point = ps->table[lt - 1].point;
    }
}

/* A key entry's width: the title of identical series drawn as one ("asm, inline, ucontext, sm,
 * ...") keeps the names that fit in about this many characters and says how many more ("asm,
 * inline +5 more"; the report lists them all under the plot). The canvas widens with the
 * longest entry (plots/common.gp), so this is only a bound on it: at 32 the default suite's
 * spawn-memory hid names ("asm, asmjmp, inline +2 more"); gnuplot 5.4 draws an entry of
 * several lines over the next one. */
enum { KEY_LINE = 64 };

/* Writes title as the column header gnuplot reads for the key; returns its length. */
static size_t put_key_title(FILE *f, const char *title)
{
    size_t len = 0, names = 1, shown = 0;
    for (const char *p = title; (p = strstr(p, ", ")); p += 2)
        names++;
    const char *p = title;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (shown && len + 2 + n + 8 > KEY_LINE && shown + 1 < names)
            break;
        if (shown)
            len += (size_t)fprintf(f, ", ");
        else
            fputc('"', f);
        fwrite(p, 1, n, f);
        len += n;
        shown++;
        p += n;
        if (*p == ',')
            p += 1 + (p[1] == ' ');
    }
    if (shown < names)
        len += (size_t)fprintf(f, " +%zu more", names - shown);
    fputs("\"\n", f);
    return len;
}

/* Writes the shaped data to path (a regular file there is replaced, nothing else is), each
 * series with its style (from ps; variant: the set's build variant, NULL for plain) on a
 * "# style:" line, with the linetypes of its series in order into lt ("3 1 7") and what its
 * columns hold into st. */
static int emit_set(const set_data *d, const char *path, plot_styles *ps, const char *variant,
                    char *lt, size_t ltlen, set_stats *st)
{
    cb_out out;
    memset(st, 0, sizeof *st);
    lt[0] = '\0';
    if (cb_out_prepare(&out, "plot data", path, 1) != 0)
        return -1;
    FILE *f = cb_out_stream(&out);
    fputs(d->head ? d->head : "", f);
    for (size_t i = 0; i < d->nb; i++) {
        const block *b = &d->b[i];
        if (b->dropped)
            continue;
        size_t t = style_of(ps, b->name, variant);
        const char *colour;
        int point;
        style_get(ps, t, &colour, &point);
        fprintf(f, "%s# %s\n# style: linetype %zu, colour %s, point type %d\n",
                st->series ? "\n\n" : "", b->name, t, colour, point);
        size_t kw = put_key_title(f, b->title);
        fprintf(f, "%s%s", b->cols ? b->cols : "", b->rows);
        cb_append(lt, ltlen, "%s%zu", *lt ? " " : "", t);
        if (kw > st->keyw)
            st->keyw = kw;
        st->series++;
        char *rows = cb_xstrdup(b->rows), *save = NULL;
        for (char *line = strtok_r(rows, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            char *p = line, *end;
            strtod(p, &end); /* x */
            for (int col = 0; col < PLOT_Y + 4 && end != p; col++) {
                p = end;
                double v = strtod(p, &end);
                if (end == p)
                    break;
                st->any[col] |= isfinite(v);
                st->pos[col] |= isfinite(v) && v > 0;
            }
        }
        free(rows);
    }
    return cb_out_commit(&out) != 0 ? -1 : 0;
}

/* The export of one set into memory. */
static void export_set(json_t *doc, const char *in, const plot_set *s, set_data *d)
{
    cb_export_opts o = {.in = in, .workload = s->workload, .x = s->x,
                        .relative_to = s->relative_to};
    for (size_t i = 0; i < PLOT_WHERE && s->where[i]; i++) {
        const char *eq = strchr(s->where[i], '=');
        o.w[o.nw].name = cb_xstrndup(s->where[i], (size_t)(eq - s->where[i]));
        o.w[o.nw++].value = (char *)eq + 1;
    }
    for (size_t i = 0; i < PLOT_Y && s->y[i]; i++)
        o.y[o.ny++] = s->y[i];
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        fprintf(stderr, "corobench: cannot open a memory stream: %s\n", strerror(errno));
        abort();
    }
    cb_export_gnuplot(mem, json_object_get(doc, "cells"), &o);
    fclose(mem);
    for (size_t i = 0; i < o.nw; i++)
        free(o.w[i].name);
    parse_set(text, d);
    free(text);
}

static int has_impl(json_t *doc, const char *workload, const char *impl)
{
    json_t *c;
    size_t i;
    json_array_foreach(json_object_get(doc, "cells"), i, c)
    {
        const char *st = json_string_value(json_object_get(c, "status"));
        if (st && !strcmp(st, "ok") &&
            !strcmp(json_string_value(json_object_get(c, "workload")), workload) &&
            !strcmp(json_string_value(json_object_get(c, "impl")), impl))
            return 1;
    }
    return 0;
}

/* Appends "NAME=VALUE; " to the gnuplot assignments in buf, the value a string literal
 * (untrusted.h: a path or a results file's text is data, never code); a value that does not fit
 * is left out, and the script then fails on the missing variable. */
static void set_str(char *buf, size_t len, const char *name, const char *value)
{
    size_t k = strlen(buf);
    cb_append(buf, len, "%s=", name);
    if (cb_esc_gnuplot(buf, len, value) != 0 || strlen(buf) + 3 > len) {
        buf[k] = '\0';
        return;
    }
    cb_append(buf, len, "; ");
}

/* The child's body: gnuplot found on PATH. */
static int exec_gnuplot(void *argv)
{
    execvp("gnuplot", (char *const *)argv);
    fprintf(stderr, "cannot run gnuplot: %s\n", strerror(errno));
    return CB_CHILD_EXEC_FAILED;
}

/* Runs gnuplot with the assignments and script; 0, or -1 with why it failed in why. */
static int gnuplot(const char *assign, const char *script, char *why, size_t len)
{
    char *argv[] = {"gnuplot", "-e", (char *)assign, (char *)script, NULL};
    cb_proc_opts po = {.own_group = 1, .pin_cpu = -1, .stdin_null = 1};
    cb_proc p;
    if (cb_proc_start(&p, &po, exec_gnuplot, argv, why, len) != 0)
        return -1;
    cb_proc_result r;
    cb_proc_wait(&p, PLOT_TIMEOUT_S, &r);
    int rc = 0;
    if (r.timed_out || cb_proc_exit_code(r.wait_status) != 0) {
        cb_proc_failure(&r, why, len);
        rc = -1;
    }
    cb_proc_result_free(&r);
    return rc;
}

static void note(json_t *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(json_t *notes, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    json_t *v;
    size_t i;
    json_array_foreach(notes, i, v) if (!strcmp(json_string_value(v), buf)) return;
    json_array_append_new(notes, json_string(buf));
}

/* The model the simulated counts come from, for the mispredictions plot's title. */
static void model_text(json_t *doc, char *buf, size_t len)
{
    json_t *run = json_object_get(doc, "run");
    const char *model = json_string_value(json_object_get(run, "rsb_model"));
    json_t *n = json_object_get(run, "rsb_entries");
    if (json_is_integer(n))
        snprintf(buf, len, "simulated %s RSB, %lld entries", model ? model : "circular",
                 (long long)json_integer_value(n));
    else
        snprintf(buf, len, "simulated RSB");
}

/* Draws the plot name as dir/name.png and .svg by gnuplot with the assignments and script:
 * each path into res, or res's "skipped" with why when one fails. */
static void draw_files(json_t *res, const char *name, const char *assign, const char *script,
                       const char *dir)
{
    static const char *const exts[] = {"png", "svg"};
    char path[4096], why[512] = "";
    for (size_t e = 0; e < 2; e++) {
        /* gnuplot writes a temporary file (same extension: common.gp picks the terminal by
         * it), renamed into place when it succeeded, so a reader never sees half a picture. */
        char one[8192 + 4096] = "", tmp[4200];
        snprintf(path, sizeof path, "%s/%s.%s", dir, name, exts[e]);
        snprintf(tmp, sizeof tmp, "%s/.%s.tmp%ld.%s", dir, name, (long)getpid(), exts[e]);
        cb_append(one, sizeof one, "%s", assign);
        set_str(one, sizeof one, "out", tmp);
        if (gnuplot(one, script, why, sizeof why) != 0 || rename(tmp, path) != 0) {
            if (!why[0])
                cb_append(why, sizeof why, "cannot rename %s: %s", tmp, strerror(errno));
            unlink(tmp);
            json_object_set_new(res, "skipped", json_string(why));
            return;
        }
        json_object_set_new(res, exts[e], json_string(path));
    }
}

static json_t *draw_one(const plot_def *p, json_t *doc, const char *in, const char *dir,
                        const char *scripts)
{
    json_t *res = json_pack("{s:s, s:s, s:[]}", "name", p->name, "question", p->question,
                            "notes");
    json_t *notes = json_object_get(res, "notes");
    char assign[8192] = "", path[4096], titles[1024] = "";
    size_t sets_with_data = 0, keyw = 0, keyn = 0, bar_sets = 0, one_sets = 0;
    set_str(assign, sizeof assign, "plotdir", scripts);
    /* The line styles: linetype k is the style table's entry k, then the variants' (common.gp
     * sets them). */
    plot_styles *ps = cb_xcalloc(1, sizeof *ps);
    ps->table = cb_plot_styles(&ps->ntable);
    int hw = 0; /* a hardware count of mispredictions somewhere */
    set_data data[PLOT_SETS] = {{0}};
    char onex[PLOT_SETS][64];
    int single[PLOT_SETS] = {0};
    double xlo = INFINITY, xhi = -INFINITY; /* every set's x values */
    double setlo[PLOT_SETS], sethi[PLOT_SETS];
    size_t nsets = 0;
    for (; nsets < PLOT_SETS && p->sets[nsets].var; nsets++) {
        export_set(doc, in, &p->sets[nsets], &data[nsets]);
        single[nsets] = one_x(&data[nsets], onex[nsets], sizeof onex[nsets]) == 1;
        setlo[nsets] = INFINITY, sethi[nsets] = -INFINITY;
        x_range(&data[nsets], &setlo[nsets], &sethi[nsets]);
        xlo = fmin(xlo, setlo[nsets]);
        xhi = fmax(xhi, sethi[nsets]);
        char merged[1024];
        shape_set(&data[nsets], !(p->bars && single[nsets]), merged, sizeof merged);
        if (*merged)
            note(notes,
                 "drawn as one line (they overlap: equal within 1%%, or 0.5%% of a linear axis) "
                 "in %s: %s",
                 p->sets[nsets].label, merged);
        char empty[512] = "";
        for (size_t b = 0; b < data[nsets].nb; b++)
            if (!data[nsets].b[b].has)
                cb_append(empty, sizeof empty, "%s%s", *empty ? ", " : "", data[nsets].b[b].name);
        if (*empty)
            note(notes, "not drawn, no value in %s: %s", p->sets[nsets].label, empty);
    }
    /* Twins side by side: an implementation that one set lacks is drawn in none. */
    for (size_t i = 0; p->pair && i < nsets; i++) {
        char alone[512] = "";
        for (size_t b = 0; b < data[i].nb; b++) {
            block *bl = &data[i].b[b];
            for (size_t j = 0; j < nsets && !bl->dropped; j++)
                if (j != i && !in_set(&data[j], cb_plot_linetype(bl->name))) {
                    bl->dropped = 1;
                    cb_append(alone, sizeof alone, "%s%s", *alone ? ", " : "", bl->name);
                }
        }
        if (*alone)
            note(notes, "not drawn, no twin in the %s: %s", p->sets[i == 0 ? 1 : 0].label, alone);
    }
    for (size_t i = 0; i < nsets; i++) {
        const plot_set *s = &p->sets[i];
        set_stats st;
        char lt[512];
        snprintf(path, sizeof path, "%s/%s-%zu.dat", dir, p->name, i);
        const char *variant = NULL;
        for (size_t k = 0; k < PLOT_WHERE && s->where[k]; k++)
            if (!strncmp(s->where[k], "variant=", 8) && strcmp(s->where[k] + 8, "plain"))
                variant = s->where[k] + 8;
        ps->set_start = ps->n;
        int rc = emit_set(&data[i], path, ps, variant, lt, sizeof lt, &st);
        hw |= s->y[1] && !strcmp(s->y[1], MISPREDICT_HW) && st.any[1];
        set_data_free(&data[i]);
        if (rc != 0) {
            note(notes, "cannot write %s", path);
            continue;
        }
        if (s->relative_to && !has_impl(doc, s->workload, s->relative_to)) {
            note(notes, "no %s: the results have no %s cells of %s, the baseline", s->label,
                 s->workload, s->relative_to);
            continue;
        }
        if (!st.series) {
            char w[256] = "";
            for (size_t k = 0; k < PLOT_WHERE && s->where[k]; k++)
                cb_append(w, sizeof w, " %s", s->where[k]);
            note(notes, "no %s: the results have no ok %s cells with%s%s%s", s->label,
                 s->workload, w, s->relative_to ? " and a cell of " : "",
                 s->relative_to ? s->relative_to : "");
            continue;
        }
        int some = 0;
        for (size_t k = 0; k < PLOT_Y && s->y[k]; k++) {
            some |= st.any[k];
            if (!st.any[k])
                note(notes, "series %s skipped: no cell of the results has it", s->y[k]);
        }
        if (!s->y[0])
            some = st.any[0];
        if (!some)
            continue;
        sets_with_data++;
        /* bars (no key: each bar named under it) or lines with a key beside the panel */
        char one[128] = "";
        if (single[i]) {
            one_sets++;
            snprintf(one, sizeof one, "%s=%s", s->x, onex[i]);
        }
        if (single[i] && p->bars) {
            bar_sets++;
            note(notes, "drawn as bars, a bar per series: every series of %s has one point (%s)",
                 s->label, one);
        } else
            one[0] = '\0';
        keyw = st.keyw > keyw ? st.keyw : keyw;
        keyn = st.series > keyn ? st.series : keyn;
        if (p->list) {
            /* one variable per file: a path may hold spaces, a word list could not */
            char var[32];
            snprintf(var, sizeof var, "file%zu", sets_with_data);
            set_str(assign, sizeof assign, var, path);
            cb_append(titles, sizeof titles, "%s%s", *titles ? " " : "", s->var);
            cb_append(assign, sizeof assign, "lt%zu='%s'; ", sets_with_data, lt);
            snprintf(var, sizeof var, "one%zu", sets_with_data);
            set_str(assign, sizeof assign, var, one);
            /* a panel of its own x: its own tick step (plots/common.gp, XSTEP) */
            cb_append(assign, sizeof assign, "xspan%zu=%.17g; ", sets_with_data,
                      sethi[i] - setlo[i]);
        } else {
            set_str(assign, sizeof assign, s->var, path);
            cb_append(assign, sizeof assign, "%s_lt='%s'; ", s->var, lt);
            char var[64];
            snprintf(var, sizeof var, "%s_one", s->var);
            set_str(assign, sizeof assign, var, one);
        }
    }
    char colours[4096] = "", points[1024] = "";
    for (size_t k = 0; k < ps->ntable + ps->nvar; k++) {
        const char *colour;
        int point;
        style_get(ps, k + 1, &colour, &point);
        cb_append(colours, sizeof colours, "%s%s", k ? " " : "", colour);
        cb_append(points, sizeof points, "%s%d", k ? " " : "", point);
    }
    cb_append(assign, sizeof assign, "lt_colours='%s'; lt_points='%s'; ", colours, points);
    free(ps);
    /* A plot needs all its sets (a list plot: one), each with some value. */
    size_t need = 0;
    for (size_t i = 0; i < PLOT_SETS && p->sets[i].var; i++)
        need++;
    if (p->list ? !sets_with_data : sets_with_data < need) {
        json_object_set_new(res, "skipped", json_string("the results lack its data"));
        json_object_set_new(res, "command", json_string(p->needs));
        return res;
    }
    /* One x point everywhere, and a script that draws no bars: lines would be dots over one
     * tick, a plot that shows nothing the tables do not. */
    if (!p->bars && one_sets == sets_with_data) {
        char why[256];
        snprintf(why, sizeof why,
                 "every series has one point (%s=%s): lines would show nothing, the tables give "
                 "its figures",
                 p->sets[0].x, onex[0]);
        json_object_set_new(res, "skipped", json_string(why));
        json_object_set_new(res, "command", json_string(p->needs));
        return res;
    }
    if (p->list)
        cb_append(assign, sizeof assign, "titles='%s'; ", titles);
    if (p->vars)
        cb_append(assign, sizeof assign, "%s; ", p->vars);
    cb_append(assign, sizeof assign, "keyw=%zu; keyn=%zu; bars=%zu; ", keyw, keyn, bar_sets);
    if (xhi >= xlo)
        cb_append(assign, sizeof assign, "xspan=%.17g; ", xhi - xlo);
    if (!strcmp(p->name, "pingpong-mispredict") || !strcmp(p->name, "pingpong-modes")) {
        char model[128];
        model_text(doc, model, sizeof model);
        set_str(assign, sizeof assign, "model", model);
        cb_append(assign, sizeof assign, "hw=%d; ", hw);
    }
    char script[4096];
    snprintf(script, sizeof script, "%s/%s.gp", scripts, p->script);
    draw_files(res, p->name, assign, script, dir);
    return res;
}

json_t *cb_plots_draw(json_t *doc, const char *in, const char *dir, const char *scripts)
{
    json_t *all = json_array();
    if (cb_mkdirs(dir, 1, NULL) != 0) {
        char why[512];
        snprintf(why, sizeof why, "cannot create %s: %s", dir, strerror(errno));
        for (size_t i = 0; i < sizeof plots / sizeof plots[0]; i++)
            json_array_append_new(all, json_pack("{s:s, s:s, s:s, s:[]}", "name", plots[i].name,
                                                 "question", plots[i].question, "skipped", why,
                                                 "notes"));
        return all;
    }
    for (size_t i = 0; i < sizeof plots / sizeof plots[0]; i++)
        json_array_append_new(all, draw_one(&plots[i], doc, in, dir, scripts));
    return all;
}

/* A figure of the headline's data: "NaN" for none (what gnuplot and the export write). */
static void put_fig(FILE *f, json_t *v)
{
    if (json_is_number(v) && isfinite(json_number_value(v)))
        fprintf(f, " %.9g", json_number_value(v));
    else
        fputs(" NaN", f);
}

json_t *cb_plots_headline(json_t *rows, const char *name, const char *dir, const char *scripts)
{
    json_t *res = json_pack("{s:s, s:s, s:[]}", "name", name, "question",
                            "the fastest stackful over the fastest stackless implementation at "
                            "each workload point",
                            "notes");
    char path[4096], assign[8192] = "";
    if (!json_array_size(rows)) {
        json_object_set_new(res, "skipped", json_string("no workload point has both a stackful "
                                                        "and a stackless cell"));
        return res;
    }
    snprintf(path, sizeof path, "%s/%s-0.dat", dir, name);
    cb_out o;
    if (cb_mkdirs(dir, 1, NULL) != 0 || cb_out_prepare(&o, "plot data", path, 1) != 0) {
        char why[4200];
        snprintf(why, sizeof why, "cannot write %s", path);
        json_object_set_new(res, "skipped", json_string(why));
        return res;
    }
    /* A block per workload (its name the key's entry), a row per point from the top (row 0);
     * the x range holds every ratio and interval, and 1x. */
    FILE *f = cb_out_stream(&o);
    fputs("# corobench headline: at each workload point, the fastest stackful over the fastest "
          "stackless implementation (median ns per op), with its 95% interval (NaN: none); won: "
          "1 when a family wins the point (claim 10)\n",
          f);
    const char *wl = NULL;
    double lo = 1, hi = 1;
    size_t label = 0; /* the longest row label, WORKLOAD:POINT: the canvas widens with it */
    json_t *r;
    size_t i;
    json_array_foreach(rows, i, r)
    {
        const char *w = cb_str(r, "workload"), *pt = cb_str(r, "point") ?: "";
        label = label > strlen(w) + 1 + strlen(pt) ? label : strlen(w) + 1 + strlen(pt);
        if (!wl || strcmp(w, wl))
            fprintf(f, "%s# %s\n\"%s\"\n# row ratio lo hi won stackful stackless point\n",
                    wl ? "\n\n" : "", w, w);
        wl = w;
        fprintf(f, "%zu", i);
        static const char *const figs[] = {"ratio", "lo", "hi"};
        for (size_t k = 0; k < 3; k++) {
            json_t *v = json_object_get(r, figs[k]);
            put_fig(f, v);
            if (json_is_number(v) && json_number_value(v) > 0) {
                lo = fmin(lo, json_number_value(v));
                hi = fmax(hi, json_number_value(v));
            }
        }
        fprintf(f, " %d %s %s %s%s%s\n",
                json_integer_value(json_object_get(r, "winner")) >= 0, cb_str(r, "stackful"),
                cb_str(r, "stackless"), w, *pt ? ":" : "", pt);
    }
    if (cb_out_commit(&o) != 0) {
        char why[4200];
        snprintf(why, sizeof why, "cannot write %s", path);
        json_object_set_new(res, "skipped", json_string(why));
        return res;
    }
    set_str(assign, sizeof assign, "plotdir", scripts);
    set_str(assign, sizeof assign, "data", path);
    cb_append(assign, sizeof assign, "rows=%zu; xlo=%.6g; xhi=%.6g; label=%zu; ",
              json_array_size(rows), lo / 1.25, hi * 1.25, label);
    char script[4096];
    snprintf(script, sizeof script, "%s/%s.gp", scripts, name);
    draw_files(res, name, assign, script, dir);
    return res;
}

/* dir/BASE of path (its last component) as a Markdown destination. */
static void plot_dest(FILE *out, const char *rel, const char *path)
{
    const char *base = strrchr(path, '/');
    cb_md_dest(out, rel, base ? base + 1 : path);
}

int cb_plot_picture_md(FILE *out, json_t *p, const char *rel)
{
    const char *png = cb_str(p, "png"), *svg = cb_str(p, "svg");
    if (!png || !svg)
        return 0;
    fprintf(out, "![%s](", cb_str(p, "name"));
    plot_dest(out, rel, png);
    fputs(") ([SVG](", out);
    plot_dest(out, rel, svg);
    fputs("))", out);
    return 1;
}

int cb_plot_link_md(FILE *out, json_t *p, const char *rel)
{
    const char *png = cb_str(p, "png");
    if (!png)
        return 0;
    fprintf(out, "[%s](", cb_str(p, "name"));
    plot_dest(out, rel, png);
    fputc(')', out);
    return 1;
}

void cb_plot_why_md(FILE *out, json_t *p) { cb_esc_md(out, cb_str(p, "skipped") ?: "?"); }
