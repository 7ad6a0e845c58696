/* Reproductions of issue 25's hostile-tester defects that are not about the calibration file
 * (tests/test_calibration.c has those): each names its docs/bad-input.md row. */
#include <jansson.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

/* bash -c SCRIPT with run.sh's functions sourced; its stdout (malloc'd), or fails. */
static char *run_args_sh(const char *script)
{
    if (access("scripts/run-args.sh", R_OK) != 0)
        CB_SKIP("scripts/run-args.sh not found from %s (run from the tree)", getcwd(NULL, 0));
    char full[2048];
    snprintf(full, sizeof full, "set -euo pipefail; . scripts/run-args.sh; %s", script);
    char *argv[] = {"/bin/bash", "-c", full, NULL}, *out, *err;
    int st = cb_test_spawn(argv, &out, &err);
    if (st != 0)
        CB_FAIL("bash: exit %d: %s", st, err);
    free(err);
    return out;
}

CB_TEST(runsh_pins_the_last_allowed_cpu)
{
    /* taskset -c 1 ./run.sh: nproc says 1, so run.sh pinned CPU 0, which it may not use. */
    cpu_set_t set;
    CB_CHECK_EQ_INT(sched_getaffinity(0, sizeof set, &set), 0);
    if (!CPU_ISSET(1, &set))
        CB_SKIP("CPU 1 is not ours to use here");
    CPU_ZERO(&set);
    CPU_SET(1, &set);
    CB_CHECK_EQ_INT(sched_setaffinity(0, sizeof set, &set), 0);
    char *out = run_args_sh("last_allowed_cpu");
    CB_CHECK_STREQ(out, "1\n");
    free(out);
}

CB_TEST(runsh_user_arguments_win)
{
    /* ./run.sh --quick -- --reps 3: run.sh's own --reps 5 was passed too, and run refused the
     * option given twice. The user's option (or parameter) replaces run.sh's; -o stays. */
    char *out = run_args_sh(
        "extra=(--reps 3 --param depth=1 --no-table --pin=0 -o x.json); "
        "own=(--pin 1 --workload pingpong --param depth=0,16 --param sites=distinct,same "
        "--param recursive.height=8 --reps 5 --min-rep-ms 2 -o f.json --no-table); "
        "drop_given own; echo \"${own[*]}\"");
    CB_CHECK_STREQ(out, "--workload pingpong --param sites=distinct,same --param "
                        "recursive.height=8 --min-rep-ms 2 -o f.json\n");
    free(out);
}
