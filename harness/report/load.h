/* Reading results documents (docs/results-schema.md): load and check the schema, name a cell's
 * parameters and its workload's unit, and write a text output atomically. Shared by the report,
 * export and compare commands and by the table a run prints. */
#ifndef CB_LOAD_H
#define CB_LOAD_H

#include <jansson.h>
#include <stdio.h>

/* Reads a results document and checks its schema; NULL after printing a usage error. */
json_t *cb_results_load(const char *path);
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
/* Text output to path through a temporary file (stdout when path is NULL); commit renames it
 * into place, so a reader never sees half a file. */
FILE *cb_output_open(const char *path, char *tmp, size_t tmplen);
int cb_output_commit(FILE *f, const char *path, const char *tmp);

#endif
