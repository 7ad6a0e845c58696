/* Least-squares calibration of the return-stack model: one straight line per candidate, and the
 * choice among candidates (harness/measure/rsbfit.h, docs/rsb.md). */
#include "rsbfit.h"
#include "harness/common/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int cb_rsbfit_step_fit(const double *x, const double *y, const long *depth, size_t n,
                       cb_rsbfit_line *out)
{
    if (!cb_rsbfit_line_fit(x, y, n, out))
        return 0;
    double mx = 0, my = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    for (size_t i = 0; i < n; i++)
        syy += (y[i] - my) * (y[i] - my);
    /* Each depth present is a possible start of the step; centred sums as in the line fit, and
     * the 2 x 2 normal equations of (cost, step) solved directly. */
    for (size_t a = 0; a < n; a++) {
        long k = depth[a];
        int seen = 0;
        for (size_t b = 0; b < a && !seen; b++)
            seen = depth[b] == k;
        if (seen)
            continue;
        double ms = 0, sxx = 0, sss = 0, sxs = 0, sxy = 0, ssy = 0;
        for (size_t i = 0; i < n; i++)
            ms += depth[i] >= k;
        ms /= (double)n;
        for (size_t i = 0; i < n; i++) {
            double dx = x[i] - mx, ds = (depth[i] >= k) - ms, dy = y[i] - my;
            sxx += dx * dx;
            sss += ds * ds;
            sxs += dx * ds;
            sxy += dx * dy;
            ssy += ds * dy;
        }
        double det = sxx * sss - sxs * sxs;
        if (!(sss > 0) || !(det > 1e-12 * sxx * sss))
            continue; /* every point on one side, or the step is the counts themselves */
        double cost = (sxy * sss - ssy * sxs) / det, step = (ssy * sxx - sxy * sxs) / det;
        if (!(step <= 0))
            continue;
        double c = my - cost * mx - step * ms, sse = 0;
        for (size_t i = 0; i < n; i++) {
            double r = y[i] - (cost * x[i] + c + step * (depth[i] >= k));
            sse += r * r;
        }
        if (sse < out->sse) {
            *out = (cb_rsbfit_line){1, cost, c, sse, syy > 0 ? 1 - sse / syy : 0, k, step};
        }
    }
    return 1;
}

long cb_rsbfit_best(const double *const *x, size_t k, const double *y, const long *depth,
                    size_t n, cb_rsbfit_line *fits)
{
    long best = -1;
    for (size_t i = 0; i < k; i++) {
        int ok = depth ? cb_rsbfit_step_fit(x[i], y, depth, n, &fits[i])
                       : cb_rsbfit_line_fit(x[i], y, n, &fits[i]);
        if (!ok || !(fits[i].cost > 0))
            continue;
        if (best < 0 || fits[i].sse < fits[best].sse * (1 - 1e-9) - 1e-300)
            best = (long)i;
    }
    return best;
}

static const char *const baseline_names[] = {"auto", "jmpret", "sites"};

const char *cb_rsbfit_baseline_name(cb_rsbfit_baseline b)
{
    return (unsigned)b < 3 ? baseline_names[b] : "?";
}

int cb_rsbfit_baseline_parse(const char *s, cb_rsbfit_baseline *out)
{
    for (int b = 0; b < 3; b++)
        if (!strcmp(s, baseline_names[b])) {
            *out = (cb_rsbfit_baseline)b;
            return 0;
        }
    return -1;
}

long cb_rsbfit_sites_twin(const cb_rsbfit_point *pts, size_t n, size_t i)
{
    if (pts[i].same)
        return -1;
    for (size_t j = 0; j < n; j++)
        if (pts[j].same && pts[j].impl == pts[i].impl && pts[j].depth == pts[i].depth)
            return (long)j;
    return -1;
}

double cb_rsbfit_predict(const cb_rsbfit_point *pts, size_t n, size_t i, const double *xk,
                         const cb_rsbfit_line *f, cb_rsbfit_baseline twin)
{
    if (!f->ok)
        return NAN;
    if (twin == CB_RSBFIT_JMPRET)
        return pts[i].jmpret_ns + f->cost * xk[i] +
               (f->step_depth > 0 && pts[i].depth >= f->step_depth ? f->step : 0);
    long j = cb_rsbfit_sites_twin(pts, n, i);
    return j < 0 ? NAN : pts[j].plain_ns + f->cost * (xk[i] - xk[j]);
}

int cb_rsbfit_calibrate(const cb_rsbfit_point *pts, size_t n, const double *const *x, size_t k,
                        cb_rsbfit_baseline want, double tol, cb_rsbfit_line *jfits,
                        cb_rsbfit_line *sfits, cb_rsbfit_result *out)
{
    *out = (cb_rsbfit_result){.best = -1, .jmpret_best = -1, .twin_worst = -1};
    /* The jmpret twin: every point. */
    double *y = cb_xcalloc(n + 1, sizeof *y);
    long *depth = cb_xcalloc(n + 1, sizeof *depth);
    /* sites pairs */
    size_t *di = cb_xcalloc(n + 1, sizeof *di), *si = cb_xcalloc(n + 1, sizeof *si);
    double **dx = cb_xcalloc(k + 1, sizeof *dx);
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        y[i] = pts[i].plain_ns - pts[i].jmpret_ns;
        depth[i] = pts[i].depth;
    }
    out->jmpret_best = cb_rsbfit_best(x, k, y, depth, n, jfits);
    /* Its check at sites=same, where a twin that mispredicts nothing of its own and a model
     * without phantom mispredictions put jmpret + cost x mispredicted on plain. */
    out->twin_ok = out->jmpret_best >= 0;
    for (size_t i = 0; out->jmpret_best >= 0 && i < n; i++) {
        if (!pts[i].same)
            continue;
        double e = cb_rsbfit_predict(pts, n, i, x[out->jmpret_best], &jfits[out->jmpret_best],
                                     CB_RSBFIT_JMPRET) /
                       pts[i].plain_ns - 1;
        if (out->twin_worst < 0 || fabs(e) > fabs(out->twin_worst_error)) {
            out->twin_worst = (long)i;
            out->twin_worst_error = e;
        }
    }
    if (out->twin_worst >= 0 && !(fabs(out->twin_worst_error) <= tol))
        out->twin_ok = 0;
    /* The sites twin: each distinct point against its same point. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        long j = cb_rsbfit_sites_twin(pts, n, i);
        if (j >= 0) {
            di[m] = i;
            si[m] = (size_t)j;
            y[m++] = pts[i].plain_ns - pts[j].plain_ns;
        }
    }
    for (size_t c = 0; c < k; c++) {
        dx[c] = cb_xmalloc((m + 1) * sizeof *dx[c]);
        for (size_t r = 0; r < m; r++)
            dx[c][r] = x[c][di[r]] - x[c][si[r]];
    }
    long sbest = m >= 2 ? cb_rsbfit_best((const double *const *)dx, k, y, NULL, m, sfits) : -1;
    if (m < 2)
        for (size_t c = 0; c < k; c++)
            sfits[c] = (cb_rsbfit_line){0};
    out->baseline = want == CB_RSBFIT_AUTO
                        ? (out->twin_ok || m < 2 ? CB_RSBFIT_JMPRET : CB_RSBFIT_SITES)
                        : want;
    if (out->baseline == CB_RSBFIT_SITES && m < 2)
        goto out;
    out->best = out->baseline == CB_RSBFIT_SITES ? sbest : out->jmpret_best;
    rc = 0;
out:
    for (size_t c = 0; dx && c < k; c++)
        free(dx[c]);
    free(dx);
    free(si);
    free(di);
    free(depth);
    free(y);
    return rc;
}
