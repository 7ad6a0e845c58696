/* Least-squares calibration of the return-stack model: one straight line per candidate, and the
 * choice among candidates (harness/report/rsbfit.h, docs/rsb.md). */
#include "rsbfit.h"

int cb_rsbfit_line_fit(const double *x, const double *y, size_t n, cb_rsbfit_line *out)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;
    *out = (cb_rsbfit_line){0};
    if (n < 2)
        return 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    /* Centred sums: the counts reach thousands per op at depth, the times hundreds of ns. */
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (!(sxx > 1e-12 * (1 + mx * mx)))
        return 0;
    out->ok = 1;
    out->cost = sxy / sxx;
    out->c = my - out->cost * mx;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - (out->cost * x[i] + out->c);
        out->sse += r * r;
    }
    out->r2 = syy > 0 ? 1 - out->sse / syy : 0;
    return 1;
}

long cb_rsbfit_best(const double *const *x, size_t k, const double *y, size_t n,
                    cb_rsbfit_line *fits)
{
    long best = -1;
    for (size_t i = 0; i < k; i++) {
        if (!cb_rsbfit_line_fit(x[i], y, n, &fits[i]) || !(fits[i].cost > 0))
            continue;
        if (best < 0 || fits[i].sse < fits[best].sse * (1 - 1e-9) - 1e-300)
            best = (long)i;
    }
    return best;
}
