/* A cell's figure and its 95% interval from samples grouped by process (invocation), and the
 * interval of a ratio of two cells' figures. Pure functions of their inputs (no I/O, no JSON),
 * reproducible: every bootstrap uses a fixed seed. docs/measurement.md says why.
 *
 *  - The estimate is the median of the invocations' medians: each process fixes its own code
 *    placement, heap and stack layout and frequency state, so the process is the unit of
 *    replication; the median keeps one odd process (a placement 2-3x off) from moving it.
 *  - The interval is a hierarchical bootstrap: resample K invocations with replacement, then each
 *    one's repetitions with replacement, take the statistic, CB_BOOT_RESAMPLES times; the 2.5th
 *    and 97.5th percentiles, then widened about the estimate on a log scale by sqrt(K/(K-1))
 *    t(0.975, K-1) / z(0.975) (a ratio: t with Ka + Kb - 2 degrees of freedom) (Hesterberg's "expanded percentile" interval: a plain bootstrap percentile interval
 *    from K = 3 processes covers far less than 95%).
 *  - K < 2 has no interval (ok = 0, why set): one process says nothing about the spread between
 *    processes, which is where most of this machine's variance is.
 *
 * How to use (for the report's verdicts, compare, the table):
 *     cb_inv_samples a = {xs, ns, k};       // xs[i]: invocation i's samples, ns[i] of them
 *     cb_estimate e;
 *     cb_estimate_cell(&a, &e);             // e.est, e.lo, e.hi (if e.ok), e.var_*
 *     cb_estimate_ratio(&num, &den, &r);    // r.est = est(num) / est(den), r.lo, r.hi
 * A difference counts when the ratio's interval excludes 1 +- the threshold. */
#ifndef CB_INTERVAL_H
#define CB_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

/* Resamples per bootstrap, and the seed every bootstrap starts from. */
enum { CB_BOOT_RESAMPLES = 2000 };
#define CB_BOOT_SEED UINT64_C(0x636f726f62656e63) /* "corobenc" */

/* One cell's samples by invocation: x[i][0..n[i]) are invocation i's repetitions (n[i] >= 1). */
typedef struct cb_inv_samples {
    const double *const *x;
    const size_t *n;
    size_t k; /* invocations */
} cb_inv_samples;

typedef struct cb_estimate {
    double est;    /* median of the invocations' medians (a ratio: est(num) / est(den)) */
    double lo, hi; /* the 95% interval; NaN when !ok */
    int ok;        /* 1: the interval is there; 0: why says why not */
    const char *why;
    size_t k;             /* invocations (a ratio: the smaller side's) */
    size_t reps;          /* repetitions per invocation (the smallest; a ratio: both sides') */
    /* One cell only (a ratio leaves them 0): the variance split of the samples, a one-way
     * random-effects analysis: var_within the variance of a repetition inside a process,
     * var_between the variance of the process's own level (>= 0). between_dominates: the
     * between part is larger than what the repetitions add to a process's figure
     * (var_between > var_within / reps), so more invocations narrow the interval more than
     * more repetitions would. */
    double var_between, var_within;
    int between_dominates;
} cb_estimate;

/* 0, or -1 when s has no invocation or an invocation has no sample or a sample that is not a
 * positive finite number (e untouched). */
int cb_estimate_cell(const cb_inv_samples *s, cb_estimate *e);
/* The ratio num / den of two cells' estimates, with its interval from bootstrapping the ratio
 * (each side resampled as in cb_estimate_cell, independently); ok only when both sides have
 * K >= 2. Same return as cb_estimate_cell. */
int cb_estimate_ratio(const cb_inv_samples *num, const cb_inv_samples *den, cb_estimate *e);

/* The same with a given seed and number of resamples (the coverage test varies them). */
int cb_estimate_cell_seeded(const cb_inv_samples *s, uint64_t seed, unsigned resamples,
                            cb_estimate *e);
int cb_estimate_ratio_seeded(const cb_inv_samples *num, const cb_inv_samples *den, uint64_t seed,
                             unsigned resamples, cb_estimate *e);

/* The bootstraps' generator (splitmix64: small, fast, the same sequence on every machine for a
 * seed): the next value of state *s, and a value uniform in [0, n) (harness/ab/decide.c
 * resamples rounds with it). */
uint64_t cb_boot_next(uint64_t *s);
size_t cb_boot_pick(uint64_t *s, size_t n);

/* t(0.975, df), the two-sided 95% point of Student's t (infinite for df 0). */
double cb_t975(size_t df);
/* The factor an interval from K processes is widened by, about the estimate (1 for K < 2). */
double cb_interval_widening(size_t k);

#endif
