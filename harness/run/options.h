/* The options of `corobench run`, parsed once into one struct that the plan, the runner, the
 * cells' requests and the results read. */
#ifndef CB_OPTIONS_H
#define CB_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "harness/measure/cell.h"

/* One user-supplied --param NAME=V1,V2,... (values kept as text, parsed per definition). */
typedef struct cb_param_arg {
    const char *name;
    char **values;
    size_t nvalues;
} cb_param_arg;

/* Processes per cell (--invocations): the process is the unit of replication
 * (docs/measurement.md); 3 is the fewest from which an interval means much (harness/report/
 * interval.h widens K = 2's by 9x). */
enum { CB_DEFAULT_INVOCATIONS = 3, CB_MAX_INVOCATIONS = 1000 };
/* The longest repetition --min-rep-ms asks for: 1000 s (1e300 was taken, and the dry run's
 * estimate overflowed to "-153722867280912930:-8"). */
#define CB_MAX_MIN_REP_MS 1e6

/* run's defaults, defined once: the parser starts from them and `help run` prints them
 * (harness/help.c), so the two cannot differ. --quick replaces reps and min_rep_ms with its own
 * unless they are given. */
typedef struct cb_run_defaults {
    unsigned invocations, reps, warmup, quick_reps;
    double min_rep_ms, quick_min_rep_ms, timeout_s;
    unsigned rsb_entries, rsb_entries_underflow; /* --rsb-model circular's, underflow-btb's */
} cb_run_defaults;
extern const cb_run_defaults cb_run_default;

typedef struct cb_run_opts {
    const cb_impl **impls;
    size_t nimpls;
    const cb_workload **workloads;
    size_t nworkloads;
    cb_param_arg *params;
    size_t nparams;
    cb_measure_opts measure; /* reps, warmup, min_rep_ms, events, the simulated model */
    unsigned invocations; /* each cell runs in this many processes, interleaved */
    uint64_t layout_seed; /* the run's: each invocation's layout is drawn from it and recorded */
    int quick;
    int pin_cpu; /* -1: no pinning */
    double timeout_s;
    const char *out_path; /* NULL: a new results/<host>-<UTC time>.json (harness/common/output.h) */
    int force;            /* --force: -o may replace a regular file */
    const char *save_baseline; /* --save-baseline NAME: also results/baselines/NAME.json */
    int print_table;
    int wide;    /* --wide: the table with every column, however wide (default: 120 columns) */
    int dry_run; /* --dry-run: print the plan and its estimated time, run nothing */
    const char *filter; /* --filter REGEX: only the cells whose text matches (plan.h) */
    const char *pace_path; /* --pace FILE|none; NULL: this CPU kind's record (pace.h) */
    const char *variants[2]; /* --variant: build variants to run, "plain" and/or "jmpret" */
    size_t nvariants;
    int rsb_sim; /* --rsb sim: a counting pass per cell in the instrumented build */
    int rsb_model_set; /* --rsb-model circular|underflow-btb; 0: auto, this machine's model */
    int binaries_unchecked; /* the plan names the variants' binaries without checking that they
                               are built (a test planning the runs a claim suggests) */
    int argc;    /* the run arguments, argv[0] "run": recorded in run.argv */
    char **argv;
} cb_run_opts;

/* The value parsers of every command's options (run's and calibrate's), each 0 or one usage line
 * naming the option and the valid range and CB_EXIT_USAGE: a decimal integer from lo to hi; a
 * positive number up to max (of seconds for --timeout, else of milliseconds). */
int cb_opt_int(const char *opt, const char *s, long lo, long hi, long *out);
int cb_opt_positive(const char *opt, const char *s, double max, double *out);

/* Parses argv (argv[0] is "run") into o, with defaults, and validates it. Returns
 * CB_OPTS_PARSED, or an exit status to return (0 after --help, CB_EXIT_USAGE after a one-line
 * error). */
enum { CB_OPTS_PARSED = -1 };
int cb_run_opts_parse(int argc, char **argv, cb_run_opts *o);

#endif
