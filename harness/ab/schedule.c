/* The schedule (schedule.h): a Fisher-Yates shuffle per round from splitmix64. */
#include "schedule.h"

#include "harness/common/interval.h"

cb_ab_arm cb_ab_first_arm(unsigned round)
{
    return round % 2 ? CB_AB_NEW : CB_AB_BASE;
}

/* A round's own generator: the run's seed mixed with the round, so a round's order does not
 * depend on how many cells earlier rounds visited. */
static uint64_t round_state(uint64_t seed, unsigned round)
{
    uint64_t s = seed ^ (UINT64_C(0x9e3779b97f4a7c15) * ((uint64_t)round + 1));
    return cb_boot_next(&s);
}

void cb_ab_round_order(uint64_t seed, unsigned round, const size_t *cells, size_t n,
                       size_t *order)
{
    uint64_t s = round_state(seed, round);
    for (size_t i = 0; i < n; i++)
        order[i] = cells[i];
    for (size_t i = n; i > 1; i--) {
        size_t j = cb_boot_pick(&s, i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}
