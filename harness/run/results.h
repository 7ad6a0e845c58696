/* Writing a results document (docs/results-schema.md), and the table printed after a run. */
#ifndef CB_RESULTS_H
#define CB_RESULTS_H

#include <jansson.h>
#include <stdio.h>

#include "harness/output.h"
#include "options.h"
#include "plan.h"

/* machine, build and run metadata, and an empty "cells" array. */
json_t *cb_results_new(const cb_run_opts *o);
/* A cell's identity: impl, family, workload, params, variant, unit. */
json_t *cb_cell_header(const cb_plan_cell *pc);
/* Writes doc through out (prepared before the run, harness/output.h). A file that appeared at
 * out_path (-o) meanwhile is not replaced: the document goes beside it (NAME-2.json); a path
 * that cannot be written any more goes to $TMPDIR (or /tmp) under a unique default name; either
 * is said on stderr and sets *moved. 0, or 1 after a one-line message. */
int cb_results_write(json_t *doc, cb_out *out, const char *out_path, int *moved);
/* An interrupted run: run.interrupted true, and run.unfinished naming the plan's cells from
 * index done on. */
void cb_results_interrupted(json_t *doc, const cb_plan *plan, size_t done);
/* When path is directly in a directory named results: points results/latest.json at it (a
 * relative symbolic link, replaced atomically). 1 if linked, 0 if not applicable, -1 with errno. */
int cb_results_link_latest(const char *path);

/* table.c: one row per cell, derived from the document. */
void cb_results_print_table(json_t *doc, FILE *out);

#endif
