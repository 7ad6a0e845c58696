/* How long each cell of a plan should take per invocation: the pace that run's ETA and its
 * dry run's estimate share (docs/usage.md, "Estimates").
 *
 * A cell measured before on this CPU kind takes its pace from there: the record of this CPU
 * kind in results/fleet/ (or --pace FILE, a record or a results file) keeps, per cell, each
 * invocation's wall time and how much of it was repetitions (a cell's `pace`), and
 * cb_pace_predict rescales that to this run's repetitions (a cell it found unsupported, no
 * time). Any other cell takes the model: the repetitions at their minimum length, and a
 * process's own start, memory pass and exit. While the run goes, progress.c corrects both by
 * what the invocations so far took. */
#ifndef CB_PACE_H
#define CB_PACE_H

#include <jansson.h>
#include <limits.h>
#include <stddef.h>

#include "options.h"
#include "plan.h"

/* The model's fixed seconds per process (exec, the batch calibration, the memory pass, exit)
 * for a C implementation, and what a language's own runtime adds to its start. Measured with
 * the default suite on a 2-core Intel Xeon VM (family 6, model 167) at load average 1.3-1.9:
 * pingpong's 864 processes (1 warm-up and 3 repetitions of 2 ms) took 23.2 s, about 27 ms
 * each; a pingpong invocation of node took 0.36 s, csharp 0.25, go and luajit 0.22, against
 * asm's 0.12 (each with the run's own start). Load stretches both; the run's ETA learns by how
 * much. */
#define CB_PACE_PROCESS_S 0.015
#define CB_PACE_RUNTIME_S 0.25
/* The batch calibration's repetitions before the warm-up, in the model. */
#define CB_PACE_CALIBRATION_REPS 2

typedef struct cb_pace {
    double *pred;   /* per cell: seconds per timed invocation */
    double *extra;  /* per cell: seconds of its counting pass (0: none), once */
    unsigned char *measured; /* per cell: 1 when pred came from a cell measured before */
    size_t ncells, nmeasured;
    char source[PATH_MAX + 64]; /* the file the measured paces came from; "" none */
    char why[PATH_MAX + 128];   /* with no source: why none */
} cb_pace;

/* The pace of every cell of plan under o (o->pace_path: NULL this CPU kind's record in
 * results/fleet/, "none" the model alone, else that file). 0, or -1 with err set: the file
 * named by --pace could not be read. */
int cb_pace_plan(const cb_run_opts *o, const cb_plan *plan, cb_pace *p, char *err, size_t len);
void cb_pace_free(cb_pace *p);

/* One cell's pace under the model alone. */
double cb_pace_model(const cb_run_opts *o, const cb_plan_cell *pc);
/* From a cell's `pace` object ({wall_s, rep_ms, warmup_reps, reps}: an invocation's wall time,
 * its repetitions' length, how many warm-up and timed ones it ran): the seconds of one
 * invocation at reps timed repetitions of at least min_rep_ms. The part that was not
 * repetitions is kept; the repetitions are rescaled, at least min_rep_ms each, or as long as
 * they were when the work set their length; with rep_ms 0 (a language's program does not say
 * its repetitions' length) the wall time as it was. NAN when pace is not such an object. */
double cb_pace_predict(json_t *pace, unsigned reps, double min_rep_ms);
/* A cell's `pace` from its invocations' entries (each with wall_s, shortest_rep_ms,
 * warmup_reps and samples_ns_per_op; the middle two 0 where a program's reply lacks them):
 * their means. NULL when one lacks its wall time. */
json_t *cb_pace_of(json_t *invocations);

#endif
