/* A run's progress on stderr. On a terminal: one line updated in place, step i of N (a step is
 * one invocation of one cell), the time elapsed and an ETA; not on a terminal (a pipe, a CI
 * log): one line per finished step. The ETA starts from the plan's budget (cb_progress_budget)
 * and is corrected by how long the steps so far took against theirs. COROBENCH_STAGE, when set
 * (run.sh: "2/3 workloads"), prefixes every line, so a run that is one stage of several says
 * where it is in the whole. */
#ifndef CB_PROGRESS_H
#define CB_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

typedef struct cb_progress {
    FILE *f;
    int tty;
    size_t steps, done;
    double t0;              /* monotonic seconds at the start */
    double budget, spent;   /* the whole plan's budget; the finished steps' share of it */
    char stage[64];
} cb_progress;

/* The estimated seconds of one invocation of one cell: warm-up and timed repetitions of at
 * least min_rep_ms each, and the process's own start, memory pass and exit. */
double cb_progress_budget(unsigned warmup, unsigned reps, double min_rep_ms);

/* Starts counting steps steps of budget seconds in all, on f. */
void cb_progress_start(cb_progress *p, FILE *f, size_t steps, double budget);
/* A step begins (a terminal's line shows what runs now). */
void cb_progress_begin(cb_progress *p, const char *what);
/* A step ended, having used share seconds of the budget; outcome: its figure or its failure. */
void cb_progress_end(cb_progress *p, const char *what, const char *outcome, double share);
/* count steps that will not run (a cell unsupported, failed or timed out after its first
 * invocation), share seconds of the budget in all: counted as done, printed nowhere. */
void cb_progress_skip(cb_progress *p, size_t count, double share);
/* Clears a terminal's line. */
void cb_progress_finish(cb_progress *p);

/* "1:05" or "1:02:05". */
void cb_progress_clock(double seconds, char *buf, size_t len);

#endif
