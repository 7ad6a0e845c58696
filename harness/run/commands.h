/* The commands that run cells: run, list, calibrate, and cell (how a run's child measures one
 * cell, and how a person reruns one: `corobench cell --request FILE|-`, request.h). */
#ifndef CB_RUN_COMMANDS_H
#define CB_RUN_COMMANDS_H

int cb_cmd_run(int argc, char **argv);
int cb_cmd_list(int argc, char **argv);
int cb_cmd_cell(int argc, char **argv);
/* calibrate.c: fits the return-stack model to this CPU (docs/rsb.md, "Calibration"). */
int cb_cmd_calibrate(int argc, char **argv);
/* calibrate's defaults, defined once: its parser starts from them and `help calibrate` prints
 * them. */
typedef struct cb_calibrate_defaults {
    long switches, reps, runs, max_depth;
    double min_rep_ms;
} cb_calibrate_defaults;
extern const cb_calibrate_defaults cb_calibrate_default;
/* The directory calibrate writes to by default (for `help calibrate`). */
const char *cb_calibrate_dir(void);
/* checkext.c: docs/external.md's conformance test of a user's runtime. A point whose program
 * has not replied within --timeout SEC (by default this many seconds) is FAILED. */
int cb_cmd_check_external(int argc, char **argv);
#define CB_CHECK_EXTERNAL_TIMEOUT_S 60

#endif
