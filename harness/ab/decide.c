/* The decision of `corobench ab` (decide.h says what and why). The quantiles are computed, not
 * tabled: the per-cell level depends on the number of cells, so no fixed table serves. Student's
 * t distribution with an integer df has a closed form (Abramowitz and Stegun 26.7.3 and 26.7.4, a
 * finite series in cos(theta), theta = atan(t / sqrt(df))), inverted here by bisection. */
#include "decide.h"

#include <math.h>
#include <stdlib.h>

#include "harness/common/alloc.h"
#include "harness/common/interval.h"

const char *cb_ab_verdict_name(cb_ab_verdict v)
{
    static const char *const names[] = {"regressed", "improved", "unknown", "unchanged", "none"};
    return v <= CB_AB_NONE ? names[v] : "none";
}

double cb_ab_cell_level(const cb_ab_rule *r)
{
    return 1 - r->budget / 2 / (double)(r->cells ? r->cells : 1);
}

double cb_ab_run_level(const cb_ab_rule *r)
{
    return 1 - r->budget / 2;
}

double cb_ab_fresh_level(const cb_ab_rule *r)
{
    return 1 - (1 - cb_ab_cell_level(r)) / (double)(r->looks ? r->looks : 1);
}

unsigned cb_ab_looks(unsigned rounds, unsigned max_rounds)
{
    return rounds && max_rounds > rounds ? (max_rounds - rounds + rounds - 1) / rounds : 0;
}

cb_ab_verdict cb_ab_decide(double lo, double hi, double threshold)
{
    double up = 1 + threshold, down = 1 / up;
    if (!(lo <= hi)) /* NaN: no interval */
        return CB_AB_NONE;
    if (lo > up)
        return CB_AB_REGRESSED;
    if (hi < down)
        return CB_AB_IMPROVED;
    if (lo >= down && hi <= up)
        return CB_AB_UNCHANGED;
    return CB_AB_UNKNOWN;
}

int cb_ab_needs_rerun(cb_ab_verdict first)
{
    return first == CB_AB_REGRESSED || first == CB_AB_IMPROVED || first == CB_AB_UNKNOWN;
}

/* P(|T| <= t) for Student's t with df degrees of freedom (A&S 26.7.3, 26.7.4). */
static double t_central(double t, size_t df)
{
    double th = atan(t / sqrt((double)df)), c2 = cos(th) * cos(th), s = sin(th);
    if (df % 2 == 0) { /* sin(th) (1 + 1/2 c2 + 1*3/(2*4) c2^2 + ... up to c2^((df-2)/2)) */
        double term = 1, sum = 1;
        for (size_t k = 1; k <= (df - 2) / 2; k++) {
            term *= c2 * (double)(2 * k - 1) / (double)(2 * k);
            sum += term;
        }
        return s * sum;
    }
    if (df == 1)
        return 2 * th / M_PI;
    /* (2/pi)(th + sin cos (1 + 2/3 c2 + 2*4/(3*5) c2^2 + ... up to c2^((df-3)/2))) */
    double term = 1, sum = 1;
    for (size_t k = 1; k <= (df - 3) / 2; k++) {
        term *= c2 * (double)(2 * k) / (double)(2 * k + 1);
        sum += term;
    }
    return 2 / M_PI * (th + s * cos(th) * sum);
}

static double z_central(double x)
{
    return erf(x / sqrt(2));
}

/* The x >= 0 with f(x) = level, f increasing from 0 towards 1. */
static double invert(double (*f)(double, size_t), size_t df, double level)
{
    double lo = 0, hi = 1;
    while (f(hi, df) < level && hi < 1e12)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-10 * hi; i++) {
        double mid = lo + (hi - lo) / 2;
        if (f(mid, df) < level)
            lo = mid;
        else
            hi = mid;
    }
    return lo + (hi - lo) / 2;
}

static double z_of(double x, size_t df)
{
    (void)df;
    return z_central(x);
}

double cb_ab_z(double level)
{
    return invert(z_of, 0, level);
}

double cb_ab_t(double level, size_t df)
{
    return df ? invert(t_central, df, level) : INFINITY;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of sorted b[0..n), interpolated. */
static double quantile(const double *b, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    double f = pos - (double)i;
    return i + 1 < n ? b[i] * (1 - f) + b[i + 1] * f : b[i];
}

/* logs of ratio[0..n) into y, or -1 when one is not positive and finite. */
static int logs(const double *ratio, size_t n, double *y)
{
    for (size_t i = 0; i < n; i++) {
        if (!(ratio[i] > 0) || !isfinite(ratio[i]))
            return -1;
        y[i] = log(ratio[i]);
    }
    return 0;
}

int cb_ab_cell(const double *ratio, size_t n, double level, double threshold, uint64_t seed,
               cb_ab_est *e)
{
    double *y = cb_xcalloc(n + 1, sizeof *y);
    if (logs(ratio, n, y)) {
        free(y);
        return -1;
    }
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += y[i] / (double)n;
    *e = (cb_ab_est){.est = n ? exp(mean) : NAN, .lo = NAN, .hi = NAN, .level = level, .n = n,
                     .verdict = CB_AB_NONE};
    if (n >= 2) {
        /* Enough resamples that the tail quantile is not the extreme order statistic: 20 of them
         * lie beyond it. */
        double a = 1 - level;
        size_t nb = (size_t)fmin(200000, fmax(2000, ceil(40 / a)));
        double *b = cb_xcalloc(nb, sizeof *b);
        uint64_t rng = seed;
        for (size_t r = 0; r < nb; r++) {
            double s = 0;
            for (size_t i = 0; i < n; i++)
                s += y[cb_boot_pick(&rng, n)];
            b[r] = s / (double)n;
        }
        qsort(b, nb, sizeof *b, cmp_double);
        double w = sqrt((double)n / (double)(n - 1)) * cb_ab_t(level, n - 1) / cb_ab_z(level);
        double qlo = quantile(b, nb, a / 2), qhi = quantile(b, nb, 1 - a / 2);
        e->lo = exp(mean + w * fmin(0, qlo - mean));
        e->hi = exp(mean + w * fmax(0, qhi - mean));
        e->verdict = cb_ab_decide(e->lo, e->hi, threshold);
        free(b);
    }
    free(y);
    return 0;
}

int cb_ab_fresh_continues(const double *fresh, size_t n, const cb_ab_rule *r, uint64_t seed)
{
    cb_ab_est e;
    if (n < 2)
        return 1;
    return !cb_ab_cell(fresh, n, cb_ab_fresh_level(r), r->threshold, seed, &e) &&
           e.verdict == CB_AB_UNKNOWN;
}

int cb_ab_cell_staged(const double *ratio, size_t n1, size_t n, double level, double fresh_level,
                      double threshold, uint64_t seed, cb_ab_est *first, cb_ab_est *final)
{
    if (cb_ab_cell(ratio, n1, level, threshold, seed, first))
        return -1;
    if (!cb_ab_needs_rerun(first->verdict) || n == n1) {
        *final = *first;
        return 0;
    }
    return cb_ab_cell(ratio + n1, n - n1, fresh_level, threshold, seed, final);
}

int cb_ab_whole(const double *round_geomean, size_t n, double level, double threshold,
                cb_ab_est *e)
{
    double *y = cb_xcalloc(n + 1, sizeof *y);
    if (logs(round_geomean, n, y)) {
        free(y);
        return -1;
    }
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; i++)
        mean += y[i] / (double)n;
    for (size_t i = 0; n >= 2 && i < n; i++)
        var += (y[i] - mean) * (y[i] - mean) / (double)(n - 1);
    *e = (cb_ab_est){.est = n ? exp(mean) : NAN, .lo = NAN, .hi = NAN, .level = level, .n = n,
                     .verdict = CB_AB_NONE};
    if (n >= 2) {
        double h = cb_ab_t(level, n - 1) * sqrt(var / (double)n);
        e->lo = exp(mean - h);
        e->hi = exp(mean + h);
        e->verdict = cb_ab_decide(e->lo, e->hi, threshold);
    }
    free(y);
    return 0;
}
