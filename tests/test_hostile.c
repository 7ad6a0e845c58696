/* Reproductions of issue 25's hostile-tester defects that are not about the calibration file
 * (tests/test_calibration.c has those): each names its docs/bad-input.md row. */
#include <jansson.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/results/baseline.h"
#include "harness/results/cell.h"
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

/* run.sh's thread stage (claim 25) runs io at the most connections the descriptor limit allows,
 * as io's own check counts them: (1000 - 64 kept for the harness - 2) / 2 under a limit of 1000,
 * and the cap where the limit allows more. */
CB_TEST(runsh_io_conns_from_the_file_limit)
{
    char *out = run_args_sh("ulimit -n 1000; io_max_conns 10000; io_max_conns 100");
    CB_CHECK_STREQ(out, "467\n100\n");
    free(out);
}

/* Issue 30, MEDIUM 7: `./run.sh --ci -- --reps 2` (or --pin, --invocations, --param
 * pingpong.depth=4) exited 2, "option --reps given twice": the --ci path passed its own options
 * beside the user's. And `./run.sh --quick -- --param depth=4 --dry-run` planned stage 1, then
 * exited 2 at stage 2, the switches alone (work=none, which takes depth 0 only): that stage is
 * now left out, saying why. Both as dry runs (run.sh's build step is make's up-to-date check). */
CB_TEST_T(runsh_ci_and_stages_take_the_user_arguments, 240)
{
    if (access("run.sh", X_OK) != 0 || access("bin/corobench", X_OK) != 0)
        CB_SKIP("run.sh or bin/corobench not found from %s (run from the built tree)",
                getcwd(NULL, 0));
    char *ci[] = {"/bin/bash", "-c",
                  ". scripts/run-args.sh; exec ./run.sh --ci -- --reps 2 --invocations 2 "
                  "--pin \"$(last_allowed_cpu)\" --param pingpong.depth=4 --dry-run",
                  NULL};
    char *quick[] = {"/bin/bash", "-c", "exec ./run.sh --quick -- --param depth=4 --dry-run",
                     NULL};
    char *out, *err;
    int st = cb_test_spawn(ci, &out, &err);
    if (st != 0)
        CB_FAIL("run.sh --ci: exit %d: %s", st, err);
    CB_CHECK_CONTAINS(out, "2 invocations each");
    CB_CHECK_CONTAINS(out, "2 timed repetitions");
    free(out), free(err);
    st = cb_test_spawn(quick, &out, &err);
    if (st != 0)
        CB_FAIL("run.sh --quick: exit %d: %s", st, err);
    CB_CHECK_CONTAINS(err, "[stage 2/10: switch] left out");
    CB_CHECK_CONTAINS(err, "[stage 5/10: deep-share] left out");
    CB_CHECK(strstr(err, "given twice") == NULL);
    CB_CHECK_CONTAINS(out, "run.sh: the stages' estimates add up to ");
    free(out), free(err);
}

/* Issue 32 item 6: a dry run of run.sh's suite says its stages' estimates added up (each stage
 * printed its own, and the reader added them). */
CB_TEST(runsh_dry_run_adds_up_the_stages)
{
    char *out = run_args_sh("f=$(mktemp); printf '%s\\n' 'plan: 5 cells' "
                            "'estimated time: 1:41; the run'\\''s ETA corrects it' "
                            "'  pingpong 5 cells' 'estimated time: 0:07; the run' "
                            "'estimated time: 1:02:05; the run' > \"$f\"; sum_estimates \"$f\"; "
                            ": > \"$f\"; sum_estimates \"$f\"; rm -f \"$f\"");
    CB_CHECK_STREQ(out, "1:03:53\n0:00\n");
    free(out);
}

/* Issue 30, LOW 7: `./run.sh --quick --ci` ran --ci's grid, --quick ignored silently. Refused
 * now with one line naming both, before anything is built (as --fleet with --quick is). Given
 * -- --dry-run, so that a run.sh that takes it plans and ends quickly. */
CB_TEST_T(runsh_quick_with_ci_refused, 120)
{
    if (access("run.sh", X_OK) != 0)
        CB_SKIP("run.sh not found from %s (run from the built tree)", getcwd(NULL, 0));
    const char *orders[2][2] = {{"--quick", "--ci"}, {"--ci", "--quick"}};
    for (int k = 0; k < 2; k++) {
        char *argv[] = {"./run.sh", (char *)orders[k][0], (char *)orders[k][1], "--",
                        "--dry-run", NULL},
             *out, *err;
        int st = cb_test_spawn(argv, &out, &err);
        if (st != 2)
            CB_FAIL("run.sh %s %s: exit %d (want 2): %s", orders[k][0], orders[k][1], st, err);
        CB_CHECK_STREQ(err, "run.sh: --quick and --ci are two grids (valid: one of --quick, "
                            "--ci)\n");
        CB_CHECK_STREQ(out, "");
        free(out), free(err);
    }
}

/* ./run.sh --help printed lines 2-21 of its header only: the end of --fleet's entry and the
 * -- ARGS line were cut off. Every option run.sh accepts (its "valid:" list) is in --help. */
CB_TEST_T(runsh_help_names_every_option, 60)
{
    if (access("run.sh", X_OK) != 0)
        CB_SKIP("run.sh not found from %s (run from the built tree)", getcwd(NULL, 0));
    char *argv[] = {"./run.sh", "--help", NULL}, *out, *err;
    static const char *const opts[] = {"./run.sh --quick", "./run.sh --calibrate", "./run.sh --ci",
                                       "--ci --base DIR", "./run.sh --fleet",
                                       "not with --quick, --ci or -- ARGS", "./run.sh -- ARGS"};
    CB_CHECK_EQ_INT(cb_test_spawn(argv, &out, &err), 0);
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
        if (!strstr(out, opts[i]))
            CB_FAIL("run.sh --help lacks '%s': %s", opts[i], out);
    free(out), free(err);
}

CB_TEST(runsh_build_condensed)
{
    /* ./run.sh --quick printed nothing for 4 min 20 s while it built (make >/dev/null): it now
     * shows a line per step, make's commands condensed, and passes errors through whole. */
    char *out = run_args_sh(
        "printf '%s\\n' 'gcc -D_GNU_SOURCE -I. -std=gnu11 -O2 -MMD -MP -c -o "
        "build/x86_64/harness/run/plan.o harness/run/plan.c' 'harness/run/plan.c:3:1: error: x' "
        "'gcc -std=gnu11 -O2 -o bin/corobench build/x86_64/harness/main.o -ljansson' "
        "'gcc -DCB_CO_INLINE=1 -c -o build/x86_64/workloads/inline/io.o.tmp workloads/io.c' "
        "'objcopy -G cb_wl_io_inline build/x86_64/workloads/inline/io.o.tmp "
        "build/x86_64/workloads/inline/io.o' 'build/x86_64/tools/cb_asmrw --jmpret a.s b.s' "
        "| condense_make /tmp/cbtest-steps-$$; echo steps $(cat /tmp/cbtest-steps-$$); "
        "rm -f /tmp/cbtest-steps-$$; human_secs 260; human_secs 12.34");
    CB_CHECK_STREQ(out, "  CC    build/x86_64/harness/run/plan.o\n"
                        "harness/run/plan.c:3:1: error: x\n"
                        "  LD    bin/corobench\n"
                        "  CC    build/x86_64/workloads/inline/io.o\n"
                        "  RW    --jmpret\n"
                        "steps 4\n"
                        "4 min 20 s\n"
                        "12.3 s\n");
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

/* The work of the default pingpong point as corobench's sm body does it, as reply fields
 * ("ops":N,"checksum":"0x...","suspensions":N): a fake runtime's reply that is otherwise right
 * must do that work (the cell is checked against sm on the same point). */
static void sm_pingpong_work(char *buf, size_t len)
{
    char out[300];
    cb_test_tmp_path(out, sizeof out, "smwork.json");
    cb_test_cli r = cb_test_corobench("run", "--impl", "sm", "--workload", "pingpong", "--reps",
                                      "1", "--invocations", "1", "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    free(r.out);
    free(r.err);
    json_error_t e;
    json_t *doc = json_load_file(out, 0, &e);
    CB_CHECK(doc != NULL);
    json_t *c = json_array_get(json_object_get(doc, "cells"), 0);
    snprintf(buf, len, "\"ops\":%lld,\"checksum\":\"%s\",\"suspensions\":%lld",
             (long long)json_integer_value(json_object_get(c, "ops")),
             json_string_value(json_object_get(c, "checksum")),
             (long long)json_integer_value(json_object_get(c, "suspensions")));
    json_decref(doc);
    unlink(out);
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
        {"\"checksum\":\"0x00000000000000ff\",\"suspensions\":5,\"rest_coroutines\":0",
         "go: reply: rest_coroutines is 0 (valid: null or an integer from 1)"},
        {"\"checksum\":\"0x00000000000000ff\",\"suspensions\":5,\"rest_rss_bytes\":4096",
         "go: reply: rest_rss_bytes is 4096 (valid: null, or an integer with rest_coroutines)"},
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
    /* The same reply with good fields (the work sm does on the point) is ok: the checks are
     * not what fails it. */
    char work[200], script[1000];
    sm_pingpong_work(work, sizeof work);
    snprintf(script, sizeof script,
             "#!/bin/sh\necho '{\"protocol\":\"corobench-external/1\",\"runtime\":\"fake\","
             "\"batch\":1,\"samples_ns_per_op\":[10.5],%s,\"peak_rss_bytes\":4096}'\n",
             work);
    fake_tree(root, sizeof root, script, 0755);
    json_t *cell = fake_go_cell(root);
    CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), "ok");
    json_decref(cell);
    /* A negative coroutine_bytes (mono's GC counters gave -424 at recursive's rest point) is no
     * memory figure, but the times stand: ok, memory not measured, the reason recorded. */
    snprintf(script, sizeof script,
             "#!/bin/sh\necho '{\"protocol\":\"corobench-external/1\",\"runtime\":\"fake\","
             "\"batch\":1,\"samples_ns_per_op\":[10.5],%s,\"coroutine_bytes\":-424}'\n",
             work);
    fake_tree(root, sizeof root, script, 0755);
    cell = fake_go_cell(root);
    CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), "ok");
    json_t *mem = json_object_get(cell, "memory");
    CB_CHECK(json_is_null(json_object_get(mem, "heap_bytes_per_coro")));
    CB_CHECK_CONTAINS(json_string_value(json_object_get(mem, "error")),
                      "the runtime's statistics gave -424 bytes per coroutine");
    json_decref(cell);
    /* The process's resident growth by the rest point is divided by the coroutines alive there
     * (memory.rss_bytes_per_coro, a C cell's definition); a shrunk process (a collector gave back
     * more than the coroutines took) is no figure, with the reason. */
    static const struct {
        long long rss;
        double per; /* < 0: null */
        const char *why;
    } rest[] = {{409600, 409.6, NULL}, {-8192, -1, "shrank by 8192 bytes"}};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++) {
        snprintf(script, sizeof script,
                 "#!/bin/sh\necho '{\"protocol\":\"corobench-external/1\",\"runtime\":\"fake\","
                 "\"batch\":1,\"samples_ns_per_op\":[10.5],%s,\"coroutine_bytes\":300,"
                 "\"rest_coroutines\":1000,\"rest_rss_bytes\":%lld}'\n",
                 work, rest[i].rss);
        fake_tree(root, sizeof root, script, 0755);
        cell = fake_go_cell(root);
        CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), "ok");
        mem = json_object_get(cell, "memory");
        CB_CHECK_EQ_INT(json_integer_value(json_object_get(mem, "coroutines")), 1000);
        json_t *per = json_object_get(mem, "rss_bytes_per_coro");
        if (rest[i].per >= 0)
            CB_CHECK(json_is_number(per) && json_number_value(per) == rest[i].per);
        else {
            CB_CHECK(json_is_null(per));
            CB_CHECK_CONTAINS(json_string_value(json_object_get(
                                  json_object_get(mem, "null_reasons"), "rss_bytes_per_coro")),
                              rest[i].why);
        }
        json_decref(cell);
    }
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

/* ---- report ----------------------------------------------------------------------------- */

#define BASELINE CB_BASELINE_DIR "/" CB_GATE_BASELINE_PREFIX "x86_64.json"

/* A private directory for this test process (support.c). */
static const char *tdir(void) { return cb_test_dir("hostile"); }
static void tdir_cleanup(void) { cb_test_dir_cleanup("hostile"); }

/* The baseline with machine.hostname set, written to path. */
static void baseline_as(const char *path, const char *host)
{
    json_error_t e;
    json_t *doc = json_load_file(BASELINE, 0, &e);
    if (!doc)
        CB_SKIP("%s not readable from here: %s", BASELINE, e.text);
    json_t *m = json_object_get(doc, "machine");
    if (!m)
        json_object_set_new(doc, "machine", m = json_object());
    json_object_set_new(m, "hostname", json_string(host));
    CB_CHECK_EQ_INT(json_dump_file(doc, path, 0), 0);
    json_decref(doc);
}

CB_TEST(report_thirty_machines_unique_labels)
{
    /* 30 machines were labelled A..Z then A..D again: machine 27 was a second "Machine A" (and
     * wrote its plots over machine 1's). */
    char *argv[40], paths[30][300], md[300];
    size_t n = 0;
    argv[n++] = "report";
    for (int i = 0; i < 30; i++) {
        char host[32];
        snprintf(host, sizeof host, "m%02d", i);
        snprintf(paths[i], sizeof paths[i], "%s/%s.json", tdir(), host);
        baseline_as(paths[i], host);
        argv[n++] = paths[i];
    }
    snprintf(md, sizeof md, "%s/many.md", tdir());
    argv[n++] = "--no-plots";
    argv[n++] = "-o";
    argv[n++] = md;
    argv[n] = NULL;
    char path[4200], *out, *err;
    snprintf(path, sizeof path, "%s/bin/corobench", cb_test_root());
    char *full[42] = {path};
    memcpy(full + 1, argv, (n + 1) * sizeof *argv);
    CB_CHECK_EQ_INT(cb_test_spawn(full, &out, &err), 0);
    char *text = cb_test_md_unwrap(cb_test_slurp(md));
    CB_CHECK_CONTAINS(text, "\n# Machine Z\n");
    CB_CHECK_CONTAINS(text, "\n# Machine AA\n");
    CB_CHECK_CONTAINS(text, "\n# Machine AD\n");
    CB_CHECK_CONTAINS(text, "- AD: m29");
    const char *first = strstr(text, "\n# Machine A\n");
    CB_CHECK(first && !strstr(first + 1, "\n# Machine A\n"));
    free(text);
    free(out);
    free(err);
    tdir_cleanup();
}

CB_TEST(report_plots_path_checked_up_front)
{
    /* -o a path long enough to pass, whose plot files would not: 11 x "path is too long", exit
     * 0, and the report said the plots lacked data. Now refused before any work. */
    char p[4096];
    int n = snprintf(p, sizeof p, "%s", tdir());
    while (n < 3300) {
        n += snprintf(p + n, sizeof p - (size_t)n, "/%0200d", 0);
        mkdir(p, 0700);
    }
    /* 3560 bytes of directories and a 150-byte name: the report's path is within -o's limit,
     * its plots directory plus a plot's file name is not. */
    n += snprintf(p + n, sizeof p - (size_t)n, "/%0*d", 3560 - n - 1, 0);
    mkdir(p, 0700);
    snprintf(p + n, sizeof p - (size_t)n, "/%0150d.md", 0);
    cb_test_cli r = cb_test_corobench("report", BASELINE, "-o", p, NULL);
    CB_CHECK_EQ_INT(r.status, 2);
    CB_CHECK_CONTAINS(r.err, "is too long for the plot files in it");
    CB_CHECK(!strchr(r.err, '\n') || !strchr(strchr(r.err, '\n') + 1, '\n'));
    CB_CHECK(access(p, F_OK) != 0);
    free(r.out);
    free(r.err);
    tdir_cleanup();
}

CB_TEST(report_names_escaped_and_dashdash)
{
    /* Spaces broke the Markdown links, a newline in a file name broke the document, `--` was
     * refused, and --no-plots advised a --plots that does not exist. */
    char in[300], md[300], nl[300], dash[300];
    snprintf(in, sizeof in, "%s/with space.json", tdir());
    snprintf(md, sizeof md, "%s/r with space.md", tdir());
    snprintf(nl, sizeof nl, "%s/new\nline.json", tdir());
    snprintf(dash, sizeof dash, "%s/-dash.json", tdir());
    baseline_as(in, "host");
    baseline_as(nl, "host2");
    baseline_as(dash, "host3");
    cb_test_cli r = cb_test_corobench("report", in, "-o", md, NULL);
    if (r.status != 0)
        CB_FAIL("report: exit %d: %s", r.status, r.err);
    char *text = cb_test_md_unwrap(cb_test_slurp(md));
    /* Every link to a plot is in angle brackets, its spaces kept. */
    CB_CHECK_CONTAINS(text, "](<r with space-plots/");
    CB_CHECK(!strstr(text, "](r with space-plots/"));
    free(text);
    free(r.out);
    free(r.err);
    r = cb_test_corobench("report", nl, "--no-plots", NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    cb_test_md_unwrap(r.out);
    CB_CHECK_CONTAINS(r.out, "- results: `");
    CB_CHECK_CONTAINS(r.out, "new?line.json`");
    CB_CHECK(!strstr(r.out, "--plots)"));
    CB_CHECK_CONTAINS(r.out, "without --no-plots");
    free(r.out);
    free(r.err);
    char bin[4096], abs[4200], *out, *err;
    CB_CHECK(realpath(cb_test_root(), bin) != NULL);
    snprintf(abs, sizeof abs, "%s/bin/corobench", bin);
    CB_CHECK_EQ_INT(chdir(tdir()), 0);
    char *argv[] = {abs, "report", "--no-plots", "--", "-dash.json", NULL};
    CB_CHECK_EQ_INT(cb_test_spawn(argv, &out, &err), 0);
    CB_CHECK_CONTAINS(out, "- results: `-dash.json`");
    free(out);
    free(err);
    tdir_cleanup();
}

/* Issue 30, LOW 6: -o X.HTML and -o X.htm were written as Markdown (the suffix matched as
 * ".html" exactly), their plots in X.HTML-plots/; now any case, and .htm too. */
CB_TEST(report_html_suffix_any_case_and_htm)
{
    char in[300], out[300];
    snprintf(in, sizeof in, "%s/in.json", tdir());
    baseline_as(in, "host");
    const char *names[] = {"X.HTML", "y.htm", "z.Md"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(out, sizeof out, "%s/%s", tdir(), names[i]);
        cb_test_cli r = cb_test_corobench("report", in, "-o", out, NULL);
        if (r.status != 0)
            CB_FAIL("report -o %s: exit %d: %s", names[i], r.status, r.err);
        char *text = cb_test_slurp(out);
        if (i < 2)
            CB_CHECK(!strncmp(text, "<!DOCTYPE html>", 15));
        else
            CB_CHECK(!strncmp(text, "# corobench report", 18));
        snprintf(out, sizeof out, "%s/%.1s-plots", tdir(), names[i]);
        CB_CHECK(access(out, F_OK) == 0);
        free(text);
        free(r.out);
        free(r.err);
    }
    tdir_cleanup();
}

/* ---- export and compare ------------------------------------------------------------------ */

/* A small results file with samples (sm pingpong, depth 0 and 1, both sites), at path. */
static void small_results(const char *path)
{
    cb_test_cli r = cb_test_corobench("run", "--impl", "sm", "--workload", "pingpong", "--param",
                                      "depth=0,1", "--param", "sites=distinct,same", "--param",
                                      "switches=100", "--reps", "3",
                                      "--min-rep-ms", "1", "--no-table", "-o", path, NULL);
    if (r.status != 0)
        CB_FAIL("run: exit %d: %s", r.status, r.err);
    free(r.out);
    free(r.err);
}

CB_TEST(export_overflow_and_params_by_value)
{
    char in[300], bad[300], out[300];
    snprintf(in, sizeof in, "%s/in.json", tdir());
    snprintf(bad, sizeof bad, "%s/bad.json", tdir());
    snprintf(out, sizeof out, "%s/g.json", tdir());
    small_results(in);
    json_error_t e;
    json_t *doc = json_load_file(in, 0, &e);
    CB_CHECK(doc != NULL);
    /* ops near 2^63: ops x batch overflowed (signed: undefined) to a negative iteration count. */
    json_t *c0 = json_array_get(json_object_get(doc, "cells"), 0);
    json_object_set_new(c0, "ops", json_integer(INT64_MAX / 2));
    json_object_set_new(c0, "batch", json_integer(4));
    CB_CHECK_EQ_INT(json_dump_file(doc, bad, 0), 0);
    cb_test_cli r = cb_test_corobench("export", bad, "--format", "gbench", "-o", out, NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    CB_CHECK_CONTAINS(r.err, "ops x batch does not fit in 64 bits; cell left out");
    char *text = cb_test_slurp(out);
    CB_CHECK(!strstr(text, "\"iterations\": -"));
    free(text);
    free(r.out);
    free(r.err);
    /* Samples near the double range (1e308): the sum overflowed to inf and the aggregate rows
     * (inf is not JSON) were dropped without a word. */
    json_decref(doc);
    doc = json_load_file(in, 0, &e);
    c0 = json_array_get(json_object_get(doc, "cells"), 0);
    json_object_set_new(c0, "samples_ns_per_op", json_pack("[f, f, f]", 1e308, 1.5e308, 1e300));
    CB_CHECK_EQ_INT(json_dump_file(doc, bad, 0), 0);
    r = cb_test_corobench("export", bad, "--format", "gbench", "-o", out, "--force", NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    CB_CHECK_CONTAINS(r.err, "its stddev does not fit in a double; that aggregate row left out");
    text = cb_test_slurp(out);
    CB_CHECK_CONTAINS(text, "_mean\"");
    free(text);
    free(r.out);
    free(r.err);
    /* depth 0 and depth "0": the same point, so the same cell twice. */
    json_decref(doc);
    doc = json_load_file(in, 0, &e);
    json_t *cells = json_object_get(doc, "cells"), *twin = json_deep_copy(json_array_get(cells, 0));
    json_t *p = json_object_get(twin, "params");
    json_object_set_new(p, "depth", json_sprintf("%lld", (long long)json_integer_value(
                                                             json_object_get(p, "depth"))));
    json_array_append_new(cells, twin);
    CB_CHECK_EQ_INT(json_dump_file(doc, bad, 0), 0);
    json_decref(doc);
    r = cb_test_corobench("export", bad, "--format", "gbench", NULL);
    CB_CHECK_EQ_INT(r.status, 2);
    CB_CHECK_CONTAINS(r.err, "are the same cell");
    free(r.out);
    free(r.err);
    tdir_cleanup();
}

CB_TEST(export_splits_series_by_varying_parameter)
{
    /* Without --where, sites=distinct and sites=same were one series: two y per x. */
    char in[300];
    snprintf(in, sizeof in, "%s/in.json", tdir());
    small_results(in);
    cb_test_cli r = cb_test_corobench("export", in, "--workload", "pingpong", "--x", "depth", NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    CB_CHECK_CONTAINS(r.out, "\n\"sm sites=distinct\"\n");
    CB_CHECK_CONTAINS(r.out, "\n\"sm sites=same\"\n");
    free(r.out);
    free(r.err);
    /* With --where fixing it, one series as before. */
    r = cb_test_corobench("export", in, "--workload", "pingpong", "--x", "depth", "--where",
                          "sites=same", NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    CB_CHECK_CONTAINS(r.out, "\n\"sm\"\n");
    free(r.out);
    free(r.err);
    /* A parameter only one implementation has (closure's alloc, as run.sh's suite passes it)
     * splits that one's series, and names no other's: "sm", not "sm alloc=-", a name no plot
     * style knew as sm's. */
    r = cb_test_corobench("run", "--impl", "sm,closure", "--workload", "pingpong", "--param",
                          "depth=0,1", "--param", "alloc=malloc,pool", "--param", "switches=100",
                          "--invocations", "1", "--reps", "2", "--min-rep-ms", "1", "--no-table",
                          "-o", in, "--force", NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    free(r.out);
    free(r.err);
    r = cb_test_corobench("export", in, "--workload", "pingpong", "--x", "depth", NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    CB_CHECK_CONTAINS(r.out, "\n\"sm\"\n");
    CB_CHECK_CONTAINS(r.out, "\n\"closure alloc=malloc\"\n");
    CB_CHECK_CONTAINS(r.out, "\n\"closure alloc=pool\"\n");
    CB_CHECK(!strstr(r.out, "=-"));
    free(r.out);
    free(r.err);
    tdir_cleanup();
}

CB_TEST(compare_nothing_compared_and_machines_differ)
{
    char a[300], b[300], empty[300];
    snprintf(a, sizeof a, "%s/a.json", tdir());
    snprintf(b, sizeof b, "%s/b.json", tdir());
    snprintf(empty, sizeof empty, "%s/empty.json", tdir());
    small_results(a);
    json_error_t e;
    json_t *doc = json_load_file(a, 0, &e);
    CB_CHECK(doc != NULL);
    /* Another host name: said. */
    json_object_set_new(json_object_get(doc, "machine"), "hostname", json_string("elsewhere"));
    CB_CHECK_EQ_INT(json_dump_file(doc, b, 0), 0);
    cb_test_cli r = cb_test_corobench("compare", a, b, "--metric", "deterministic", NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    CB_CHECK_CONTAINS(r.out, "note: the files are from different machines (hostname '");
    free(r.out);
    free(r.err);
    /* No cells: exit 0 over "0 cells" before; nothing compared is not a pass. */
    json_array_clear(json_object_get(doc, "cells"));
    CB_CHECK_EQ_INT(json_dump_file(doc, empty, 0), 0);
    json_decref(doc);
    r = cb_test_corobench("compare", empty, empty, NULL);
    CB_CHECK_EQ_INT(r.status, 1);
    CB_CHECK_CONTAINS(r.err, "no cell ran in both files, nothing was compared");
    free(r.out);
    free(r.err);
    r = cb_test_corobench("compare", a, empty, "--allow-missing", NULL);
    CB_CHECK_EQ_INT(r.status, 1);
    CB_CHECK_CONTAINS(r.err, "nothing was compared");
    free(r.out);
    free(r.err);
    tdir_cleanup();
}

/* Rewrites the results file in as out with every time of every cell 1e308 ns: the summary, the
 * samples and each invocation's samples. 0, or -1 when in does not load. */
static int times_huge(const char *in, const char *out)
{
    json_error_t e;
    json_t *doc = json_load_file(in, 0, &e), *c;
    if (!doc)
        return -1;
    size_t i, k;
    json_array_foreach(json_object_get(doc, "cells"), i, c)
    {
        json_t *ns = json_object_get(c, "ns_per_op"), *inv, *s = json_object_get(c,
                                                                          "samples_ns_per_op");
        if (json_is_object(ns)) {
            json_object_set_new(ns, "median", json_real(1e308));
            json_object_set_new(ns, "min", json_real(1e308));
            json_object_set_new(ns, "max", json_real(1e308));
            json_object_set_new(ns, "ci95", json_pack("[f, f]", 1e308, 1e308));
        }
        for (k = 0; k < json_array_size(s); k++)
            json_array_set_new(s, k, json_real(1e308));
        json_array_foreach(json_object_get(c, "invocations"), k, inv)
        {
            json_t *is = json_object_get(inv, "samples_ns_per_op");
            for (size_t j = 0; j < json_array_size(is); j++)
                json_array_set_new(is, j, json_real(1e308));
        }
    }
    int rc = json_dump_file(doc, out, 0);
    json_decref(doc);
    return rc;
}

/* Row 21: a time of 1e308 ns (a corrupted file, an overflowing clock) is printed as 1e+308, not
 * as its 309 digits, in the report's tables and claims. */
CB_TEST(report_huge_times_not_printed_whole)
{
    char a[300], md[300];
    snprintf(a, sizeof a, "%s/huge.json", tdir());
    snprintf(md, sizeof md, "%s/huge.md", tdir());
    small_results(a);
    CB_CHECK_EQ_INT(times_huge(a, a), 0);
    cb_test_cli r = cb_test_corobench("report", a, "-o", md, "--no-plots", NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    char *text = cb_test_md_unwrap(cb_test_slurp(md));
    CB_CHECK_CONTAINS(text, "1e+308");
    size_t run = 0, longest = 0;
    for (const char *p = text; *p; p++) {
        run = *p >= '0' && *p <= '9' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    if (longest >= 20)
        CB_FAIL("the report prints a number of %zu digits", longest);
    free(text);
    free(r.out);
    free(r.err);
    tdir_cleanup();
}

/* Row 21, the claims' part: claim 1's depth fixture with every time 1e308 ns. Its least-squares
 * slope overflowed to -nan and the claim printed "adds -nan ns per switch ... (nan% of it)". */
CB_TEST(report_claim_slope_of_huge_times_not_nan)
{
    char a[300], md[300];
    snprintf(a, sizeof a, "%s/huge-depth.json", tdir());
    snprintf(md, sizeof md, "%s/huge-depth.md", tdir());
    CB_CHECK_EQ_INT(times_huge("tests/claims/depth/supported-same-flat.json", a), 0);
    cb_test_cli r = cb_test_corobench("report", a, "-o", md, "--no-plots", NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    char *text = cb_test_md_unwrap(cb_test_slurp(md));
    CB_CHECK_CONTAINS(text, "the cost per level has no finite value");
    if (strstr(text, "nan"))
        CB_FAIL("the report prints a NaN: ...%.80s", strstr(text, "nan") - 40);
    free(text);
    free(r.out);
    free(r.err);
    tdir_cleanup();
}

/* ---- run's output ------------------------------------------------------------------------- */

CB_TEST_T(run_vanished_dir_unusable_tmpdir_results_kept, 120)
{
    /* The -o directory removed mid-run with TMPDIR=/proc: every cell was lost. Now /tmp, then
     * the current directory, each failure said with its own reason. */
    char sub[300], out[320];
    snprintf(sub, sizeof sub, "%s/sub", tdir());
    snprintf(out, sizeof out, "%s/r.json", sub);
    CB_CHECK_EQ_INT(mkdir(sub, 0755), 0);
    setenv("TMPDIR", "/proc", 1);
    cb_proc p;
    cb_test_corobench_start(&p, "run", "--impl", "sm", "--workload", "recursive,fault",
                            "--param", "kind=hang", "--param", "height=4", "--reps", "1",
                            "--warmup", "0", "--timeout", "3", "--no-table", "-o", out, NULL);
    unsetenv("TMPDIR");
    /* The output was checked before the first cell's child started. */
    while (!cb_test_child_of(p.pid, NULL))
        usleep(1000);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", sub);
    CB_CHECK_EQ_INT(system(cmd), 0);
    cb_proc_result r;
    cb_proc_wait(&p, 0, &r);
    CB_CHECK_EQ_INT(cb_proc_exit_code(r.wait_status), 1);
    CB_CHECK_CONTAINS(r.err, "cannot write the results to");
    CB_CHECK_CONTAINS(r.err, "results written to '/tmp/");
    const char *at = strstr(r.err, "results written to '");
    char moved[512];
    CB_CHECK(sscanf(at, "results written to '%511[^']'", moved) == 1);
    json_error_t e;
    json_t *doc = json_load_file(moved, 0, &e);
    CB_CHECK(doc != NULL);
    CB_CHECK_EQ_INT(json_array_size(json_object_get(doc, "cells")), 2);
    json_decref(doc);
    unlink(moved);
    cb_proc_result_free(&r);
    tdir_cleanup();
}

CB_TEST(failure_line_and_bad_sample_name_what_they_saw)
{
    /* NODE_OPTIONS=--max-old-space-size=1: V8's fatal error ends with a line "#", and the cell's
     * error was "node: #". The line kept is the last that says something. */
    char line[256];
    cb_proc_last_line("<--- JS stacktrace --->\n\n\n#\n# Fatal javascript OOM in GC during "
                      "deserialization\n#\n\n",
                      line, sizeof line);
    CB_CHECK_STREQ(line, "# Fatal javascript OOM in GC during deserialization");
    cb_proc_last_line("one\ntwo\n", line, sizeof line);
    CB_CHECK_STREQ(line, "two");
    cb_proc_last_line("#\n", line, sizeof line);
    CB_CHECK_STREQ(line, "#");
    /* A negative sample: the reader's message said "is a number", not which. */
    char in[300];
    snprintf(in, sizeof in, "%s/neg.json", tdir());
    small_results(in);
    json_error_t e;
    json_t *doc = json_load_file(in, 0, &e);
    CB_CHECK(doc != NULL);
    json_array_set_new(json_object_get(json_array_get(json_object_get(doc, "cells"), 0),
                                       "samples_ns_per_op"),
                       0, json_real(-3.5));
    CB_CHECK_EQ_INT(json_dump_file(doc, in, 0), 0);
    json_decref(doc);
    cb_test_cli r = cb_test_corobench("report", in, "--no-plots", NULL);
    CB_CHECK_EQ_INT(r.status, 2);
    CB_CHECK_CONTAINS(r.err, "field 'samples_ns_per_op[0]' is -3.5 (valid: a finite number >= 0)");
    free(r.out);
    free(r.err);
    tdir_cleanup();
}

/* One rule for every figure a reader prints (results/cell.h's cb_fig; report.c and the claims
 * had three copies of it): fixed decimals, or three significant figures, and from 1e12 on an
 * exponent. */
CB_TEST(report_one_figure_rule)
{
    char b[32];
    CB_CHECK_STREQ(cb_fig(7.2912, CB_FIG_SIG3, b, sizeof b), "7.29");
    CB_CHECK_STREQ(cb_fig(43.81, CB_FIG_SIG3, b, sizeof b), "43.8");
    CB_CHECK_STREQ(cb_fig(175.4, CB_FIG_SIG3, b, sizeof b), "175");
    CB_CHECK_STREQ(cb_fig(18924.3, CB_FIG_SIG3, b, sizeof b), "18924");
    CB_CHECK_STREQ(cb_fig(-43.81, CB_FIG_SIG3, b, sizeof b), "-43.8");
    CB_CHECK_STREQ(cb_fig(12.345, 1, b, sizeof b), "12.3");
    CB_CHECK_STREQ(cb_fig(999999999999.0, 2, b, sizeof b), "999999999999.00");
    CB_CHECK_STREQ(cb_fig(1e12, 2, b, sizeof b), "1e+12");
    CB_CHECK_STREQ(cb_fig(1e308, CB_FIG_SIG3, b, sizeof b), "1e+308");
    CB_CHECK_STREQ(cb_fig(-1.5e13, 1, b, sizeof b), "-1.5e+13");
}

/* On a machine whose dpkg had never heard of some package (no apt lists yet), dpkg-query -W
 * exited 1; under pipefail that ended install-deps.sh's count silently, nothing was missing,
 * nothing was installed, and the build failed on jansson.h. A dpkg-query that knows none of
 * the packages must leave them all missing; one that knows all of them installed, none. */
CB_TEST_T(install_deps_counts_unknown_packages_missing, 60)
{
    if (access("scripts/install-deps.sh", X_OK) != 0)
        CB_SKIP("scripts/install-deps.sh not found from %s", getcwd(NULL, 0));
    char dir[300], path[400], env_path[4500];
    snprintf(dir, sizeof dir, "/tmp/cbtest-%ld-dpkg", (long)getpid());
    snprintf(path, sizeof path, "%s/dpkg-query", dir);
    snprintf(env_path, sizeof env_path, "PATH=%s:%.4000s", dir, getenv("PATH"));
    mkdir(dir, 0700);
    static const char *const fakes[2] = {
        "#!/bin/sh\necho 'dpkg-query: no packages found matching libjansson-dev' >&2\nexit 1\n",
        "#!/bin/sh\nshift 2\nfor p; do echo \"$p install ok installed\"; done\n"};
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen(path, "w");
        CB_CHECK(f && fputs(fakes[k], f) >= 0 && fclose(f) == 0);
        CB_CHECK_EQ_INT(chmod(path, 0700), 0);
        char *argv[] = {"/usr/bin/env", env_path, "scripts/install-deps.sh", "test", "--check",
                        NULL},
             *out, *err;
        int st = cb_test_spawn(argv, &out, &err);
        if (k == 0) {
            if (st != 1)
                CB_FAIL("no package known: exit %d (want 1): %s", st, err);
            CB_CHECK_CONTAINS(err, "missing packages (test): gcc make git libjansson-dev");
        } else {
            if (st != 0)
                CB_FAIL("every package installed: exit %d (want 0): %s", st, err);
            CB_CHECK_STREQ(err, "");
        }
        free(out), free(err);
    }
    unlink(path);
    rmdir(dir);
}
