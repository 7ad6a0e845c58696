/* Summary statistics of repetition samples. */
#ifndef CB_STATS_H
#define CB_STATS_H

#include <stddef.h>

/* Median and median absolute deviation of n samples (n > 0; sorts a copy). */
double cb_median(const double *x, size_t n);
double cb_mad(const double *x, size_t n, double median);

#endif
