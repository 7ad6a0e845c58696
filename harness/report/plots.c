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
#include "harness/results/fields.h"
#include "harness/common/output.h"
#include "harness/common/proc.h"
#include "harness/results/load.h"
#include "plots.h"

enum { PLOT_SETS = 2, PLOT_WHERE = 4, PLOT_Y = 4, PLOT_TIMEOUT_S = 60 };

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
    int panels;         /* 1: pass `panels`, the y columns with a positive value (log scales) */
    int list;           /* 1: pass the sets that have data as `files` and `titles` lists */
    const char *needs;  /* command that would measure what the plot needs */
} plot_def;

#define PP_DISTINCT {"sites=distinct", "variant=plain", "mode=symmetric"}
#define PP_SAME {"sites=same", "variant=plain", "mode=symmetric"}
#define MISPREDICT_Y {"rsbsim.mispredicted_per_op", "counters.ret-mispredicts.per_op"}

static const plot_def plots[] = {
    {"pingpong-depth-distinct", "pingpong-depth",
     "ns per switch vs depth, sides suspending at different call sites",
     {{"data", "pingpong", "depth", PP_DISTINCT, {0}, NULL, "median ns per switch"}},
     "subtitle='(sites=distinct)'", 0, 0,
     "corobench run --workload pingpong --param depth=0,4,16 --param sites=distinct"},
    {"pingpong-depth-same", "pingpong-depth",
     "ns per switch vs depth, both sides suspending at the same call site",
     {{"data", "pingpong", "depth", PP_SAME, {0}, NULL, "median ns per switch"}},
     "subtitle='(sites=same)'", 0, 0,
     "corobench run --workload pingpong --param depth=0,4,16 --param sites=same"},
    {"pingpong-mispredict", "pingpong-mispredict",
     "mispredicted returns per switch vs depth (simulated model; hardware counter where counted)",
     {{"distinct", "pingpong", "depth", PP_DISTINCT, MISPREDICT_Y, NULL,
       "simulated / hardware mispredicted returns per switch, sites=distinct"},
      {"same", "pingpong", "depth", PP_SAME, MISPREDICT_Y, NULL,
       "simulated / hardware mispredicted returns per switch, sites=same"}},
     NULL, 0, 0,
     "corobench run --workload pingpong --param depth=0,4,16,32 --param sites=distinct,same "
     "--rsb sim [--events ret-mispredicts]"},
    {"pingpong-modes", "pingpong-modes",
     "mispredicted returns per op vs depth, symmetric against asymmetric switching (sites=distinct; "
     "simulated model; hardware counter where counted)",
     {{"sym", "pingpong", "depth", {"sites=distinct", "variant=plain", "mode=symmetric"},
       MISPREDICT_Y, NULL, "simulated / hardware mispredicted returns per op, mode=symmetric"},
      {"asym", "pingpong", "depth", {"sites=distinct", "variant=plain", "mode=asymmetric"},
       MISPREDICT_Y, NULL, "simulated / hardware mispredicted returns per op, mode=asymmetric"}},
     NULL, 0, 0,
     "corobench run --workload pingpong --impl asm,asmjmp,fcontext --param depth=0,8,16,32 "
     "--param mode=symmetric,asymmetric --rsb sim [--events ret-mispredicts]"},
    {"pingpong-jmpret", "pingpong-jmpret",
     "plain build vs jmpret build (every ret a pop and jump) vs depth",
     {{"plain", "pingpong", "depth", {"sites=distinct", "variant=plain", "mode=symmetric"}, {0},
       NULL, "plain build"},
      {"jmpret", "pingpong", "depth", {"sites=distinct", "variant=jmpret", "mode=symmetric"}, {0},
       NULL, "jmpret build"}},
     "subtitle='(sites=distinct)'", 0, 0,
     "corobench run --workload pingpong --param depth=0,4,16 --variant plain,jmpret"},
    {"spawn-memory", "spawn-memory",
     "bytes per coroutine (touched stack, runtime heap, RSS, kernel) vs coroutines alive, log-log",
     {{"data", "spawn", "n", {"depth=0", "layout=aligned", "variant=plain"},
       {"memory.touched_bytes_per_coro", "memory.heap_bytes_per_coro",
        "memory.rss_bytes_per_coro", "memory.kernel_bytes_per_coro"},
       NULL, "touched / heap / RSS / kernel bytes per coroutine"}},
     NULL, 1, 0, "corobench run --workload spawn --param n=1000,10000,100000"},
    {"recursive", "recursive", "recursive: ns per node and bytes per level vs height",
     {{"data", "recursive", "height", {"variant=plain"},
       {"ns_per_op.median", "memory.stack_used_bytes_per_coro", "memory.heap_bytes_per_coro"},
       NULL, "ns per node / stack bytes used / heap bytes"}},
     NULL, 0, 0, "corobench run --workload recursive --param height=8,12,16,20"},
    {"io", "io", "io: messages per second vs connections",
     {{"data", "io", "conns", {"transport=unix", "variant=plain", "style=explicit"}, {0}, NULL,
       "median ns per message"}},
     "subtitle='(transport=unix)'", 0, 0,
     "corobench run --workload io --param conns=1,16,256"},
    {"overhead", "overhead", "overhead over the baseline without coroutines (direct)",
     {{"pingpong:depth", "pingpong", "depth",
       {"sites=distinct", "variant=plain", "mode=symmetric"}, {"ns_per_op.median"}, "direct",
       "ns per switch / direct's"},
      {"recursive:height", "recursive", "height", {"variant=plain"}, {"ns_per_op.median"},
       "direct", "ns per node / direct's"}},
     "base='direct'", 0, 1, "corobench run --workload pingpong,recursive --impl all"},
};

/* What one data file holds: how many series, and per y column whether any value is finite
 * (any: a number; pos: a positive one). */
typedef struct set_stats {
    size_t series;
    int any[PLOT_Y + 4], pos[PLOT_Y + 4];
} set_stats;

static int write_set(json_t *doc, const char *in, const plot_set *s, const char *path,
                     set_stats *st)
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
    /* A plot's data is derived: a regular file there is replaced, nothing else is. */
    cb_out out;
    memset(st, 0, sizeof *st);
    if (cb_out_prepare(&out, "plot data", path, 1) != 0)
        return -1;
    st->series = cb_export_gnuplot(cb_out_stream(&out), json_object_get(doc, "cells"), &o);
    for (size_t i = 0; i < o.nw; i++)
        free(o.w[i].name);
    if (cb_out_commit(&out) != 0)
        return -1;
    /* Which columns have values: read the data back (it is small). */
    FILE *f = fopen(path, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '"' || line[0] == '\n')
            continue;
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
    if (f)
        fclose(f);
    return 0;
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

static json_t *draw_one(const plot_def *p, json_t *doc, const char *in, const char *dir,
                        const char *scripts)
{
    json_t *res = json_pack("{s:s, s:s, s:[]}", "name", p->name, "question", p->question,
                            "notes");
    json_t *notes = json_object_get(res, "notes");
    char assign[8192] = "", path[4096], files[4096] = "", titles[1024] = "";
    size_t sets_with_data = 0;
    char panels[64] = "";
    cb_append(assign, sizeof assign, "plotdir='%s'; ", scripts);
    for (size_t i = 0; i < PLOT_SETS && p->sets[i].var; i++) {
        const plot_set *s = &p->sets[i];
        set_stats st;
        snprintf(path, sizeof path, "%s/%s-%zu.dat", dir, p->name, i);
        if (write_set(doc, in, s, path, &st) != 0) {
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
            else if (p->panels && st.pos[k])
                cb_append(panels, sizeof panels, "%s%zu", *panels ? " " : "", k + 2);
        }
        if (!s->y[0])
            some = st.any[0];
        if (!some)
            continue;
        sets_with_data++;
        if (p->list) {
            cb_append(files, sizeof files, "%s%s", *files ? " " : "", path);
            cb_append(titles, sizeof titles, "%s%s", *titles ? " " : "", s->var);
        } else {
            cb_append(assign, sizeof assign, "%s='%s'; ", s->var, path);
        }
    }
    /* A plot needs all its sets (a list plot: one), each with some value. */
    size_t need = 0;
    for (size_t i = 0; i < PLOT_SETS && p->sets[i].var; i++)
        need++;
    if (p->list ? !sets_with_data : sets_with_data < need) {
        json_object_set_new(res, "skipped", json_string("the results lack its data"));
        json_object_set_new(res, "command", json_string(p->needs));
        return res;
    }
    if (p->list)
        cb_append(assign, sizeof assign, "files='%s'; titles='%s'; ", files,
                              titles);
    if (p->panels)
        cb_append(assign, sizeof assign, "panels='%s'; ", panels);
    if (p->vars)
        cb_append(assign, sizeof assign, "%s; ", p->vars);
    if (!strcmp(p->name, "pingpong-mispredict") || !strcmp(p->name, "pingpong-modes")) {
        char model[128];
        model_text(doc, model, sizeof model);
        cb_append(assign, sizeof assign, "model='%s'; ", model);
    }
    char script[4096], why[512] = "";
    snprintf(script, sizeof script, "%s/%s.gp", scripts, p->script);
    static const char *const exts[] = {"png", "svg"};
    for (size_t e = 0; e < 2; e++) {
        /* gnuplot writes a temporary file (same extension: common.gp picks the terminal by
         * it), renamed into place when it succeeded, so a reader never sees half a picture. */
        char one[8192 + 4096] = "", tmp[4200];
        snprintf(path, sizeof path, "%s/%s.%s", dir, p->name, exts[e]);
        snprintf(tmp, sizeof tmp, "%s/.%s.tmp%ld.%s", dir, p->name, (long)getpid(), exts[e]);
        cb_append(one, sizeof one, "%sout='%s'", assign, tmp);
        if (gnuplot(one, script, why, sizeof why) != 0 || rename(tmp, path) != 0) {
            if (!why[0])
                cb_append(why, sizeof why, "cannot rename %s: %s", tmp, strerror(errno));
            unlink(tmp);
            json_object_set_new(res, "skipped", json_string(why));
            return res;
        }
        json_object_set_new(res, exts[e], json_string(path));
    }
    return res;
}

json_t *cb_plots_draw(json_t *doc, const char *in, const char *dir, const char *scripts)
{
    json_t *all = json_array();
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
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
