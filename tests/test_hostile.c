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

/* A tree of its own for bin/corobench (a copy), with a Makefile and impls/ so that it finds
 * its root there (impls/root.h), and the given bin/corobench-go script (NULL: none). */
static void fake_tree(char *root, size_t len, const char *go_script, int go_mode)
{
    snprintf(root, len, "/tmp/cbtest-%ld-tree", (long)getpid());
    char cmd[1500];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s/bin %s/impls && touch %s/Makefile && "
                              "cp %s/bin/corobench %s/bin/",
             root, root, root, root, cb_test_root(), root);
    CB_CHECK_EQ_INT(system(cmd), 0);
    if (go_script) {
        char path[600];
        snprintf(path, sizeof path, "%s/bin/corobench-go", root);
        FILE *f = fopen(path, "w");
        CB_CHECK(f && fputs(go_script, f) >= 0 && fclose(f) == 0);
        CB_CHECK_EQ_INT(chmod(path, (mode_t)go_mode), 0);
    }
}

static void rm_tree(const char *root)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CB_CHECK_EQ_INT(system(cmd), 0);
}

/* One go pingpong cell run by the fake tree's corobench: the cell (a new reference). */
static json_t *fake_go_cell(const char *root)
{
    char bin[600], out_path[600], *out, *err;
    snprintf(bin, sizeof bin, "%s/bin/corobench", root);
    snprintf(out_path, sizeof out_path, "%s/r.json", root);
    char *argv[] = {bin, "run", "--impl", "go", "--workload", "pingpong", "--reps", "1",
                    "--timeout", "20", "--no-table", "-o", out_path, NULL};
    int st = cb_test_spawn(argv, &out, &err);
    if (st != 0 && st != 1)
        CB_FAIL("run: exit %d: %s", st, err);
    free(out);
    free(err);
    json_error_t e;
    json_t *doc = json_load_file(out_path, 0, &e);
    CB_CHECK(doc != NULL);
    json_t *cell = json_incref(json_array_get(json_object_get(doc, "cells"), 0));
    json_decref(doc);
    unlink(out_path);
    return cell;
}

CB_TEST(external_reply_checked_before_ok)
{
    /* A runtime's reply with a negative suspension count or a checksum that is not "0x" and 16
     * hex digits was recorded ok; the report then refused the file. */
    static const struct {
        const char *fields, *says;
    } bad[] = {
        {"\"checksum\":\"0x00000000000000ff\",\"suspensions\":-5",
         "go: reply: suspensions is -5 (valid: an integer from 0)"},
        {"\"checksum\":\"-1\",\"suspensions\":5", "go: reply: checksum is \"-1\" (valid: \"0x\""},
        {"\"checksum\":\"0x00000000000000ff\",\"suspensions\":5,\"peak_rss_bytes\":-1",
         "go: reply: peak_rss_bytes is -1"},
    };
    char root[300];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char script[1000];
        snprintf(script, sizeof script,
                 "#!/bin/sh\necho '{\"protocol\":\"corobench-external/1\",\"runtime\":\"fake\","
                 "\"ops\":1000,\"batch\":1,\"samples_ns_per_op\":[10.5],%s}'\n",
                 bad[i].fields);
        fake_tree(root, sizeof root, script, 0755);
        json_t *cell = fake_go_cell(root);
        CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), "failed");
        CB_CHECK_CONTAINS(json_string_value(json_object_get(cell, "error")), bad[i].says);
        json_decref(cell);
    }
    /* The same reply with good fields is ok: the checks are not what fails it. */
    fake_tree(root, sizeof root,
              "#!/bin/sh\necho '{\"protocol\":\"corobench-external/1\",\"runtime\":\"fake\","
              "\"ops\":1000,\"batch\":1,\"samples_ns_per_op\":[10.5],"
              "\"checksum\":\"0x00000000000000ff\",\"suspensions\":5,\"peak_rss_bytes\":4096}'\n",
              0755);
    json_t *cell = fake_go_cell(root);
    CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), "ok");
    json_decref(cell);
    rm_tree(root);
}

CB_TEST(lang_not_executable_and_directory_on_path)
{
    /* chmod -x bin/corobench-go was reported as "not built"; a directory named node early on
     * PATH was chosen as node ("Permission denied"). */
    char root[300], bin[600], path[700], *out, *err;
    fake_tree(root, sizeof root, "#!/bin/sh\nexit 1\n", 0644);
    snprintf(bin, sizeof bin, "%s/bin/corobench", root);
    char nodedir[600];
    snprintf(nodedir, sizeof nodedir, "%s/pathdir/node", root);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", nodedir);
    CB_CHECK_EQ_INT(system(cmd), 0);
    /* PATH holds only the directory with a directory named node in it: no node. */
    char *old_path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    snprintf(path, sizeof path, "%s/pathdir", root);
    setenv("PATH", path, 1);
    char *argv[] = {bin, "list", NULL};
    CB_CHECK_EQ_INT(cb_test_spawn(argv, &out, &err), 0);
    CB_CHECK_CONTAINS(out, "bin/corobench-go is not executable");
    CB_CHECK_CONTAINS(out, "node not found in PATH");
    setenv("PATH", old_path, 1);
    free(old_path);
    free(out);
    free(err);
    rm_tree(root);
}

CB_TEST_T(go_godebug_of_the_caller_kept, 120)
{
    /* GODEBUG=gctrace=1: the program appended a second GODEBUG, Go read the first, and it
     * re-executed itself until the cell timed out. */
    char go[4200];
    snprintf(go, sizeof go, "%s/bin/corobench-go", cb_test_root());
    if (access(go, X_OK) != 0)
        CB_SKIP("bin/corobench-go not built here");
    setenv("GODEBUG", "gctrace=1", 1);
    char out_path[300];
    cb_test_tmp_path(out_path, sizeof out_path, "godebug.json");
    cb_test_cli r = cb_test_corobench("run", "--impl", "go", "--workload", "pingpong", "--param",
                                      "switches=1000", "--reps", "1", "--timeout", "30",
                                      "--no-table", "-o", out_path, NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    json_error_t e;
    json_t *doc = json_load_file(out_path, 0, &e);
    CB_CHECK(doc != NULL);
    CB_CHECK_STREQ(json_string_value(json_object_get(json_array_get(json_object_get(doc, "cells"),
                                                                    0),
                                                     "status")),
                   "ok");
    json_decref(doc);
    unlink(out_path);
    free(r.out);
    free(r.err);
}
