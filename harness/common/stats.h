/* Summary statistics of repetition samples. */
#ifndef CB_STATS_H
#define CB_STATS_H

#include <stddef.h>

/* Median and median absolute deviation of n samples (n > 0; sorts a copy). */
double cb_median(const double *x, size_t n);
double cb_mad(const double *x, size_t n, double median);

/* The middle of a <= b (an even count's median): a + (b - a) / 2, which stays finite where
 * (a + b) / 2 overflows (two times of 1e308 ns gave inf, and every ratio of them NaN). */
static inline double cb_midpoint(double a, double b)
{
    return a + (b - a) / 2;
}

#endif
