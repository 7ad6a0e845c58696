/* A cell as one request (harness/run/request.h, docs/request.md): a results file's cell reruns
 * from the request it records, through `corobench cell --request FILE|-`, doing the same work;
 * a bad request is one line naming the field and exit status 2. No timing is asserted. */
#include <jansson.h>
#include <unistd.h>

#include "harness/run/request.h"
#include "impls/impls.h"
#include "impls/root.h"
#include "test.h"

static json_t *load(const char *path)
{
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    if (!doc)
        CB_FAIL("%s: %s (line %d)", path, e.text, e.line);
    return doc;
}

static json_t *parse(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    if (!j)
        CB_FAIL("unreadable JSON (%s): %s", e.text, text);
    return j;
}

/* Checks that result did the cell's work: status ok, the same checksum and suspensions. */
static void same_work(json_t *result, json_t *cell)
{
    CB_CHECK_STREQ(json_string_value(json_object_get(result, "status")), "ok");
    CB_CHECK_STREQ(json_string_value(json_object_get(result, "checksum")),
                   json_string_value(json_object_get(cell, "checksum")));
    CB_CHECK(json_is_integer(json_object_get(result, "suspensions")));
    CB_CHECK(json_equal(json_object_get(result, "suspensions"),
                        json_object_get(cell, "suspensions")));
}

/* A run's cell records its first invocation's request; `cell --request FILE` reruns it, and
 * `cell --request -` reruns its second invocation (the request with that invocation's layout)
 * from standard input: the same checksum and suspensions as the run's. */
CB_TEST_T(request_rerun_from_results, 120)
{
    char out[256], req[256], cmd[4096 + 600];
    cb_test_tmp_path(out, sizeof out, "rerun.json");
    cb_test_tmp_path(req, sizeof req, "rerun-request.json");
    cb_test_cli c = cb_test_corobench("run", "--impl", "sm", "--workload", "recursive", "--param",
                                      "height=6", "--reps", "2", "--warmup", "0", "--min-rep-ms",
                                      "0.2", "--invocations", "2", "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out), *cell = json_array_get(json_object_get(doc, "cells"), 0);
    json_t *rq = json_object_get(cell, "request");
    CB_CHECK(json_is_object(rq));
    CB_CHECK_STREQ(json_string_value(json_object_get(rq, "schema")), CB_REQUEST_SCHEMA);
    CB_CHECK_STREQ(json_string_value(json_object_get(rq, "impl")), "sm");
    CB_CHECK(json_equal(json_object_get(rq, "params"), json_object_get(cell, "params")));
    json_t *invs = json_object_get(cell, "invocations");
    CB_CHECK(json_equal(json_object_get(rq, "layout"),
                        json_object_get(json_array_get(invs, 0), "layout")));
    CB_CHECK_EQ_INT(json_dump_file(rq, req, JSON_COMPACT), 0);
    char path[4096];
    snprintf(path, sizeof path, "%s/bin/corobench", cb_test_root());
    char *argv[] = {path, "cell", "--request", req, NULL}, *o, *e;
    CB_CHECK_EQ_INT(cb_test_spawn(argv, &o, &e), 0);
    json_t *res = parse(o);
    same_work(res, cell);
    json_decref(res);
    free(o);
    free(e);
    /* The second invocation: its layout in the request, the request on standard input. */
    json_object_set(rq, "layout", json_object_get(json_array_get(invs, 1), "layout"));
    CB_CHECK_EQ_INT(json_dump_file(rq, req, JSON_COMPACT), 0);
    snprintf(cmd, sizeof cmd, "'%s' cell --request - < '%s'", path, req);
    char *sh[] = {"/bin/sh", "-c", cmd, NULL};
    CB_CHECK_EQ_INT(cb_test_spawn(sh, &o, &e), 0);
    res = parse(o);
    same_work(res, cell);
    json_decref(res);
    free(o);
    free(e);
    json_decref(doc);
    unlink(out);
    unlink(req);
}

/* A valid request of sm on pingpong, built as a run builds it. */
static json_t *good_request(void)
{
    const cb_impl *im = cb_impl_find("sm");
    const cb_workload *wl = cb_workload_find("pingpong");
    CB_CHECK(im != NULL && wl != NULL);
    const char *set[] = {"switches", "200", NULL};
    cb_run_opts o = {.measure = {.reps = 1, .min_rep_ms = 0.1, .rsb_entries = 32},
                     .timeout_s = 60, .pin_cpu = -1, .layout_seed = 7};
    cb_plan_cell pc = {.variant = "plain"};
    pc.cell = (cb_cell){.impl = im, .wl = wl};
    cb_test_params(wl, im, set, &pc.cell.params);
    return cb_request_build(&o, &pc, 0, CB_REQUEST_TIME);
}

/* Copies the file from to to (through a temporary file and a rename, as a build replaces it). */
static void replace_file(const char *from, const char *to)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.new", to);
    FILE *in = fopen(from, "rb"), *out = fopen(tmp, "wb");
    CB_CHECK(in != NULL && out != NULL);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        CB_CHECK_EQ_INT(fwrite(buf, 1, n, out), n);
    fclose(in);
    CB_CHECK_EQ_INT(fclose(out), 0);
    CB_CHECK_EQ_INT(rename(tmp, to), 0);
}

/* `corobench cell --request FILE` on req (or, text not NULL, on that text): exit status 2 and
 * one line on stderr containing want, nothing on stdout. */
static void refused(json_t *req, const char *text, const char *want)
{
    char file[256], path[4096], *o, *e;
    cb_test_tmp_path(file, sizeof file, "bad-request.json");
    FILE *f = fopen(file, "w");
    CB_CHECK(f != NULL);
    if (text)
        fputs(text, f);
    else
        CB_CHECK_EQ_INT(json_dumpf(req, f, JSON_COMPACT), 0);
    fclose(f);
    snprintf(path, sizeof path, "%s/bin/corobench", cb_test_root());
    char *argv[] = {path, "cell", "--request", file, NULL};
    int st = cb_test_spawn(argv, &o, &e);
    if (st != 2 || !strstr(e, want) || strchr(e, '\n') != e + strlen(e) - 1 || *o)
        CB_FAIL("want exit 2 and one line with \"%s\"; got exit %d, stderr \"%s\", stdout \"%s\"",
                want, st, e, o);
    free(o);
    free(e);
    unlink(file);
    json_decref(req);
}

/* Each bad field of a request: one line naming it and its value, exit 2 (docs/bad-input.md).
 * The good request itself runs (exit 0), so the refusals are the spoiled fields'. */
CB_TEST_T(request_bad_fields, 60)
{
    char file[256], path[4096], *o, *e;
    cb_test_tmp_path(file, sizeof file, "good-request.json");
    json_t *good = good_request();
    CB_CHECK_EQ_INT(json_dump_file(good, file, JSON_COMPACT), 0);
    json_decref(good);
    snprintf(path, sizeof path, "%s/bin/corobench", cb_test_root());
    char *argv[] = {path, "cell", "--request", file, NULL};
    CB_CHECK_EQ_INT(cb_test_spawn(argv, &o, &e), 0);
    json_t *res = parse(o);
    CB_CHECK_STREQ(json_string_value(json_object_get(res, "status")), "ok");
    json_decref(res);
    free(o);
    free(e);
    unlink(file);

    json_t *r = good_request();
    json_object_set_new(r, "schema", json_string("corobench-cell/9"));
    refused(r, NULL, "invalid request: field 'schema' is \"corobench-cell/9\" (valid: "
                     "\"corobench-cell/1\")");
    r = good_request();
    json_object_set_new(r, "mode", json_string("both"));
    refused(r, NULL, "field 'mode' is \"both\" (valid: \"time\" or \"count\")");
    r = good_request();
    json_object_set_new(r, "impl", json_string("nope"));
    refused(r, NULL, "field 'impl' is \"nope\" (valid: an implementation of this build: ");
    r = good_request();
    json_object_set_new(r, "workload", json_integer(3));
    refused(r, NULL, "field 'workload' is 3 (valid: a non-empty string)");
    r = good_request();
    json_object_set_new(r, "variant", json_string("jmpret"));
    refused(r, NULL, "field 'variant' is \"jmpret\" (valid: \"plain\", this binary's variant; a "
                     "jmpret cell runs in bin/corobench-jmpret)");
    r = good_request();
    json_object_set_new(json_object_get(r, "params"), "depth", json_integer(-1));
    refused(r, NULL, "invalid request: field 'params.depth': ");
    r = good_request();
    json_object_del(json_object_get(r, "params"), "switches");
    refused(r, NULL, "field 'params.switches' is missing (valid: an integer, a parameter of "
                     "workload pingpong)");
    r = good_request();
    json_object_set_new(json_object_get(r, "params"), "bogus", json_integer(1));
    refused(r, NULL, "field 'params.bogus' is 1 (valid: no such parameter");
    r = good_request();
    json_object_set_new(r, "reps", json_integer(0));
    refused(r, NULL, "field 'reps' is 0 (valid: an integer from 1 to 100000)");
    r = good_request();
    json_object_set_new(r, "min_rep_ms", json_string("2"));
    refused(r, NULL, "field 'min_rep_ms' is \"2\" (valid: a number > 0)");
    r = good_request();
    json_object_set_new(json_object_get(r, "rsb"), "model", json_string("lifo"));
    refused(r, NULL, "field 'rsb.model' is \"lifo\" (valid: \"circular\" or \"underflow-btb\")");
    r = good_request();
    json_object_set_new(json_object_get(r, "layout"), "stack_offset_bytes", json_integer(4096));
    refused(r, NULL, "field 'layout.stack_offset_bytes' is 4096 (valid: an integer from 0 to 4095)");
    r = good_request();
    json_object_set_new(r, "turns", json_pack("{s:i, s:b}", "fd", 2, "first", 1));
    refused(r, NULL, "field 'turns.fd' is 2 (valid: an integer from 3 to 1023)");
    r = good_request();
    json_object_set_new(r, "turns", json_pack("{s:i, s:b}", "fd", 900, "first", 1));
    refused(r, NULL, "field 'turns.fd' is 900: not a stream socket this process holds");
    r = good_request();
    json_object_set_new(r, "turns", json_string("yes"));
    refused(r, NULL, "field 'turns' is \"yes\" (valid: an object {\"fd\", \"first\"}, or null)");
    refused(NULL, "{\"schema\": ", "invalid request '");
    /* The command's own arguments. */
    static const char *const args[][3] = {
        {NULL}, {"--request"}, {"--request", "a", "b"}, {"--reqest", "a"}};
    static const char *const said[] = {"missing option --request for cell",
                                       "option '--request' needs a value",
                                       "unexpected argument 'b' for cell",
                                       "unexpected argument '--reqest' for cell"};
    for (size_t i = 0; i < sizeof said / sizeof said[0]; i++) {
        cb_test_cli c = cb_test_corobench("cell", args[i][0], args[i][1], args[i][2], NULL);
        CB_CHECK_EQ_INT(c.status, 2);
        CB_CHECK_CONTAINS(c.err, said[i]);
        CB_CHECK_CONTAINS(c.err, "(valid: --request FILE|-");
        free(c.out);
        free(c.err);
    }
}

/* `corobench cell --request` on a results cell's request, which it writes to a file: the
 * result, parsed. */
static json_t *rerun(json_t *cell)
{
    char req[256], path[4096], *o, *e;
    cb_test_tmp_path(req, sizeof req, "rerun-cell.json");
    CB_CHECK_EQ_INT(json_dump_file(json_object_get(cell, "request"), req, JSON_COMPACT), 0);
    snprintf(path, sizeof path, "%s/bin/corobench", cb_test_root());
    char *argv[] = {path, "cell", "--request", req, NULL};
    int st = cb_test_spawn(argv, &o, &e);
    if (st != 0)
        CB_FAIL("cell --request %s: exit %d: %s", req, st, e);
    json_t *res = parse(o);
    free(o);
    free(e);
    unlink(req);
    return res;
}

/* A plugin's cell (--impl-lib) and a user's program's (--external) rerun from their requests in
 * a process given no option: it loads the shared object and registers the command the request
 * names, and does the run's work. A request whose impl_lib does not register its impl, or whose
 * external command would take a built-in's name, is refused. */
CB_TEST_T(request_plugin_and_external_rerun, 120)
{
    if (system("command -v python3 >/dev/null 2>&1") != 0)
        CB_SKIP("python3 is not installed (the example runtime is a Python script)");
    char out[256], lib[4096], ext[4200];
    cb_test_tmp_path(out, sizeof out, "plugin-external.json");
    snprintf(lib, sizeof lib, "%s/bin/examples/libcb_ucontext.so", cb_test_root());
    snprintf(ext, sizeof ext, "pygen=python3 %s/examples/external/recursive.py", cb_root_dir());
    cb_test_cli c = cb_test_corobench("run", "--impl-lib", lib, "--external", ext, "--impl",
                                      "uctx-plugin,pygen", "--workload", "recursive", "--param",
                                      "height=6", "--reps", "1", "--warmup", "0", "--min-rep-ms",
                                      "0.2", "--invocations", "1", "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out), *cell;
    size_t i;
    CB_CHECK_EQ_INT(json_array_size(json_object_get(doc, "cells")), 2);
    json_array_foreach(json_object_get(doc, "cells"), i, cell)
    {
        json_t *rq = json_object_get(cell, "request");
        CB_CHECK(json_is_string(json_object_get(rq, i ? "external" : "impl_lib")));
        json_t *res = rerun(cell);
        same_work(res, cell);
        json_decref(res);
    }
    json_t *r = json_deep_copy(json_object_get(json_array_get(json_object_get(doc, "cells"), 0),
                                               "request"));
    json_object_set_new(r, "impl", json_string("sm"));
    refused(r, NULL, "field 'impl' is \"sm\" (valid: the implementation impl_lib '");
    r = json_deep_copy(json_object_get(json_array_get(json_object_get(doc, "cells"), 1),
                                       "request"));
    json_object_set_new(r, "impl", json_string("sm"));
    refused(r, NULL, "invalid request: field 'external': ");
    json_decref(doc);
    unlink(out);
}

/* Issue 30, MEDIUM 10: a plugin's shared object replaced during a run was loaded by the later
 * cells' processes: under the same name one ok cell mixed the two binaries, under a new name its
 * later cells failed with "unknown implementation". The run records the file's identity (size,
 * mtime, a hash) when it loads it, each request carries it, and a cell's process refuses a file
 * that is no longer it, before running any of its code. */
CB_TEST_T(request_plugin_replaced_during_run_refused, 120)
{
    char lib[4200], uc[4096], other[4096], out[256];
    const char *dir = cb_test_dir("plugin-replaced");
    snprintf(uc, sizeof uc, "%s/bin/examples/libcb_ucontext.so", cb_test_root());
    snprintf(other, sizeof other, "%s/bin/test-plugins/libcb_bad_checksum.so", cb_test_root());
    snprintf(lib, sizeof lib, "%s/p.so", dir);
    replace_file(uc, lib);
    cb_test_tmp_path(out, sizeof out, "plugin-replaced.json");
    cb_test_cli c = cb_test_corobench("run", "--impl-lib", lib, "--impl", "uctx-plugin",
                                      "--workload", "recursive", "--param", "height=4", "--reps",
                                      "1", "--warmup", "0", "--min-rep-ms", "0.2",
                                      "--invocations", "1", "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out), *cell = json_array_get(json_object_get(doc, "cells"), 0);
    json_t *pl = json_array_get(json_object_get(json_object_get(doc, "run"), "plugins"), 0);
    const char *id = json_string_value(json_object_get(pl, "identity"));
    CB_CHECK(id != NULL);
    CB_CHECK_CONTAINS(id, "fnv1a64 0x");
    json_t *rq = json_object_get(cell, "request");
    CB_CHECK_STREQ(json_string_value(json_object_get(rq, "impl_lib_identity")), id);
    json_t *res = rerun(cell); /* the file as the run loaded it: served */
    same_work(res, cell);
    json_decref(res);
    /* Replaced by another plugin (another name), then by the same one with a byte more. */
    replace_file(other, lib);
    refused(json_deep_copy(rq), NULL, "it changed since the run started: it was ");
    replace_file(uc, lib);
    FILE *f = fopen(lib, "ab");
    CB_CHECK(f != NULL);
    fputc(0, f);
    fclose(f);
    refused(json_deep_copy(rq), NULL, "(valid: the shared object the run loaded; rerun to "
                                      "measure the new one)");
    /* A request by hand without the identity is served as before. */
    replace_file(uc, lib);
    json_object_del(rq, "impl_lib_identity");
    res = rerun(cell);
    same_work(res, cell);
    json_decref(res);
    json_decref(doc);
    unlink(out);
    cb_test_dir_cleanup("plugin-replaced");
}
