/* Runs a plan: every cell in its own child process (harness/common/proc.h), the counting pass after
 * an ok timed run, then the check that every variant of a cell did the same work. */
#ifndef CB_RUNNER_H
#define CB_RUNNER_H

#include <jansson.h>

#include "options.h"
#include "plan.h"

/* The counting pass runs an uncounted-speed build: it may take this many times --timeout. */
enum { CB_COUNT_TIMEOUT_FACTOR = 10 };

/* Appends one object per cell to cells_out; returns how many failed or timed out. Stops early
 * after an interrupt (cb_proc_stop_on_interrupt, cb_proc_interrupted), the running cell killed
 * and left out. */
size_t cb_run_plan(const cb_run_opts *o, const cb_plan *plan, json_t *cells_out);
/* In a `corobench cell` process: measures (or counts) the cell here and prints its JSON. */
int cb_run_cell_here(const cb_run_opts *o, const cb_plan_cell *pc);

#endif
