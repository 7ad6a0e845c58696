/* Text about a results cell (docs/results-schema.md) for the run's table and the readers:
 * its parameters, the direct baseline, the doubtful-timing letters, the unit, and how a
 * simulated count's model is labelled. */
#ifndef CB_RESULTS_CELL_H
#define CB_RESULTS_CELL_H

#include <jansson.h>
#include <stddef.h>

/* Whether parameter name of a cell is one of its implementation's (from the cell's impl_row,
 * docs/results-schema.md; a file written before it: from this build's row of that name,
 * impls/impls.c) and at its default: -1 not an implementation parameter (or an implementation
 * neither knows), 1 at its default, 0 set to another value. */
int cb_impl_param_at_default(json_t *cell, const char *name, json_t *value);
/* "depth=0 sites=distinct" from a cell's params; the implementation's own parameters never
 * (impl_params 0) or only where they differ from their defaults (1). */
void cb_cell_params_text(json_t *cell, int impl_params, char *buf, size_t len);
/* The implementation's own parameters away from their defaults, "stack=16384 stack_mode=guarded"
 * ("" when all are at their defaults): not part of the point, shown as the implementation's
 * variant beside its name ("asm stack=16384"). */
void cb_cell_impl_params_text(json_t *cell, char *buf, size_t len);
/* The ok cells of `direct` (the no-coroutine baseline) by their point: workload, workload
 * parameters and variant; the first in the file's order where two share one. Not omp's, of the
 * baseline family too but on W threads. Built once per
 * table, so that finding each cell's baseline is a lookup, not a pass over every cell (a
 * report of 10,000 cells was quadratic: issue 30, MEDIUM 4). The caller json_decrefs it. */
json_t *cb_cell_direct_index(json_t *cells);
/* The median ns per op of the baseline cell in index (cb_cell_direct_index) at the same point
 * as cell; -1 when there is none that ran. The overhead a table shows is the cell's median
 * minus this. */
double cb_cell_direct_ns(json_t *index, json_t *cell);
/* What makes a cell's timing doubtful, as letters (docs/measurement.md): P preempted during the
 * kept repetitions, S steal time, D drift (unstable), B batch limited; "" when none. Returns buf. */
const char *cb_cell_flags(json_t *cell, char *buf, size_t len);
/* One line explaining the letters cb_cell_flags uses. */
extern const char cb_cell_flags_legend[];
/* The letters worth showing for these cells: a letter on more than half of the ok timed cells
 * tells nothing about any one of them (on a loaded machine every cell is preempted), so it is
 * left out of keep and said once in note ("Not shown per cell, being on most of them (so
 * telling nothing about one): P (preempted) 216 of 216"; "" when every letter is kept). */
void cb_cell_flags_telling(json_t *cells, char *keep, size_t klen, char *note, size_t nlen);
/* cb_cell_flags with only the letters in keep. */
const char *cb_cell_flags_kept(json_t *cell, const char *keep, char *buf, size_t len);
/* The unit of one op of workload ("switch", "node", ...), from its cells; "op" if none has one;
 * NULL when its cells differ (pingpong: "switch", and "round trip" where mode=asymmetric), and
 * then each cell's own unit must be named beside its figure. */
const char *cb_results_unit(json_t *cells, const char *workload);

/* Instructions per op (--events instructions, docs/results-schema.md): the median over a cell's
 * invocations of counters.instructions.per_op (instructions:u through the counters code where a
 * PMU is there), NaN when none counted it; *why, when NULL, gets the first invocation's
 * counters_unavailable reason. */
double cb_invs_instructions(json_t *invs, const char **why);
/* The source a PMU count is recorded with in a cell's instructions_per_op. */
extern const char cb_instr_source_pmu[];
/* A cell's instructions per op, its instructions_per_op.value (> 0), with *source its source
 * ("instructions:u (perf_event_open)", "callgrind"); NaN when it has none. */
double cb_cell_instructions(json_t *cell, const char **source);
/* Sets a cell's instructions_per_op: {value, source}. */
void cb_cell_set_instructions(json_t *cell, double per_op, const char *source);

/* How a simulated count is labelled wherever it is shown: "underflow-btb 16, calibrated R^2
 * 0.98", "circular 32, default for AuthenticAMD", "circular 24, --rsb-model". run_model and
 * run_entries are what the run simulated; machine_rsb what the machine is believed to be. */
void cb_results_rsb_label(json_t *machine_rsb, const char *run_model, long run_entries,
                          char *buf, size_t len);

/* A figure as text, the one rule of every reader's tables and claims: decimals decimals, or
 * with CB_FIG_SIG3 three significant figures without an exponent (7.29, 43.8, 175, 18924); from
 * 1e12 on three significant digits with an exponent (a time of 1e308 ns printed whole was a
 * 309-digit number: issue 25, row 21). Returns buf. */
enum { CB_FIG_SIG3 = -1 };
/* A cell's scheduler figures (its `sched` object, docs/sched.md "What a cell records"; unit the
 * cell's, NULL: op) as one line: "2 workers (steal) on 2 CPUs, not pinned, load 1.49: per task
 * 5.09e-05 steals, 0.0005 failed steals, 0 migrations, 0 parks; idle 0.1% (workers 0.0% 0.1%)";
 * "" when sched is not an object. */
void cb_cell_sched_text(json_t *sched, const char *unit, char *buf, size_t len);
const char *cb_fig(double v, int decimals, char *buf, size_t len);

#endif
