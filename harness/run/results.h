/* The results document of `corobench run` (its run object, the cells' headers, an interrupted
 * run), and the table printed after a run. The document and its write: harness/results/. */
#ifndef CB_RUN_RESULTS_H
#define CB_RUN_RESULTS_H

#include <jansson.h>
#include <stdio.h>

#include "harness/results/write.h"
#include "options.h"
#include "plan.h"

/* The document (harness/results/write.h) with this run's run object (argv, the options, the
 * variants and the simulated return stack) and what is unavailable in this build. */
json_t *cb_run_results_new(const cb_run_opts *o);
/* A cell's identity: impl, family, workload, params, variant, unit. */
json_t *cb_cell_header(const cb_plan_cell *pc);
/* An interrupted run: run.interrupted true, and run.unfinished naming the plan's cells from
 * index done on. */
void cb_results_interrupted(json_t *doc, const cb_plan *plan, size_t done);

/* table.c: one row per cell, derived from the document. */
void cb_results_print_table(json_t *doc, FILE *out, int wide);

#endif
