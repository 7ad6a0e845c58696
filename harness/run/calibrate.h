/* `corobench calibrate` in parts (docs/rsb.md, "Calibration"), the command itself in calibrate.c
 * (its options, its outputs prepared first and dropped on failure): the sweep, `corobench run`
 * in a child (cal_sweep.c); the fit of every candidate to its points (cal_fit.c); the calibration
 * document (cal_file.c); the table on stdout (cal_table.c); the plot data (cal_data.c). Every
 * one reads the options and the points defined here. */
#ifndef CB_RUN_CALIBRATE_H
#define CB_RUN_CALIBRATE_H

#include <jansson.h>
#include <stdio.h>
#include <time.h>

#include "harness/common/output.h"
#include "harness/measure/rsbcal.h"
#include "harness/measure/rsbfit.h"

typedef struct cb_cal_opts {
    int pin_cpu;
    long switches, reps, max_depth, runs;
    double min_rep_ms;
    const char *out_path; /* NULL: the calibration directory's <key>.json */
    const char *data_path; /* gnuplot data, NULL: none */
    cb_rsbfit_baseline baseline;
    int force; /* -o and --data may replace a regular file */
} cb_cal_opts;

/* The acceptance bound of docs/rsb.md: the model's plain time within 15% of the measured one;
 * also the jmpret twin's check (cb_rsbfit_calibrate). */
#define CB_CAL_BOUND 0.15
#define CB_CAL_MAX_RUNS 20

/* One point of the sweep: a plain cell and its jmpret twin. */
typedef struct cb_cal_point {
    const char *impl, *sites;
    long depth;
    /* The fastest repetition of each build: another task's time only ever adds to a
     * repetition, and the calibration runs on whatever machine it is given. */
    double plain_ns, jmpret_ns, hw_per_op; /* hw_per_op: NAN without a PMU */
    /* Each run's fastest repetition; plain_ns and jmpret_ns are their medians (docs/rsb.md:
     * a process's placement sets the time of all its repetitions alike). */
    double plain_runs[CB_CAL_MAX_RUNS], jmpret_runs[CB_CAL_MAX_RUNS];
    json_t *cand;                          /* the plain cell's rsbsim_candidates */
} cb_cal_point;

static inline double cb_cal_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* cal_sweep.c: the sweep checked by run's own parser and plan before anything is prepared or
 * run (a --pin this process may not use, a variant build missing: run's one line, exit 2), and
 * the number of points it will give: each a plain cell and its jmpret twin. CB_OPTS_PARSED, or
 * the exit status. pmu: count hardware return mispredictions too. */
int cb_cal_check_sweep(const cb_cal_opts *o, int pmu, size_t *npoints);
/* cal_sweep.c: the sweep's o->runs runs of npoints points each, through the temporary results
 * file tmp: the first (counting) run's document in *run and its points in *pts, each point's
 * times the median over the runs. The number of points, or -1 after one line on stderr. */
long cb_cal_sweep(const cb_cal_opts *o, int pmu, size_t npoints, const char *tmp, json_t **run,
                  cb_cal_point **pts);
/* cal_fit.c: every candidate fitted to the n points of the counting run run; the calibration
 * document (cb_cal_doc), or NULL after one line when no candidate fits. pmu_why: why hardware
 * events were not counted (NULL: they were); secs: the calibration's time so far. */
json_t *cb_cal_fit(const cb_cal_opts *o, json_t *run, const cb_cpu_id *cpu,
                   const cb_cal_point *pts, long n, const char *pmu_why, double secs);
/* cal_file.c: the calibration document (docs/results-schema.md, "Calibration file") from the
 * fit's result res over the candidates cand (x[k][i]: candidate k's simulated mispredictions per
 * switch at point i; jfits, sfits: each twin's fit of each candidate). */
json_t *cb_cal_doc(const cb_cal_opts *o, json_t *run, const cb_cpu_id *cpu,
                   const cb_cal_point *pts, const cb_rsbfit_point *rp, size_t n,
                   const cb_rsb_config *cand, const cb_rsbfit_line *jfits,
                   const cb_rsbfit_line *sfits, size_t ncand, const cb_rsbfit_result *res,
                   const char *reason, double **x, const char *pmu_why, double secs);
/* cal_table.c: the points, then the fit, how it compares and what the columns mean. */
void cb_cal_print_table(json_t *doc, FILE *out);
/* cal_data.c: the gnuplot data of --data into out, committed: 0, or 1 after one line. */
int cb_cal_write_data(json_t *doc, cb_out *out);

#endif
