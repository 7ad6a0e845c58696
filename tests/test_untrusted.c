/* Reproductions of issue 30's hostile-tester defects: strings and bytes from files, programs
 * and users (results files, an external runtime's reply and stderr, a plugin), and the process
 * around a run (a closed pipe, a FIFO given as a plugin). Each test names its docs/bad-input.md
 * row. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/common/alloc.h"
#include "harness/common/untrusted.h"
#include "harness/results/load.h"
#include "impls/root.h"
#include "harness/measure/external.h"
#include "impls/impls.h"
#include "impls/languages.h"
#include "test.h"

/* A private directory for this test process (support.c). */
static const char *tdir(void) { return cb_test_dir("untrusted"); }
static void tdir_cleanup(void) { cb_test_dir_cleanup("untrusted"); }

/* HIGH 5: `run ... 2>&1 >/dev/null | head -1` exited 141 by SIGPIPE and the results file was
 * never written. Now the run goes on, writes its file, and exits 141 itself. */
CB_TEST(closed_stderr_pipe_results_kept)
{
    char out[300], bin[4200];
    snprintf(out, sizeof out, "%s/piped.json", tdir());
    snprintf(bin, sizeof bin, "%s/bin/corobench", cb_test_root());
    int fds[2];
    CB_CHECK_EQ_INT(pipe(fds), 0);
    close(fds[0]); /* the reader has gone before the first line */
    pid_t pid = fork();
    CB_CHECK(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(fds[1], 2);
        signal(SIGPIPE, SIG_DFL);
        execl(bin, bin, "run", "--impl", "sm", "--workload", "recursive", "--param", "height=4",
              "--invocations", "1", "--reps", "1", "--warmup", "0", "-o", out, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    int st;
    CB_CHECK_EQ_INT(waitpid(pid, &st, 0), pid);
    if (!WIFEXITED(st))
        CB_FAIL("run was killed by signal %d (the closed pipe killed it)", WTERMSIG(st));
    CB_CHECK_EQ_INT(WEXITSTATUS(st), 141);
    json_error_t e;
    json_t *doc = json_load_file(out, 0, &e);
    if (!doc)
        CB_FAIL("no results file after a closed stderr: %s", e.text);
    CB_CHECK_EQ_INT(json_array_size(json_object_get(doc, "cells")), 1);
    json_decref(doc);
    tdir_cleanup();
}

/* A results file of sm pingpong, depth 0 and 4, both sites, counted by the simulator: what the
 * mispredictions plot (which names the model) is drawn from. */
static void rsb_results(const char *path)
{
    cb_test_cli r = cb_test_corobench("run", "--impl", "sm", "--workload", "pingpong", "--param",
                                      "depth=0,4", "--param", "sites=distinct,same", "--param",
                                      "switches=1000", "--rsb", "sim", "--invocations", "1",
                                      "--reps", "2", "--min-rep-ms", "1", "--no-table", "-o",
                                      path, NULL);
    if (r.status != 0)
        CB_FAIL("run: exit %d: %s", r.status, r.err);
    free(r.out);
    free(r.err);
}

/* HIGH 1: run.rsb_model and the -o path were spliced into `gnuplot -e "...='%s'"`: a quote in
 * either ran gnuplot's system(). Now each is a gnuplot string literal: the plot is drawn with
 * the text as its title, and nothing runs. */
CB_TEST_T(report_gnuplot_strings_are_data, 180)
{
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        CB_SKIP("gnuplot not installed");
    char bin[4200], root[4096];
    CB_CHECK(realpath(cb_test_root(), root) != NULL);
    snprintf(bin, sizeof bin, "%s/bin/corobench", root);
    CB_CHECK_EQ_INT(chdir(tdir()), 0);
    setenv("CB_BUILD_ROOT", root, 1);
    rsb_results("good.json");
    json_error_t e;
    json_t *doc = json_load_file("good.json", 0, &e);
    CB_CHECK(doc != NULL);
    json_object_set_new(json_object_get(doc, "run"), "rsb_model",
                        json_string("x'; system('touch PWNED'); y='"));
    CB_CHECK_EQ_INT(json_dump_file(doc, "evil.json", 0), 0);
    json_decref(doc);
    char *argv[] = {bin, "report", "evil.json", "-o", "r.md", NULL}, *out, *err;
    int st = cb_test_spawn(argv, &out, &err);
    if (st != 0)
        CB_FAIL("report: exit %d: %s", st, err);
    free(out);
    free(err);
    CB_CHECK(access("PWNED", F_OK) != 0);
    CB_CHECK_EQ_INT(access("r-plots/pingpong-mispredict.png", F_OK), 0);
    char *argv2[] = {bin, "report", "good.json", "-o", "x';system('touch PWNED2');'.md", NULL};
    st = cb_test_spawn(argv2, &out, &err);
    if (st != 0)
        CB_FAIL("report: exit %d: %s", st, err);
    CB_CHECK(access("PWNED2", F_OK) != 0);
    /* a quote in the path no longer fails every plot ("line 0: invalid command") */
    CB_CHECK_EQ_INT(access("x';system('touch PWNED2');'-plots/pingpong-mispredict.png", F_OK), 0);
    free(out);
    free(err);
    tdir_cleanup();
}

/* Writes text to path, mode 0755. */
static void write_script(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CB_CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
    CB_CHECK_EQ_INT(chmod(path, 0755), 0);
}

/* One recursive cell of the external runtime `x` running script (a shell script's text): the
 * cell, whatever the run's exit. */
static json_t *external_cell(const char *script)
{
    char sh[300], ext[400], out[300];
    snprintf(sh, sizeof sh, "%s/x.sh", tdir());
    snprintf(ext, sizeof ext, "x=%s", sh);
    snprintf(out, sizeof out, "%s/x.json", tdir());
    unlink(out);
    write_script(sh, script);
    cb_test_cli r = cb_test_corobench("run", "--external", ext, "--impl", "x", "--workload",
                                      "recursive", "--param", "height=4", "--invocations", "1",
                                      "--reps", "1", "--warmup", "0", "--timeout", "20",
                                      "--no-table", "-o", out, NULL);
    if (r.status != 0 && r.status != 1)
        CB_FAIL("run: exit %d: %s", r.status, r.err);
    free(r.out);
    free(r.err);
    json_error_t e;
    json_t *doc = json_load_file(out, 0, &e);
    if (!doc)
        CB_FAIL("results: %s", e.text);
    json_t *cell = json_incref(json_array_get(json_object_get(doc, "cells"), 0));
    json_decref(doc);
    return cell;
}

/* HIGH 4: an invalid byte on an external's stderr, or a reply's error of 2000 x "é" (cut in the
 * middle of a character), crashed the cell's process (strlen of the NULL that json_dumps gives
 * for invalid UTF-8): "killed by signal 11", and an unsupported reply became a failure. */
CB_TEST(external_text_cut_on_characters)
{
    json_t *cell = external_cell("#!/bin/sh\nprintf 'fatal: \\377\\n' >&2\nexit 3\n");
    CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), "failed");
    CB_CHECK_CONTAINS(json_string_value(json_object_get(cell, "error")),
                      "fatal: " CB_TEXT_REPLACEMENT " [exit status 3]");
    json_decref(cell);
    for (int unsupported = 0; unsupported < 2; unsupported++) {
        char script[400];
        snprintf(script, sizeof script,
                 "#!/bin/sh\nexec python3 -c 'import json; print(json.dumps({\"error\": "
                 "\"\\u00e9\" * 2000%s}))'\n",
                 unsupported ? ", \"unsupported\": True" : "");
        cell = external_cell(script);
        const char *err = json_string_value(json_object_get(cell, "error"));
        CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")),
                       unsupported ? "unsupported" : "failed");
        CB_CHECK(err != NULL);
        CB_CHECK_CONTAINS(err, "\xc3\xa9\xc3\xa9\xc3\xa9");
        CB_CHECK(strlen(err) <= CB_TEXT_ERROR_MAX);
        CB_CHECK(cb_text_is_clean(err, strlen(err)));
        json_decref(cell);
    }
    tdir_cleanup();
}

/* The reply's text read as cb_ext_run reads a program's stdout: its return, err in *err. */
static int read_reply(const char *text, size_t len, char *err, size_t errlen)
{
    cb_ext_reply rp;
    int rc = cb_ext_read_reply("x", text, len, 1024, &rp, err, errlen);
    if (rc == 0)
        json_decref(rp.doc);
    return rc;
}

/* What tests/fuzz/fuzz_external found, and the LOW rows on replies: "error": "" gave the cell an
 * empty reason; a C1 control character in a field's value (U+008F) reached the cell's error as
 * it was; a key given twice was taken (the last one), and bytes after a NUL were ignored. */
CB_TEST(external_reply_fuzz_findings)
{
    char err[256];
    const char ok[] = "{\"protocol\": \"corobench-external/1\", \"ops\": 15, \"checksum\": "
                      "\"0x7ca91ebc9f7a2699\", \"suspensions\": 15, \"batch\": 35, "
                      "\"samples_ns_per_op\": [446.9]}";
    CB_CHECK_EQ_INT(read_reply(ok, strlen(ok), err, sizeof err), 0);
    const char empty[] = "{\"error\": \"\", \"unsupported\": true}";
    CB_CHECK_EQ_INT(read_reply(empty, strlen(empty), err, sizeof err), -1);
    CB_CHECK_STREQ(err, "x: reply: error is \"\" (valid: null, or a string saying why)");
    char c1[sizeof ok + 64];
    snprintf(c1, sizeof c1, "%.*s, \"coroutine_bytes\": \"a\xc2\x8f\"}", (int)strlen(ok) - 1, ok);
    CB_CHECK_EQ_INT(read_reply(c1, strlen(c1), err, sizeof err), -1);
    CB_CHECK_CONTAINS(err, "x: reply: coroutine_bytes is ");
    CB_CHECK(cb_text_is_clean(err, strlen(err)));
    CB_CHECK(strstr(err, "\xc2\x8f") == NULL);
    char twice[sizeof ok + 32];
    snprintf(twice, sizeof twice, "%.*s, \"ops\": 16}", (int)strlen(ok) - 1, ok);
    CB_CHECK_EQ_INT(read_reply(twice, strlen(twice), err, sizeof err), -2);
    CB_CHECK_CONTAINS(err, "duplicate object key");
    char nul[sizeof ok + 8];
    memcpy(nul, ok, sizeof ok); /* its NUL, then more */
    memcpy(nul + sizeof ok, "{}", 2);
    CB_CHECK_EQ_INT(read_reply(nul, sizeof ok + 2, err, sizeof err), -2);
}

/* One sink's output of s, as a new string. */
static char *sink(void (*esc)(FILE *, const char *), const char *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    esc(f, s);
    fclose(f);
    return text;
}

/* What tests/fuzz/fuzz_escape found in its first seconds: a '_' next to a byte of another
 * character was taken for a word's inside ("\u3002_foo_\u3002" is emphasis in CommonMark); the
 * code span of "" was "``" (two backticks shown), and that of " " three spaces (padded, and the
 * reader strips nothing from a span of spaces only). */
CB_TEST(escape_fuzz_findings)
{
    static const struct {
        void (*esc)(FILE *, const char *);
        const char *in, *out;
    } cases[] = {
        {cb_esc_md, "\xe3\x80\x82_foo_\xe3\x80\x82 per_op",
         "\xe3\x80\x82\\_foo\\_\xe3\x80\x82 per_op"},
        {cb_esc_md_code, "", ""},
        {cb_esc_md_code, " ", "` `"},
        {cb_esc_md_code, " a ", "`  a  `"},
        {cb_esc_md_code, "a`b", "`` a`b ``"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *t = sink(cases[i].esc, cases[i].in);
        CB_CHECK_STREQ(t, cases[i].out);
        free(t);
    }
}

/* HIGH 4, the parent's side: a cell whose process died after printing "boom \xff" (or 1000 x
 * "é") was written without its error field, and every reader refused the file. The line kept
 * is valid UTF-8, cut on a character. */
CB_TEST(failure_line_valid_utf8)
{
    char line[64];
    cb_proc_last_line("boom \xff\n", line, sizeof line);
    CB_CHECK_STREQ(line, "boom " CB_TEXT_REPLACEMENT);
    char many[2001] = "";
    for (int i = 0; i < 1000; i++)
        strcat(many, "\xc3\xa9");
    cb_proc_last_line(many, line, sizeof line);
    CB_CHECK(cb_text_is_clean(line, strlen(line)));
    CB_CHECK(strlen(line) < sizeof line);
    cb_proc_result r = {.err = many, .wait_status = 6}; /* killed by SIGABRT */
    char buf[100];
    cb_proc_failure(&r, buf, sizeof buf);
    CB_CHECK(cb_text_is_clean(buf, strlen(buf)));
    CB_CHECK_CONTAINS(buf, "... [killed by signal 6");
    /* cb_text_clean: every kind of bad byte replaced, the cut on a boundary */
    char out[32];
    cb_text_clean(out, sizeof out, "a\xc0\xaf" "b\xed\xa0\x80" "c\x1b[2Jd\xc2\x9b", 15, 1);
    CB_CHECK_STREQ(out, "a" CB_TEXT_REPLACEMENT CB_TEXT_REPLACEMENT "b" CB_TEXT_REPLACEMENT
                        CB_TEXT_REPLACEMENT CB_TEXT_REPLACEMENT "c?[2Jd?");
}

/* ---- every sink, every string field ---------------------------------------------------- */

/* The hostile strings: links to javascript: and elsewhere, headings and images out of a
 * code span or a table, a gnuplot command, a spreadsheet formula, a script. */
static const char *const hostile[] = {
    "see [details](<javascript:alert(document.domain)>) now",
    "[home](javascript:alert%281%29)",
    "boom\n\n# INJECTED\n[pwn](<javascript:alert(1)>)",
    "\n## INJECTED ![t](https://evil.example/p.png)",
    "x'; system('touch PWNED'); y='",
    "=HYPERLINK(\"https://evil.example\",\"x\")",
    "<script>alert(1)</script>`|\x1b[2J",
};
#define NHOSTILE (sizeof hostile / sizeof hostile[0])

/* Fields that are identifiers (refused when not plain: docs/bad-input.md) or have a format of
 * their own the reader checks; every other string of the document gets a hostile string. */
static int kept(const char *key)
{
    static const char *const ids[] = {"impl", "family", "workload", "variant", "unit", "status",
                                      "schema", "checksum", "rsb", "params", "unavailable",
                                      "stack_mode", "impl_row", NULL};
    for (size_t i = 0; ids[i]; i++)
        if (!strcmp(key, ids[i]))
            return 1;
    return 0;
}

static void make_hostile(json_t *v, size_t *k)
{
    const char *key;
    json_t *e;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach(v, key, e)
        {
            if (kept(key))
                continue;
            if (json_is_string(e))
                json_object_set_new(v, key, json_string(hostile[(*k)++ % NHOSTILE]));
            else
                make_hostile(e, k);
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, e)
        {
            if (json_is_string(e))
                json_array_set_new(v, i, json_string(hostile[(*k)++ % NHOSTILE]));
            else
                make_hostile(e, k);
        }
    }
}

/* md with each code span's content replaced by 'C' as a CommonMark reader takes it: a backtick
 * run not escaped by a backslash opens a span that the next run of the same length closes (none:
 * the run is literal text); inside it nothing is markup, so a '[pwn](' there is text. The
 * caller frees it. */
static char *outside_code_spans(const char *md)
{
    size_t n = strlen(md), o = 0;
    char *out = cb_xcalloc(n + 1, 1);
    for (size_t i = 0; i < n;) {
        size_t bs = 0;
        while (bs < o && out[o - 1 - bs] == '\\')
            bs++;
        if (md[i] != '`' || bs % 2) {
            out[o++] = md[i++];
            continue;
        }
        size_t run = strspn(md + i, "`"), j = i + run, close = 0;
        while (j < n && !close) {
            size_t r = strspn(md + j, "`");
            if (r == run)
                close = j;
            j += r ? r : 1;
        }
        if (!close) { /* no closing run: literal backticks */
            memcpy(out + o, md + i, run);
            o += run, i += run;
            continue;
        }
        out[o++] = 'C';
        i = close + run;
    }
    return out;
}

/* What must not appear in Markdown made from hostile text, outside its code spans (whose
 * content is text: the fuzz target fuzz_escape checks that no span is broken out of): a link or
 * image to anywhere, a heading of the text's, a table broken out of. */
static void md_safe(const char *what, const char *md)
{
    static const char *const never[] = {"[pwn](", "[home](", "[details](", "![t](",
                                        "\n# INJECTED", "\n## INJECTED", "<script>", "\x1b"};
    char *text = outside_code_spans(md);
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++) {
        const char *at = strstr(text, never[i]);
        if (at) {
            size_t back = (size_t)(at - text) < 40 ? (size_t)(at - text) : 40;
            CB_FAIL("%s holds '%s' outside a code span: ...%.120s", what, never[i], at - back);
        }
    }
    free(text);
}

CB_TEST_T(hostile_strings_through_every_sink, 240)
{
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        CB_SKIP("gnuplot not installed");
    char good[300], evil[300], md[300], html[300], *text;
    snprintf(good, sizeof good, "%s/good.json", tdir());
    snprintf(evil, sizeof evil, "%s/evil.json", tdir());
    snprintf(md, sizeof md, "%s/r.md", tdir());
    snprintf(html, sizeof html, "%s/h.html", tdir());
    rsb_results(good);
    json_error_t e;
    json_t *doc = json_load_file(good, 0, &e);
    CB_CHECK(doc != NULL);
    size_t k = 0;
    make_hostile(doc, &k);
    /* a failed cell, whose error every reader shows */
    json_t *c0 = json_array_get(json_object_get(doc, "cells"), 0);
    json_object_set_new(c0, "status", json_string("failed"));
    json_object_set_new(c0, "error", json_string(hostile[2]));
    CB_CHECK_EQ_INT(json_dump_file(doc, evil, 0), 0);
    CB_CHECK(k > 20);
    cb_test_cli r = cb_test_corobench("report", evil, "-o", md, NULL);
    if (r.status != 0)
        CB_FAIL("report md: exit %d: %s", r.status, r.err);
    free(r.out);
    free(r.err);
    text = cb_test_slurp(md);
    md_safe("report md", text);
    free(text);
    CB_CHECK(access("PWNED", F_OK) != 0);
    r = cb_test_corobench("report", evil, "-o", html, NULL);
    if (r.status != 0)
        CB_FAIL("report html: exit %d: %s", r.status, r.err);
    free(r.out);
    free(r.err);
    text = cb_test_slurp(html);
    static const char *const never_html[] = {"href=\"javascript", "href=\"https://evil",
                                             "<h1 id=\"injected", "<h2 id=\"injected",
                                             "<img", "<script>alert", "\x1b"};
    for (size_t i = 0; i < sizeof never_html / sizeof never_html[0]; i++)
        if (strstr(text, never_html[i]))
            CB_FAIL("report html holds '%s'", never_html[i]);
    free(text);
    r = cb_test_corobench("compare", good, evil, "--format", "md", NULL);
    CB_CHECK(r.status == 0 || r.status == 1);
    md_safe("compare md", r.out);
    CB_CHECK_CONTAINS(r.out, "\\[pwn\\]");
    free(r.out);
    free(r.err);
    r = cb_test_corobench("export", evil, "--format", "csv", NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    if (strstr(r.out, "\"=HYPERLINK") || strstr(r.out, ",=HYPERLINK") ||
        !strncmp(r.out, "=HYPERLINK", 10))
        CB_FAIL("export csv holds a formula cell");
    CB_CHECK(!strstr(r.out, "\x1b"));
    free(r.out);
    free(r.err);
    r = cb_test_corobench("export", evil, "--workload", "pingpong", "--x", "depth", NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    CB_CHECK(!strstr(r.out, "\n## INJECTED") && !strstr(r.out, "\nINJECTED"));
    free(r.out);
    free(r.err);
    json_decref(doc);
    /* An identifier holding one is refused by every reader, one line, exit 2. */
    doc = json_load_file(good, 0, &e);
    json_object_set_new(json_array_get(json_object_get(doc, "cells"), 1), "impl",
                        json_string(hostile[3]));
    CB_CHECK_EQ_INT(json_dump_file(doc, evil, 0), 0);
    json_decref(doc);
    const char *cmds[][6] = {{"report", evil, NULL},
                             {"compare", good, evil, "--format", "md", NULL},
                             {"export", evil, "--format", "csv", NULL, NULL}};
    for (size_t i = 0; i < 3; i++) {
        r = cb_test_corobench(cmds[i][0], cmds[i][1], cmds[i][2], cmds[i][3], cmds[i][4], NULL);
        CB_CHECK_EQ_INT(r.status, 2);
        CB_CHECK_CONTAINS(r.err, "cell 1: field 'impl' is '?## INJECTED");
        CB_CHECK(strchr(r.err, '\n') == r.err + strlen(r.err) - 1);
        free(r.out);
        free(r.err);
    }
    tdir_cleanup();
}

/* HIGH 3: an external runtime that did other work than corobench's (its checksum flipped and
 * one op more, its suspensions off, a sample more than --reps) was recorded ok, and the report
 * put its time beside sm's. Now the cell is checked against corobench's own sm body on the
 * same point, as check-external and plugin cells are, and fails naming the field and both
 * values. */
CB_TEST_T(external_other_work_fails_the_cell, 180)
{
    char root[4096];
    CB_CHECK(realpath(cb_root_dir(), root) /* the sources: examples/ */ != NULL);
    static const struct {
        const char *edit, *status, *says;
    } cases[] = {
        {"r['checksum']='0x%016x'%(int(r['checksum'],16)^1); r['ops']+=1", "failed",
         "x did different work than corobench's sm body on the same point: ops 64, not 63; "
         "checksum 0x"},
        {"r['suspensions']+=2", "failed", "same point: suspensions 65, not 63"},
        {"r['samples_ns_per_op'].append(1.0)", "failed",
         "samples_ns_per_op has 3 entries, not reps (2)"},
        {"pass", "ok", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char script[5000], sh[300], ext[400], out[300];
        snprintf(script, sizeof script,
                 "import json,subprocess,sys\n"
                 "r=json.loads(subprocess.run(['python3','%s/examples/external/recursive.py',"
                 "sys.argv[-1]],capture_output=True,text=True).stdout)\n"
                 "if 'checksum' in r: %s\n"
                 "print(json.dumps(r))\n",
                 root, cases[i].edit);
        snprintf(sh, sizeof sh, "%s/bad.py", tdir());
        write_script(sh, script);
        snprintf(ext, sizeof ext, "x=python3 %s", sh);
        snprintf(out, sizeof out, "%s/h3.json", tdir());
        unlink(out);
        cb_test_cli r = cb_test_corobench("run", "--external", ext, "--impl", "x,sm",
                                          "--workload", "recursive", "--param", "height=6",
                                          "--invocations", "1", "--reps", "2", "--warmup", "0",
                                          "--no-table", "-o", out, NULL);
        CB_CHECK_EQ_INT(r.status, !strcmp(cases[i].status, "ok") ? 0 : 1);
        free(r.out);
        free(r.err);
        json_error_t e;
        json_t *doc = json_load_file(out, 0, &e);
        CB_CHECK(doc != NULL);
        json_t *cell = json_array_get(json_object_get(doc, "cells"), 0);
        CB_CHECK_STREQ(json_string_value(json_object_get(cell, "impl")), "x");
        CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), cases[i].status);
        if (cases[i].says)
            CB_CHECK_CONTAINS(json_string_value(json_object_get(cell, "error")), cases[i].says);
        json_decref(doc);
    }
    tdir_cleanup();
}

/* ---- MEDIUM: the processes an external runtime starts ------------------------------------ */

/* How many live processes have marker in their command line (a test's own argument). */
static int alive_with(const char *marker)
{
    char cmd[300], *out, *err;
    /* "[s]leep ..." matches the process, not this shell's own command line */
    snprintf(cmd, sizeof cmd, "pgrep -f -- '[%c]%s' | wc -l", marker[0], marker + 1);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    CB_CHECK_EQ_INT(cb_test_spawn(argv, &out, &err), 0);
    int n = atoi(out);
    free(out);
    free(err);
    return n;
}

/* MEDIUM 1: a program that replies and leaves a child holding its stdout was recorded
 * `timeout` (the reply was read only at the pipe's end). Now the reply is read when the
 * program exits, and the child left in the cell's group is ended with it. */
CB_TEST_T(external_reply_read_at_exit_child_ended, 120)
{
    char marker[64], script[4400], root[4096];
    CB_CHECK(realpath(cb_root_dir(), root) /* the sources: examples/ */ != NULL);
    snprintf(marker, sizeof marker, "sleep 7%05d", (int)(getpid() % 100000));
    snprintf(script, sizeof script,
             "#!/bin/sh\npython3 %s/examples/external/recursive.py \"$@\"\n(%s) &\n", root,
             marker);
    double t0 = (double)time(NULL);
    json_t *cell = external_cell(script);
    CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), "ok");
    json_decref(cell);
    CB_CHECK((double)time(NULL) - t0 < 20);
    CB_CHECK_EQ_INT(alive_with(marker), 0);
    tdir_cleanup();
}

/* MEDIUM 1, its last part: a child the program started in a session of its own (`setsid`)
 * outlived the run, out of the group the run ends. The cell's process is the subreaper of what
 * its program leaves, and ends it when the program exits. */
CB_TEST_T(external_setsid_child_ended, 120)
{
    char marker[64], script[4400], root[4096];
    CB_CHECK(realpath(cb_root_dir(), root) /* the sources: examples/ */ != NULL);
    snprintf(marker, sizeof marker, "sleep 6%05d", (int)(getpid() % 100000));
    snprintf(script, sizeof script,
             "#!/bin/sh\npython3 %s/examples/external/recursive.py \"$@\"\n"
             "setsid %s </dev/null >/dev/null 2>&1 &\n", root, marker);
    json_t *cell = external_cell(script);
    CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), "ok");
    json_decref(cell);
    usleep(200000);
    CB_CHECK_EQ_INT(alive_with(marker), 0);
    tdir_cleanup();
}

/* MEDIUM 2: past check-external's limit only /bin/sh was killed, and the program was left
 * running. The program now runs in a group of its own there, which the limit ends whole. */
CB_TEST_T(external_timeout_ends_the_program, 60)
{
    char marker[64], cmd[200];
    snprintf(marker, sizeof marker, "sleep 8%05d", (int)(getpid() % 100000));
    snprintf(cmd, sizeof cmd, "%s; true", marker);
    CB_CHECK_EQ_INT(cb_lang_add_user("hung", cmd), 0);
    const cb_workload *wl = cb_workload_find("recursive");
    cb_params p;
    cb_test_params(wl, cb_impl_find("sm"), NULL, &p);
    cb_ext_request rq = {.workload = "recursive", .params = &p, .reps = 1, .batch = 1,
                         .min_rep_ms = 1, .max_batch = 1};
    cb_ext_reply rp;
    char why[512];
    CB_CHECK_EQ_INT(cb_ext_run("hung", &rq, 1, &rp, why, sizeof why), -1);
    CB_CHECK_CONTAINS(why, "hung: no reply within 1 s");
    usleep(200000);
    CB_CHECK_EQ_INT(alive_with(marker), 0);
}

/* LOW: check-external had a fixed 60 s per point and no --timeout. --timeout SEC bounds each
 * point: the program is ended (its group whole) and the point FAILED. */
CB_TEST_T(check_external_timeout, 120)
{
    char marker[64], cmd[200];
    snprintf(marker, sizeof marker, "sleep 5%05d", (int)(getpid() % 100000));
    snprintf(cmd, sizeof cmd, "%s; true", marker);
    cb_test_cli c = cb_test_corobench("check-external", cmd, "--timeout", "0.3", NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    CB_CHECK_CONTAINS(c.out, "FAILED      recursive");
    CB_CHECK_CONTAINS(c.out, "under-test: no reply within 0.3 s");
    CB_CHECK_CONTAINS(c.out, "NOT CONFORMING");
    usleep(200000);
    CB_CHECK_EQ_INT(alive_with(marker), 0);
    free(c.out);
    free(c.err);
    /* --timeout=SEC, before COMMAND */
    c = cb_test_corobench("check-external", "--timeout=0.2", cmd, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    CB_CHECK_CONTAINS(c.out, "under-test: no reply within 0.2 s");
    usleep(200000);
    CB_CHECK_EQ_INT(alive_with(marker), 0);
    free(c.out);
    free(c.err);
}

/* MEDIUM 3: a reply's size was unbounded (`yes` took check-external to 887 MB). Past 16 MiB
 * the program is ended and the cell failed with the size. */
CB_TEST_T(external_reply_bounded, 120)
{
    /* the sanitized reader did not take 16 MiB within the cell's timeout (it timed out) */
    CB_SKIP_UNDER_ASAN("reading 16 MiB of reply is slower than the cell's timeout");
    json_t *cell = external_cell("#!/bin/sh\nexec yes\n");
    CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), "failed");
    CB_CHECK_CONTAINS(json_string_value(json_object_get(cell, "error")),
                      "x: the program wrote more than 16 MiB on its stdout, ended");
    json_decref(cell);
    tdir_cleanup();
}

/* Every sample of every cell (and of each invocation) of the file in set to v. */
static void samples_set(const char *in, const char *out, double v)
{
    json_error_t e;
    json_t *doc = json_load_file(in, 0, &e), *c, *inv;
    CB_CHECK(doc != NULL);
    size_t i, k;
    json_array_foreach(json_object_get(doc, "cells"), i, c)
    {
        json_t *s = json_object_get(c, "samples_ns_per_op");
        for (k = 0; k < json_array_size(s); k++)
            json_array_set_new(s, k, json_real(v));
        json_array_foreach(json_object_get(c, "invocations"), k, inv)
        {
            json_t *is = json_object_get(inv, "samples_ns_per_op");
            for (size_t j = 0; j < json_array_size(is); j++)
                json_array_set_new(is, j, json_real(v));
        }
    }
    CB_CHECK_EQ_INT(json_dump_file(doc, out, 0), 0);
    json_decref(doc);
}

/* MEDIUM 5: all-zero samples passed the gate untimed: compare timed 0 cells and exited 0. */
CB_TEST(compare_zero_samples_not_a_pass)
{
    char good[300], zero[300];
    snprintf(good, sizeof good, "%s/good.json", tdir());
    snprintf(zero, sizeof zero, "%s/zero.json", tdir());
    rsb_results(good);
    samples_set(good, zero, 0);
    cb_test_cli r = cb_test_corobench("compare", good, zero, NULL);
    CB_CHECK_EQ_INT(r.status, 1);
    CB_CHECK_CONTAINS(r.out, "cannot be timed");
    free(r.out);
    free(r.err);
    tdir_cleanup();
}

/* MEDIUM 6: --save-baseline saved a run whose cells failed ("baseline saved", exit 1); a later
 * compare only noted "did not run in base" and passed. Now the baseline is not saved. */
CB_TEST(save_baseline_of_failed_run_refused)
{
    char name[64], path[200];
    snprintf(name, sizeof name, "cbtest-failed-%ld", (long)getpid());
    snprintf(path, sizeof path, "results/baselines/%s.json", name);
    char out[300];
    snprintf(out, sizeof out, "%s/f.json", tdir());
    cb_test_cli r = cb_test_corobench("run", "--impl", "sm", "--workload", "fault", "--param", "kind=abort",
                          "--invocations", "1", "--reps", "1", "--no-table", "--save-baseline",
                          name, "-o", out, NULL);
    CB_CHECK_EQ_INT(r.status, 1);
    CB_CHECK_CONTAINS(r.err, "not saved: 1 cells failed or timed out");
    CB_CHECK(access(path, F_OK) != 0);
    unlink(path);
    free(r.out);
    free(r.err);
    tdir_cleanup();
}

/* `corobench run --dry-run -o OUT --save-baseline NAME` run from the directory dir (where
 * results/baselines/ is); its exit status, its stderr in err (free it). */
static int dry_baseline(const char *dir, const char *name, char **err)
{
    char cmd[9000], root[4096], *out;
    CB_CHECK(realpath(cb_test_root(), root) != NULL);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && exec '%s/bin/corobench' run --impl sm --workload pingpong --dry-run -o "
             "'%s/out.json' --save-baseline %s",
             dir, root, dir, name);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    int st = cb_test_spawn(argv, &out, err);
    free(out);
    return st;
}

/* LOW: `run --dry-run --save-baseline NAME` did not check the baseline's path: the plan was
 * printed, exit 0, for a run that would be refused (a directory at the baseline's path,
 * results/baselines not a directory). The dry run refuses it as the run does, and makes
 * nothing (results/ and results/baselines/ made to try it are removed again). */
CB_TEST(dry_run_checks_the_baseline)
{
    char dir[300], path[400], cmd[1000], *err;
    snprintf(dir, sizeof dir, "%s/dry", tdir());
    CB_CHECK_EQ_INT(mkdir(dir, 0700), 0);
    CB_CHECK_EQ_INT(dry_baseline(dir, "b1", &err), 0);
    snprintf(path, sizeof path, "%s/results", dir);
    CB_CHECK(access(path, F_OK) != 0);
    free(err);
    /* a directory where the baseline goes */
    snprintf(path, sizeof path, "%s/results/baselines/b1.json", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    CB_CHECK_EQ_INT(system(cmd), 0);
    CB_CHECK_EQ_INT(dry_baseline(dir, "b1", &err), 2);
    CB_CHECK_CONTAINS(err, "corobench: baseline output: 'results/baselines/b1.json' is a "
                           "directory (valid: a new path, or a regular file, which is replaced)");
    CB_CHECK(strchr(err, '\n') == err + strlen(err) - 1);
    free(err);
    /* results/baselines a file: the run cannot make the directory */
    snprintf(cmd, sizeof cmd, "rm -r '%s/results/baselines' && touch '%s/results/baselines'", dir,
             dir);
    CB_CHECK_EQ_INT(system(cmd), 0);
    CB_CHECK_EQ_INT(dry_baseline(dir, "b1", &err), 2);
    CB_CHECK_CONTAINS(err, "corobench: cannot make 'results/baselines': Not a directory (valid: "
                           "run from a directory where results/ can be written)");
    free(err);
    snprintf(path, sizeof path, "%s/out.json", dir);
    CB_CHECK(access(path, F_OK) != 0);
    tdir_cleanup();
}

/* MEDIUM 11: a plugin path or description with a byte such as \xff vanished from the record
 * (run.plugins [], run.argv without the path): json_string of invalid UTF-8 is NULL. A plugin
 * path that is not UTF-8 is now refused (the cell's request carries it too); any other argument
 * is recorded with the byte replaced. */
CB_TEST(invalid_utf8_path_and_argument_kept_or_refused)
{
    char so[300], src[4200], out[300];
    snprintf(src, sizeof src, "%s/bin/examples/libcb_ucontext.so", cb_test_root());
    if (access(src, R_OK) != 0)
        CB_SKIP("bin/examples/libcb_ucontext.so not built");
    snprintf(so, sizeof so, "%s/p\xff.so", tdir());
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, so);
    CB_CHECK_EQ_INT(system(cmd), 0);
    cb_test_cli r = cb_test_corobench("list", "--impl-lib", so, NULL);
    CB_CHECK_EQ_INT(r.status, 2);
    CB_CHECK_CONTAINS(r.err, "its path is not valid UTF-8");
    free(r.out);
    free(r.err);
    r = cb_test_corobench("run", "--external", "x=true #\xff", "--impl", "x", NULL);
    CB_CHECK_EQ_INT(r.status, 2);
    CB_CHECK_CONTAINS(r.err, "has a command that is not valid UTF-8");
    free(r.out);
    free(r.err);
    snprintf(out, sizeof out, "%s/a\xff.json", tdir());
    r = cb_test_corobench("run", "--impl", "sm", "--workload", "recursive", "--param",
                          "height=4", "--invocations", "1", "--reps", "1", "--no-table", "-o",
                          out, NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    free(r.out);
    free(r.err);
    json_error_t e;
    json_t *doc = json_load_file(out, 0, &e);
    CB_CHECK(doc != NULL);
    json_t *argv = json_object_get(json_object_get(doc, "run"), "argv"), *a;
    size_t i;
    int found = 0;
    json_array_foreach(argv, i, a) found |= strstr(json_string_value(a),
                                                   "/a" CB_TEXT_REPLACEMENT ".json") != NULL;
    CB_CHECK(found);
    json_decref(doc);
    tdir_cleanup();
}

/* The column at which "stackful" starts on the implementation NAME's line of `list`, -1 if
 * none. */
static long family_column(const char *out, const char *name)
{
    char key[80];
    snprintf(key, sizeof key, "\n  %s ", name);
    const char *line = strstr(out, key), *fam = line ? strstr(line, " stackful") : NULL;
    if (!fam || memchr(line + 1, '\n', (size_t)(fam - line - 1)))
        return -1;
    return (long)(fam + 1 - (line + 1));
}

/* LOW: `list --wide` cut a plugin's description at about 2 KB, and a 32-character name (the
 * longest a name may be) pushed its row's columns out of line. Now the description is whole
 * under --wide, cut at 120 columns without it, through the terminal's sink either way (an
 * escape sequence, an invalid byte, a newline as '?' or U+FFFD), and the name column is as
 * wide as the longest name. */
CB_TEST(list_plugin_text_through_terminal_sink)
{
    char so[4200];
    snprintf(so, sizeof so, "%s/bin/test-plugins/libcb_bad_list.so", cb_test_root());
    if (access(so, R_OK) != 0)
        CB_FAIL("%s is not built (make examples)", so);
    for (int wide = 0; wide < 2; wide++) {
        cb_test_cli r = cb_test_corobench("list", "impls", "--impl-lib", so,
                                          wide ? "--wide" : NULL, NULL);
        CB_CHECK_EQ_INT(r.status, 0);
        CB_CHECK(cb_text_is_clean(r.out, strlen(r.out)));
        /* whole under --wide; without it the row is cut at 120 columns, after the plugin's
         * path, which may take them all (the sanitize build's is 70 characters) */
        if (wide) {
            CB_CHECK_CONTAINS(r.out, ": ?[31mred?[0m ?]0;title? bad" CB_TEXT_REPLACEMENT
                                     " byte, line?break ddd");
            CB_CHECK_CONTAINS(r.out, "ddd END-OF-DESCRIPTION\n");
        }
        else
            for (const char *l = r.out, *nl; (nl = strchr(l, '\n')); l = nl + 1)
                if (nl - l > 120)
                    CB_FAIL("a line of %ld bytes, not at most 120: %.*s", (long)(nl - l),
                            (int)(nl - l), l);
        long asm_col = family_column(r.out, "asm"),
             plugin_col = family_column(r.out, "bad-list-a-name-of-thirty-two-ch");
        CB_CHECK(asm_col > 0);
        CB_CHECK_EQ_INT(plugin_col, asm_col);
        free(r.out);
        free(r.err);
    }
}

/* Issue 30 item 2: an --impl-lib path with a newline (and the loader's text, which names it)
 * was printed as it was: the message took two lines. Now quoted as every value is: one line. */
CB_TEST(impl_lib_message_one_line)
{
    char so[300];
    snprintf(so, sizeof so, "%s/a\nb.so", tdir());
    FILE *f = fopen(so, "w");
    CB_CHECK(f != NULL);
    fputs("not a shared object", f);
    fclose(f);
    cb_test_cli r = cb_test_corobench("list", "--impl-lib", so, NULL);
    CB_CHECK_EQ_INT(r.status, 2);
    CB_CHECK_CONTAINS(r.err, "cannot load --impl-lib '");
    CB_CHECK_CONTAINS(r.err, "/a?b.so");
    CB_CHECK(strchr(r.err, '\n') == r.err + strlen(r.err) - 1);
    free(r.out);
    free(r.err);
    tdir_cleanup();
}

/* Issue 30 item 3: `--impl-lib /dev/stdin` from a pipe said "No such file or directory" (its
 * link names "pipe:[N]"); it is a FIFO, not a regular file, and said so. */
CB_TEST(impl_lib_stdin_pipe_not_regular)
{
    char cmd[5000];
    snprintf(cmd, sizeof cmd, "echo x | %s/bin/corobench list --impl-lib /dev/stdin",
             cb_test_root());
    char *argv[] = {"/bin/sh", "-c", cmd, NULL}, *out, *err;
    CB_CHECK_EQ_INT(cb_test_spawn(argv, &out, &err), 2);
    CB_CHECK_CONTAINS(err, "invalid --impl-lib '/dev/stdin': a FIFO, not a regular file");
    free(out);
    free(err);
}

/* Issue 30 item 1: a comma in an --impl-lib path could not be loaded (the value was split
 * there); "\\," is a comma in a path now. */
CB_TEST(impl_lib_comma_in_path)
{
    char src[4200], so[300], arg[300], cmd[9000];
    snprintf(src, sizeof src, "%s/bin/examples/libcb_ucontext.so", cb_test_root());
    if (access(src, R_OK) != 0)
        CB_SKIP("bin/examples/libcb_ucontext.so not built");
    snprintf(so, sizeof so, "%s/x,y.so", tdir());
    snprintf(arg, sizeof arg, "%s/x\\,y.so", tdir());
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, so);
    CB_CHECK_EQ_INT(system(cmd), 0);
    cb_test_cli r = cb_test_corobench("list", "--wide", "--impl-lib", arg, NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    CB_CHECK_CONTAINS(r.out, "/x,y.so: example plugin");
    free(r.out);
    free(r.err);
    tdir_cleanup();
}

/* MEDIUM 12: under `ulimit -f 1` run died of SIGXFSZ and left its .NAME.tmp.PID file. Now the
 * write fails with EFBIG: said, exit 1, nothing half written left. */
CB_TEST(file_size_limit_said_no_temporary_left)
{
    char cmd[5000], root[4096];
    CB_CHECK(realpath(cb_test_root(), root) != NULL);
    snprintf(cmd, sizeof cmd,
             "cd %s && ulimit -f 1 && exec %s/bin/corobench run --impl sm --workload recursive "
             "--param height=4 --invocations 1 --reps 1 --warmup 0 --no-table -o %s/x.json",
             tdir(), root, tdir());
    char *argv[] = {"/bin/sh", "-c", cmd, NULL}, *out, *err;
    int st = cb_test_spawn(argv, &out, &err);
    CB_CHECK_EQ_INT(st, 1);
    CB_CHECK_CONTAINS(err, "File too large");
    char ls[400];
    snprintf(ls, sizeof ls, "ls -A %s | grep -c tmp || true", tdir());
    char *lsv[] = {"/bin/sh", "-c", ls, NULL}, *o2, *e2;
    CB_CHECK_EQ_INT(cb_test_spawn(lsv, &o2, &e2), 0);
    CB_CHECK_STREQ(o2, "0\n");
    free(o2);
    free(e2);
    free(out);
    free(err);
    tdir_cleanup();
}

/* MEDIUM 13: a report not written (a full disk, here ulimit -f) left its plot directory behind,
 * empty .dat files in it, and a rerun was refused ("'./r-plots' exists"). The plots are drawn
 * apart and moved beside the report only when it is written: none are left, and the rerun
 * draws them. */
CB_TEST_T(report_not_written_leaves_no_plots, 120)
{
    char cmd[9000], root[4096], src[4200];
    CB_CHECK(realpath(cb_test_root(), root) != NULL);
    snprintf(src, sizeof src, "%s/tests/claims/asmjmp/contradicted-no-saving.json",
             cb_root_dir());
    snprintf(cmd, sizeof cmd, "cd %s && (ulimit -f 8 && exec %s/bin/corobench report %s -o r.md); "
             "echo \"exit $?\"; ls -A",
             tdir(), root, src);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL}, *out, *err;
    CB_CHECK_EQ_INT(cb_test_spawn(argv, &out, &err), 0);
    CB_CHECK_CONTAINS(err, "cannot write the report to 'r.md': File too large");
    CB_CHECK_STREQ(out, "exit 1\n"); /* nothing in the directory: no r.md, no plots */
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "cd %s && %s/bin/corobench report %s -o r.md && ls r-plots | grep -c dat",
             tdir(), root, src);
    CB_CHECK_EQ_INT(cb_test_spawn(argv, &out, &err), 0);
    CB_CHECK(atoi(out) > 0);
    free(out);
    free(err);
    tdir_cleanup();
}

/* run.unavailable's keys are the run's own: 'tsc', or 'impl:NAME' for an implementation this
 * build cannot run (copystack under AddressSanitizer, fcontext without Boost). The plain-name
 * rule took the colon for a hostile byte and refused every such file (ab's arms under ASan);
 * KIND:NAME of two plain names loads, anything else is still refused naming the key. */
CB_TEST(results_unavailable_impl_key_loads)
{
    char src[4200], path[256];
    snprintf(src, sizeof src, "%s/tests/claims/asmjmp/contradicted-no-saving.json", cb_root_dir());
    json_error_t je;
    json_t *doc = json_load_file(src, 0, &je);
    CB_CHECK(doc != NULL);
    static const char *const keys[] = {"impl:copystack", "tsc", "impl:", ":x", "a:b:c", "impl:x y"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        json_t *u = json_object();
        json_object_set_new(u, keys[i], json_string("not here"));
        json_object_set_new(doc, "unavailable", u);
        cb_test_tmp_path(path, sizeof path, "unavail");
        CB_CHECK(json_dump_file(doc, path, 0) == 0);
        cb_error e = {0};
        json_t *got = cb_results_load(path, &e);
        if (i < 2 && !got)
            CB_FAIL("'%s' refused: %s", keys[i], e.msg);
        if (i >= 2 && got)
            CB_FAIL("'%s' accepted", keys[i]);
        json_decref(got);
        unlink(path);
    }
    json_decref(doc);
}
