/* The decision of `corobench ab` (docs/ci.md, "Paired A/B"): pure functions of the pairs' ratios,
 * no I/O, no JSON, reproducible (every bootstrap from a fixed seed).
 *
 * A pair is one round's base and new invocation of a cell, run back to back with the same layout
 * draw; its figure is the log of new/base. A shift of the machine that lasts seconds moves both
 * sides of a pair alike and cancels in the ratio; what is left varies from pair to pair, and the
 * rounds are the units of replication.
 *
 *  - A cell: the estimate is the geometric mean of its pairs' ratios (the mean log ratio); its
 *    interval a bootstrap over the rounds (resample the pairs, take the mean), widened as
 *    interval.h widens its own (Hesterberg's expanded percentile: sqrt(n/(n-1)) t/z) because a
 *    plain percentile interval from a few rounds covers less than it says. Why a bootstrap and
 *    not Wilcoxon's signed-rank test: its estimate would be the Hodges-Lehmann pseudo-median,
 *    not the geometric mean the whole run is built from; its exact interval assumes pairs
 *    symmetric about their centre, which a cell that falls into a slow mode by layout breaks; and
 *    an exact signed-rank interval at level 1 - a needs 2 / 2^n <= a: no 95% interval below 6
 *    rounds, none at the per-cell level below (0.05/2/60 for 60 cells) 13. The bootstrap has an
 *    interval from 2 rounds, at any level (a wide one when the rounds are few, which is honest).
 *  - The verdict: regressed when the interval lies above 1 + threshold, improved below
 *    1 / (1 + threshold), unchanged when it lies within that equivalence margin, unknown when it
 *    crosses either boundary.
 *  - The run's false-alarm budget B (default 5%): the chance that an unchanged build gets any
 *    timing verdict (a cell or the whole run regressed or improved). Half of it goes to the whole
 *    run's test, half is spread over the m decided cells (Bonferroni): each cell's interval is at
 *    level 1 - (B/2)/m. An unchanged cell is called regressed (or improved) only when its
 *    interval misses the truth on one side, so the union over m cells and the whole run stays
 *    within B whatever the cells' correlation. Every cell not unchanged after the first rounds
 *    gets fresh rounds and is decided on those alone, so a false alarm has to happen twice; the
 *    budget holds on the second stage alone.
 *  - The fresh stage is sequential, as tachometer adds rounds until an interval clears its
 *    boundary: fresh rounds come in batches of R (the first stage's count), up to the cap; after
 *    each batch a cell still in the stage is decided on all its fresh pairs so far, and leaves
 *    unless unknown. Looking K times at growing data raises the chance that one look misses, so
 *    each look's interval is at level 1 - (B/2)/(m K) (Bonferroni over the looks too): an
 *    unchanged cell is called changed at some look with chance at most (B/2)/m, as before. More
 *    fresh pairs buy power where one batch fell in a noisy period (a 1.25x cell at [1.017, 1.361]
 *    on 10 fresh pairs, docs/ci.md).
 *  - The whole run: per round, the geometric mean over the cells of the round's pair ratios; a t
 *    interval over the rounds at level 1 - B/2, with the same verdict rule. */
#ifndef CB_AB_DECIDE_H
#define CB_AB_DECIDE_H

#include <stddef.h>
#include <stdint.h>

typedef enum cb_ab_verdict {
    CB_AB_REGRESSED,
    CB_AB_IMPROVED,
    CB_AB_UNKNOWN,   /* the interval crosses 1 + threshold or 1 / (1 + threshold) */
    CB_AB_UNCHANGED, /* the interval lies within the equivalence margin */
    CB_AB_NONE,      /* fewer than 2 pairs: no interval */
} cb_ab_verdict;

/* "regressed", "improved", "unknown", "unchanged", "none". */
const char *cb_ab_verdict_name(cb_ab_verdict v);

/* A ratio new/base and its interval at a stated level. */
typedef struct cb_ab_est {
    double est;    /* the geometric mean of the pairs' ratios */
    double lo, hi; /* the interval; NaN when n < 2 */
    double level;  /* its two-sided confidence, e.g. 0.99958 */
    size_t n;      /* pairs (rounds) */
    cb_ab_verdict verdict;
} cb_ab_est;

/* The run's rule: threshold and budget as fractions (0.05 is 5%), m the cells decided, and the
 * fresh stage's looks (cb_ab_looks). */
typedef struct cb_ab_rule {
    double threshold, budget;
    size_t cells;
    unsigned looks;
} cb_ab_rule;

/* The two-sided level of each cell's interval, 1 - (budget/2)/cells; of the whole run's,
 * 1 - budget/2; of a look of the fresh stage, 1 - (budget/2)/(cells looks). */
double cb_ab_cell_level(const cb_ab_rule *r);
double cb_ab_run_level(const cb_ab_rule *r);
double cb_ab_fresh_level(const cb_ab_rule *r);

/* The looks of the fresh stage: batches of `rounds` fresh rounds up to max_rounds in all, the
 * last batch cut short at the cap: ceil((max_rounds - rounds) / rounds); 0 when there are none. */
unsigned cb_ab_looks(unsigned rounds, unsigned max_rounds);

/* The verdict of an interval against the threshold (a fraction). */
cb_ab_verdict cb_ab_decide(double lo, double hi, double threshold);

/* A cell from its n pairs' ratios new/base (each positive and finite): 0, or -1 on a ratio that
 * is not. The bootstrap starts from seed; the verdict is set against threshold. */
int cb_ab_cell(const double *ratio, size_t n, double level, double threshold, uint64_t seed,
               cb_ab_est *e);

/* The whole run from its rounds' geometric means over the cells: a t interval over the rounds'
 * logs. Same return as cb_ab_cell. */
int cb_ab_whole(const double *round_geomean, size_t n, double level, double threshold,
                cb_ab_est *e);

/* Whether a cell's first-stage verdict sends it to fresh rounds: anything but unchanged (and
 * none: a cell with fewer than 2 pairs has nothing a rerun would confirm). */
int cb_ab_needs_rerun(cb_ab_verdict first);

/* Whether a cell stays in the fresh stage after a look at its n fresh pairs: 1 when they leave it
 * unknown at cb_ab_fresh_level (or when fewer than 2 ran), 0 when they decide it (regressed,
 * improved or unchanged) or a ratio is not positive and finite. */
int cb_ab_fresh_continues(const double *fresh, size_t n, const cb_ab_rule *r, uint64_t seed);

/* A cell over its two stages: ratio[0..n1) are the first rounds' pairs (decided at level),
 * ratio[n1..n) the fresh rounds' (n == n1 when none ran; decided at fresh_level). first gets the
 * first stage's estimate; final the verdict the cell stands on: the first stage's when it needs
 * no rerun or no fresh round ran (--max-rounds equal to --rounds: the verdict is then not
 * confirmed), else the fresh rounds' alone (none when only 1 ran). The fresh stage's last look
 * saw exactly ratio[n1..n), so final is that look's verdict. Same return as cb_ab_cell. */
int cb_ab_cell_staged(const double *ratio, size_t n1, size_t n, double level, double fresh_level,
                      double threshold, uint64_t seed, cb_ab_est *first, cb_ab_est *final);

/* Two-sided quantiles: the x with P(|Z| <= x) = level for the standard normal, and for Student's
 * t with df degrees of freedom (df >= 1), to 1e-9. */
double cb_ab_z(double level);
double cb_ab_t(double level, size_t df);

#endif
