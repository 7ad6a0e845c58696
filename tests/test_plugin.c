/* Runtimes from outside the tree. Plugins (--impl-lib, include/corobench/runtime.h,
 * docs/plugin.md): the two examples do the same work as corobench's asm switch, cell by cell; a
 * plugin that yields wrong values, lies about its family or crashes is a failed cell with the
 * reason; one that breaks the interface is refused when it is loaded (exit 2, one line).
 * Programs (--external, check-external, docs/external.md): the example script conforms, a
 * spoiled copy does not, naming the field. */
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include "impls/root.h"
#include "test.h"

/* The path of a plugin the Makefile built under bin/ (examples or test-plugins). */
static void plugin_path(char *buf, size_t len, const char *dir, const char *name)
{
    snprintf(buf, len, "%s/bin/%s/libcb_%s.so", cb_test_root(), dir, name);
    struct stat st;
    if (stat(buf, &st) != 0)
        CB_FAIL("%s is not built (make examples)", buf);
}

/* The results file's cells; fails unless it parses. */
static json_t *cells_of(const char *path, json_t **root)
{
    json_error_t je;
    *root = json_load_file(path, 0, &je);
    if (!*root)
        CB_FAIL("%s: %s", path, je.text);
    return json_object_get(*root, "cells");
}

/* The cell of impl on workload whose params hold mode (or any, with mode NULL). */
static json_t *find_cell(json_t *cells, const char *impl, const char *wl, const char *mode)
{
    size_t i;
    json_t *c;
    json_array_foreach(cells, i, c) {
        const char *m = json_string_value(json_object_get(json_object_get(c, "params"), "mode"));
        if (!strcmp(json_string_value(json_object_get(c, "impl")), impl) &&
            !strcmp(json_string_value(json_object_get(c, "workload")), wl) &&
            (!mode || (m && !strcmp(m, mode))))
            return c;
    }
    CB_FAIL("no cell %s %s %s", impl, wl, mode ? mode : "");
}

#define STATUS(c) json_string_value(json_object_get((c), "status"))
#define ERROR(c) json_string_value(json_object_get((c), "error"))

CB_TEST_T(plugin_examples_same_work_as_asm, 240)
{
    CB_SKIP_UNDER_ASAN("a plugin's own stack switches are not announced to ASan");
    char uc[4096], fc[4096], libs[8200], out[256];
    plugin_path(uc, sizeof uc, "examples", "ucontext");
    /* fcontext's where the Makefile found Boost.Context */
    snprintf(fc, sizeof fc, "%s/bin/examples/libcb_fcontext.so", cb_test_root());
    int have_fc = access(fc, F_OK) == 0;
    snprintf(libs, sizeof libs, "%s%s%s", uc, have_fc ? "," : "", have_fc ? fc : "");
    cb_test_tmp_path(out, sizeof out, "plugin.json");
    cb_test_cli c = cb_test_corobench(
        "run", "--impl-lib", libs, "--impl",
        have_fc ? "asm,uctx-plugin,fctx-plugin" : "asm,uctx-plugin", "--workload",
        "recursive,pingpong,spawn", "--param", "pingpong.mode=symmetric,asymmetric", "--param",
        "pingpong.switches=2000", "--param", "spawn.n=500", "--param", "height=8", "--reps", "2",
        "--warmup", "0", "--invocations", "1", "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *root, *cells = cells_of(out, &root);
    /* The run records each plugin's path. */
    json_t *pl = json_array_get(json_object_get(json_object_get(root, "run"), "plugins"), 0);
    CB_CHECK_STREQ(json_string_value(json_object_get(pl, "name")), "uctx-plugin");
    CB_CHECK_CONTAINS(json_string_value(json_object_get(pl, "path")), "libcb_ucontext.so");
    const char *plugins[] = {"uctx-plugin", have_fc ? "fctx-plugin" : NULL};
    for (size_t k = 0; k < 2 && plugins[k]; k++) {
        const char *const wls[][2] = {{"recursive", NULL}, {"spawn", NULL},
                                      {"pingpong", "asymmetric"}};
        for (size_t w = 0; w < 3; w++) {
            json_t *p = find_cell(cells, plugins[k], wls[w][0], wls[w][1]);
            json_t *a = find_cell(cells, "asm", wls[w][0], wls[w][1]);
            CB_CHECK_STREQ(STATUS(p), "ok");
            CB_CHECK_STREQ(STATUS(a), "ok");
            CB_CHECK(json_equal(json_object_get(p, "checksum"), json_object_get(a, "checksum")));
            CB_CHECK(json_equal(json_object_get(p, "suspensions"),
                                json_object_get(a, "suspensions")));
            CB_CHECK_STREQ(json_string_value(json_object_get(p, "family")), "stackful");
        }
        /* Its interface has no transfer: mode=symmetric is unsupported, saying so. */
        json_t *sym = find_cell(cells, plugins[k], "pingpong", "symmetric");
        CB_CHECK_STREQ(STATUS(sym), "unsupported");
        CB_CHECK_CONTAINS(ERROR(sym), "symmetric transfer");
        CB_CHECK_CONTAINS(ERROR(sym), "mode=asymmetric");
    }
    json_decref(root);
    unlink(out);
}

/* Issue 30, MEDIUM 9: a plugin whose constructor prints a line on stdout failed every cell,
 * asm's too ("unreadable result ... end of file expected near '{'"): the cell's result shared
 * stdout with it. The result now has a descriptor of its own; the line goes to the cell's
 * stderr. */
CB_TEST_T(plugin_printing_on_stdout_spoils_no_cell, 120)
{
    CB_SKIP_UNDER_ASAN("a plugin's own stack switches are not announced to ASan");
    char lib[4096], out[256];
    plugin_path(lib, sizeof lib, "test-plugins", "bad_stdout");
    cb_test_tmp_path(out, sizeof out, "stdoutplugin.json");
    cb_test_cli c = cb_test_corobench("run", "--impl-lib", lib, "--impl", "bad-stdout,asm",
                                      "--workload", "recursive", "--param", "height=4",
                                      "--reps", "1", "--warmup", "0", "--invocations", "1",
                                      "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *root, *cells = cells_of(out, &root);
    CB_CHECK_STREQ(STATUS(find_cell(cells, "bad-stdout", "recursive", NULL)), "ok");
    CB_CHECK_STREQ(STATUS(find_cell(cells, "asm", "recursive", NULL)), "ok");
    json_decref(root);
    unlink(out);
}

/* Issue 30, MEDIUM 14: a plugin that calls exit() while it is loaded ended the program silently:
 * exit(0) in corobench_plugin() made run exit 0 with no results and no message, exit(3) in a
 * constructor made list exit 3. It is loaded in a child first; one that does not return is
 * refused, exit 2, one line naming how the child ended. */
CB_TEST_T(plugin_exiting_while_loaded_refused, 60)
{
    char ex[4096], ctor[4096], out[256];
    plugin_path(ex, sizeof ex, "test-plugins", "bad_exit");
    plugin_path(ctor, sizeof ctor, "test-plugins", "bad_ctorexit");
    cb_test_tmp_path(out, sizeof out, "exitplugin.json");
    cb_test_cli c = cb_test_corobench("run", "--impl-lib", ex, "--impl", "bad-exit", "--workload",
                                      "recursive", "--param", "height=4", "--reps", "1",
                                      "--warmup", "0", "--invocations", "1", "--no-table", "-o",
                                      out, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "libcb_bad_exit.so': loading it ended the process (exit status 0");
    CB_CHECK(access(out, F_OK) != 0);
    free(c.out);
    free(c.err);
    c = cb_test_corobench("list", "--impl-lib", ctor, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "libcb_bad_ctorexit.so': loading it ended the process (exit "
                             "status 3");
    CB_CHECK_CONTAINS(c.err, "(valid: a plugin whose constructors and corobench_plugin() return");
    free(c.out);
    free(c.err);
}

CB_TEST_T(plugin_broken_recorded_or_refused, 240)
{
    CB_SKIP_UNDER_ASAN("a plugin's own stack switches are not announced to ASan");
    char sum[4096], fam[4096], crash[4096], fields[4096], libs[12400], out[256];
    plugin_path(sum, sizeof sum, "test-plugins", "bad_checksum");
    plugin_path(fam, sizeof fam, "test-plugins", "bad_family");
    plugin_path(crash, sizeof crash, "test-plugins", "bad_crash");
    plugin_path(fields, sizeof fields, "test-plugins", "bad_fields");
    snprintf(libs, sizeof libs, "%s,%s,%s", sum, fam, crash);
    cb_test_tmp_path(out, sizeof out, "badplugin.json");
    cb_test_cli c = cb_test_corobench("run", "--impl-lib", libs, "--impl",
                                      "bad-checksum,bad-family,bad-crash", "--workload",
                                      "recursive", "--param", "height=8", "--reps", "2",
                                      "--warmup", "0", "--invocations", "1", "--no-table", "-o",
                                      out, NULL);
    CB_CHECK_EQ_INT(c.status, 1); /* failed cells, the run went on */
    json_t *root, *cells = cells_of(out, &root);
    json_t *s = find_cell(cells, "bad-checksum", "recursive", NULL);
    json_t *f = find_cell(cells, "bad-family", "recursive", NULL);
    json_t *k = find_cell(cells, "bad-crash", "recursive", NULL);
    CB_CHECK_STREQ(STATUS(s), "failed");
    CB_CHECK_CONTAINS(ERROR(s), "did different work than asm");
    CB_CHECK_STREQ(STATUS(f), "failed");
    CB_CHECK_CONTAINS(ERROR(f), "declares family stackful but ran a coroutine outside the stack");
    CB_CHECK_STREQ(STATUS(k), "failed");
    CB_CHECK_CONTAINS(ERROR(k), "signal 11");
    json_decref(root);
    unlink(out);
    /* Refused at load: exit 2, one line naming the path and the field. */
    c = cb_test_corobench("run", "--impl-lib", fields, "--impl", "bad-fields", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "one of create, resume, yield, done, destroy is NULL");
    CB_CHECK_CONTAINS(c.err, "libcb_bad_fields.so");
    c = cb_test_corobench("run", "--impl-lib", "/nonexistent/libx.so", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "cannot load --impl-lib '/nonexistent/libx.so'");
    c = cb_test_corobench("list", "--impl-lib", sum, "--impl-lib", sum, NULL);
    CB_CHECK_EQ_INT(c.status, 0); /* the same path twice is loaded once */
    CB_CHECK_CONTAINS(c.out, "bad-checksum");
    CB_CHECK(access(out, F_OK) != 0);
}

/* A mistyped command: the shell's message names the runtime once. It read "under-test:
 * under-test: 1: nodee: not found" (issue 32): sh's own "$0: " and the harness's prefix. */
CB_TEST(external_mistyped_command_named_once)
{
    cb_test_cli c = cb_test_corobench("check-external", "cbtest-nodee", NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    CB_CHECK_CONTAINS(c.out, "under-test: 1: cbtest-nodee: not found");
    CB_CHECK(strstr(c.out, "under-test: under-test:") == NULL);
    CB_CHECK_CONTAINS(c.out, "NOT CONFORMING");
    free(c.out);
    free(c.err);
}

/* A user's runtime through the external protocol (--external, check-external): the example
 * Python script passes the conformance test and runs as cells with sm's checksum; the same
 * script with its suspensions spoiled fails naming the field, with its checksum spoiled differs
 * naming the field. */
CB_TEST_T(external_user_runtime_checked_and_run, 240)
{
    if (system("command -v python3 >/dev/null 2>&1") != 0)
        CB_SKIP("python3 is not installed (the example runtime is a Python script)");
    char script[4096], cmd[4200], bad[4400], out[256];
    snprintf(script, sizeof script, "%s/examples/external/recursive.py", cb_root_dir());
    snprintf(cmd, sizeof cmd, "python3 %s", script);
    cb_test_cli c = cb_test_corobench("check-external", cmd, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "ok          recursive height=6");
    CB_CHECK_CONTAINS(c.out, "1 points agree, 11 unsupported, 0 differ or failed: conforming");
    /* The reply spoiled by a sed expression (its quotes as \"): not conforming, naming it. */
    static const char *const spoil[][2] = {
        {"s/\\\"suspensions\\\": [0-9]*/\\\"suspensions\\\": -5/",
         "FAILED      recursive height=6: under-test: reply: suspensions is -5 (valid: an "
         "integer from 0)"},
        {"s/\\\"checksum\\\": \\\"0x./\\\"checksum\\\": \\\"0xg/", "reply: checksum is"},
        {"s/\\\"ops\\\": 63/\\\"ops\\\": 64/", "DIFFERS     recursive height=6: ops 64, not 63"},
    };
    for (size_t k = 0; k < sizeof spoil / sizeof spoil[0]; k++) {
        snprintf(bad, sizeof bad, "sh -c 'python3 %s \"$1\" | sed \"%s\"' sh", script,
                 spoil[k][0]);
        c = cb_test_corobench("check-external", bad, NULL);
        CB_CHECK_EQ_INT(c.status, 1);
        CB_CHECK_CONTAINS(c.out, spoil[k][1]);
        CB_CHECK_CONTAINS(c.out, "NOT CONFORMING");
    }
    /* As cells of a run, next to sm. */
    char ext[4300];
    snprintf(ext, sizeof ext, "pygen=%s", cmd);
    cb_test_tmp_path(out, sizeof out, "external.json");
    c = cb_test_corobench("run", "--external", ext, "--impl", "sm,pygen", "--workload",
                          "recursive,spawn", "--param", "height=8", "--param", "n=100", "--reps",
                          "2", "--warmup", "0", "--invocations", "1", "--no-table", "-o", out,
                          NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *root, *cells = cells_of(out, &root);
    json_t *p = find_cell(cells, "pygen", "recursive", NULL), *s = find_cell(cells, "sm",
                                                                              "recursive", NULL);
    CB_CHECK_STREQ(STATUS(p), "ok");
    CB_CHECK(json_equal(json_object_get(p, "checksum"), json_object_get(s, "checksum")));
    CB_CHECK(json_equal(json_object_get(p, "suspensions"), json_object_get(s, "suspensions")));
    CB_CHECK_STREQ(json_string_value(json_object_get(p, "family")), "external");
    CB_CHECK_STREQ(STATUS(find_cell(cells, "pygen", "spawn", NULL)), "unsupported");
    json_decref(root);
    unlink(out);
}

/* A plugin is compared with the built-ins wherever a built-in of its family would be (issue 32,
 * item 3): run beside asm and sm, its cells are in the report's Summary with their ratio to the
 * fastest of corobench's own of its family (asm), and in the per-point table; a point is named
 * by its parameters (the at-a-glance row of a workload's one point was "(one point)"). */
CB_TEST_T(plugin_in_report_summary_beside_asm, 240)
{
    CB_SKIP_UNDER_ASAN("a plugin's own stack switches are not announced to ASan");
    char uc[4096], out[256], md[256];
    plugin_path(uc, sizeof uc, "examples", "ucontext");
    cb_test_tmp_path(out, sizeof out, "plugin-report.json");
    cb_test_tmp_path(md, sizeof md, "plugin-report.md");
    cb_test_cli c = cb_test_corobench("run", "--impl-lib", uc, "--impl", "asm,sm,uctx-plugin",
                                      "--workload", "recursive", "--param", "height=8", "--reps",
                                      "3", "--warmup", "0", "--invocations", "2", "--no-table",
                                      "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    unlink(md);
    c = cb_test_corobench("report", out, "--no-plots", "-o", md, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    FILE *f = fopen(md, "r");
    CB_CHECK(f != NULL);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    char *summary = strstr(text, "## Summary"), *caveats = strstr(text, "## Caveats");
    CB_CHECK(summary && caveats && summary < caveats);
    *caveats = '\0';
    CB_CHECK_CONTAINS(summary, "Your runtimes (plugins, external programs) against the fastest "
                               "of corobench's own");
    CB_CHECK_CONTAINS(summary, "uctx-plugin");
    CB_CHECK_CONTAINS(summary, "uctx-plugin/asm at height=8");
    *caveats = '#';
    const char *glance = strstr(text, "## recursive at a glance");
    CB_CHECK(glance != NULL);
    CB_CHECK_CONTAINS(glance, "| height=8 |");
    /* its ratio to asm in claim 10's table and at a glance too (issue 32 item 3) */
    const char *c10 = strstr(text, "\n### 10. "), *c11 = c10 ? strstr(c10, "\n### 11. ") : NULL;
    const char *in10 = c10 ? strstr(c10, "uctx-plugin/asm ") : NULL;
    CB_CHECK(c10 && c11 && in10 && in10 < c11);
    const char *appendix = strstr(text, "## Appendix");
    const char *in_glance = strstr(glance, "uctx-plugin/asm ");
    CB_CHECK(appendix && in_glance && in_glance < appendix);
    CB_CHECK_CONTAINS(strstr(text, "### recursive\n"), "| point | asm | sm | uctx-plugin |");
    unlink(out);
    unlink(md);
}
