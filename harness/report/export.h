/* The gnuplot export as a function, for `corobench export` and the report's plots. */
#ifndef CB_EXPORT_H
#define CB_EXPORT_H

#include <jansson.h>
#include <stdio.h>

enum { CB_EXPORT_MAX = 16 };

typedef struct cb_export_opts {
    const char *in, *out, *format, *workload, *x, *relative_to;
    const char *fleet; /* summary: --fleet DIR, the record to DIR/<CPU kind>.json */
    const char *cpu;   /* summary: --cpu VENDOR,FAMILY,MODEL for results without machine.cpu */
    const char *more[CB_EXPORT_MAX]; /* summary: the machine's other results files */
    size_t nmore;
    int force; /* --force: -o may replace a regular file (harness/common/output.h) */
    int aggregates_only; /* gbench: the aggregate rows only */
    struct {
        char *name, *value; /* --where NAME=VALUE */
    } w[CB_EXPORT_MAX];
    size_t nw;
    const char *y[CB_EXPORT_MAX]; /* --y FIELD (dotted path); none: the median ns with spread */
    size_t ny;
} cb_export_opts;

/* Writes the gnuplot blocks of the ok cells matching o (workload, x, where, y, relative_to; `in`
 * names the source in the header comment). Returns the number of blocks (series) written. */
size_t cb_export_gnuplot(FILE *out, json_t *cells, const cb_export_opts *o);

#endif
