/* A cell as one request (docs/request.md): everything a cell's process needs to measure or count
 * one cell, resolved by the plan in the parent, as one JSON object of schema corobench-cell/1.
 * The process learns its cell from that object alone (`corobench cell --request FILE|-`); it
 * rebuilds no plan and reads no option, index or environment variable of the run.
 *
 *   {"schema": "corobench-cell/1", "mode": "time", "variant": "plain",
 *    "workload": "pingpong", "impl": "sm",
 *    "params": {"depth": 16, "switches": 1000000, ...every parameter, resolved},
 *    "warmup": 2, "reps": 5, "min_rep_ms": 10, "timeout_s": 60, "pin_cpu": null,
 *    "events": null, "events_kernel": false,
 *    "rsb": {"model": "circular", "entries": 32, "candidates": false},
 *    "tsc_hz": 2994321000.0, "kernel_bytes_per_vma": 312.5,
 *    "layout": {"seed": "0x...", "env_pad_bytes": 1234, "stack_offset_bytes": 512,
 *               "heap_offset_bytes": 2048},
 *    "impl_lib": null, "external": null}
 *
 * The runner builds one per invocation (cb_request_build) and runs it in a child of the binary
 * that times the cell, or counts it (cb_request_run); `corobench ab` runs the same request in
 * another build. Each results cell records its first invocation's request (cells[].request). */
#ifndef CB_RUN_REQUEST_H
#define CB_RUN_REQUEST_H

#include <jansson.h>
#include <stddef.h>

#include "harness/common/proc.h"
#include "harness/measure/cell.h"
#include "options.h"
#include "plan.h"

#define CB_REQUEST_SCHEMA "corobench-cell/1"

/* The counting pass runs an uncounted-speed build: its request's timeout is this many times
 * --timeout. */
enum { CB_COUNT_TIMEOUT_FACTOR = 10 };

/* What the cell's process does with its cell. */
typedef enum cb_request_mode {
    CB_REQUEST_TIME,  /* the timed pass: the invocation's result (ns_per_op, memory, ...) */
    CB_REQUEST_COUNT, /* the counting pass (--rsb sim), in an instrumented build: "rsbsim" */
} cb_request_mode;

/* The request of plan cell pc for invocation inv (0-based) of the run o, a new object.
 * mode time: the invocation's layout, drawn from o->layout_seed, pc->index and inv
 * (run/invocation.h), timeout_s o->timeout_s; mode count: no layout (null), timeout_s
 * CB_COUNT_TIMEOUT_FACTOR x o->timeout_s, inv ignored. It carries this process's clock
 * calibration (tsc_hz: call cb_clock_init first, or it is null and the cell calibrates its own)
 * and the kernel's bytes per VMA (measure/kmem.h: cb_kmem_calibrate, which cb_results_new runs;
 * null when not measured). A plugin's cell names its shared object (impl_lib), a --external
 * one its command (external). */
json_t *cb_request_build(const cb_run_opts *o, const cb_plan_cell *pc, unsigned inv,
                         cb_request_mode mode);

/* The binary the plan names for pc's pass: the timing build of its variant (this binary when
 * it is that variant) or, counting, its instrumented build; NULL when the plan has no counting
 * pass for it. */
const char *cb_request_binary(const cb_plan_cell *pc, cb_request_mode mode);

/* Runs req in `binary` (a corobench build's path; NULL: a failed record): a child through the process API
 * (common/proc.h: its own process group, dying with this process, pinned to req's pin_cpu,
 * killed after req's timeout_s with a backstop timer of its own), which execs
 * `binary cell --request -` with req on its stdin and, in mode time, the layout's environment
 * padding (COROBENCH_LAYOUT_PAD, env_pad_bytes of 'x') in its environment. stderr is captured.
 * Always returns a new object with "status":
 * - what the cell's process printed: status "ok" (the invocation's result, as cb_inv_record and
 *   cb_inv_merge take it), "failed" or "unsupported", each with "error";
 * - else {"status": "timeout", "error": "timed out after S s"} (or "... (ended by the cell's own
 *   backstop timer)"), or {"status": "failed", "error": WHY}: the stderr line that names the
 *   fault and the exit status (cb_proc_failure), a result that is not JSON, no result.
 * When an interrupt (cb_proc_stop_on_interrupt) killed the child the record is "failed" too:
 * the caller asks cb_proc_interrupted() to tell an unfinished cell from a failed one. */
json_t *cb_request_run(const char *binary, const json_t *req);

/* cb_request_run in two steps, for two children at once (ab's pairs): start the child, then
 * wait for it and read its record. turn_fd >= 0: the child gets it as fd CB_REQUEST_TURN_FD (its
 * request's "turns" names that fd: measure/turns.h); the caller closes its own copy after the
 * start, so that the pair's socket ends with the children. wrap: NULL, or a program and its
 * arguments (NULL-terminated, at most 26) that the child runs the binary under (ab's valgrind
 * count). The record of a child that could not start is made at the start and returned by the
 * finish. */
enum { CB_REQUEST_TURN_FD = 3 };
typedef struct cb_request_child {
    cb_proc p;
    double timeout_s;
    json_t *failed;
} cb_request_child;
void cb_request_start(cb_request_child *ch, const char *binary, const json_t *req, int turn_fd,
                      const char *const *wrap);
json_t *cb_request_finish(cb_request_child *ch);

/* Why this build cannot run cell c in variant (the workload's point needs a capability the
 * implementation lacks, a language's runtime in a rewritten variant, no body for the family):
 * "unsupported: ..." in buf, returned; NULL when it can. The runner asks before starting a
 * process, the cell's process again for a request given by hand. */
const char *cb_request_unsupported(const cb_cell *c, const char *variant, char *buf, size_t len);

/* In the cell's process (`corobench cell --request`): checks req and measures or counts its
 * cell here, the layout applied before the measured region, then prints the result on stdout.
 * A bad request: one line naming the field and its value (with the valid ones) on stderr, exit
 * status 2 (CB_EXIT_USAGE). Loads req's impl_lib or registers its external command first. */
int cb_request_serve(json_t *req);
/* Where cb_request_serve writes the result: stdout (1), or the descriptor `corobench cell`
 * moved it to before anything could print there. */
extern int cb_request_result_fd;

#endif
