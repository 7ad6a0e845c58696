/* The schedule of `corobench ab` (docs/ci.md, "Paired A/B"): R rounds, each visiting every cell
 * once in an order shuffled per round from the run's recorded seed; in a round each cell's base
 * and new invocations run back to back, with the same layout draw, and the arm that goes first
 * alternates from round to round (ABBA: base first in even rounds, new first in odd ones), so a
 * drift within a pair's few seconds favours neither arm on average. Rounds after the first R
 * (the fresh rounds of cells sent to a rerun) continue the numbering, and the alternation. Pure
 * functions: the same seed gives the same schedule on every machine. */
#ifndef CB_AB_SCHEDULE_H
#define CB_AB_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

typedef enum cb_ab_arm { CB_AB_BASE, CB_AB_NEW } cb_ab_arm;

/* The arm that runs first in round (from 0); the other follows at once. */
cb_ab_arm cb_ab_first_arm(unsigned round);

/* Round round's order: order[0..n) becomes a permutation of cells[0..n) (cells: the indices of
 * the cells this round visits), drawn from seed and round alone. */
void cb_ab_round_order(uint64_t seed, unsigned round, const size_t *cells, size_t n,
                       size_t *order);

#endif
