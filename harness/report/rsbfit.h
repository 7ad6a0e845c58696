/* Least-squares calibration of the return-stack model (docs/rsb.md, "Calibration"): over a
 * sweep of points (impl, sites, depth), fit  t(plain) - t(jmpret) = cost * mispredicted + c
 * with the mispredictions per op that each candidate (model, N) simulated, and pick the
 * candidate whose fit leaves the least squared error. Pure arithmetic; no I/O. */
#ifndef CB_RSBFIT_H
#define CB_RSBFIT_H

#include <stddef.h>

typedef struct cb_rsbfit_line {
    int ok;      /* 0: x is constant over the points (no slope can be fitted) */
    double cost; /* slope: time per misprediction, in y's unit */
    double c;    /* intercept */
    double sse;  /* sum of squared residuals */
    double r2;   /* 1 - sse / (sum of squared deviations of y); 0 when y is constant */
} cb_rsbfit_line;

/* Ordinary least squares of y on x over n points (n >= 2). Returns out->ok. */
int cb_rsbfit_line_fit(const double *x, const double *y, size_t n, cb_rsbfit_line *out);
/* Fits every candidate (x[k] has the n points of candidate k) into fits[k] and returns the index
 * of the best: the least sse among those with ok and cost > 0 (a model whose mispredictions make
 * things faster explains nothing). Ties, within a relative 1e-9 (candidates whose counts are
 * equal over the sweep), go to the earlier candidate. -1 when none qualifies. */
long cb_rsbfit_best(const double *const *x, size_t k, const double *y, size_t n,
                    cb_rsbfit_line *fits);

#endif
