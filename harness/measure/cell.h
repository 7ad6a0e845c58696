/* One cell, measured inside its own child process (docs/measurement.md): the timed pass and the
 * return-stack simulator's counting pass. Nothing here knows about the command line, the plan or
 * other processes; the parent (harness/run/) hands over a cell and the measuring settings. */
#ifndef CB_CELL_H
#define CB_CELL_H

#include <jansson.h>
#include <stdint.h>

#include "workloads/workload.h"

/* One (implementation, workload, parameter point). */
typedef struct cb_cell {
    const cb_impl *impl;
    const cb_workload *wl;
    cb_params params;
} cb_cell;

/* How to measure, from the run's options. */
typedef struct cb_measure_opts {
    unsigned reps, warmup;
    double min_rep_ms;    /* a repetition runs instances back to back until it lasts this long */
    const char *events;   /* --events LIST, NULL: none */
    int events_kernel;    /* --events-kernel: count kernel mode too */
    unsigned rsb_entries; /* the simulated return stack's size (resolved: never 0) */
    int rsb_model;        /* a cb_rsb_model (rsbsim.h), resolved from --rsb-model */
    int rsb_candidates;   /* --rsb-candidates: count every calibration candidate too */
} cb_measure_opts;

/* The timed pass of a cell of corobench's code (a C family, lua, a plugin): the measured part
 * of a cell object (status ok with ns_per_op, memory, ..., or status failed with the error). A
 * program of its own (impl->external: go, node, --external...) is measured by cb_ext_measure
 * (external.h) instead; the caller picks. */
json_t *cb_cell_measure(const cb_cell *c, const cb_measure_opts *m);
/* The counting pass, in an instrumented binary (docs/rsb.md): one run, counting around run()
 * only; ops, checksum, suspensions and the "rsbsim" object, or status failed. */
json_t *cb_cell_count(const cb_cell *c, const cb_measure_opts *m);
/* The cell's parameters as one JSON object, NAME: value (an integer, or a choice's string), in
 * their order: the results' params, a request's, a runtime's program's. */
json_t *cb_params_json(const cb_params *p);
/* "0x" and 16 hex digits, the form every checksum takes in the results. */
void cb_checksum_text(uint64_t sum, char buf[19]);

#endif
