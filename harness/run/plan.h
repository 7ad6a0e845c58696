/* The plan of a run: every cell of --impl x --workload x --param, once per build variant
 * (variants innermost, so they sit side by side), each naming the binaries that run it. Built
 * once, validated before any cell runs; the runner only follows it. */
#ifndef CB_PLAN_H
#define CB_PLAN_H

#include <stddef.h>

#include "harness/measure/cell.h"
#include "options.h"

typedef struct cb_plan_cell {
    cb_cell cell;         /* what the cell's child measures */
    const char *variant;  /* build variant that runs it: "plain" or "jmpret" */
    const char *binary;   /* the build that times it; NULL: this binary (cb_request_binary) */
    const char *counter;  /* the instrumented build for the counting pass; NULL: no pass */
    size_t index;         /* position in the plan: its layouts are drawn from it */
} cb_plan_cell;

typedef struct cb_plan {
    cb_plan_cell *cells;
    size_t ncells;
    size_t nselected; /* the cells before --filter kept ncells of them */
    char *paths[4]; /* the binaries the cells name, owned here */
} cb_plan;

/* Builds the plan; CB_OPTS_PARSED, or an exit status after a one-line error (a bad parameter
 * value, a variant whose binary is not built). */
int cb_plan_build(const cb_run_opts *o, cb_plan *plan);
void cb_plan_free(cb_plan *plan);
/* The text --filter matches, as google benchmark's --benchmark_filter matches a benchmark's
 * name: WORKLOAD/IMPL/NAME=VALUE/... with every parameter of the cell (the workload's, then the
 * implementation's), then /variant=V: "pingpong/asm/depth=16/.../fpu=1/variant=plain". */
void cb_plan_cell_text(const cb_plan_cell *pc, char *buf, size_t len);

#endif
