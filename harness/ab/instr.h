/* Instructions per op where no PMU counts them (`corobench ab --events instructions` on a
 * virtual machine): each cell's request run once in each arm's build under valgrind's callgrind,
 * which counts the instructions of the kept repetitions' run() alone (measure/cell.c toggles its
 * collection around them), on a fixed op count: one warm-up and three repetitions of one
 * instance each (min_rep_ms so small the batch never grows), not a time-calibrated batch. User
 * mode only, as instructions:u: the system calls a cell makes are not in it. The coroutine stacks
 * are registered with valgrind (impls/stack.c). */
#ifndef CB_AB_INSTR_H
#define CB_AB_INSTR_H

#include <jansson.h>
#include <stddef.h>

#include "arms.h"

/* The estimated seconds of one cell's count, both arms at once, for the progress line's ETA
 * (which scales it by the counts so far): valgrind's start dominates, 1.6-2.2 s per process on
 * the Zen 5 VM. */
#define CB_AB_CALLGRIND_STEP_S 2.0

/* 0 when valgrind runs here (its version in buf), else -1 with the reason in buf. */
int cb_ab_callgrind_ready(char *buf, size_t len);

/* Cell pc's instructions per op in both arms (indexed by cb_ab_arm), both processes at once
 * (the count does not depend on timing): per_op[k] > 0, or NaN with why[k] set. req is the
 * cell's request (request.h) as the time pass built it. */
void cb_ab_callgrind_cell(const ab_opts *a, const cb_plan_cell *pc, const json_t *req,
                          double per_op[2], char why[2][300]);

#endif
