/* The calibration file's one loader (harness/measure/rsbcal.h, docs/rsb.md "Calibration"): every
 * field it uses checked, a problem named by file and field on one stderr line and recorded as
 * machine.rsb.refused, a FIFO or other non-regular file refused without waiting on it, a sweep
 * that could not bound the size not adopted, the model resolved once by the run's parent, and
 * the default directory found from the tree, not the current directory. */
#include <jansson.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/results/style.h"
#include "harness/measure/rsbcal.h"
#include "impls/root.h"
#include "test.h"

/* A private calibration directory for this test process, and this CPU's file in it. */
static const char *cal_file(void)
{
    static char file[600];
    char dir[256], key[160];
    snprintf(dir, sizeof dir, "/tmp/cbtest-%ld-calfile", (long)getpid());
    mkdir(dir, 0700);
    setenv("COROBENCH_CALIBRATION_DIR", dir, 1);
    cb_cpu_id c;
    cb_cpu_identify(&c);
    cb_cpu_key(&c, key, sizeof key);
    snprintf(file, sizeof file, "%s/%s.json", dir, key);
    return file;
}

static void cal_cleanup(void)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/cbtest-%ld-calfile", (long)getpid());
    CB_CHECK_EQ_INT(system(cmd), 0);
}

/* A good calibration of this CPU, as calibrate writes it (the fields runs use). */
static json_t *good_cal(void)
{
    char key[160];
    cb_cpu_id c;
    cb_cpu_identify(&c);
    cb_cpu_key(&c, key, sizeof key);
    return json_pack("{s:s, s:s, s:{s:s}, s:{s:s, s:s, s:i, s:i, s:f, s:f, s:f}}", "schema",
                     "corobench-calibration/1", "created_utc", "2026-01-01T00:00:00Z", "cpu",
                     "key", key, "fit", "baseline", "jmpret", "model", "underflow-btb",
                     "entries", 16, "entries_tied_up_to", 16, "ns_per_mispredict", 4.25,
                     "tsc_cycles_per_mispredict", 12.5, "r2", 0.987);
}

/* What the loader says of the good file with fit.<field> set to v (NULL: removed). */
static json_t *load_with(const char *field, json_t *v, char *why, size_t len)
{
    json_t *doc = good_cal();
    json_t *obj = strchr(field, '.') ? json_object_get(doc, "cpu") : json_object_get(doc, "fit");
    const char *name = strchr(field, '.') ? strchr(field, '.') + 1 : field;
    if (!strcmp(field, "schema"))
        obj = doc;
    if (v)
        json_object_set_new(obj, name, v);
    else
        json_object_del(obj, name);
    char *text = json_dumps(doc, 0);
    char key[160];
    cb_cpu_id c;
    cb_cpu_identify(&c);
    cb_cpu_key(&c, key, sizeof key);
    json_t *r = cb_rsbcal_parse("cal.json", text, strlen(text), key, why, len);
    free(text);
    json_decref(doc);
    return r;
}

CB_TEST(calibration_loader_names_the_field)
{
    char why[1024];
    json_t *r = load_with("r2", json_real(0.5), why, sizeof why);
    CB_CHECK(r != NULL);
    CB_CHECK_STREQ(json_string_value(json_object_get(r, "source")), "calibrated");
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(r, "entries")), 16);
    json_decref(r);
    /* Each bad value of docs/bad-input.md (wrong type, out of range, not finite, another CPU's
     * key, another schema): refused, the field named. */
    static const struct {
        const char *field, *value; /* value as JSON text; NULL: the field removed */
        const char *says;
    } bad[] = {
        {"entries", "0", "fit.entries: 0 (valid: an integer from 1 to 4096)"},
        {"entries", "100000", "fit.entries: 100000"},
        {"entries", "\"16\"", "fit.entries: \"16\" (a string)"},
        {"entries", "16.0", "fit.entries: 16 (a real)"},
        {"entries", NULL, "fit.entries: missing"},
        {"model", "\"stack\"", "fit.model: \"stack\""},
        {"ns_per_mispredict", "\"abc\"", "fit.ns_per_mispredict: \"abc\" (a string)"},
        {"ns_per_mispredict", "-5", "fit.ns_per_mispredict: -5 (valid: a number of ns"},
        {"ns_per_mispredict", "null", "fit.ns_per_mispredict: null"},
        {"ns_per_mispredict", "1e308", "fit.ns_per_mispredict: 1e+308"},
        {"tsc_cycles_per_mispredict", "-1", "fit.tsc_cycles_per_mispredict: -1"},
        {"r2", "-3", "fit.r2: -3 (valid: a number from 0 to 1)"},
        {"r2", "1e308", "fit.r2: 1e+308"},
        {"r2", NULL, "fit.r2: missing"},
        {"baseline", "7", "fit.baseline: 7"},
        {"entries_tied_up_to", "8", "fit.entries_tied_up_to: 8 (valid: an integer from "
                                    "fit.entries"},
        {"cpu.key", "\"GenuineIntel-6-0-0-0x0\"", "cpu.key: \"GenuineIntel-6-0-0-0x0\" (a "
                                                  "string), not this CPU's"},
        {"schema", "\"corobench-calibration/2\"", "schema: \"corobench-calibration/2\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_error_t e;
        json_t *v = bad[i].value ? json_loads(bad[i].value, JSON_DECODE_ANY, &e) : NULL;
        CB_CHECK(!bad[i].value || v);
        r = load_with(bad[i].field, v, why, sizeof why);
        if (r)
            CB_FAIL("%s = %s accepted", bad[i].field, bad[i].value ? bad[i].value : "(none)");
        CB_CHECK_CONTAINS(why, "cal.json: ");
        CB_CHECK_CONTAINS(why, bad[i].says);
        CB_CHECK(!strchr(why, '\n'));
    }
    /* Truncated, NaN (not JSON), and not an object. */
    static const char *const texts[] = {"{\"schema\": \"corobench-calib", "{\"fit\": NaN}",
                                        "[1]"};
    for (size_t i = 0; i < 3; i++) {
        CB_CHECK(cb_rsbcal_parse("cal.json", texts[i], strlen(texts[i]), "k", why,
                                 sizeof why) == NULL);
        CB_CHECK_CONTAINS(why, "cal.json: not ");
        CB_CHECK(!strchr(why, '\n'));
    }
}

/* A short run with this process's calibration directory: its exit status, stderr and
 * machine.rsb (a new reference). */
static int small_run(char **err, json_t **rsb)
{
    char out_path[512], *out;
    snprintf(out_path, sizeof out_path, "/tmp/cbtest-%ld-calfile/run.json", (long)getpid());
    unlink(out_path);
    cb_test_cli r = cb_test_corobench("run", "--impl", "sm", "--workload", "pingpong", "--param",
                                      "depth=1", "--param", "switches=100", "--reps", "1",
                                      "--min-rep-ms", "1", "--no-table", "-o", out_path, NULL);
    out = r.out;
    free(out);
    *err = r.err;
    json_error_t e;
    json_t *doc = json_load_file(out_path, 0, &e);
    *rsb = doc ? json_incref(json_object_get(json_object_get(doc, "machine"), "rsb")) : NULL;
    json_decref(doc);
    return r.status;
}

CB_TEST(calibration_refused_file_said_and_recorded)
{
    const char *file = cal_file();
    json_t *cal = good_cal();
    json_object_set_new(json_object_get(cal, "fit"), "ns_per_mispredict", json_integer(-5));
    CB_CHECK_EQ_INT(json_dump_file(cal, file, 0), 0);
    char *err;
    json_t *rsb;
    CB_CHECK_EQ_INT(small_run(&err, &rsb), 0);
    /* One line naming the file and the field, and what is used instead. */
    char want[800];
    snprintf(want, sizeof want, "corobench: warning: calibration refused: %s: "
                                "fit.ns_per_mispredict: -5 ", file);
    CB_CHECK_CONTAINS(err, want);
    CB_CHECK_CONTAINS(err, "; using the default for ");
    CB_CHECK_STREQ(json_string_value(json_object_get(rsb, "source")), "default");
    CB_CHECK_CONTAINS(json_string_value(json_object_get(rsb, "refused")), "fit.ns_per_mispredict");
    json_decref(rsb);
    free(err);
    /* The good file: adopted, nothing said, refused null. */
    json_object_set_new(json_object_get(cal, "fit"), "ns_per_mispredict", json_real(4.25));
    CB_CHECK_EQ_INT(json_dump_file(cal, file, 0), 0);
    CB_CHECK_EQ_INT(small_run(&err, &rsb), 0);
    CB_CHECK(!strstr(err, "calibration"));
    CB_CHECK_STREQ(json_string_value(json_object_get(rsb, "source")), "calibrated");
    CB_CHECK(json_is_null(json_object_get(rsb, "refused")));
    json_decref(rsb);
    free(err);
    json_decref(cal);
    cal_cleanup();
}

CB_TEST_T(calibration_fifo_refused_not_waited_on, 60)
{
    /* A FIFO in the file's place: opening it for reading would wait for a writer forever. */
    const char *file = cal_file();
    unlink(file);
    CB_CHECK_EQ_INT(mkfifo(file, 0600), 0);
    char *err;
    json_t *rsb;
    CB_CHECK_EQ_INT(small_run(&err, &rsb), 0);
    CB_CHECK_CONTAINS(err, "not a regular file");
    CB_CHECK_STREQ(json_string_value(json_object_get(rsb, "source")), "default");
    json_decref(rsb);
    free(err);
    /* A symbolic link to nothing is said too (a missing file is not). */
    unlink(file);
    CB_CHECK_EQ_INT(symlink("/nonexistent/cal.json", file), 0);
    CB_CHECK_EQ_INT(small_run(&err, &rsb), 0);
    CB_CHECK_CONTAINS(err, "a symbolic link to nothing");
    json_decref(rsb);
    free(err);
    unlink(file);
    CB_CHECK_EQ_INT(small_run(&err, &rsb), 0);
    CB_CHECK(!strstr(err, "calibration"));
    json_decref(rsb);
    free(err);
    cal_cleanup();
}

CB_TEST(calibration_lower_bound_not_adopted)
{
    /* calibrate --max-depth 8 cannot tell circular 9 from any larger circular stack: it writes
     * entries 9, entries_tied_up_to 64. A run must not adopt 9 as calibrated. */
    const char *file = cal_file();
    json_t *cal = good_cal();
    json_object_set_new(json_object_get(cal, "fit"), "model", json_string("circular"));
    json_object_set_new(json_object_get(cal, "fit"), "entries", json_integer(9));
    json_object_set_new(json_object_get(cal, "fit"), "entries_tied_up_to", json_integer(64));
    CB_CHECK_EQ_INT(json_dump_file(cal, file, 0), 0);
    char *err;
    json_t *rsb;
    CB_CHECK_EQ_INT(small_run(&err, &rsb), 0);
    CB_CHECK_CONTAINS(err, "fit.entries_tied_up_to: 64: circular 9..64 count the same over its "
                           "sweep, so 9 entries is only a lower bound");
    CB_CHECK_STREQ(json_string_value(json_object_get(rsb, "source")), "default");
    CB_CHECK(json_integer_value(json_object_get(rsb, "entries")) != 9);
    json_decref(rsb);
    free(err);
    json_decref(cal);
    cal_cleanup();
}

CB_TEST_T(calibration_resolved_once_by_the_parent, 600)
{
    /* The calibration file is replaced while a --rsb sim run is under way: every cell's
     * counting pass (an exec'd instrumented binary) still simulates the model the run began
     * with, which its results file records. */
    char bin[4200];
    snprintf(bin, sizeof bin, "%s/bin/corobench-rsbsim", cb_test_root());
    if (access(bin, X_OK) != 0)
        CB_SKIP("no instrumented build here (x86-64 only): %s", bin);
    CB_SKIP_UNDER_ASAN("its instrumentation adds calls and returns to every count");
    const char *file = cal_file();
    json_t *cal = good_cal();
    CB_CHECK_EQ_INT(json_dump_file(cal, file, 0), 0);
    char out_path[512];
    snprintf(out_path, sizeof out_path, "/tmp/cbtest-%ld-calfile/run.json", (long)getpid());
    cb_proc p;
    cb_test_corobench_start(&p, "run", "--impl", "asm", "--workload", "pingpong", "--param",
                            "depth=1,2,3,4,5,6,7,8", "--param", "switches=100", "--reps", "1",
                            "--min-rep-ms", "1", "--rsb", "sim", "--no-table", "-o", out_path,
                            NULL);
    /* The parent has read the file once it runs its first cell's child. */
    while (!cb_test_child_of(p.pid, NULL))
        usleep(1000);
    char tmp[700];
    snprintf(tmp, sizeof tmp, "%s.new", file);
    json_object_set_new(json_object_get(cal, "fit"), "model", json_string("circular"));
    json_object_set_new(json_object_get(cal, "fit"), "entries", json_integer(9));
    json_object_set_new(json_object_get(cal, "fit"), "entries_tied_up_to", json_integer(9));
    CB_CHECK_EQ_INT(json_dump_file(cal, tmp, 0), 0);
    CB_CHECK_EQ_INT(rename(tmp, file), 0);
    CB_CHECK_EQ_INT(cb_test_wait(&p), 0);
    json_error_t e;
    json_t *doc = json_load_file(out_path, 0, &e);
    CB_CHECK(doc != NULL);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(doc, "cells"), i, c)
    {
        json_t *r = json_object_get(c, "rsbsim");
        CB_CHECK_STREQ(json_string_value(json_object_get(c, "status")), "ok");
        CB_CHECK_STREQ(json_string_value(json_object_get(r, "model")), "underflow-btb");
        CB_CHECK_EQ_INT(json_integer_value(json_object_get(r, "entries")), 16);
    }
    CB_CHECK_EQ_INT(i, 8);
    json_decref(doc);
    json_decref(cal);
    cal_cleanup();
}

CB_TEST(calibration_dir_from_the_tree_not_the_cwd)
{
    /* Run from another directory, corobench reads its own tree's results/calibration. */
    char root[4096], want[4200], bin[4200];
    CB_CHECK(realpath(cb_test_root(), root) != NULL);
    CB_CHECK(cb_root_dir() != NULL);
    snprintf(want, sizeof want, "%s/results/calibration/<cpu key>.json", cb_root_dir());
    snprintf(bin, sizeof bin, "%s/bin/corobench", root);
    unsetenv("COROBENCH_CALIBRATION_DIR");
    CB_CHECK_EQ_INT(chdir("/tmp"), 0);
    char *argv[] = {bin, "calibrate", "--help", NULL}, *out, *err;
    CB_CHECK_EQ_INT(cb_test_spawn(argv, &out, &err), 0);
    CB_CHECK_CONTAINS(out, want);
    free(out);
    free(err);
}

CB_TEST(calibration_report_checks_machine_rsb)
{
    /* A results file whose machine.rsb is not what a run writes: report refuses it, naming the
     * field, instead of printing "this machine's is ? 0". */
    cal_file();
    char *err;
    json_t *rsb;
    CB_CHECK_EQ_INT(small_run(&err, &rsb), 0);
    free(err);
    char path[512], md[512];
    snprintf(path, sizeof path, "/tmp/cbtest-%ld-calfile/run.json", (long)getpid());
    snprintf(md, sizeof md, "/tmp/cbtest-%ld-calfile/r.md", (long)getpid());
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    CB_CHECK(doc != NULL);
    static const struct {
        const char *field, *json, *says;
    } bad[] = {
        {NULL, "\"garbage\"", "field 'machine.rsb' is a string (valid: an object)"},
        {"entries", "\"16\"", "field 'machine.rsb.entries' is \"16\" (a string)"},
        {"model", "7", "field 'machine.rsb.model' is 7"},
        {"source", "\"guess\"", "field 'machine.rsb.source' is \"guess\""},
        {"r2", "\"high\"", "field 'machine.rsb.r2' is \"high\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *copy = json_deep_copy(doc), *m = json_object_get(copy, "machine");
        json_t *v = json_loads(bad[i].json, JSON_DECODE_ANY, &e);
        if (bad[i].field)
            json_object_set_new(json_object_get(m, "rsb"), bad[i].field, v);
        else
            json_object_set_new(m, "rsb", v);
        CB_CHECK_EQ_INT(json_dump_file(copy, path, 0), 0);
        json_decref(copy);
        cb_test_cli r = cb_test_corobench("report", path, "--no-plots", "-o", md, "--force",
                                          NULL);
        CB_CHECK_EQ_INT(r.status, 2);
        CB_CHECK_CONTAINS(r.err, bad[i].says);
        free(r.out);
        free(r.err);
    }
    json_decref(rsb);
    json_decref(doc);
    cal_cleanup();
}

CB_TEST(calibrate_refuses_before_the_sweep)
{
    /* Each of these was found only after the sweep (minutes), or not at all. */
    cal_file();
    char dir[256], x[300], cmd[1200];
    snprintf(dir, sizeof dir, "/tmp/cbtest-%ld-calfile", (long)getpid());
    snprintf(x, sizeof x, "%s/x.json", dir);
    /* -o and --data one file. */
    cb_test_cli r = cb_test_corobench("calibrate", "-o", x, "--data", x, NULL);
    CB_CHECK_EQ_INT(r.status, 2);
    CB_CHECK_CONTAINS(r.err, "is the calibration file itself");
    free(r.out);
    free(r.err);
    /* A CPU outside this process's allowed set. */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    CB_CHECK_EQ_INT(sched_setaffinity(0, sizeof one, &one), 0);
    r = cb_test_corobench("calibrate", "--pin", "1", "-o", x, NULL);
    CB_CHECK_EQ_INT(r.status, 2);
    CB_CHECK_CONTAINS(r.err, "invalid value '1' for --pin (valid: a CPU this process may run on");
    free(r.out);
    free(r.err);
    /* An -o so long that the sweep's own files beside it would pass the limit. */
    char longp[4096];
    int n = snprintf(longp, sizeof longp, "%s/long", dir);
    while (n < 3700)
        n += snprintf(longp + n, sizeof longp - (size_t)n, "/%0200d", 0);
    /* mkdir -p of the whole path, a piece at a time. */
    for (char *p = longp + strlen(dir) + 1; (p = strchr(p + 1, '/'));) {
        *p = '\0';
        mkdir(longp, 0700);
        *p = '/';
    }
    mkdir(longp, 0700);
    while (n < 3790)
        longp[n++] = 'c';
    snprintf(longp + n, sizeof longp - (size_t)n, ".json");
    r = cb_test_corobench("calibrate", "-o", longp, NULL);
    CB_CHECK_EQ_INT(r.status, 2);
    CB_CHECK_CONTAINS(r.err, "too long");
    free(r.out);
    free(r.err);
    /* The calibration directory a symbolic link to nothing: said, with no false "created". */
    char link[300];
    snprintf(link, sizeof link, "%s/cal", dir);
    CB_CHECK_EQ_INT(symlink("/nonexistent-cbtest-dir", link), 0);
    setenv("COROBENCH_CALIBRATION_DIR", link, 1);
    r = cb_test_corobench("calibrate", NULL);
    CB_CHECK_EQ_INT(r.status, 2);
    CB_CHECK(!strstr(r.err, "created directory"));
    CB_CHECK_CONTAINS(r.err, "symbolic link to nothing");
    free(r.out);
    free(r.err);
    /* A variant build that cannot run: a copy of bin/corobench alone in a bin/ directory. */
    snprintf(cmd, sizeof cmd, "mkdir -p %s/tree/bin && cp %s/bin/corobench %s/tree/bin/", dir,
             cb_test_root(), dir);
    CB_CHECK_EQ_INT(system(cmd), 0);
    char bin[400];
    snprintf(bin, sizeof bin, "%s/tree/bin/corobench", dir);
    char *argv[] = {bin, "calibrate", "-o", x, NULL}, *out, *err;
    CB_CHECK_EQ_INT(cb_test_spawn(argv, &out, &err), 2);
    CB_CHECK_CONTAINS(err, "tree/bin/corobench-");
    CB_CHECK_CONTAINS(err, "which is not built");
    free(out);
    free(err);
    cal_cleanup();
}

/* Issue 30, LOW 4: COROBENCH_CALIBRATION_DIR=/x/a/b made every missing level, where -o makes
 * one at most: refused now, naming the directory, with nothing made. (A short sweep: before,
 * the refusal never came and the sweep ran.) */
CB_TEST_T(calibrate_env_dir_one_level_like_o, 120)
{
    cal_file();
    char dir[256], deep[300];
    snprintf(dir, sizeof dir, "/tmp/cbtest-%ld-calfile", (long)getpid());
    snprintf(deep, sizeof deep, "%s/a/b/c", dir);
    setenv("COROBENCH_CALIBRATION_DIR", deep, 1);
    cb_test_cli r = cb_test_corobench("calibrate", "--max-depth", "2", "--switches", "100",
                                      "--reps", "1", "--runs", "1", "--min-rep-ms", "0.01", NULL);
    CB_CHECK_EQ_INT(r.status, 2);
    char want[700];
    snprintf(want, sizeof want, "calibration output: directory '%s' does not exist, nor does its "
             "parent (valid: COROBENCH_CALIBRATION_DIR naming an existing directory", deep);
    CB_CHECK_CONTAINS(r.err, want);
    CB_CHECK(strchr(r.err, '\n') == r.err + strlen(r.err) - 1);
    snprintf(deep, sizeof deep, "%s/a", dir);
    CB_CHECK(access(deep, F_OK) != 0);
    free(r.out);
    free(r.err);
    cal_cleanup();
}

/* calibrate with SIGPIPE at its default and stdout a pipe nobody reads, on CPU 0 alone. */
static char *pipe_argv[16];
static int closed_stdout_body(void *arg)
{
    (void)arg;
    int fds[2];
    if (pipe(fds) != 0 || dup2(fds[1], 1) < 0)
        return 126;
    close(fds[0]);
    signal(SIGPIPE, SIG_DFL);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    sched_setaffinity(0, sizeof one, &one);
    return cb_proc_exec(pipe_argv);
}

CB_TEST_T(calibrate_small_sweep_file_first_latest_untouched, 600)
{
    /* -o into a directory named results: the sweep's own run must not point
     * results/latest.json at its temporary file; the file is written before the table, so a
     * reader that goes away (| head) loses nothing; the default CPU is the last allowed one
     * (CPU 0 here); a sweep of depth 0..6 fills no stack of 8 or more, so if its fit is a
     * lower bound, calibrate says runs will not adopt it. */
    cal_file();
    char dir[256], out_path[300], latest[300], bin[4200];
    snprintf(dir, sizeof dir, "/tmp/cbtest-%ld-calfile/results", (long)getpid());
    mkdir(dir, 0700);
    snprintf(out_path, sizeof out_path, "%s/cal.json", dir);
    snprintf(latest, sizeof latest, "%s/latest.json", dir);
    CB_CHECK_EQ_INT(symlink("old.json", latest), 0);
    snprintf(bin, sizeof bin, "%s/bin/corobench", cb_test_root());
    /* rsb_calibrate_small_sweep's sweep (3 runs, 3 repetitions); on a loaded machine the fit
     * of so short a sweep can still find no candidate, so one more try. */
    char dat[300];
    snprintf(dat, sizeof dat, "%s/cal.dat", dir);
    char *a[] = {bin, "calibrate", "--max-depth", "6", "--switches", "400", "--reps", "3",
                 "--min-rep-ms", "1", "-o", out_path, "--data", dat, NULL};
    memcpy(pipe_argv, a, sizeof a);
    cb_proc p;
    cb_proc_result res;
    cb_proc_opts po = {.pin_cpu = -1, .stdin_null = 1};
    char why[256];
    int st = 1;
    for (int attempt = 0; attempt < 2 && st != 0 && st != 128 + SIGPIPE; attempt++) {
        if (attempt)
            cb_proc_result_free(&res);
        if (cb_proc_start(&p, &po, closed_stdout_body, NULL, why, sizeof why))
            CB_FAIL("%s", why);
        cb_proc_wait(&p, 0, &res);
        st = cb_proc_exit_code(res.wait_status);
        if (st != 0 && st != 128 + SIGPIPE && !strstr(res.err, "no candidate fits"))
            break;
    }
    if (st != 0 && st != 128 + SIGPIPE)
        CB_FAIL("calibrate: exit %d: %s", st, res.err);
    char target[300] = "";
    CB_CHECK(readlink(latest, target, sizeof target - 1) > 0);
    CB_CHECK_STREQ(target, "old.json");
    json_error_t e;
    json_t *doc = json_load_file(out_path, 0, &e);
    if (!doc)
        CB_FAIL("no calibration file after a closed stdout: %s; stderr: %s", e.text, res.err);
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(json_object_get(doc, "sweep"), "pin_cpu")),
                    0);
    json_t *fit = json_object_get(doc, "fit");
    int lower = json_integer_value(json_object_get(fit, "entries_tied_up_to")) >
                json_integer_value(json_object_get(fit, "entries"));
    CB_CHECK_EQ_INT(strstr(res.err, "runs will not adopt this calibration") != NULL, lower);
    /* The plot data (plots/rsb-calibration.gp) carries each block's style from the one scheme
     * every plot uses (style.c): the implementation's colour and point type, its open twin at
     * sites=same. */
    char *data = cb_test_slurp(dat);
    CB_CHECK(data != NULL);
    static const char *const impls[] = {"asm", "asmjmp"}, *const sites[] = {"distinct", "same"};
    size_t nstyles;
    const cb_plot_style *sty = cb_plot_styles(&nstyles);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            char head[64], row[64];
            snprintf(head, sizeof head, "\"%s sites=%s\"\n", impls[i], sites[j]);
            const char *b = strstr(data, head);
            if (!b)
                CB_FAIL("no block %s in %s", head, dat);
            const cb_plot_style *st = &sty[cb_plot_linetype(impls[i]) - 1];
            const char *row0 = strchr(strchr(b, '\n') + 1, '\n') + 1; /* after the # line */
            const char *eol = strchr(row0, '\n');
            snprintf(row, sizeof row, " %ld %d", strtol(st->colour + 1, NULL, 16),
                     j ? cb_plot_point_open(st->point) : st->point);
            if (!eol || (size_t)(eol - row0) < strlen(row) ||
                memcmp(eol - strlen(row), row, strlen(row)))
                CB_FAIL("block %s: first row '%.*s' does not end in '%s'", head,
                        eol ? (int)(eol - row0) : 0, row0, row);
        }
    CB_CHECK(cb_plot_point_open(7) == 6 && cb_plot_point_open(9) == 8);
    free(data);
    /* Nothing of the sweep's left beside it. */
    char cmd[400];
    snprintf(cmd, sizeof cmd, "test \"$(ls -A %s)\" = \"$(printf 'cal.dat\\ncal.json\\nlatest.json')\"", dir);
    CB_CHECK_EQ_INT(system(cmd), 0);
    json_decref(doc);
    cb_proc_result_free(&res);
    cal_cleanup();
}
