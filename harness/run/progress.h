/* A run's progress on stderr, in the run's own order: invocations are interleaved (every cell's
 * first invocation, then every cell's second...), so the line says both where in the round and
 * which round: "[cell 56/102, invocation 2/3, 52%; 1:10, ETA 1:05]". On a terminal: one line
 * updated in place; not on a terminal (a pipe, a CI log): one line per finished invocation.
 * The ETA: with each cell's pace (cb_progress_cells, pace.h: measured before on this CPU kind,
 * or the model), a cell that has run an invocation takes its own time for the rest of them;
 * one that has not takes its pace, scaled by how long the first invocations of the cells so far
 * took against their pace (separately for the measured paces and the model's). Without it (ab),
 * the budget left (cb_progress_budget, per invocation) scaled by how long the invocations so far
 * took against theirs. An invocation that will not run (its cell unsupported, failed or timed
 * out) leaves the estimate, so it neither shortens nor lengthens the ETA.
 * COROBENCH_STAGE, when set (run.sh: "stage 2/4: workloads"), prefixes every line, so a run
 * that is one stage of several says where it is in the whole. */
#ifndef CB_PROGRESS_H
#define CB_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

typedef struct cb_progress {
    FILE *f;
    int tty;
    size_t cells, steps, done; /* steps: cells x invocations */
    unsigned invocations;
    double t0;              /* monotonic seconds at the start */
    double t_begin;         /* when the invocation running now began */
    double budget, spent;   /* the budget of what runs; the finished invocations' share of it */
    /* With cells' paces (cb_progress_cells), per cell: its pace per invocation, its counting
     * pass's, whether the pace was measured before, the invocations left, and the seconds of
     * its own timed invocations so far (own_n of them). */
    double *pace, *extra, *own_s;
    unsigned char *measured;
    unsigned *left, *own_n;
    /* By the pace's source (0 the model, 1 measured before): the seconds the first
     * invocations of cells took, and their paces said. */
    double took[2], said[2];
    char stage[64];
} cb_progress;

/* The estimated seconds of one invocation of one cell: warm-up and timed repetitions of at
 * least min_rep_ms each, and the process's own start, memory pass and exit. */
double cb_progress_budget(unsigned warmup, unsigned reps, double min_rep_ms);

/* Starts counting cells cells of invocations invocations each, budget seconds in all, on f. */
void cb_progress_start(cb_progress *p, FILE *f, size_t cells, unsigned invocations,
                       double budget);
/* Gives each cell its pace (seconds per invocation), the seconds of its counting pass (once,
 * with its first invocation; 0 none), and whether the pace was measured before (pace.h):
 * the ETA is then theirs. The arrays are copied. */
void cb_progress_cells(cb_progress *p, const double *pace, const double *extra,
                       const unsigned char *measured);
/* The timed process of an invocation of cell took wall_s seconds (with cells' paces: the rest
 * of the cell's invocations are expected to take as long). */
void cb_progress_timed(cb_progress *p, size_t cell, double wall_s);
/* With cells' paces: cell will run no more invocations (unsupported, failed or timed out), so
 * none of them counts in the ETA; the rounds still skip them (cb_progress_skip). */
void cb_progress_settled(cb_progress *p, size_t cell);
/* The seconds the ETA says are left, elapsed seconds into the run. */
double cb_progress_left(const cb_progress *p, double elapsed);
/* Invocation inv (from 0) of cell (from 0) begins: a terminal's line shows what runs now. */
void cb_progress_begin(cb_progress *p, size_t cell, unsigned inv, const char *what);
/* It ended, having used share seconds of the budget; outcome: its figure or its failure. */
void cb_progress_end(cb_progress *p, size_t cell, unsigned inv, const char *what,
                     const char *outcome, double share);
/* count invocations that will not run (a cell unsupported, failed or timed out after its first
 * invocation) of cell, share seconds of the budget in all: counted as done, taken out of the
 * estimate, printed nowhere. */
void cb_progress_skip(cb_progress *p, size_t cell, size_t count, double share);
/* Clears a terminal's line and frees what cb_progress_cells copied. */
void cb_progress_finish(cb_progress *p);

/* "1:05" or "1:02:05"; from a billion hours on "2.78e+296 h" (never a long overflowed). */
void cb_progress_clock(double seconds, char *buf, size_t len);

#endif
