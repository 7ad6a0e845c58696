/* The corobench harness: command line, the grid of cells, per-cell child processes, timing,
 * and the results document. The JSON schema (docs/results-schema.md) is the contract; the table
 * on stdout is derived from the same cell objects. */
#ifndef CB_HARNESS_H
#define CB_HARNESS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "proc.h"
#include "workloads/workload.h"

#define CB_VERSION "0.1.0"
#define CB_SCHEMA "corobench-results/1"

extern const char cb_build_commit[], cb_build_cc[], cb_build_compiler[], cb_build_cflags[],
    cb_build_arch[], cb_build_variant[];

/* Exit statuses of the CLI. */
enum { CB_EXIT_OK = 0, CB_EXIT_CELLS_FAILED = 1, CB_EXIT_USAGE = 2 };

/* One user-supplied --param NAME=V1,V2,... (values kept as text, parsed per definition). */
typedef struct cb_param_arg {
    const char *name;
    char **values;
    size_t nvalues;
} cb_param_arg;

typedef struct cb_run_opts {
    const cb_impl **impls;
    size_t nimpls;
    const cb_workload **workloads;
    size_t nworkloads;
    cb_param_arg *params;
    size_t nparams;
    unsigned reps, warmup;
    double min_rep_ms; /* a repetition runs instances back to back until it lasts this long */
    int quick;
    int pin_cpu; /* -1: no pinning */
    double timeout_s;
    const char *out_path; /* NULL: results/<host>-<UTC>.json */
    int print_table;
    const char *events; /* --events LIST, NULL: none */
    int events_kernel;  /* --events-kernel: count kernel mode too */
    const char *variants[2]; /* --variant: build variants to run, "plain" and/or "jmpret" */
    size_t nvariants;
    int rsb_sim;          /* --rsb sim: a counting pass per cell in the instrumented build */
    unsigned rsb_entries; /* --rsb-entries: size of the simulated return stack */
    int rsb_model;        /* --rsb-model: a cb_rsb_model (harness/rsbsim.h) */
    int argc;
    char **argv;
} cb_run_opts;

/* One (implementation, workload, parameter point). */
typedef struct cb_cell {
    const cb_impl *impl;
    const cb_workload *wl;
    cb_params params;
    const char *variant; /* build variant that runs it ("plain", "jmpret"); set by variant.c */
    size_t index;        /* position in the run's cell list, for a cell run by another binary */
} cb_cell;

/* cli.c */
int cb_cmd_run(int argc, char **argv);
int cb_cmd_list(int argc, char **argv);
/* export.c, report.c */
int cb_cmd_export(int argc, char **argv);
int cb_cmd_report(int argc, char **argv);
/* compare.c */
int cb_cmd_compare(int argc, char **argv);
/* Splits "a,b,,c" at commas into a NULL-terminated array, empty items kept as ""; *n counts
 * them. One allocation: free() the result. */
char **cb_split_list(const char *s, size_t *n);
/* Prints a one-line "corobench: ..." error and returns CB_EXIT_USAGE. */
int cb_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* grid.c: expands the selection into cells; -1 with a message in err on a bad value. */
int cb_grid_build(const cb_run_opts *o, cb_cell **cells, size_t *ncells, char *err, size_t errlen);

/* variant.c (docs/rsb.md): build variants and the return-stack simulator's counting pass.
 * Options --variant, --rsb, --rsb-model, --rsb-entries; 0 or a usage error (exit status 2). */
int cb_variant_option(cb_run_opts *o, int opt, const char *arg);
/* After option parsing: defaults, and the binaries the options need must exist. */
int cb_variant_check(cb_run_opts *o);
/* One copy of every cell per variant (variants innermost, so they sit side by side). */
int cb_variant_expand(const cb_run_opts *o, cb_cell **cells, size_t *ncells);
/* In a cell's child: exec the binary of the cell's variant when it is not this one. */
void cb_variant_exec_if_foreign(const cb_cell *c, const cb_run_opts *o, int out_fd);
/* In the parent, after an ok timed run: the counting pass; adds "rsbsim" or fails the cell. */
void cb_variant_rsb_pass(const cb_cell *c, const cb_run_opts *o, json_t *cell);
/* After the run: every variant of a cell must have done the same work (checksum, suspensions)
 * as the first; a cell that did not is failed. Returns how many were failed. */
size_t cb_variant_cross_check(const cb_run_opts *o, const cb_cell *cells, size_t ncells,
                              json_t *cells_out);
/* run.variants, run.rsb, run.rsb_model, run.rsb_entries in the results document. */
void cb_variant_describe(const cb_run_opts *o, json_t *doc);
/* `corobench cell INDEX time|count RUN-ARGS...`: the hidden subcommand a parent execs. */
int cb_cmd_cell(int argc, char **argv);
/* Inside cb_cmd_run in cell mode: measure cells[index] here and print its JSON. */
int cb_variant_cell_main(const cb_run_opts *o, const cb_cell *cells, size_t ncells);

/* cell.c: in the cell's child process. Returns the measured part of a cell object. */
json_t *cb_cell_measure(const cb_cell *c, const cb_run_opts *o);

/* run.c: runs every cell in its own child; fills the cells array of doc. Returns the number
 * of cells that failed or timed out. */
/* What a cell's child runs: writes its JSON to out_fd and exits (or execs); never returns. */
typedef void (*cb_cell_body)(const cb_cell *c, const cb_run_opts *o, int out_fd);
/* Runs body in a forked child: its own process group (a timeout or an interrupt kills all of
 * it), pinned when --pin asks, stdout and stderr captured within timeout_s. Returns 0 with r
 * filled, or -1 with the reason in err (pipe or fork failed). */
int cb_cell_child(const cb_cell *c, const cb_run_opts *o, cb_cell_body body, double timeout_s,
                  cb_proc_result *r, char *err, size_t errlen);
/* "0x" and 16 hex digits, the form every checksum takes in the results. */
void cb_checksum_text(uint64_t sum, char buf[19]);
size_t cb_run_cells(const cb_run_opts *o, const cb_cell *cells, size_t ncells, json_t *cells_out);

/* results.c */
json_t *cb_results_new(const cb_run_opts *o);
json_t *cb_cell_header(const cb_cell *c);
/* Writes through a temporary file and rename. 0, or -1 with errno. */
int cb_results_write(json_t *doc, const char *path);
void cb_results_print_table(json_t *doc, FILE *out);
/* "depth=0 sites=distinct" from a cell's params; the implementation's own (stack, stack_mode)
 * never (impl_params 0) or only where they differ from their defaults (1). */
void cb_cell_params_text(json_t *cell, int impl_params, char *buf, size_t len);
/* The unit of one op of workload ("switch", "node", ...), from its cells; "op" if none has one. */
const char *cb_results_unit(json_t *cells, const char *workload);
/* Reads a results document and checks its schema; NULL after printing a usage error. */
json_t *cb_results_load(const char *path);
/* Text output to path through a temporary file (stdout when path is NULL); commit renames it
 * into place, so a reader never sees half a file. */
FILE *cb_output_open(const char *path, char *tmp, size_t tmplen);
int cb_output_commit(FILE *f, const char *path, const char *tmp);
/* results/<hostname>-<UTC timestamp>.json */
void cb_results_default_path(char *buf, size_t len);

/* stats.c: median and median absolute deviation of n samples (n > 0; sorts a copy). */
double cb_median(const double *x, size_t n);
double cb_mad(const double *x, size_t n, double median);

#endif
