/* Runs a plan: every cell in its own child process (harness/common/proc.h), the counting pass after
 * an ok timed run, then the check that every variant of a cell did the same work. */
#ifndef CB_RUNNER_H
#define CB_RUNNER_H

#include <jansson.h>

#include "options.h"
#include "pace.h"
#include "plan.h"

/* Appends one object per cell to cells_out; returns how many failed or timed out. Stops early
 * after an interrupt (cb_proc_stop_on_interrupt, cb_proc_interrupted), the running cell killed
 * and left out. pace: each cell's, for the progress line's ETA. */
size_t cb_run_plan(const cb_run_opts *o, const cb_plan *plan, const cb_pace *pace,
                   json_t *cells_out);

#endif
