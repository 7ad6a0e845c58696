/* A cell's figure and interval from a checked results document (load.h), for every reader:
 * the table after a run, report, export, compare. A cell of schema 2 has its samples by
 * invocation (`invocations[].samples_ns_per_op`); a cell of schema 1 (one process per cell,
 * before invocations) is read as one invocation of its `samples_ns_per_op`, so it has no
 * interval (interval.h: K = 1). The estimator, the bootstrap and their seed: interval.h. */
#ifndef CB_ESTIMATE_H
#define CB_ESTIMATE_H

#include <jansson.h>

#include "harness/common/interval.h"

/* A cell's samples by invocation, owned here. */
typedef struct cb_cell_samples {
    cb_inv_samples s;
    double **x;
    size_t *n;
} cb_cell_samples;

/* 0, or -1 when the cell has no samples (not ok, or a deterministic-only document). */
int cb_cell_samples_get(json_t *cell, cb_cell_samples *cs);
void cb_cell_samples_free(cb_cell_samples *cs);

/* The cell's ns per op with its interval (e->ok) and variance split; -1 without samples. */
int cb_cell_estimate(json_t *cell, cb_estimate *e);
/* num's ns per op over den's, with the ratio's bootstrapped interval; -1 when either has no
 * samples. */
int cb_cell_ratio(json_t *num, json_t *den, cb_estimate *e);
/* Invocations the cell ran in (1 for a schema-1 cell), 0 without samples. */
size_t cb_cell_invocations(json_t *cell);

#endif
