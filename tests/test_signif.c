/* Statistics behind `corobench compare`: Mann-Whitney U against values worked by hand and
 * textbook examples (p-values cross-checked with scipy.stats.mannwhitneyu), Holm's correction,
 * the geometric mean. */
#include <math.h>

#include "harness/report/signif.h"
#include "test.h"

#define CHECK_NEAR(a, b, tol)                                                                  \
    do {                                                                                       \
        double cb_a_ = (a), cb_b_ = (b);                                                       \
        if (!(fabs(cb_a_ - cb_b_) <= (tol)))                                                   \
            CB_FAIL("%s == %s: %.12g != %.12g (tolerance %g)", #a, #b, cb_a_, cb_b_,           \
                    (double)(tol));                                                            \
    } while (0)

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Exact distribution, no ties. Samples entirely apart: U = 0 and p = 2 / C(nx + ny, nx). */
CB_TEST(signif_mwu_exact)
{
    static const double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    cb_mwu_result r = cb_mwu(a, N(a), b, N(b));
    CB_CHECK(r.exact);
    CHECK_NEAR(r.u, 0, 0);
    CHECK_NEAR(r.p, 2.0 / 20, 1e-15);
    r = cb_mwu(b, N(b), a, N(a)); /* the other way round: U = 9, the same two-sided p */
    CHECK_NEAR(r.u, 9, 0);
    CHECK_NEAR(r.p, 0.1, 1e-15);
    static const double c[] = {1, 2, 3, 4, 5}, d[] = {6, 7, 8, 9, 10};
    CHECK_NEAR(cb_mwu(c, 5, d, 5).p, 2.0 / 252, 1e-15);
    CHECK_NEAR(cb_mwu_min_p(5, 5), 2.0 / 252, 1e-15);
    CHECK_NEAR(cb_mwu_min_p(10, 10), 2.0 / 184756, 1e-18);
    /* 5 against 4, U = 17: P(U <= 3) = (1 + 1 + 2 + 3) / C(9, 4) = 7 / 126, p = 14 / 126. */
    static const double e[] = {19, 22, 16, 29, 24}, f[] = {20, 11, 17, 12};
    r = cb_mwu(e, N(e), f, N(f));
    CHECK_NEAR(r.u, 17, 0);
    CHECK_NEAR(r.p, 14.0 / 126, 1e-15);
    /* Unequal sizes, overlapping (scipy: 0.11416083916083916). */
    static const double g[] = {8.5, 9.48, 8.65, 8.16, 8.83, 7.76, 8.63},
                        h[] = {8.27, 8.2, 8.25, 8.14, 9.0, 8.1, 7.2, 8.32, 7.7};
    r = cb_mwu(g, N(g), h, N(h));
    CB_CHECK(r.exact);
    CHECK_NEAR(r.u, 47, 0);
    CHECK_NEAR(r.p, 0.11416083916083916, 1e-12);
    /* Identical distributions give p = 1. */
    static const double i1[] = {1, 4, 5, 8}, i2[] = {2, 3, 6, 7};
    CHECK_NEAR(cb_mwu(i1, 4, i2, 4).p, 1, 0);
}

/* Ties: normal approximation, tie-corrected variance, continuity correction. */
CB_TEST(signif_mwu_ties_normal)
{
    static const double x[] = {1, 2, 2, 3, 4, 5, 5, 6}, y[] = {3, 4, 4, 5, 7, 8, 8, 9, 9};
    cb_mwu_result r = cb_mwu(x, N(x), y, N(y));
    CB_CHECK(!r.exact);
    CHECK_NEAR(r.u, 13.5, 0);
    CHECK_NEAR(r.p, 0.03295011419483441, 1e-12); /* scipy, method='asymptotic' */
    static const double a[] = {10.346, 10.822, 10.33,  8.697,  10.905, 10.446, 9.463, 10.581,
                               10.365, 10.294, 10.028, 10.547, 9.264,  9.837,  9.518, 10.599,
                               10.04,  9.708,  9.218,  9.743,  10.008, 9.724,  11.294, 11.007,
                               7.289,  8.111,  9.825,  9.578,  10.214, 10.217};
    static const double b[] = {12.918, 9.688,  10.422, 12.843, 11.447, 11.463, 10.286,
                               9.152,  10.967, 10.909, 9.573,  10.117, 10.728, 9.855,
                               10.702, 10.895, 10.836, 10.294, 11.394, 11.691, 11.121,
                               9.982,  11.532, 10.299, 11.679};
    r = cb_mwu(a, N(a), b, N(b)); /* one tie across the samples (10.294) */
    CB_CHECK(!r.exact);
    CHECK_NEAR(r.u, 181.5, 0);
    CHECK_NEAR(r.p, 0.001104909667243219, 1e-12);
    /* All equal: no evidence of a difference. */
    static const double s[] = {3, 3, 3, 3, 3};
    CHECK_NEAR(cb_mwu(s, 5, s, 5).p, 1, 0);
}

/* More than CB_MWU_EXACT_MAX a side: the normal approximation even without ties; a shift of
 * the whole sample is found, an interleaving is not. */
CB_TEST(signif_mwu_large)
{
    double x[60], y[60], z[60];
    for (int i = 0; i < 60; i++) {
        x[i] = i;
        y[i] = i + 100.5;
        z[i] = i + 0.5;
    }
    cb_mwu_result r = cb_mwu(x, 60, y, 60);
    CB_CHECK(!r.exact);
    CB_CHECK(r.p < 1e-15);
    r = cb_mwu(x, 60, z, 60);
    CB_CHECK(r.p > 0.5);
}

/* Holm: sorted p times (n - k), running maximum, capped at 1, back in input order. */
CB_TEST(signif_holm)
{
    static const double p[] = {0.01, 0.04, 0.03, 0.005};
    double adj[4];
    cb_holm(p, adj, 4);
    CHECK_NEAR(adj[0], 0.03, 1e-15); /* 0.01 x 3 */
    CHECK_NEAR(adj[1], 0.06, 1e-15); /* 0.04 x 1, raised to the running maximum 0.06 */
    CHECK_NEAR(adj[2], 0.06, 1e-15); /* 0.03 x 2 */
    CHECK_NEAR(adj[3], 0.02, 1e-15); /* 0.005 x 4 */
    double q[] = {0.5, 0.9};
    cb_holm(q, q, 2); /* in place */
    CHECK_NEAR(q[0], 1, 0);
    CHECK_NEAR(q[1], 1, 0);
    double one = 0.04;
    cb_holm(&one, &one, 1);
    CHECK_NEAR(one, 0.04, 0);
}

CB_TEST(signif_geomean)
{
    static const double x[] = {1, 4, 16}, y[] = {2, 0};
    CHECK_NEAR(cb_geomean(x, 3), 4, 1e-12);
    CHECK_NEAR(cb_geomean(x + 1, 1), 4, 1e-12);
    CB_CHECK(isnan(cb_geomean(y, 2)));
    CB_CHECK(isnan(cb_geomean(x, 0)));
}

/* Sign test: binomial tails by hand. */
CB_TEST(signif_sign_test)
{
    CHECK_NEAR(cb_sign_test(10, 0), 2.0 / 1024, 1e-15);
    CHECK_NEAR(cb_sign_test(0, 10), 2.0 / 1024, 1e-15);
    CHECK_NEAR(cb_sign_test(8, 2), 2.0 * 56 / 1024, 1e-14); /* 1 + 10 + 45 */
    CHECK_NEAR(cb_sign_test(5, 5), 1, 0);
    CHECK_NEAR(cb_sign_test(0, 0), 1, 0);
    CB_CHECK(cb_sign_test(330, 0) < 1e-90);
}
