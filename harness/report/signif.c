/* Significance tests for `corobench compare` (docs/ci.md). The
 * Mann-Whitney U test asks whether one set of repetition times tends to be larger than the other
 * without assuming a distribution: timing samples on a shared machine are skewed by preemption,
 * so a t-test's normality does not hold. Holm's correction keeps the chance of any false alarm
 * over all cells of a comparison at alpha. */
#include <math.h>
#include <stdlib.h>

#include "signif.h"
#include "harness/common/alloc.h"

typedef struct ranked {
    double v;
    int first; /* 1: from x */
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    double x = ((const ranked *)a)->v, y = ((const ranked *)b)->v;
    return (x > y) - (x < y);
}

/* P(U <= k) under the null hypothesis for sample sizes m and n, from the exact frequencies of
 * U: f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u) (the largest value of the pooled sample
 * comes from x, above all n values of y, or from y). One row per m' of length m n + 1, updated
 * in place for n' = 1..n; only additions, so the counts (up to C(100, 50) ~ 1e29) stay exact to
 * double precision. */
static double exact_cdf(size_t m, size_t n, double k)
{
    size_t len = m * n + 1;
    double *f = cb_xcalloc((m + 1) * len, sizeof *f);
    for (size_t i = 0; i <= m; i++)
        f[i * len] = 1; /* n' = 0: U is 0 */
    for (size_t j = 1; j <= n; j++)
        for (size_t i = 1; i <= m; i++)
            for (size_t u = j; u <= i * j; u++)
                f[i * len + u] += f[(i - 1) * len + u - j];
    double below = 0, total = 0, *row = f + m * len;
    for (size_t u = 0; u < len; u++) {
        total += row[u];
        if ((double)u <= k)
            below += row[u];
    }
    free(f);
    return below / total;
}

cb_mwu_result cb_mwu(const double *x, size_t nx, const double *y, size_t ny)
{
    size_t n = nx + ny;
    ranked *r = cb_xmalloc(n * sizeof *r);
    for (size_t i = 0; i < nx; i++)
        r[i] = (ranked){x[i], 1};
    for (size_t i = 0; i < ny; i++)
        r[nx + i] = (ranked){y[i], 0};
    qsort(r, n, sizeof *r, cmp_ranked);
    /* Midranks (1-based) for runs of equal values; ties = sum of t^3 - t over the runs. */
    double rank_x = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && r[j + 1].v == r[i].v)
            j++;
        double mid = (double)(i + j) / 2 + 1, t = (double)(j - i + 1);
        ties += t * t * t - t;
        for (size_t k = i; k <= j; k++)
            rank_x += r[k].first ? mid : 0;
        i = j + 1;
    }
    free(r);
    double m = (double)nx, mn = m * (double)ny;
    cb_mwu_result res = {.u = rank_x - m * (m + 1) / 2};
    double tail = fmin(res.u, mn - res.u); /* the smaller of U1 and U2 */
    if (ties == 0 && nx <= CB_MWU_EXACT_MAX && ny <= CB_MWU_EXACT_MAX) {
        res.exact = 1;
        res.p = fmin(1, 2 * exact_cdf(nx, ny, tail));
        return res;
    }
    double N = (double)n;
    double var = mn / 12 * ((N + 1) - ties / (N * (N - 1)));
    double z = var > 0 ? fmax(0, mn / 2 - tail - 0.5) / sqrt(var) : 0;
    res.p = fmin(1, erfc(z / sqrt(2)));
    return res;
}

double cb_mwu_min_p(size_t nx, size_t ny)
{
    double c = 1; /* C(nx + ny, nx), built up as a product of ratios */
    for (size_t i = 1; i <= nx; i++)
        c = c * (double)(ny + i) / (double)i;
    return fmin(1, 2 / c);
}

double cb_sign_test(size_t above, size_t below)
{
    size_t n = above + below, m = above < below ? above : below;
    if (!n)
        return 1;
    /* Sum of C(n, i) / 2^n for i <= m, each term through lgamma (no overflow for large n). */
    double sum = 0;
    for (size_t i = 0; i <= m; i++)
        sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
                   (double)n * log(2));
    return fmin(1, 2 * sum);
}

typedef struct indexed {
    double p;
    size_t i;
} indexed;

static int cmp_indexed(const void *a, const void *b)
{
    double x = ((const indexed *)a)->p, y = ((const indexed *)b)->p;
    return (x > y) - (x < y);
}

void cb_holm(const double *p, double *adj, size_t n)
{
    indexed *s = cb_xmalloc((n + 1) * sizeof *s);
    for (size_t i = 0; i < n; i++)
        s[i] = (indexed){p[i], i};
    qsort(s, n, sizeof *s, cmp_indexed);
    /* The k-th smallest p (k from 0) is multiplied by n - k; the adjusted values are made
     * non-decreasing in that order (a later test is never rejected when an earlier one is not). */
    double run = 0;
    for (size_t k = 0; k < n; k++) {
        run = fmax(run, fmin(1, s[k].p * (double)(n - k)));
        adj[s[k].i] = run;
    }
    free(s);
}

double cb_geomean(const double *x, size_t n)
{
    if (!n)
        return NAN;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0))
            return NAN;
        sum += log(x[i]);
    }
    return exp(sum / (double)n);
}
