/* The estimator and the hierarchical bootstrap of interval.h. The percentile interval is widened
 * about the estimate (on a log scale) as Hesterberg ("What teachers should know about the bootstrap", The American
 * Statistician 69(4), 2015) widens his "expanded percentile" interval: by sqrt(K/(K-1)) for the
 * bootstrap's narrowness bias and by t(0.975, K-1) / z(0.975) for a spread estimated from K
 * values. tests/test_interval.c measures the coverage this gives on data with a known spread
 * between processes. */
#include "interval.h"

#include "harness/common/alloc.h"
#include "harness/common/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t cb_boot_next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

size_t cb_boot_pick(uint64_t *s, size_t n)
{
    return (size_t)(((unsigned __int128)cb_boot_next(s) * n) >> 64);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Above this many repetitions in one invocation, a resample's median is drawn from its
 * distribution rather than by drawing n repetitions and taking their median (O(1) per resample
 * instead of O(n): a cell of 10^6 samples took minutes, issue 30 MEDIUM 4). The median of n
 * values drawn with replacement from y(0) <= ... <= y(n-1) is y(J) with P(J <= j) =
 * P(Binomial(n, (j+1)/n) >= (n+1)/2), so J is Binomial-like about (n-1)/2 with spread sqrt(n)/2;
 * by Berry-Esseen its normal approximation is within 0.48/sqrt(n) < 0.004 in probability here,
 * about the bootstrap's own Monte Carlo error on a 2.5% quantile from 2000 resamples. Below it
 * the resampling is exact and its results unchanged. */
enum { BOOT_EXACT_MAX = 16384 };

/* A standard normal value from the generator (Box-Muller). */
static double boot_normal(uint64_t *rng)
{
    double u1 = ((double)(cb_boot_next(rng) >> 11) + 1) * 0x1p-53; /* (0, 1] */
    double u2 = (double)(cb_boot_next(rng) >> 11) * 0x1p-53;
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* One resample's median of the n > BOOT_EXACT_MAX sorted values y: the value at a rank drawn
 * about the middle (odd n), or the midpoint of two neighbours (even n). */
static double boot_median_sorted(const double *y, size_t n, uint64_t *rng)
{
    double pos = ((double)n - 1) / 2 + sqrt((double)n) / 2 * boot_normal(rng);
    pos = pos < 0 ? 0 : pos > (double)(n - 1) ? (double)(n - 1) : pos;
    if (n % 2)
        return y[(size_t)(pos + 0.5)];
    size_t j = (size_t)pos;
    return j + 1 < n ? cb_midpoint(y[j], y[j + 1]) : y[j];
}

/* The k-th smallest of x[0..n) (k < n), moving x about so that x[k] is it, x[0..k) are no larger
 * and x(k..n) no smaller (Hoare's selection, the middle of three as pivot): O(n) where a sort is
 * O(n log n), and the same value as sorting gives. */
static double select_kth(double *x, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        size_t mid = lo + (hi - lo) / 2;
        /* the median of x[lo], x[mid], x[hi] into x[mid] */
        if (x[mid] < x[lo]) { double t = x[mid]; x[mid] = x[lo]; x[lo] = t; }
        if (x[hi] < x[lo]) { double t = x[hi]; x[hi] = x[lo]; x[lo] = t; }
        if (x[hi] < x[mid]) { double t = x[hi]; x[hi] = x[mid]; x[mid] = t; }
        double pivot = x[mid];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot)
                i++;
            while (pivot < x[j])
                j--;
            if (i <= j) {
                double t = x[i];
                x[i] = x[j];
                x[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        /* x[lo..j] <= pivot <= x[i..hi], and x(j..i) equal to pivot */
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return x[k];
    }
    return x[k];
}

/* The smallest of x[0..n), n > 0. */
static double min_of(const double *x, size_t n)
{
    double m = x[0];
    for (size_t i = 1; i < n; i++)
        m = x[i] < m ? x[i] : m;
    return m;
}

/* Median of x[0..n), n > 0, reordering x in place: insertion sort for a few dozen, selection
 * beyond (a sort of each resample made a cell of 10^6 samples take minutes). */
static double median_inplace(double *x, size_t n)
{
    if (n > 64) {
        double hi = select_kth(x, n, n / 2);
        /* even n: the lower middle value is the largest of x[0..n/2) */
        if (n % 2)
            return hi;
        double lo = x[0];
        for (size_t i = 1; i < n / 2; i++)
            lo = x[i] > lo ? x[i] : lo;
        return cb_midpoint(lo, hi);
    } else {
        for (size_t i = 1; i < n; i++) {
            double v = x[i];
            size_t j = i;
            for (; j > 0 && x[j - 1] > v; j--)
                x[j] = x[j - 1];
            x[j] = v;
        }
    }
    return n % 2 ? x[n / 2] : cb_midpoint(x[n / 2 - 1], x[n / 2]);
}

/* t(0.975, df) for df = 1..30; beyond, 1.96 + 2.4 / df is within 0.002 of it. */
double cb_t975(size_t df)
{
    static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                               2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                               2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                               2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    if (df == 0)
        return INFINITY;
    if (df <= sizeof t / sizeof t[0])
        return t[df - 1];
    return 1.96 + 2.4 / (double)df;
}

double cb_interval_widening(size_t k)
{
    if (k < 2)
        return 1;
    return sqrt((double)k / (double)(k - 1)) * cb_t975(k - 1) / 1.959964;
}

static int valid(const cb_inv_samples *s)
{
    if (!s || !s->k || !s->x || !s->n)
        return 0;
    for (size_t i = 0; i < s->k; i++) {
        if (!s->n[i] || !s->x[i])
            return 0;
        for (size_t j = 0; j < s->n[i]; j++)
            if (!(s->x[i][j] > 0) || !isfinite(s->x[i][j]))
                return 0;
    }
    return 1;
}

/* Scratch for one side's statistic. */
typedef struct side {
    const cb_inv_samples *s;
    double *reps;    /* the largest n[i] */
    double *meds;    /* k */
    double **sorted; /* k: invocation i's samples sorted where n[i] > BOOT_EXACT_MAX, else NULL */
    size_t maxn;
} side;

static void side_init(side *d, const cb_inv_samples *s)
{
    d->s = s;
    d->maxn = 0;
    for (size_t i = 0; i < s->k; i++)
        d->maxn = s->n[i] > d->maxn ? s->n[i] : d->maxn;
    d->reps = cb_xcalloc(d->maxn, sizeof *d->reps);
    d->meds = cb_xcalloc(s->k, sizeof *d->meds);
    d->sorted = cb_xcalloc(s->k, sizeof *d->sorted);
    for (size_t i = 0; i < s->k; i++)
        if (s->n[i] > BOOT_EXACT_MAX) {
            d->sorted[i] = cb_xcalloc(s->n[i], sizeof *d->sorted[i]);
            memcpy(d->sorted[i], s->x[i], s->n[i] * sizeof *d->sorted[i]);
            qsort(d->sorted[i], s->n[i], sizeof *d->sorted[i], cmp_double);
        }
}

static void side_free(side *d)
{
    for (size_t i = 0; i < d->s->k; i++)
        free(d->sorted[i]);
    free(d->sorted);
    free(d->reps);
    free(d->meds);
}

/* The statistic on the data itself (rng NULL) or on one hierarchical resample. */
static double side_stat(side *d, uint64_t *rng)
{
    const cb_inv_samples *s = d->s;
    for (size_t i = 0; i < s->k; i++) {
        size_t inv = rng ? cb_boot_pick(rng, s->k) : i, n = s->n[inv];
        if (rng && d->sorted[inv]) {
            d->meds[i] = boot_median_sorted(d->sorted[inv], n, rng);
            continue;
        }
        for (size_t j = 0; j < n; j++)
            d->reps[j] = s->x[inv][rng ? cb_boot_pick(rng, n) : j];
        d->meds[i] = median_inplace(d->reps, n);
    }
    return median_inplace(d->meds, s->k);
}

/* The percentile interval of b[0..nb) (reordered here), widened about est by w on a log scale
 * (lo = est (q/est)^w): times and ratios are positive and their errors multiplicative, so the
 * widened interval stays positive and a ratio's is symmetric in new/base and base/new. */
static void percentile_interval(double *b, size_t nb, double est, double w, cb_estimate *e)
{
    double pos[2] = {0.025 * (double)(nb - 1), 0.975 * (double)(nb - 1)}, q[2];
    for (int k = 0; k < 2; k++) { /* the values a sort would put at i and i + 1 */
        size_t i = (size_t)pos[k];
        double f = pos[k] - (double)i, at = select_kth(b, nb, i);
        q[k] = i + 1 < nb ? at * (1 - f) + min_of(b + i + 1, nb - i - 1) * f : at;
    }
    e->lo = est * pow(q[0] / est, w);
    e->hi = est * pow(q[1] / est, w);
    if (e->lo > est) /* a skewed bootstrap can put the estimate outside its percentiles */
        e->lo = est;
    if (e->hi < est)
        e->hi = est;
}

/* One-way random-effects variance components (method of moments, unequal group sizes). */
static void variance_split(const cb_inv_samples *s, cb_estimate *e)
{
    size_t N = 0, sumsq_n = 0, minn = s->n[0];
    double grand = 0, ssw = 0, ssb = 0;
    for (size_t i = 0; i < s->k; i++) {
        N += s->n[i];
        sumsq_n += s->n[i] * s->n[i];
        minn = s->n[i] < minn ? s->n[i] : minn;
        for (size_t j = 0; j < s->n[i]; j++)
            grand += s->x[i][j];
    }
    grand /= (double)N;
    for (size_t i = 0; i < s->k; i++) {
        double m = 0;
        for (size_t j = 0; j < s->n[i]; j++)
            m += s->x[i][j];
        m /= (double)s->n[i];
        for (size_t j = 0; j < s->n[i]; j++)
            ssw += (s->x[i][j] - m) * (s->x[i][j] - m);
        ssb += (double)s->n[i] * (m - grand) * (m - grand);
    }
    e->reps = minn;
    e->var_within = N > s->k ? ssw / (double)(N - s->k) : NAN;
    if (s->k < 2 || !(e->var_within >= 0)) {
        e->var_between = NAN;
        e->between_dominates = 0;
        return;
    }
    double msb = ssb / (double)(s->k - 1);
    double n0 = ((double)N - (double)sumsq_n / (double)N) / (double)(s->k - 1);
    double vb = (msb - e->var_within) / n0;
    e->var_between = vb > 0 ? vb : 0;
    e->between_dominates = e->var_between > e->var_within / (double)(N / s->k);
}

int cb_estimate_cell_seeded(const cb_inv_samples *s, uint64_t seed, unsigned resamples,
                            cb_estimate *e)
{
    if (!valid(s) || resamples < 2)
        return -1;
    side d;
    double *b = cb_xcalloc(resamples, sizeof *b);
    side_init(&d, s);
    memset(e, 0, sizeof *e);
    e->k = s->k;
    e->est = side_stat(&d, NULL);
    variance_split(s, e);
    e->lo = e->hi = NAN;
    if (s->k < 2) {
        e->why = "a single invocation: one process says nothing about the spread between "
                 "processes";
    } else {
        uint64_t rng = seed;
        for (unsigned r = 0; r < resamples; r++)
            b[r] = side_stat(&d, &rng);
        percentile_interval(b, resamples, e->est, cb_interval_widening(s->k), e);
        e->ok = 1;
    }
    free(b);
    side_free(&d);
    return 0;
}

int cb_estimate_ratio_seeded(const cb_inv_samples *num, const cb_inv_samples *den, uint64_t seed,
                             unsigned resamples, cb_estimate *e)
{
    if (!valid(num) || !valid(den) || resamples < 2)
        return -1;
    side a, c;
    double *b = cb_xcalloc(resamples, sizeof *b);
    side_init(&a, num);
    side_init(&c, den);
    memset(e, 0, sizeof *e);
    e->k = num->k < den->k ? num->k : den->k;
    cb_estimate en, ed;
    variance_split(num, &en);
    variance_split(den, &ed);
    e->reps = en.reps < ed.reps ? en.reps : ed.reps;
    e->est = side_stat(&a, NULL) / side_stat(&c, NULL);
    e->var_between = e->var_within = NAN;
    e->lo = e->hi = NAN;
    if (e->k < 2) {
        e->why = num->k < 2 && den->k < 2 ? "a single invocation on both sides"
                 : den->k < 2             ? "a single invocation in the denominator's cell"
                                          : "a single invocation in the numerator's cell";
    } else {
        uint64_t rng = seed;
        for (unsigned r = 0; r < resamples; r++) {
            double x = side_stat(&a, &rng);
            b[r] = x / side_stat(&c, &rng);
        }
        /* The ratio's spread is estimated from both sides' processes: t with ka + kb - 2
         * degrees of freedom (the pooled count), the narrowness bias of the smaller side. */
        double w = sqrt((double)e->k / (double)(e->k - 1)) * cb_t975(num->k + den->k - 2) / 1.959964;
        percentile_interval(b, resamples, e->est, w, e);
        e->ok = 1;
    }
    free(b);
    side_free(&a);
    side_free(&c);
    return 0;
}

int cb_estimate_cell(const cb_inv_samples *s, cb_estimate *e)
{
    return cb_estimate_cell_seeded(s, CB_BOOT_SEED, CB_BOOT_RESAMPLES, e);
}

int cb_estimate_ratio(const cb_inv_samples *num, const cb_inv_samples *den, cb_estimate *e)
{
    return cb_estimate_ratio_seeded(num, den, CB_BOOT_SEED, CB_BOOT_RESAMPLES, e);
}
