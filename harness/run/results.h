/* Writing a results document (docs/results-schema.md), and the table printed after a run. */
#ifndef CB_RESULTS_H
#define CB_RESULTS_H

#include <jansson.h>
#include <stdio.h>

#include "options.h"
#include "plan.h"

/* machine, build and run metadata, and an empty "cells" array. */
json_t *cb_results_new(const cb_run_opts *o);
/* A cell's identity: impl, family, workload, params, variant, unit. */
json_t *cb_cell_header(const cb_plan_cell *pc);
/* Writes through a temporary file and rename. 0, or -1 with errno. */
int cb_results_write(json_t *doc, const char *path);
/* results/<hostname>-<UTC timestamp>.json */
void cb_results_default_path(char *buf, size_t len);
/* When path is directly in a directory named results: points results/latest.json at it (a
 * relative symbolic link, replaced atomically). 1 if linked, 0 if not applicable, -1 with errno. */
int cb_results_link_latest(const char *path);

/* table.c: one row per cell, derived from the document. */
void cb_results_print_table(json_t *doc, FILE *out);

#endif
