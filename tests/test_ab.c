/* The paired A/B gate's decision and schedule (harness/ab/decide.h, schedule.h) on synthetic
 * pairs: a drift that moves both arms alike raises no alarm (and the same data taken unpaired,
 * base's rounds before new's, does: the test can fail), a real 1.25x is regressed, a cell unknown
 * after its first rounds is decided on its fresh rounds alone, the per-cell interval covers the
 * truth at its level, and the schedule pairs every cell once a round in a shuffled order with the
 * first arm alternating. */
#include <math.h>

#include "harness/ab/decide.h"
#include "harness/ab/schedule.h"
#include "harness/common/interval.h"
#include "test.h"

enum { ROUNDS = 10, CELLS = 20 };

static double normal(uint64_t *s)
{
    double u = ((double)(cb_boot_next(s) >> 11) + 0.5) / 9007199254740992.0;
    double v = ((double)(cb_boot_next(s) >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* The machine's state in round r: a host that shifts whole workloads by 10-25% for tens of
 * seconds (docs/ci.md), here a slide from 0.8x to 1.34x over the rounds, 3% from round to
 * round besides. */
static double drift(unsigned r, uint64_t *s)
{
    return (0.8 + 0.06 * r) * exp(0.03 * normal(s));
}

/* Times of one cell over ROUNDS rounds: each pair sees the same drift (both arms seconds apart),
 * each invocation its own 2% noise; new is factor times base's true figure. */
static void pairs(double factor, double noise, uint64_t *s, double *base, double *new)
{
    for (unsigned r = 0; r < ROUNDS; r++) {
        double d = drift(r, s);
        base[r] = 100 * d * exp(noise * normal(s));
        new[r] = 100 * factor * d * exp(noise * normal(s));
    }
}

CB_TEST(ab_quantiles)
{
    static const struct {
        double level;
        size_t df;
        double t;
    } tab[] = {{0.95, 1, 12.706}, {0.95, 2, 4.303}, {0.95, 9, 2.262}, {0.95, 30, 2.042},
               {0.99, 5, 4.032},  {0.999, 10, 4.587}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        double t = cb_ab_t(tab[i].level, tab[i].df);
        if (fabs(t - tab[i].t) > 0.001)
            CB_FAIL("t(%g, df %zu) = %.4f (valid: %.3f)", tab[i].level, tab[i].df, t, tab[i].t);
    }
    CB_CHECK(fabs(cb_ab_z(0.95) - 1.959964) < 1e-5 && fabs(cb_ab_z(0.999) - 3.290527) < 1e-5);
    cb_ab_rule r = {.threshold = 0.05, .budget = 0.05, .cells = 10};
    CB_CHECK(fabs(cb_ab_cell_level(&r) - 0.9975) < 1e-12 && cb_ab_run_level(&r) == 0.975);
    CB_CHECK(cb_ab_decide(1.06, 1.2, 0.05) == CB_AB_REGRESSED);
    CB_CHECK(cb_ab_decide(0.8, 0.95, 0.05) == CB_AB_IMPROVED);
    CB_CHECK(cb_ab_decide(0.97, 1.04, 0.05) == CB_AB_UNCHANGED);
    CB_CHECK(cb_ab_decide(1.01, 1.07, 0.05) == CB_AB_UNKNOWN);
    CB_CHECK(cb_ab_decide(NAN, NAN, 0.05) == CB_AB_NONE);
    double bad[] = {1, 0};
    cb_ab_est e;
    CB_CHECK(cb_ab_cell(bad, 2, 0.95, 0.05, 1, &e) == -1);
    CB_CHECK(cb_ab_cell(bad, 1, 0.95, 0.05, 1, &e) == 0 && e.verdict == CB_AB_NONE);
}

/* CELLS cells of an unchanged build under a drift of 0.8x-1.3x: no cell and not the whole run
 * gets a timing verdict when paired; unpaired (base's rounds against new's later rounds, as two
 * runs minutes apart compare), the same drift makes cells look regressed. */
CB_TEST(ab_drift_moves_both_arms)
{
    uint64_t s = 42;
    cb_ab_rule rule = {.threshold = 0.05, .budget = 0.05, .cells = CELLS};
    double level = cb_ab_cell_level(&rule), geo[ROUNDS] = {0};
    unsigned flagged = 0, unpaired_flagged = 0;
    for (unsigned c = 0; c < CELLS; c++) {
        double base[ROUNDS], new[ROUNDS], ratio[ROUNDS], shifted[ROUNDS / 2];
        pairs(1.0, 0.02, &s, base, new);
        for (unsigned r = 0; r < ROUNDS; r++) {
            ratio[r] = new[r] / base[r];
            geo[r] += log(ratio[r]) / CELLS;
        }
        cb_ab_est e;
        CB_CHECK(cb_ab_cell(ratio, ROUNDS, level, rule.threshold, c, &e) == 0);
        flagged += e.verdict == CB_AB_REGRESSED || e.verdict == CB_AB_IMPROVED;
        CB_CHECK(e.lo <= e.est && e.est <= e.hi && e.lo < 1 && e.hi > 1);
        /* unpaired: new's later rounds over base's earlier ones */
        for (unsigned r = 0; r < ROUNDS / 2; r++)
            shifted[r] = new[r + ROUNDS / 2] / base[r];
        CB_CHECK(cb_ab_cell(shifted, ROUNDS / 2, level, rule.threshold, c, &e) == 0);
        unpaired_flagged += e.verdict == CB_AB_REGRESSED;
    }
    for (unsigned r = 0; r < ROUNDS; r++)
        geo[r] = exp(geo[r]);
    cb_ab_est w;
    CB_CHECK(cb_ab_whole(geo, ROUNDS, cb_ab_run_level(&rule), rule.threshold, &w) == 0);
    fprintf(stderr, "paired: %u of %d cells flagged, whole run %.4f [%.4f, %.4f] %s; unpaired: "
                    "%u flagged\n",
            flagged, CELLS, w.est, w.lo, w.hi, cb_ab_verdict_name(w.verdict), unpaired_flagged);
    if (flagged || w.verdict != CB_AB_UNCHANGED)
        CB_FAIL("a drift moving both arms alike gave %u cells a timing verdict and the whole run "
                "'%s' (valid: none, unchanged)",
                flagged, cb_ab_verdict_name(w.verdict));
    if (unpaired_flagged < CELLS / 2)
        CB_FAIL("unpaired, the drift flagged only %u of %d cells: the synthetic drift is too weak "
                "to show what pairing removes",
                unpaired_flagged, CELLS);
}

/* A real 1.25x under the same drift: regressed, the interval around 1.25; 1.10x on every cell:
 * the whole run regressed. */
CB_TEST(ab_real_slowdown)
{
    uint64_t s = 7;
    cb_ab_rule rule = {.threshold = 0.05, .budget = 0.05, .cells = CELLS};
    double base[ROUNDS], new[ROUNDS], ratio[ROUNDS], geo[ROUNDS] = {0};
    cb_ab_est e;
    pairs(1.25, 0.02, &s, base, new);
    for (unsigned r = 0; r < ROUNDS; r++)
        ratio[r] = new[r] / base[r];
    CB_CHECK(cb_ab_cell(ratio, ROUNDS, cb_ab_cell_level(&rule), rule.threshold, 1, &e) == 0);
    fprintf(stderr, "1.25x: %.4f [%.4f, %.4f] at %.5f: %s\n", e.est, e.lo, e.hi, e.level,
            cb_ab_verdict_name(e.verdict));
    if (e.verdict != CB_AB_REGRESSED || !(e.lo < 1.25 && 1.25 < e.hi))
        CB_FAIL("1.25x: %.4f [%.4f, %.4f] '%s' (valid: regressed, the interval holding 1.25)",
                e.est, e.lo, e.hi, cb_ab_verdict_name(e.verdict));
    for (unsigned c = 0; c < CELLS; c++) {
        pairs(1.10, 0.03, &s, base, new);
        for (unsigned r = 0; r < ROUNDS; r++)
            geo[r] += log(new[r] / base[r]) / CELLS;
    }
    for (unsigned r = 0; r < ROUNDS; r++)
        geo[r] = exp(geo[r]);
    CB_CHECK(cb_ab_whole(geo, ROUNDS, cb_ab_run_level(&rule), rule.threshold, &e) == 0);
    if (e.verdict != CB_AB_REGRESSED)
        CB_FAIL("1.10x on every cell: whole run %.4f [%.4f, %.4f] '%s' (valid: regressed)", e.est,
                e.lo, e.hi, cb_ab_verdict_name(e.verdict));
}

/* A cell whose first rounds straddle the threshold (noisy, its true ratio 1.04) is unknown, goes
 * to fresh rounds, and is decided on those alone: quiet fresh rounds at 1.0 make it unchanged,
 * and a first stage that looked regressed by chance is not confirmed. One that needs no rerun
 * keeps its first verdict. */
CB_TEST(ab_unknown_then_rerun)
{
    uint64_t s = 3;
    double ratio[2 * ROUNDS], level = 0.99;
    for (unsigned r = 0; r < ROUNDS; r++)
        ratio[r] = 1.04 * exp(0.08 * normal(&s));
    for (unsigned r = ROUNDS; r < 2 * ROUNDS; r++)
        ratio[r] = exp(0.01 * normal(&s));
    cb_ab_est first, final;
    CB_CHECK(cb_ab_cell_staged(ratio, ROUNDS, 2 * ROUNDS, level, 0.05, 1, &first, &final) == 0);
    fprintf(stderr, "first %.4f [%.4f, %.4f] %s; fresh %.4f [%.4f, %.4f] %s\n", first.est,
            first.lo, first.hi, cb_ab_verdict_name(first.verdict), final.est, final.lo, final.hi,
            cb_ab_verdict_name(final.verdict));
    if (first.verdict != CB_AB_UNKNOWN || final.verdict != CB_AB_UNCHANGED ||
        final.n != ROUNDS)
        CB_FAIL("first '%s', final '%s' over %zu pairs (valid: unknown, then unchanged on the %d "
                "fresh pairs alone)",
                cb_ab_verdict_name(first.verdict), cb_ab_verdict_name(final.verdict), final.n,
                ROUNDS);
    /* a first stage regressed by chance, not confirmed */
    for (unsigned r = 0; r < ROUNDS; r++)
        ratio[r] = 1.2 * exp(0.01 * normal(&s));
    CB_CHECK(cb_ab_cell_staged(ratio, ROUNDS, 2 * ROUNDS, level, 0.05, 1, &first, &final) == 0);
    CB_CHECK(first.verdict == CB_AB_REGRESSED && final.verdict == CB_AB_UNCHANGED);
    /* unchanged at once: no rerun, its verdict stands; no fresh round (the cap): the first's */
    for (unsigned r = 0; r < ROUNDS; r++)
        ratio[r] = exp(0.01 * normal(&s));
    CB_CHECK(cb_ab_cell_staged(ratio, ROUNDS, 2 * ROUNDS, level, 0.05, 1, &first, &final) == 0);
    CB_CHECK(first.verdict == CB_AB_UNCHANGED && final.n == ROUNDS &&
             final.verdict == CB_AB_UNCHANGED);
    ratio[0] = 1.5;
    CB_CHECK(cb_ab_cell_staged(ratio, ROUNDS, ROUNDS, level, 0.05, 1, &first, &final) == 0);
    CB_CHECK(final.n == ROUNDS && final.verdict == first.verdict);
    CB_CHECK(cb_ab_cell_staged(ratio, ROUNDS, ROUNDS + 1, level, 0.05, 1, &first, &final) == 0);
    CB_CHECK(cb_ab_needs_rerun(first.verdict) ? final.verdict == CB_AB_NONE : 1);
}

/* The per-cell interval at 95% from 5 and 10 rounds holds the true ratio in 90% to 99% of 200
 * synthetic cells (log ratios normal with sd 0.05, the paired spread the prototype saw). */
CB_TEST(ab_interval_coverage)
{
    static const size_t ns[] = {5, 10};
    for (size_t k = 0; k < 2; k++) {
        unsigned hit = 0;
        for (uint64_t seed = 1; seed <= 200; seed++) {
            uint64_t s = seed * 7919;
            double ratio[10];
            for (size_t r = 0; r < ns[k]; r++)
                ratio[r] = 1.1 * exp(0.05 * normal(&s));
            cb_ab_est e;
            CB_CHECK(cb_ab_cell(ratio, ns[k], 0.95, 0.05, seed, &e) == 0);
            hit += e.lo <= 1.1 && 1.1 <= e.hi;
        }
        fprintf(stderr, "%zu rounds: %u of 200 cover\n", ns[k], hit);
        if (hit < 180 || hit > 198)
            CB_FAIL("%zu rounds: the 95%% interval held the truth in %u of 200 (valid: 180-198)",
                    ns[k], hit);
    }
}

/* Every round visits every cell once; the order differs between rounds and is the same for the
 * same seed; the first arm alternates (ABBA), also into the fresh rounds. */
CB_TEST(ab_schedule_pairs_abba)
{
    enum { N = 9, R = 6 };
    size_t cells[N], order[N], again[N], first_round[N];
    for (size_t i = 0; i < N; i++)
        cells[i] = 10 + i;
    unsigned differ = 0;
    for (unsigned r = 0; r < R; r++) {
        cb_ab_round_order(99, r, cells, N, order);
        cb_ab_round_order(99, r, cells, N, again);
        unsigned seen[N] = {0};
        for (size_t i = 0; i < N; i++) {
            CB_CHECK(order[i] == again[i]);
            CB_CHECK(order[i] >= 10 && order[i] < 10 + N);
            seen[order[i] - 10]++;
        }
        for (size_t i = 0; i < N; i++)
            if (seen[i] != 1)
                CB_FAIL("round %u visits cell %zu %u times (valid: once)", r, 10 + i, seen[i]);
        if (r == 0)
            memcpy(first_round, order, sizeof order);
        else
            differ += memcmp(first_round, order, sizeof order) != 0;
        CB_CHECK(cb_ab_first_arm(r) == (r % 2 ? CB_AB_NEW : CB_AB_BASE));
    }
    if (differ < R - 2)
        CB_FAIL("only %u of %d rounds had an order other than round 0's (valid: shuffled per "
                "round)",
                differ, R - 1);
    cb_ab_round_order(100, 0, cells, N, again);
    CB_CHECK(memcmp(first_round, again, sizeof again) != 0);
    CB_CHECK(cb_ab_first_arm(10) == CB_AB_BASE && cb_ab_first_arm(11) == CB_AB_NEW);
}
