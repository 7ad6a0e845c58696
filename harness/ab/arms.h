/* The two arms of `corobench ab` (ab.c): the options that name them and the run's cell
 * selection passed to run's own parser, the links that give both arms' binaries paths of equal
 * length, and one arm's run of a cell's request. */
#ifndef CB_AB_ARMS_H
#define CB_AB_ARMS_H

#include <jansson.h>
#include <limits.h>
#include <stdint.h>

#include "harness/common/output.h"
#include "harness/report/cmpout.h"
#include "harness/run/plan.h"
#include "harness/run/request.h"

/* The knob of docs/ci.md, for the new arm only; the base arm gets OFF_VAR, of the same length,
 * so both arms' environments (and so their initial stacks) have the same size. */
#define SLOW_VAR "COROBENCH_TEST_SLOWDOWN"
#define OFF_VAR "COROBENCH_TEST_SLOWDOFF"

typedef struct arm {
    const char *name;    /* "base", "new" */
    const char *dir;     /* --base/--new DIR: a checkout whose bin/ holds the build */
    const char *lib;     /* --*-lib PATH */
    const char *ext;     /* --*-external NAME=COMMAND */
    char link_dir[PATH_MAX + 8]; /* TMP/b or TMP/n: the arm's binaries (and plugin) linked there */
    char lib_link[PATH_MAX + 32];
    char lib_identity[128]; /* the plugin's identity when ab started (impls/plugin.h) */
    const char *command; /* the external's COMMAND part */
    json_t *doc;         /* its results document */
    cb_out out;
} arm;

typedef struct ab_opts {
    arm arms[2]; /* indexed by cb_ab_arm */
    unsigned rounds, max_rounds;
    double threshold, budget, instr_threshold; /* percent */
    uint64_t seed;
    int seed_set, allow_missing, only_changed, dry_run, force;
    int sequential; /* --pairs sequential: a pair's processes one after the other, not in turns */
    cb_cmp_format format;
    const char *out_path;
    int run_argc;
    char **run_argv; /* "run" and the cell selection, for run's parser */
    char tmp[PATH_MAX]; /* the links' directory, "" until made */
    const char *slow;   /* COROBENCH_TEST_SLOWDOWN's value, NULL when unset */
} ab_opts;

/* ab's arguments into a (its defaults set by the caller): CB_OPTS_PARSED, or the exit status
 * after one line (a bad arm: the value named). a->run_argv is allocated, what it points to of
 * its own (new's plugin as an --impl-lib item) in the same block: free it. */
int cb_ab_parse(int argc, char **argv, ab_opts *a);
/* The links of both arms in a new temporary directory: 0, or the exit status after one line. */
int cb_ab_links_make(ab_opts *a);
void cb_ab_links_remove(ab_opts *a);
/* Arm k's run of req (request.h) for pc: the request with the arm's plugin or program, in the
 * arm's linked binary of the cell's variant, with the arm's environment. A new object. */
json_t *cb_ab_arm_run(const ab_opts *a, int k, const cb_plan_cell *pc, const json_t *req);
/* The same in two steps (request.h's start and finish), for two processes at once: turn_fd >= 0
 * is this arm's end of a pair's socket (they take turns), first whether it goes first; wrap a
 * program to run the arm's binary under (request.h), or NULL. */
void cb_ab_arm_start(const ab_opts *a, int k, const cb_plan_cell *pc, const json_t *req,
                     int turn_fd, int first, const char *const *wrap, cb_request_child *ch);
/* Puts the environment back as it was before the arms' runs. */
void cb_ab_env_restore(const ab_opts *a);

#endif
