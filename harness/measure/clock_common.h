/* CLOCK_MONOTONIC helper shared by the clock back ends. */
#ifndef CB_CLOCK_COMMON_H
#define CB_CLOCK_COMMON_H

#include <stdint.h>
#include <time.h>

static inline uint64_t cb_mono_ns_inline(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
