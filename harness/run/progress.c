/* The run's progress line (progress.h). Nothing here runs in a measured child: the parent prints
 * between cells, never while one is timed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#include "harness/common/alloc.h"

/* A process's fixed cost beyond its repetitions (exec, the memory pass, the calibration of the
 * batch, exit): 20 invocations of a pingpong cell with two 1 ms repetitions took 1.56-1.86 s
 * on the 2-core VM at load average 10, about 80 ms each; less on an idle machine, more for a
 * language's runtime. The ETA corrects it by what the finished steps took. */
#define STEP_OVERHEAD_S 0.08

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double cb_progress_budget(unsigned warmup, unsigned reps, double min_rep_ms)
{
    return (warmup + reps) * min_rep_ms / 1e3 + STEP_OVERHEAD_S;
}

void cb_progress_clock(double s, char *buf, size_t len)
{
    if (s >= 3.6e12) { /* a billion hours and more: past what a long of seconds counts */
        snprintf(buf, len, "%.3g h", s / 3600);
        return;
    }
    long t = s > 0 && isfinite(s) ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

void cb_progress_start(cb_progress *p, FILE *f, size_t cells, unsigned invocations,
                       double budget)
{
    memset(p, 0, sizeof *p);
    p->f = f;
    p->tty = isatty(fileno(f));
    p->cells = cells;
    p->invocations = invocations ? invocations : 1;
    p->steps = cells * p->invocations;
    p->budget = budget;
    p->t0 = now();
    const char *stage = getenv("COROBENCH_STAGE");
    if (stage && *stage)
        snprintf(p->stage, sizeof p->stage, "[%s] ", stage);
}

void cb_progress_cells(cb_progress *p, const double *pace, const double *extra,
                       const unsigned char *measured)
{
    size_t n = p->cells + 1;
    p->pace = cb_xmalloc(n * sizeof *p->pace);
    p->extra = cb_xmalloc(n * sizeof *p->extra);
    p->own_s = cb_xcalloc(n, sizeof *p->own_s);
    p->measured = cb_xmalloc(n);
    p->left = cb_xmalloc(n * sizeof *p->left);
    p->own_n = cb_xcalloc(n, sizeof *p->own_n);
    for (size_t i = 0; i < p->cells; i++) {
        p->pace[i] = pace[i];
        p->extra[i] = extra ? extra[i] : 0;
        p->measured[i] = measured ? measured[i] != 0 : 0;
        p->left[i] = p->invocations;
    }
}

void cb_progress_timed(cb_progress *p, size_t cell, double wall_s)
{
    if (p->pace && cell < p->cells && wall_s >= 0) {
        p->own_s[cell] += wall_s;
        p->own_n[cell]++;
    }
}

void cb_progress_settled(cb_progress *p, size_t cell)
{
    if (p->pace && cell < p->cells)
        p->left[cell] = 0;
}

/* How long a pace of this source turns out to take, against what it says: the first
 * invocations so far, from 1 (a second of paces at their word weighs in, so that one cell's
 * outlier does not set the rest). */
static double scale(const cb_progress *p, int src)
{
    return (p->took[src] + 1.0) / (p->said[src] + 1.0);
}

double cb_progress_left(const cb_progress *p, double elapsed)
{
    if (!p->pace) { /* the budget left, scaled by how the finished invocations ran */
        double left = p->budget - p->spent;
        if (p->spent > 0 && elapsed > 0)
            left *= elapsed / p->spent;
        return left > 0 ? left : 0;
    }
    double left = 0;
    for (size_t i = 0; i < p->cells; i++) {
        if (!p->left[i])
            continue;
        double g = scale(p, p->measured[i]);
        if (p->own_n[i])
            left += p->left[i] * p->own_s[i] / p->own_n[i];
        else
            left += g * (p->left[i] * p->pace[i] + p->extra[i]);
    }
    return left;
}

/* "[stage] [cell 56/102, invocation 2/3, 52%; 1:10, ETA 1:05]"; the share of the whole counts
 * the invocations done, skipped ones included. */
static void head(const cb_progress *p, size_t cell, unsigned inv, size_t done, char *buf,
                 size_t len)
{
    double el = now() - p->t0, left = cb_progress_left(p, el);
    char e[32], r[32], where[64] = "";
    cb_progress_clock(el, e, sizeof e);
    cb_progress_clock(left, r, sizeof r);
    if (p->invocations > 1)
        snprintf(where, sizeof where, ", invocation %u/%u", inv + 1, p->invocations);
    snprintf(buf, len, "%s[cell %zu/%zu%s, %d%%; %s, ETA %s]", p->stage, cell + 1, p->cells,
             where, p->steps ? (int)(100 * done / p->steps) : 100, e, r);
}

void cb_progress_begin(cb_progress *p, size_t cell, unsigned inv, const char *what)
{
    p->t_begin = now();
    if (!p->tty)
        return;
    char h[192];
    head(p, cell, inv, p->done, h, sizeof h);
    fprintf(p->f, "\r\033[K%s %s", h, what);
    fflush(p->f);
}

void cb_progress_end(cb_progress *p, size_t cell, unsigned inv, const char *what,
                     const char *outcome, double share)
{
    p->done++;
    p->spent += share;
    if (p->pace && cell < p->cells && p->left[cell]) {
        /* A cell's first invocation (its counting pass with it) tells how its pace's source
         * holds; the rest of its invocations are expected to take its own time. */
        if (p->left[cell] == p->invocations) {
            p->took[p->measured[cell]] += now() - p->t_begin;
            p->said[p->measured[cell]] += p->pace[cell] + p->extra[cell];
        }
        p->left[cell]--;
    }
    if (p->tty)
        return;
    char h[192];
    head(p, cell, inv, p->done, h, sizeof h);
    fprintf(p->f, "%s %s: %s\n", h, what, outcome);
    fflush(p->f);
}

void cb_progress_skip(cb_progress *p, size_t cell, size_t count, double share)
{
    p->done += count;
    p->budget -= share; /* it will not run: no time to wait for, none to learn the pace from */
    if (p->pace && cell < p->cells)
        p->left[cell] = count < p->left[cell] ? p->left[cell] - (unsigned)count : 0;
}

void cb_progress_finish(cb_progress *p)
{
    if (p->tty) {
        fprintf(p->f, "\r\033[K");
        fflush(p->f);
    }
    free(p->pace);
    free(p->extra);
    free(p->own_s);
    free(p->measured);
    free(p->left);
    free(p->own_n);
    p->pace = p->extra = p->own_s = NULL;
    p->measured = NULL;
    p->left = p->own_n = NULL;
}
