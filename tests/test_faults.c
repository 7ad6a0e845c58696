/* Faults injected on purpose (workloads/fault.c, docs/fault.md): every kind in every family is
 * recorded as failed or timeout with a reason naming the fault, the other cells complete, the
 * JSON is valid and the run exits 1. Also the messages of faults met in real runs: a chunked
 * stack's overflow, guarded stacks past vm.max_map_count, io under a low file limit, and a cell
 * killed from outside. */
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "impls/impls.h"
#include "test.h"

static json_t *load_cells(const char *path)
{
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    if (!doc)
        CB_FAIL("%s: %s (line %d)", path, e.text, e.line);
    json_t *cells = json_incref(json_object_get(doc, "cells"));
    json_decref(doc);
    CB_CHECK(json_is_array(cells));
    return cells;
}

static const char *str(json_t *cell, const char *key)
{
    const char *s = json_string_value(json_object_get(cell, key));
    CB_CHECK(s != NULL);
    return s;
}

/* What the error of a fault cell must say, by kind and family. */
static const char *expected(const char *kind, const char *family)
{
#if defined(__SANITIZE_ADDRESS__)
    /* The sanitizers see a null store or a stack overflow first, and name it. */
    if (!strcmp(kind, "segv"))
        return "store to null pointer";
    if (!strcmp(kind, "overflow"))
        return "overflow";
#endif
    if (!strcmp(kind, "segv"))
        return "killed by signal 11 (Segmentation fault)";
    if (!strcmp(kind, "overflow"))
        return !strcmp(family, "stackful") ? "coroutine stack overflow (impl="
                                           : "thread stack overflow (RLIMIT_STACK";
    if (!strcmp(kind, "hang"))
        return "timed out after 1 s";
    if (!strcmp(kind, "abort"))
        return "killed by signal 6 (Aborted)";
    return "exited with status 0 without sending its result";
}

/* Every kind in every C family, between two ordinary cells that must complete. (The languages'
 * runtimes have no fault body: their cells are unsupported, tests/test_external.c.) */
CB_TEST_T(fault_every_kind_every_family, 240)
{
    char out[256], impls[256] = "";
    size_t nc = 0, len = 0;
    for (size_t i = 0; i < cb_nimpls; i++)
        if (!cb_impl_is_language(&cb_impls[i])) {
            len += (size_t)snprintf(impls + len, sizeof impls - len, "%s%s", nc ? "," : "",
                                    cb_impls[i].name);
            nc++;
        }
    cb_test_tmp_path(out, sizeof out, "faults.json");
    cb_test_cli c = cb_test_corobench("run", "--impl", impls, "--workload", "recursive,fault", "--param",
                      "kind=segv,overflow,hang,abort,exit", "--param", "height=4", "--reps", "1",
                      "--warmup", "0", "--timeout", "1", "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    json_t *cells = load_cells(out), *cell;
    size_t i, faults = 0, ok = 0;
    json_array_foreach(cells, i, cell)
    {
        const char *wl = str(cell, "workload"), *st = str(cell, "status");
        if (!strcmp(wl, "recursive")) {
            CB_CHECK_STREQ(st, "ok");
            ok++;
            continue;
        }
        const char *kind = json_string_value(json_object_get(json_object_get(cell, "params"),
                                                             "kind"));
        CB_CHECK(kind != NULL);
        CB_CHECK_STREQ(st, !strcmp(kind, "hang") ? "timeout" : "failed");
        const char *err = str(cell, "error");
        if (!strstr(err, expected(kind, str(cell, "family"))))
            CB_FAIL("fault kind=%s impl=%s: error \"%s\" does not say \"%s\"", kind,
                    str(cell, "impl"), err, expected(kind, str(cell, "family")));
        faults++;
    }
    CB_CHECK_EQ_INT(faults, 5 * nc);
    CB_CHECK_EQ_INT(ok, nc);
    CB_CHECK_CONTAINS(c.err, "failed or timed out");
    json_decref(cells);
    unlink(out);
}

/* `all` never selects the self-test: its parameter is then unknown, and `list` says what it is. */
CB_TEST(fault_not_in_all)
{
    cb_test_cli c = cb_test_corobench("run", "--param", "kind=segv", "--reps", "1", NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "unknown parameter 'kind'");
    c = cb_test_corobench("list", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "fault      self-test of the harness");
    CB_CHECK_CONTAINS(c.out, "segv|overflow|hang|abort|exit");
}

/* A chunked stack has no guard page: its overflow is still named, by the canary. */
CB_TEST(fault_chunked_overflow_named)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "chunked.json");
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm,asmjmp,ucontext", "--workload", "fault,pingpong",
                      "--param", "kind=overflow", "--param", "stack_mode=chunked", "--param",
                      "stack=16384", "--param", "depth=100000", "--param", "switches=10",
                      "--reps", "1", "--warmup", "0", "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    json_t *cells = load_cells(out), *cell;
    size_t i;
    CB_CHECK_EQ_INT(json_array_size(cells), 6);
    json_array_foreach(cells, i, cell)
    {
        CB_CHECK_STREQ(str(cell, "status"), "failed");
        char want[128];
        snprintf(want, sizeof want, "coroutine stack overflow (impl=%s, stack=16384 bytes)",
                 str(cell, "impl"));
#if defined(__SANITIZE_ADDRESS__)
        if (strstr(str(cell, "error"), "AddressSanitizer")) /* it saw the overflow first */
            continue;
#endif
        CB_CHECK_CONTAINS(str(cell, "error"), want);
        CB_CHECK_CONTAINS(str(cell, "error"), "chunked stack");
    }
    json_decref(cells);
    unlink(out);
}

/* Guarded stacks past the vm.max_map_count budget: the reason names the limit. */
CB_TEST(fault_map_count_named)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "mapcount.json");
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm", "--workload", "spawn", "--param", "n=40000",
                      "--param", "stack_mode=guarded", "--reps", "1", "--warmup", "0",
                      "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    json_t *cells = load_cells(out);
    const char *err = str(json_array_get(cells, 0), "error");
    CB_CHECK_CONTAINS(err, "vm.max_map_count budget");
    CB_CHECK_CONTAINS(err, "valid: stack_mode=auto or chunked");
    json_decref(cells);
    unlink(out);
}

/* io under `ulimit -n 64`: the file limit is named, not "conns up to 0". */
CB_TEST(fault_io_low_file_limit_named)
{
    struct rlimit rl = {64, 64};
    CB_CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
    cb_test_cli c = cb_test_corobench("run", "--workload", "io", "--impl", "sm", NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "file descriptor limit (RLIMIT_NOFILE, ulimit -n) is 64");
    CB_CHECK(strstr(c.err, "conns up to 0") == NULL);
}

/* A cell's process killed from outside is recorded as failed with the signal; the run goes on. */
CB_TEST_T(fault_cell_killed_from_outside, 120)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "killed.json");
    cb_proc run;
    cb_test_corobench_start(&run, "run", "--impl", "sm", "--workload", "fault,recursive", "--param",
                            "kind=hang", "--param", "height=4", "--reps", "1", "--warmup", "0",
                            "--timeout", "60", "--no-table", "-o", out, NULL);
    pid_t cell = 0;
    for (int i = 0; i < 200 && !(cell = cb_test_child_of(run.pid, NULL)); i++)
        usleep(20000);
    CB_CHECK(cell > 0);
    usleep(100000);
    CB_CHECK(kill(cell, SIGKILL) == 0);
    int st = cb_test_wait(&run);
    CB_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    json_t *cells = load_cells(out);
    CB_CHECK_EQ_INT(json_array_size(cells), 2);
    CB_CHECK_STREQ(str(json_array_get(cells, 0), "status"), "failed");
    CB_CHECK_CONTAINS(str(json_array_get(cells, 0), "error"), "killed by signal 9 (Killed)");
    CB_CHECK_STREQ(str(json_array_get(cells, 1), "status"), "ok");
    json_decref(cells);
    unlink(out);
}
