/* The report's plots (plots/NAME.gp drawn by gnuplot from data derived from the results). */
#ifndef CB_PLOTS_H
#define CB_PLOTS_H

#include <jansson.h>

/* Draws every plot of the report from doc (read from `in`, named in the data files) into dir,
 * created if needed, with the gnuplot scripts in the directory scripts. Returns an array with
 * one object per plot: name, question, png and svg (paths), or skipped (why) and command (what
 * would measure its data), and notes (series skipped, with the reason). */
json_t *cb_plots_draw(json_t *doc, const char *in, const char *dir, const char *scripts);

#endif
