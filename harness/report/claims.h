/* The Claims section of `corobench report` (docs/report.md). */
#ifndef CB_CLAIMS_H
#define CB_CLAIMS_H

#include <jansson.h>
#include <stdio.h>

/* Writes "## Claims": a summary table and one subsection per claim with its numbers, its plots
 * (links into plots_rel, from the array cb_plots_draw returned; NULL: none drawn) and its
 * verdict, all computed from doc's cells. */
void cb_claims_section(FILE *out, json_t *doc, json_t *plots, const char *plots_rel);
/* How many claims the section has. */
size_t cb_claims_count(void);

#endif
