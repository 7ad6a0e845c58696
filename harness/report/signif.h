/* Significance tests for comparing two sets of timing samples: the two-sided Mann-Whitney U
 * test, Holm's step-down correction over many such tests, and the geometric mean used for
 * summary ratios. Pure functions of their inputs (no I/O), unit-tested with textbook values. */
#ifndef CB_SIGNIF_H
#define CB_SIGNIF_H

#include <stddef.h>

/* Largest sample size (per side) for which cb_mwu computes the exact null distribution. */
enum { CB_MWU_EXACT_MAX = 50 };

typedef struct cb_mwu_result {
    double u;     /* U of the first sample: pairs (x, y) with x > y, ties counting one half */
    double p;     /* two-sided p-value */
    int exact;    /* 1: exact distribution; 0: normal approximation */
} cb_mwu_result;

/* Two-sided Mann-Whitney U test of x[0..nx) against y[0..ny) (both >= 1). Exact (the
 * distribution of U over all C(nx + ny, nx) arrangements) when there are no ties and both
 * sides have at most CB_MWU_EXACT_MAX samples; otherwise the normal approximation with the
 * tie correction of the variance and a continuity correction of 0.5. */
cb_mwu_result cb_mwu(const double *x, size_t nx, const double *y, size_t ny);

/* The smallest two-sided p-value an exact test with these sample sizes can give (both samples
 * entirely apart): 2 / C(nx + ny, nx), at most 1. */
double cb_mwu_min_p(size_t nx, size_t ny);

/* Two-sided sign test: of above + below paired differences (ties left out), above were
 * positive; p = 2 P(X <= min(above, below)) for X ~ Binomial(above + below, 1/2), at most 1
 * (1 when there is no pair). */
double cb_sign_test(size_t above, size_t below);

/* Holm's step-down correction: adj[i] = the adjusted p of p[i] (family-wise error control
 * over the n tests). adj may alias p. */
void cb_holm(const double *p, double *adj, size_t n);

/* Geometric mean of n > 0 positive values (via logarithms); NaN when n is 0 or a value is not
 * positive. */
double cb_geomean(const double *x, size_t n);

#endif
