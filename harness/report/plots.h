/* The report's plots (plots/NAME.gp drawn by gnuplot from data derived from the results). */
#ifndef CB_PLOTS_H
#define CB_PLOTS_H

#include <jansson.h>

/* Draws every plot of the report from doc (read from `in`, named in the data files) into dir,
 * created if needed, with the gnuplot scripts in the directory scripts. Returns an array with
 * one object per plot: name, question, png and svg (paths), or skipped (why) and command (what
 * would measure its data), and notes (series skipped, with the reason). */
json_t *cb_plots_draw(json_t *doc, const char *in, const char *dir, const char *scripts);

/* The headline plot, name (NAME.gp, NAME.png, NAME.svg, its data NAME-0.dat) in dir: rows as
 * claims.h's cb_claims_headline gives them, written as a data file (a block per workload, a
 * row per point: "row ratio lo hi won stackful stackless point"), drawn by gnuplot from it.
 * Returns an object as cb_plots_draw's (skipped when rows is empty). */
json_t *cb_plots_headline(json_t *rows, const char *name, const char *dir, const char *scripts);

#endif
