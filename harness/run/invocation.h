/* One invocation of a cell: one of the --invocations processes that measure it. The parent draws
 * each invocation's layout from the run's seed and passes it in the environment of the binary it
 * execs; the cell's process applies it before measuring; the parent merges the invocations'
 * results into the cell (docs/results-schema.md, docs/measurement.md). */
#ifndef CB_INVOCATION_H
#define CB_INVOCATION_H

#include <jansson.h>
#include <stdint.h>

#include "harness/measure/cell.h"

/* What an invocation varies on purpose. */
typedef struct cb_inv_layout {
    uint64_t seed;         /* drawn from the run's seed, the cell's index and the invocation */
    unsigned env_pad;      /* bytes of COROBENCH_LAYOUT_PAD: moves the initial stack (exec) */
    unsigned stack_offset; /* bytes below the caller's frame before the cell is measured */
    unsigned heap_offset;  /* bytes malloc'd (and kept) before the cell is measured */
} cb_inv_layout;

/* The layout of invocation inv (0-based) of the plan's cell index. */
void cb_inv_layout_draw(uint64_t run_seed, size_t index, unsigned inv, cb_inv_layout *l);
/* In the child, before exec: the environment that carries the layout. */
void cb_inv_layout_export(const cb_inv_layout *l);
/* A run's seed: different for every run (time, pid), recorded in run.layout_seed. */
uint64_t cb_inv_run_seed(void);
/* This binary's path (/proc/self/exe), or NULL when it cannot be read. */
const char *cb_inv_self(void);
/* In the cell's process: applies the layout from the environment (none there: nothing moved),
 * then measures the cell there. */
json_t *cb_inv_measure(const cb_cell *c, const cb_measure_opts *m);

/* Marks an invocation's result with its index, its place in the run's order and its layout. */
void cb_inv_record(json_t *res, unsigned inv, size_t sequence, const cb_inv_layout *l);
/* The cell from its invocations' ok results (invs, in order; at least one): the fields of the
 * first, then ns_per_op as the median of the invocations' medians with its ci95 and the
 * variance split (create_ns_per_coro and malloc_free_ns likewise, without the split), every invocation's own figures under "invocations". A cell whose invocations
 * did different work (checksum, suspensions, ops) becomes failed. asked: --invocations. */
void cb_inv_merge(json_t *cell, json_t *invs, unsigned asked);

#endif
