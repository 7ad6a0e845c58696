/* The estimator and hierarchical bootstrap of harness/common/interval.h on synthetic data whose
 * spread between processes is known: each invocation's level is the true figure times
 * exp(N(0, SB)), each repetition that level times exp(N(0, SW)), so the true figure is the
 * median of the process levels. The 95% interval must cover it in 90% to 99% of 200 seeds, for
 * a cell and for a ratio of two cells with the same true figure, at the K the suite uses. */
#include <math.h>

#include "harness/common/interval.h"
#include "test.h"

enum { SEEDS = 200, MAXK = 16, MAXN = 16, RESAMPLES = 1000 };
#define SB 0.05 /* sd of log of a process's level: this machine's between-process spread */
#define SW 0.02 /* sd of log of a repetition inside one process */

typedef struct synth {
    double v[MAXK][MAXN];
    const double *rows[MAXK];
    size_t n[MAXK];
    cb_inv_samples s;
} synth;

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static double normal(uint64_t *s)
{
    double u = ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
    double v = ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void make(synth *d, double truth, size_t k, size_t n, uint64_t *rng)
{
    for (size_t i = 0; i < k; i++) {
        double level = truth * exp(SB * normal(rng));
        for (size_t j = 0; j < n; j++)
            d->v[i][j] = level * exp(SW * normal(rng));
        d->rows[i] = d->v[i];
        d->n[i] = n;
    }
    d->s = (cb_inv_samples){d->rows, d->n, k};
}

/* Of SEEDS synthetic cells (or ratios of two), how many intervals hold the truth. */
static unsigned coverage(size_t k, size_t n, int ratio, double *mean_vb)
{
    unsigned hit = 0;
    *mean_vb = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        uint64_t rng = seed * 7919;
        synth a, b;
        cb_estimate e;
        make(&a, 100, k, n, &rng);
        if (ratio) {
            make(&b, 50, k, n, &rng);
            CB_CHECK(cb_estimate_ratio_seeded(&a.s, &b.s, seed, RESAMPLES, &e) == 0);
            hit += e.ok && e.lo <= 2 && 2 <= e.hi;
        } else {
            CB_CHECK(cb_estimate_cell_seeded(&a.s, seed, RESAMPLES, &e) == 0);
            hit += e.ok && e.lo <= 100 && 100 <= e.hi;
            *mean_vb += e.var_between / SEEDS;
        }
        CB_CHECK(e.ok && e.lo <= e.est && e.est <= e.hi);
    }
    return hit;
}

/* The suite's K (3) and a larger one: a cell's interval covers the true figure in 90-99%. */
CB_TEST(interval_coverage_cell)
{
    static const size_t ks[] = {3, 5, 10};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        double vb;
        unsigned hit = coverage(ks[i], 5, 0, &vb);
        fprintf(stderr, "K=%zu: %u of %d cover; mean var_between %.2f\n", ks[i], hit, SEEDS, vb);
        if (hit < SEEDS * 90 / 100 || hit > SEEDS * 99 / 100)
            CB_FAIL("K=%zu, 5 repetitions each: the 95%% interval covered the truth in %u of %d "
                    "seeds (valid: 90%% to 99%%)",
                    ks[i], hit, SEEDS);
        /* The between-process variance found is that of the data: (100 SB)^2 = 25, within a
         * factor of 1.5 on average over the seeds. */
        if (!(vb > 25 / 1.5 && vb < 25 * 1.5))
            CB_FAIL("K=%zu: mean var_between %.2f over %d seeds (valid: near 25)", ks[i], vb,
                    SEEDS);
    }
}

CB_TEST(interval_coverage_ratio)
{
    static const size_t ks[] = {3, 10};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        double vb;
        unsigned hit = coverage(ks[i], 5, 1, &vb);
        fprintf(stderr, "ratio, K=%zu: %u of %d cover\n", ks[i], hit, SEEDS);
        if (hit < SEEDS * 90 / 100 || hit > SEEDS * 99 / 100)
            CB_FAIL("K=%zu: the ratio's 95%% interval covered the truth in %u of %d seeds "
                    "(valid: 90%% to 99%%)",
                    ks[i], hit, SEEDS);
    }
}

/* Fixed seed: the same data gives the same interval; K = 1 has none, and says why; the variance
 * split flags a between part that dominates. */
CB_TEST(interval_basics)
{
    static const double a0[] = {10, 10.1, 9.9}, a1[] = {20, 20.2, 19.8}, a2[] = {15, 15, 15.1};
    const double *rows[] = {a0, a1, a2};
    size_t n[] = {3, 3, 3};
    cb_inv_samples s = {rows, n, 3};
    cb_estimate e1, e2;
    CB_CHECK(cb_estimate_cell(&s, &e1) == 0 && cb_estimate_cell(&s, &e2) == 0);
    CB_CHECK(e1.ok && e1.lo == e2.lo && e1.hi == e2.hi);
    CB_CHECK(e1.est == 15);
    CB_CHECK(e1.k == 3 && e1.reps == 3);
    CB_CHECK(e1.between_dominates && e1.var_between > 10 * e1.var_within);
    CB_CHECK(e1.lo < 10 && e1.hi > 20);
    s.k = 1;
    CB_CHECK(cb_estimate_cell(&s, &e1) == 0);
    CB_CHECK(!e1.ok && e1.why && isnan(e1.lo) && e1.est == 10);
    CB_CHECK(cb_estimate_ratio(&s, &s, &e1) == 0 && !e1.ok && e1.why);
    static const double bad[] = {1, -1};
    const double *brow[] = {bad};
    size_t bn[] = {2};
    cb_inv_samples b = {brow, bn, 1};
    CB_CHECK(cb_estimate_cell(&b, &e1) == -1);
    CB_CHECK(cb_interval_widening(1) == 1 && cb_interval_widening(3) > 2.5);
}
