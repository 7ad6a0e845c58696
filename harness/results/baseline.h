/* Named baselines (docs/ci.md, "Gate your runtime"): `run --save-baseline NAME` writes a copy
 * of its results to results/baselines/NAME.json, `compare --baseline NAME NEW` reads it as the
 * base side. A name is a file name without a directory: letters, digits, '.', '_', '-', not
 * starting with '.', up to CB_BASELINE_NAME_MAX characters. */
#ifndef CB_BASELINE_H
#define CB_BASELINE_H

#include <stddef.h>

#include "harness/common/output.h"

enum { CB_BASELINE_NAME_MAX = 64 };

#define CB_BASELINE_DIR "results/baselines"
/* The deterministic gate's baseline there, in git: gate-<arch>.json (tests/gate.sh, docs/ci.md),
 * a named baseline like the others. */
#define CB_GATE_BASELINE_PREFIX "gate-"

/* 0 when name is a valid baseline name, else -1. */
int cb_baseline_name_check(const char *name);
/* results/baselines/NAME.json into buf (name checked first). */
void cb_baseline_path(const char *name, char *buf, size_t len);
/* The file of --save-baseline NAME set up in o, as a run does before anything runs: results/
 * and results/baselines/ (relative to the working directory) made when missing, the path checked
 * as an output replaced without --force. dry (run --dry-run): the same checks and refusals,
 * nothing made or kept. 0, or the exit status after one line. */
int cb_baseline_prepare(cb_out *o, const char *name, int dry);

#endif
