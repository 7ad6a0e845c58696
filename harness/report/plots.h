/* The report's plots (plots/NAME.gp drawn by gnuplot from data derived from the results). */
#ifndef CB_PLOTS_H
#define CB_PLOTS_H

#include <jansson.h>
#include <stdio.h>

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

/* The Markdown of a plot p (an object as cb_plots_draw's) in a report whose plots are in the
 * directory rel (relative to the report). Every writer of a plot's line uses these. */
/* Its picture and its SVG, "![NAME](<REL/NAME.png>) ([SVG](<REL/NAME.svg>))", when both were
 * drawn: 1; else 0 and nothing written. */
int cb_plot_picture_md(FILE *out, json_t *p, const char *rel);
/* A link to its picture, "[NAME](<REL/NAME.png>)", when drawn: 1; else 0 and nothing written. */
int cb_plot_link_md(FILE *out, json_t *p, const char *rel);
/* Why it is not drawn (text from outside: gnuplot's stderr, a path) through the Markdown sink,
 * "?" when it does not say. */
void cb_plot_why_md(FILE *out, json_t *p);

#endif
