/* Least-squares calibration of the return-stack model (docs/rsb.md, "Calibration"): over a
 * sweep of points (impl, sites, depth), fit the time mispredicted returns cost against a twin
 * that does the same work without them, with the mispredictions per op that each candidate
 * (model, N) simulated, and pick the candidate whose fit leaves the least squared error. Two
 * twins: the jmpret build (t(plain) - t(jmpret) = cost * mispredicted + c), and the plain build
 * itself at sites=same (t(distinct) - t(same) = cost * (mispredicted(distinct) -
 * mispredicted(same)) + c). Pure arithmetic; no I/O. */
#ifndef CB_RSBFIT_H
#define CB_RSBFIT_H

#include <stddef.h>

typedef struct cb_rsbfit_line {
    int ok;      /* 0: x is constant over the points (no slope can be fitted) */
    double cost; /* slope: time per misprediction, in y's unit */
    double c;    /* intercept */
    double sse;  /* sum of squared residuals */
    double r2;   /* 1 - sse / (sum of squared deviations of y); 0 when y is constant */
    /* The jmpret twin's own mispredictions (docs/rsb.md, "Two twins"): from depth step_depth
     * on, y is lower by -step ns per op (step <= 0; step_depth 0: no step). */
    long step_depth;
    double step;
} cb_rsbfit_line;

/* Ordinary least squares of y on x over n points (n >= 2). Returns out->ok. */
int cb_rsbfit_line_fit(const double *x, const double *y, size_t n, cb_rsbfit_line *out);
/* The same with a step: y = cost * x + c + step * (depth >= step_depth), the step's depth
 * scanned over the depths present and the least squared error kept among the fits whose step is
 * not positive, the straight line (no step) included. Returns out->ok. */
int cb_rsbfit_step_fit(const double *x, const double *y, const long *depth, size_t n,
                       cb_rsbfit_line *out);
/* Fits every candidate (x[k] has the n points of candidate k) into fits[k], with a step when
 * depth is not NULL, and returns the index of the best: the least sse among those with ok and
 * cost > 0 (a model whose mispredictions make things faster explains nothing). Ties, within a
 * relative 1e-9 (candidates whose counts are equal over the sweep), go to the earlier
 * candidate. -1 when none qualifies. */
long cb_rsbfit_best(const double *const *x, size_t k, const double *y, const long *depth,
                    size_t n, cb_rsbfit_line *fits);

/* Which twin the time of the mispredictions is measured against. */
typedef enum cb_rsbfit_baseline {
    CB_RSBFIT_AUTO,   /* jmpret if it passes the twin check below, else sites */
    CB_RSBFIT_JMPRET, /* the same build with every `ret` an indirect jmp */
    CB_RSBFIT_SITES,  /* the plain build at sites=same: the same code, other return targets */
} cb_rsbfit_baseline;

const char *cb_rsbfit_baseline_name(cb_rsbfit_baseline b);
int cb_rsbfit_baseline_parse(const char *s, cb_rsbfit_baseline *out); /* 0, or -1 */

/* One point of the sweep: one runtime at one depth, both builds timed. */
typedef struct cb_rsbfit_point {
    int impl;  /* which runtime (an index): a sites twin is the same impl at the same depth */
    int same;  /* 1: sites=same, 0: sites=distinct */
    long depth;
    double plain_ns, jmpret_ns;
} cb_rsbfit_point;

typedef struct cb_rsbfit_result {
    cb_rsbfit_baseline baseline; /* the twin fitted: JMPRET or SITES */
    long best;                   /* the chosen candidate under that twin, -1: none qualifies */
    long jmpret_best;            /* the candidate the jmpret twin alone would choose, or -1 */
    /* The jmpret twin's check at sites=same, under its own fit: jmpret + cost x mispredicted +
     * its own step must come within tol of plain at every depth there (no phantom
     * mispredictions, and a twin whose own mispredictions are the step it was fitted with). */
    int twin_ok;
    long twin_worst;        /* the sites=same point furthest off, -1: none */
    double twin_worst_error; /* its (jmpret + cost x mispredicted) / plain - 1 */
} cb_rsbfit_result;

/* Fits every candidate (x[c][i]: candidate c's simulated mispredictions per op of the plain
 * build at point i) against the jmpret twin, with its step, into jfits[c] and against the sites
 * twin into sfits[c], and picks the twin `want` names (AUTO: the jmpret twin when its check
 * passes at tolerance tol, else sites) and that twin's best candidate. 0, or -1 when the twin wanted has
 * no point (sites: no distinct point with its same twin) or out of memory. */
int cb_rsbfit_calibrate(const cb_rsbfit_point *pts, size_t n, const double *const *x, size_t k,
                        cb_rsbfit_baseline want, double tol, cb_rsbfit_line *jfits,
                        cb_rsbfit_line *sfits, cb_rsbfit_result *out);

/* The sites=same twin of point i (same impl and depth), or -1 (i is a same point itself, or
 * the sweep lacks it). */
long cb_rsbfit_sites_twin(const cb_rsbfit_point *pts, size_t n, size_t i);

/* The plain time of point i that the model predicts from a twin, xk (one candidate's counts)
 * and that twin's fit f of the candidate: jmpret + cost x mispredicted + the step where the
 * depth reaches it, or for the sites twin plain(same) + cost x (mispredicted -
 * mispredicted(same)). NAN where the twin has no prediction (sites: a sites=same point, or
 * one without its twin; either: a fit that is not ok). */
double cb_rsbfit_predict(const cb_rsbfit_point *pts, size_t n, size_t i, const double *xk,
                         const cb_rsbfit_line *f, cb_rsbfit_baseline twin);

#endif
