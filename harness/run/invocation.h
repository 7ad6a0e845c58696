/* One invocation of a cell: one of the --invocations processes that measure it. The parent draws
 * each invocation's layout from the run's seed and puts it in the invocation's request
 * (request.h; the environment's padding also in the environment of the binary it execs); the
 * cell's process applies it before measuring; the parent merges the invocations' results into
 * the cell (docs/results-schema.md, docs/measurement.md). */
#ifndef CB_INVOCATION_H
#define CB_INVOCATION_H

#include <jansson.h>
#include <stdint.h>

#include "harness/measure/cell.h"

/* Every offset of a layout is below this many bytes. */
enum { CB_INV_LAYOUT_SPAN = 4096 };

/* What an invocation varies on purpose. */
typedef struct cb_inv_layout {
    uint64_t seed;         /* drawn from the run's seed, the cell's index and the invocation */
    unsigned env_pad;      /* bytes of COROBENCH_LAYOUT_PAD in the exec'd cell's environment:
                              move its initial stack */
    unsigned stack_offset; /* bytes below the caller's frame before the cell is measured */
    unsigned heap_offset;  /* bytes malloc'd (and kept) before the cell is measured */
} cb_inv_layout;

/* The layout of invocation inv (0-based) of the plan's cell index. */
void cb_inv_layout_draw(uint64_t run_seed, size_t index, unsigned inv, cb_inv_layout *l);
/* The layout as the results and the request hold it: {"seed": "0x...", "env_pad_bytes",
 * "stack_offset_bytes", "heap_offset_bytes"}. */
json_t *cb_inv_layout_json(const cb_inv_layout *l);
/* A run's seed: different for every run (time, pid), recorded in run.layout_seed. */
uint64_t cb_inv_run_seed(void);
/* This binary's path (/proc/self/exe), or NULL when it cannot be read. */
const char *cb_inv_self(void);
/* In the cell's process: applies the layout's stack and heap offsets (l NULL: nothing moved),
 * then measures the cell there: cb_cell_measure, or cb_ext_measure for a program of its own. */
json_t *cb_inv_measure(const cb_cell *c, const cb_measure_opts *m, const cb_inv_layout *l);

/* Marks an invocation's result with its index, its place in the run's order and its layout (the
 * request's "layout" object, cb_inv_layout_json's form; referenced, not stolen). */
void cb_inv_record(json_t *res, unsigned inv, size_t sequence, json_t *layout);
/* The cell from its invocations' ok results (invs, in order; at least one): the fields of the
 * first, then ns_per_op as the median of the invocations' medians with its ci95 and the
 * variance split (create_ns_per_coro and malloc_free_ns likewise, without the split), every invocation's own figures under "invocations". A cell whose invocations
 * did different work (checksum, suspensions, ops) becomes failed. asked: --invocations. */
void cb_inv_merge(json_t *cell, json_t *invs, unsigned asked);

#endif
