/* Faults injected on purpose (workloads/fault.c, docs/fault.md): every kind in every family and
 * every language runtime is recorded as failed or timeout with a reason naming the fault, the other cells complete, the
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

#include "harness/common/proc.h"
#include "impls/impls.h"
#include "workloads/run_once.h"
#include "workloads/workload.h"
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

/* What the error of a language's fault cell must say: the runtime's own words (docs/fault.md). */
static const char *expected_language(const char *kind, const char *impl)
{
    static const struct {
        const char *impl, *kind, *says;
    } rows[] = {
        {"lua", "segv", "attempt to index a nil value (field 'target')"},
        {"lua", "overflow", ": stack overflow"},
        {"lua", "abort", "killed by signal 6 (Aborted)"},
        {"lua", "exit", "the cell's process exited with status 0 without sending its result"},
        {"go", "segv", "go: panic: runtime error: invalid memory address or nil pointer "
                       "dereference [signal SIGSEGV: segmentation violation"},
        {"go", "overflow", "go: fatal error: stack overflow: goroutine stack exceeds 1048576-byte "
                           "limit [exit status 2], without a reply"},
        {"go", "abort", "go: SIGABRT: abort [exit status 2], without a reply"},
        {"go", "exit", "go: the program exited with status 0 without sending its reply"},
        {"node", "segv", "node: TypeError: Cannot set properties of null (setting 'value') "
                         "[exit status 1], without a reply"},
        {"node", "overflow", "node: RangeError: Maximum call stack size exceeded [exit status 1]"},
        {"node", "abort", "[killed by signal 6 (Aborted)], without a reply"},
        {"node", "exit", "node: the program exited with status 0 without sending its reply"},
        {"csharp", "segv", "csharp: [ERROR] FATAL UNHANDLED EXCEPTION: "
                           "System.NullReferenceException: Object reference not set to an "
                           "instance of an object [exit status "},
        {"csharp", "overflow", "csharp: [ERROR] FATAL UNHANDLED EXCEPTION: "
                               "System.StackOverflowException: The requested operation caused a "
                               "stack overflow. [exit status "},
        {"csharp", "abort", "csharp: killed by signal 6 (Aborted), without a reply"},
        {"csharp", "exit", "csharp: the program exited with status 0 without sending its reply"},
        {"luajit", "segv", "fault.lua:30: attempt to index field 'target' (a nil value)"},
        {"luajit", "overflow", "fault.lua:23: stack overflow"},
        {"luajit", "abort", "luajit: killed by signal 6 (Aborted), without a reply"},
        {"luajit", "exit", "luajit: the program exited with status 0 without sending its reply"},
    };
    if (!strcmp(kind, "hang"))
        return "timed out after";
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strcmp(rows[i].impl, impl) && !strcmp(rows[i].kind, kind))
            return rows[i].says;
    return NULL;
}

/* What the error of a fault cell must say, by kind and family. */
static const char *expected(const char *kind, const char *impl, const char *family)
{
    if (cb_impl_is_language(cb_impl_find(impl)))
        return expected_language(kind, impl);
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
        return "timed out after";
    if (!strcmp(kind, "abort"))
        return "killed by signal 6 (Aborted)";
    return "exited with status 0 without sending its result";
}

/* Runs the fault kinds (a comma list of nkinds) of the nc implementations in impls, between
 * recursive cells that must complete, and checks every cell: each fault failed (hang: timed
 * out) with the reason naming it, the other cells ok, the JSON valid, exit status 1. */
static void check_fault_run(const char *impls, size_t nc, const char *kinds, size_t nkinds,
                            const char *timeout)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "faults.json");
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", impls, "--workload", "recursive,fault",
                                      "--param", kinds, "--param", "height=4", "--reps", "1",
                                      "--warmup", "0", "--timeout", timeout, "--no-table", "-o",
                                      out, NULL);
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
        const char *err = str(cell, "error"), *impl = str(cell, "impl");
        const char *want = expected(kind, impl, str(cell, "family"));
        if (!want || !strstr(err, want))
            CB_FAIL("fault kind=%s impl=%s: error \"%s\" does not say \"%s\"", kind, impl, err,
                    want ? want : "(nothing expected)");
        faults++;
    }
    CB_CHECK_EQ_INT(faults, nkinds * nc);
    CB_CHECK_EQ_INT(ok, nc);
    CB_CHECK_CONTAINS(c.err, "failed or timed out");
    json_decref(cells);
    unlink(out);
}

/* The implementations available in this build, the language runtimes or the others, as a
 * comma list in buf; how many. One not available here is named with the reason and left out
 * (copystack is not under AddressSanitizer, fcontext needs Boost, a runtime not installed). */
static size_t available_impls(int languages, char *buf, size_t len)
{
    size_t n = 0, used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < cb_nimpls; i++) {
        const char *why = cb_impl_unavailable(&cb_impls[i]);
        if (cb_impl_is_language(&cb_impls[i]) != languages)
            continue;
        /* fiber runs the scheduler's workloads only */
        if (!languages && !cb_wl_family(cb_workload_find("fault"), &cb_impls[i]))
            continue;
        if (why) {
            fprintf(stderr, "%s: skipped: %s\n", cb_impls[i].name, why);
            continue;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%s", n ? "," : "", cb_impls[i].name);
        n++;
    }
    return n;
}

/* Every kind in every C family, between two ordinary cells that must complete. */
CB_TEST_T(fault_every_kind_every_family, 240)
{
    char impls[256];
    size_t nc = available_impls(0, impls, sizeof impls);
    check_fault_run(impls, nc, "kind=segv,overflow,hang,abort,exit", 5, "1");
}

/* Every kind in every language runtime installed here (lua embedded, go, node, csharp and
 * luajit programs of their own): each dies, spins or exits in its own terms and the harness quotes it. The runtimes
 * take a while to start on a loaded machine, so the kinds that end by themselves get a long
 * timeout and hang a run of its own with a short one. */
CB_TEST_T(fault_every_kind_every_language, 240)
{
    char impls[64];
    size_t nc = available_impls(1, impls, sizeof impls);
    if (!nc)
        CB_SKIP("no language runtime is available here (lua, go, node, csharp, luajit)");
    /* A user's NODE_OPTIONS cannot make node's unhandled rejection a mere warning. */
    setenv("NODE_OPTIONS", "--unhandled-rejections=warn", 1);
    check_fault_run(impls, nc, "kind=segv,overflow,abort,exit", 4, "60");
    unsetenv("NODE_OPTIONS");
    check_fault_run(impls, nc, "kind=hang", 1, "2");
}

/* `all` never selects the self-test: its parameter is then unknown, and `list` says what it is. */
CB_TEST(fault_not_in_all)
{
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--param", "kind=segv", "--reps", "1", NULL);
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
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", "asm,asmjmp,ucontext", "--workload", "fault,pingpong",
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
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", "asm", "--workload", "spawn", "--param", "n=40000",
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
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--workload", "io", "--impl", "sm", NULL);
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
    cb_test_corobench_start(&run, "run", "--invocations", "1", "--impl", "sm", "--workload", "fault,recursive", "--param",
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

/* A language runtime's death is quoted by the stderr line that names it, not by its last line
 * (a stack trace's or "Node.js v20..."): the texts below are what go 1.19, node 20 and Mono 6.8
 * print. */
CB_TEST(fault_runtime_death_line)
{
    static const struct {
        const char *err, *says;
        int status;
    } rows[] = {
        {"panic: runtime error: invalid memory address or nil pointer dereference\n"
         "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4de615]\n\n"
         "goroutine 6 [running]:\nmain.flCommit(...)\n\tfault.go:52\nexit status 2\n",
         "panic: runtime error: invalid memory address or nil pointer dereference [signal "
         "SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4de615] [exit status 2]",
         2 << 8},
        {"runtime: goroutine stack exceeds 1048576-byte limit\nruntime: sp=0xc0001c83a0\n"
         "fatal error: stack overflow\n\nruntime stack:\n\truntime/mgc.go:1159 +0x25\n",
         "fatal error: stack overflow: goroutine stack exceeds 1048576-byte limit [exit status 2]",
         2 << 8},
        {"SIGABRT: abort\nPC=0x40338e m=0 sigcode=18446744073709551610\n\ngs     0x0\n",
         "SIGABRT: abort [exit status 2]", 2 << 8},
        {"file:///x/fault.mjs:29\n    hole.target.value = 1;\n        ^\n\n"
         "TypeError: Cannot set properties of null (setting 'value')\n    at commit (x:29:35)\n\n"
         "Node.js v20.20.2\n",
         "TypeError: Cannot set properties of null (setting 'value') [exit status 1]", 1 << 8},
        {"Exception in PromiseRejectCallback:\nfile:///x/fault.mjs:23\n\n"
         "RangeError: Maximum call stack size exceeded\n\nNode.js v20.20.2\n",
         "RangeError: Maximum call stack size exceeded [exit status 1]", 1 << 8},
        {"\nUnhandled Exception:\nSystem.NullReferenceException: Object reference not set to "
         "an instance of an object\n  at Fault.Commit (System.String kind) [0x0009a] in <3b>:0 \n"
         "[ERROR] FATAL UNHANDLED EXCEPTION: System.NullReferenceException: Object reference not "
         "set to an instance of an object\n  at System.Threading._ThreadPoolWaitCallback."
         "PerformWaitCallback () [0x00000] in <12>:0 \n",
         "[ERROR] FATAL UNHANDLED EXCEPTION: System.NullReferenceException: Object reference not "
         "set to an instance of an object [exit status 255]",
         255 << 8},
        /* none of those: the last line, as for a C cell */
        {"free(): invalid pointer\n", "free(): invalid pointer [killed by signal 6 (Aborted)]",
         SIGABRT},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cb_proc_result r = {.err = (char *)rows[i].err, .wait_status = rows[i].status};
        char buf[512];
        cb_proc_failure(&r, buf, sizeof buf);
        CB_CHECK_STREQ(buf, rows[i].says);
    }
}
