/* Summary statistics of repetition samples. The median is reported (not the mean) because a
 * shared, noisy machine adds one-sided outliers (preemption, another tenant) that drag a mean;
 * the MAD is its robust spread. min and max are kept so outliers stay visible. */
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "harness/common/alloc.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cb_median(const double *x, size_t n)
{
    double *s = cb_xmalloc(n * sizeof *s);
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : cb_midpoint(s[n / 2 - 1], s[n / 2]);
    free(s);
    return m;
}

double cb_mad(const double *x, size_t n, double median)
{
    double *d = cb_xmalloc(n * sizeof *d);
    for (size_t i = 0; i < n; i++)
        d[i] = x[i] > median ? x[i] - median : median - x[i];
    double m = cb_median(d, n);
    free(d);
    return m;
}
