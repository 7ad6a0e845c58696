/* Reading results documents (docs/results-schema.md): load and check every field, name a cell's
 * parameters and its workload's unit. Shared by the report, export and compare commands and by
 * the table a run prints. Outputs go through harness/output.h. */
#ifndef CB_LOAD_H
#define CB_LOAD_H

#include <jansson.h>
#include <stdio.h>

/* Reads a results document and checks every field a reader uses (type, range, finite; each cell
 * once); NULL after one line naming the parser's line and column, or the cell index and the
 * field that is wrong (docs/bad-input.md). A directory is named as such. */
json_t *cb_results_load(const char *path);
/* The same from memory; name is the file's name for the messages. */
json_t *cb_results_parse(const char *name, const char *data, size_t len);
/* 0, or prints one line and returns CB_EXIT_USAGE. */
int cb_results_check(json_t *doc, const char *name);
/* Whether parameter name of a cell is one of its implementation's (from the implementation's
 * definition table, impls/impls.c) and at its default: -1 not an implementation parameter (or an
 * implementation this build does not know), 1 at its default, 0 set to another value. */
int cb_impl_param_at_default(json_t *cell, const char *name, json_t *value);
/* "depth=0 sites=distinct" from a cell's params; the implementation's own parameters never
 * (impl_params 0) or only where they differ from their defaults (1). */
void cb_cell_params_text(json_t *cell, int impl_params, char *buf, size_t len);
/* The median ns per op of the `direct` cell (the no-coroutine baseline) with the same workload,
 * workload parameters and variant as cell, in cells; -1 when there is none that ran. The
 * overhead a table shows is the cell's median minus this. */
double cb_cell_direct_ns(json_t *cells, json_t *cell);
/* What makes a cell's timing doubtful, as letters (docs/measurement.md): P preempted during the
 * kept repetitions, S steal time, D drift (unstable), B batch limited; "" when none. Returns buf. */
const char *cb_cell_flags(json_t *cell, char *buf, size_t len);
/* One line explaining the letters cb_cell_flags uses. */
extern const char cb_cell_flags_legend[];
/* The unit of one op of workload ("switch", "node", ...), from its cells; "op" if none has one. */
const char *cb_results_unit(json_t *cells, const char *workload);

#endif
