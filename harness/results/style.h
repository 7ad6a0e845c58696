/* One colour and one point type per implementation, for every plot (plots/common.gp gets them
 * from plots.c), the HTML report's tables and calibrate --data: read from the implementation
 * table's rows (impls/impls.c), where they are defined. */
#ifndef CB_PLOT_STYLE_H
#define CB_PLOT_STYLE_H

#include <stddef.h>

typedef struct cb_plot_style {
    const char *impl;   /* NULL: a spare style for a name the table lacks */
    const char *colour; /* #rrggbb */
    int point;          /* gnuplot's point type (pngcairo/svg) */
} cb_plot_style;

/* The table, in linetype order (linetype k is entry k-1), spares last. */
const cb_plot_style *cb_plot_styles(size_t *n);

/* The linetype (1-based) of a series: its implementation's ("sm"; "asm-jmpret" is asm's, a
 * build variant keeps its implementation's colour; "closure alloc=pool" is closure's); a name the table lacks takes the next
 * spare, the same one each time it is asked within one process. */
size_t cb_plot_linetype(const char *series);

/* The open twin of a filled point type (7, a filled circle: 6, an open one), for a second series
 * of one implementation in one plot; a point type with no open twin is returned as it is. */
int cb_plot_point_open(int point);

#endif
