/* The corobench CLI as a user meets it: bad input (one line naming the bad value and the valid
 * choices, exit 2, nothing written), a crashing and a hanging cell (recorded, the run goes on,
 * exit 1), and a quick run's JSON read back with jansson and checked field by field. */
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "harness/report/claims.h"
#include "harness/report/commands.h"
#include "harness/report/html.h"
#include "harness/report/mdfit.h"
#include "harness/run/commands.h"
#include "harness/run/options.h"
#include "harness/run/plan.h"
#include "harness/run/progress.h"
#include "harness/results/baseline.h"
#include "harness/results/style.h"
#include "harness/results/cell.h"
#include "harness/results/load.h"
#include "impls/closure.h"
#include "impls/impls.h"
#include "impls/root.h"
#include "test.h"
#include "workloads/run_once.h"

/* Exit 2, exactly one line on stderr, containing each needle; no results file written. */
static void expect_usage(const char *needle1, const char *needle2, const char *a0, ...)
{
    char out[256], path[4096], *argv[40];
    cb_test_tmp_path(out, sizeof out, "bad.json");
    va_list ap;
    va_start(ap, a0);
    size_t n = cb_test_argv(argv, 37, path, sizeof path, "corobench", a0, ap);
    va_end(ap);
    int is_run = n > 1 && !strcmp(argv[1], "run");
    if (is_run) {
        argv[n++] = "-o";
        argv[n++] = out;
    }
    argv[n] = NULL;
    char *o, *e;
    int st = cb_test_spawn(argv, &o, &e);
    CB_CHECK_EQ_INT(st, 2);
    CB_CHECK_CONTAINS(e, needle1);
    if (needle2)
        CB_CHECK_CONTAINS(e, needle2);
    CB_CHECK_CONTAINS(e, "valid");
    char *nl = strchr(e, '\n');
    CB_CHECK(nl && nl[1] == '\0'); /* one line */
    CB_CHECK(access(out, F_OK) != 0);
    free(o);
    free(e);
}

CB_TEST(cli_bad_input)
{
    char impls[512] = "";
    size_t n = 0;
    for (size_t i = 0; i < cb_nimpls; i++)
        n += (size_t)snprintf(impls + n, sizeof impls - n, "%s, ", cb_impls[i].name);
    snprintf(impls + n, sizeof impls - n, "all");
    expect_usage("unknown implementation 'foo'", impls, "run", "--impl", "foo", NULL);
    expect_usage("unknown event 'NOT_AN_EVENT'", "ret-mispredicts", "run", "--events",
                 "NOT_AN_EVENT", NULL);
    expect_usage("unknown workload 'nope'", "pingpong", "run", "--workload", "nope", NULL);
    expect_usage("unknown parameter 'bogus'", "depth", "run", "--param", "bogus=1", NULL);
    /* every valid name once, each whole: spawn's `n` was left out, being part of io's `conns` */
    expect_usage("unknown parameter 'bogus'", ", n, ", "run", "--workload", "io,spawn", "--param",
                 "bogus=1", NULL);
    expect_usage("unknown parameter 'depth'", "height", "run", "--workload", "recursive",
                 "--impl", "sm", "--param", "depth=1", NULL);
    /* WORKLOAD.NAME: a parameter of that selected workload only. */
    expect_usage("unknown parameter 'spawn.n'", NULL, "run", "--workload", "pingpong",
                 "--param", "spawn.n=5", NULL);
    expect_usage("unknown parameter 'pingpong.height'", "depth", "run", "--workload",
                 "pingpong", "--param", "pingpong.height=5", NULL);
    expect_usage("'-1' for parameter depth", "0 to", "run", "--workload", "pingpong", "--param",
                 "depth=-1", NULL);
    expect_usage("'0' for parameter switches", "1 to", "run", "--workload", "pingpong",
                 "--param", "switches=0", NULL);
    expect_usage("'abc' for parameter depth", NULL, "run", "--workload", "pingpong", "--param",
                 "depth=0,abc", NULL);
    expect_usage("'sideways' for parameter sites", "distinct, same", "run", "--workload",
                 "pingpong", "--param", "sites=sideways", NULL);
    expect_usage("'7' for parameter stack_mode", "auto", "run", "--impl", "asm", "--param",
                 "stack_mode=7", NULL);
    expect_usage("conns=30000", "RLIMIT_NOFILE", "run", "--workload", "io", "--param",
                 "conns=30000", NULL);
    expect_usage("'0' for --reps", NULL, "run", "--reps", "0", NULL);
    expect_usage("'-3' for --timeout", NULL, "run", "--timeout", "-3", NULL);
    expect_usage("'4096' for --pin", NULL, "run", "--pin", "4096", NULL);
    expect_usage("unknown option '--frobnicate'", NULL, "run", "--frobnicate", NULL);
    expect_usage("unknown command 'fly'", "run, list", "fly", NULL);
    expect_usage("invalid --param 'depth'", "NAME=V1,V2", "run", "--param", "depth", NULL);
}

/* Issue 30, LOW 2: the dry run's estimate of --min-rep-ms 1e300 read "-153722867280912930:-8",
 * a long of seconds overflowed. The option is capped now; the clock's text stays sane past a
 * long anyway. */
CB_TEST(progress_clock_huge_estimate)
{
    char t[32];
    cb_progress_clock(3725, t, sizeof t);
    CB_CHECK_STREQ(t, "1:02:05");
    cb_progress_clock(1e300, t, sizeof t);
    CB_CHECK_STREQ(t, "2.78e+296 h");
    cb_progress_clock(1e19, t, sizeof t); /* past LONG_MAX seconds */
    CB_CHECK_STREQ(t, "2.78e+15 h");
}

/* A mistyped name gets the nearest valid one in its one line (issue 32, item 9): an
 * implementation, a workload, a parameter (plain or WORKLOAD.NAME), a parameter's value, an
 * option, a variant and a command; a name near none gets the list alone. */
CB_TEST(cli_did_you_mean)
{
    expect_usage("unknown implementation 'asmm'; did you mean 'asm'?", "sm, closure", "run",
                 "--impl", "asmm", NULL);
    expect_usage("unknown implementation 'UContext'; did you mean 'ucontext'?", NULL, "run",
                 "--impl", "UContext", NULL);
    expect_usage("unknown workload 'recursiv'; did you mean 'recursive'?", "pingpong", "run",
                 "--workload", "recursiv", NULL);
    expect_usage("did you mean 'height'?", "height", "run", "--workload", "recursive",
                 "--param", "heigth=8", NULL);
    expect_usage("unknown parameter 'recursiv.height'", "did you mean 'recursive.height'?",
                 "run", "--workload", "recursive", "--param", "recursiv.height=8", NULL);
    expect_usage("'asymetric' for parameter mode; did you mean 'asymmetric'?", "symmetric",
                 "run", "--workload", "pingpong", "--param", "mode=asymetric", NULL);
    expect_usage("unknown option '--imlp' for run; did you mean '--impl'?", "--workload", "run",
                 "--imlp", "asm", NULL);
    expect_usage("unknown option '--filtr=x' for run; did you mean '--filter'?", NULL, "run",
                 "--filtr=x", NULL);
    expect_usage("unknown variant 'jmpet'; did you mean 'jmpret'?", "plain", "run", "--variant",
                 "jmpet", NULL);
    expect_usage("unknown command 'reprot'; did you mean 'report'?", "compare", "reprot", NULL);
    cb_test_cli c = cb_test_corobench("run", "--impl", "xyzzy", "--dry-run", NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "unknown implementation 'xyzzy' (valid: ");
    CB_CHECK(strstr(c.err, "did you mean") == NULL);
    free(c.out);
    free(c.err);
}

/* --filter REGEX keeps the cells whose WORKLOAD/IMPL/NAME=VALUE/... text matches, each at its
 * index in the whole plan (so its layouts are the whole run's); -REGEX leaves them out; a
 * filter matching nothing, or not a regular expression, is one line and exit 2. */
CB_TEST(cli_filter_selects_cells)
{
    char *argv[] = {"run", "--workload", "recursive", "--impl", "asm,sm,closure", "--param",
                    "height=8,10", "--filter", "/sm/height=10", NULL};
    cb_run_opts o;
    cb_plan plan;
    CB_CHECK_EQ_INT(cb_run_opts_parse(9, argv, &o), CB_OPTS_PARSED);
    CB_CHECK_EQ_INT(cb_plan_build(&o, &plan), CB_OPTS_PARSED);
    CB_CHECK_EQ_INT(plan.nselected, 6);
    CB_CHECK_EQ_INT(plan.ncells, 1);
    char text[1024];
    cb_plan_cell_text(&plan.cells[0], text, sizeof text);
    CB_CHECK(!strncmp(text, "recursive/sm/height=10/", 23));
    CB_CHECK_EQ_INT(plan.cells[0].index, 4); /* height=8: asm sm closure, height=10: asm sm */
    cb_plan_free(&plan);
    argv[8] = "-/(asm|closure)/";
    CB_CHECK_EQ_INT(cb_run_opts_parse(9, argv, &o), CB_OPTS_PARSED);
    CB_CHECK_EQ_INT(cb_plan_build(&o, &plan), CB_OPTS_PARSED);
    CB_CHECK_EQ_INT(plan.ncells, 2);
    for (size_t i = 0; i < plan.ncells; i++)
        CB_CHECK(!strcmp(plan.cells[i].cell.impl->name, "sm"));
    cb_plan_free(&plan);
    cb_test_cli c = cb_test_corobench("run", "--workload", "recursive", "--impl", "asm,sm",
                                      "--filter", "recursive/sm/", "--dry-run", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "plan: 1 cells");
    CB_CHECK_CONTAINS(c.out, "--filter 'recursive/sm/' keeps 1 of the 2 cells selected");
    free(c.out);
    free(c.err);
    expect_usage("--filter 'nothing/' matches none of the 2 cells", "recursive/asm/height=", "run",
                 "--workload", "recursive", "--impl", "asm,sm", "--filter", "nothing/", NULL);
    expect_usage("invalid --filter '('", "regular expression", "run", "--filter", "(", NULL);
}

/* help lists every command; help COMMAND prints that command's line only (a bad one:
 * docs/bad-input.md). */
CB_TEST(cli_help_one_command)
{
    cb_test_cli c = cb_test_corobench("help", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "corobench compare");
    CB_CHECK_CONTAINS(c.out, "corobench run [options]");
    c = cb_test_corobench("help", "run", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "usage: corobench run [options]");
    CB_CHECK(strstr(c.out, "corobench compare") == NULL);
}

/* Every command answers --help (anywhere before "--") and help COMMAND with exit 0 and its full
 * usage: every option that its parser accepts (the "valid: ..." list of an unknown option) with
 * a default where it has one. */
CB_TEST(cli_help_every_command)
{
    static const char *const cmds[] = {"run",     "list",      "export", "report",
                                       "compare", "calibrate", "ab",     "check-external"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        cb_test_cli h = cb_test_corobench(cmds[i], "--help", NULL);
        CB_CHECK_EQ_INT(h.status, 0);
        char want[64];
        snprintf(want, sizeof want, "usage: corobench %s ", cmds[i]);
        CB_CHECK_CONTAINS(h.out, want);
        CB_CHECK_CONTAINS(h.out, "(default: ");
        cb_test_cli g = cb_test_corobench("help", cmds[i], NULL);
        CB_CHECK_EQ_INT(g.status, 0);
        CB_CHECK(!strcmp(g.out, h.out));
        g = cb_test_corobench(cmds[i], "x.json", "-h", NULL);
        CB_CHECK_EQ_INT(g.status, 0);
        CB_CHECK(!strcmp(g.out, h.out));
    }
    /* The options each parser names (run and calibrate: getopt's table; the others: their
     * usage in the message), each with a row. */
    /* Five words a row (the rest NULL): the call below passes all five. */
    static const char *const bad[][5] = {
        {"run", "--bogus"},          {"calibrate", "--bogus"},
        {"export", "x.json", "--bogus"}, {"report", "x.json", "--bogus"},
        {"compare", "a", "b", "--bogus"}, {"list", "--bogus"},
        {"ab", "--bogus"},           {"check-external", "true", "--bogus"},
    };
    cb_test_cli top = cb_test_corobench("help", NULL);
    CB_CHECK_EQ_INT(top.status, 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *const *a = bad[i];
        cb_test_cli e = cb_test_corobench(a[0], a[1], a[2], a[3], a[4], NULL);
        CB_CHECK_EQ_INT(e.status, 2);
        cb_test_cli h = cb_test_corobench("help", a[0], NULL);
        const char *v = strstr(e.err, "(valid: ");
        CB_CHECK(v != NULL);
        for (const char *p = v; (p = strstr(p, "--")); ) {
            size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-") + 2;
            char opt[64];
            snprintf(opt, sizeof opt, "%.*s", (int)n, p);
            if (strcmp(opt, "--bogus") && !strstr(h.out, opt))
                CB_FAIL("help %s lacks %s (named by: %s)", a[0], opt, e.err);
            p += n;
        }
        /* The overview (`corobench help`) names every one of them in the command's entry, and
         * only those (it listed compare's --alpha, which compare refuses, and left out
         * --format, --only-changed and --baseline). */
        char key[64];
        snprintf(key, sizeof key, "\n  corobench %s ", a[0]);
        const char *sec = strstr(top.out, key);
        if (!sec)
            CB_FAIL("corobench help has no entry for %s:\n%s", a[0], top.out);
        const char *sec_end = strstr(sec + 1, "\n  corobench ");
        size_t sec_len = sec_end ? (size_t)(sec_end - sec) : strlen(sec);
        char *entry = strndup(sec, sec_len);
        for (const char *p = v; (p = strstr(p, "--")); ) {
            size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-") + 2;
            char opt[64];
            snprintf(opt, sizeof opt, "%.*s", (int)n, p);
            /* the option whole: "[--rsb" is not "[--rsb-model" */
            int found = 0;
            for (const char *q = entry; !found && (q = strstr(q, opt)); q += n)
                found = (q[-1] == '[' || q[-1] == '|') && !strchr("abcdefghijklmnopqrstuvwxyz-", q[n]);
            /* an option the message names in prose ("saved by run --save-baseline") has no
             * row of the command's own */
            char row[80], row_o[80];
            snprintf(row, sizeof row, "\n  %s", opt);
            snprintf(row_o, sizeof row_o, "\n  -o, %s", opt);
            int has_row = strstr(h.out, row) || strstr(h.out, row_o);
            if (strcmp(opt, "--bogus") && strcmp(opt, "--help") && has_row && !found)
                CB_FAIL("corobench help's %s entry lacks %s (named by: %s):\n%s", a[0], opt,
                        e.err, entry);
            p += n;
        }
        for (const char *p = entry; (p = strstr(p, "[--")); p++) {
            size_t n = strspn(p + 3, "abcdefghijklmnopqrstuvwxyz-") + 2;
            char opt[64];
            snprintf(opt, sizeof opt, "%.*s", (int)n, p + 1);
            if (!strstr(v, opt))
                CB_FAIL("corobench help's %s entry has %s, which its parser does not take "
                        "(valid: %s)", a[0], opt, v);
        }
        free(entry);
        /* And the other way: every option a row of the help names is one the parser accepts
         * (help compare had a row for an --alpha that compare never took). */
        for (const char *l = h.out; (l = strstr(l, "\n  -")); l++) {
            const char *p = strstr(l, "--");
            const char *eol = strchr(l + 1, '\n');
            if (!p || (eol && p > eol))
                continue;
            size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-") + 2;
            char opt[64];
            snprintf(opt, sizeof opt, "%.*s", (int)n, p);
            if (strcmp(opt, "--help") && !strstr(v, opt))
                CB_FAIL("help %s has a row for %s, which its parser does not take (valid: %s)",
                        a[0], opt, v);
        }
    }
}

/* The overview shows an option's values where they are a closed set: the values each parser
 * names for a bad one ("(valid: md, html)"), no more and no fewer (it showed export's --format
 * without github-bench and bmf). */
CB_TEST(cli_help_overview_values_are_the_parsers)
{
    static const char *const bad[][6] = {
        {"--format", "export", "x.json", "--format", "bogus"},
        {"--format", "report", "x.json", "--format", "bogus"},
        {"--format", "compare", "a", "b", "--format", "bogus"},
        {"--metric", "compare", "a", "b", "--metric", "bogus"},
        {"--baseline", "calibrate", "--baseline", "bogus"},
        {"--rsb-model", "run", "--rsb-model", "bogus"},
    };
    cb_test_cli top = cb_test_corobench("help", NULL);
    CB_CHECK_EQ_INT(top.status, 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *const *a = bad[i];
        cb_test_cli e = cb_test_corobench(a[1], a[2], a[3], a[4], a[5], NULL);
        CB_CHECK_EQ_INT(e.status, 2);
        const char *v = strstr(e.err, "(valid: ");
        CB_CHECK(v != NULL);
        char want[256] = "", key[64];
        size_t n = 0;
        v += strlen("(valid: ");
        for (size_t k = 0; v[k] && v[k] != ')'; k++) /* "md, html" -> "md|html" */
            if (v[k] == ',' && v[k + 1] == ' ')
                want[n++] = '|', k++;
            else if (n + 1 < sizeof want)
                want[n++] = v[k];
        want[n] = '\0';
        /* the command's entry, then the option's token in it */
        snprintf(key, sizeof key, "\n  corobench %s ", a[1]);
        const char *sec = strstr(top.out, key), *end = sec ? strstr(sec + 1, "\n  corobench ") : NULL;
        CB_CHECK(sec != NULL);
        snprintf(key, sizeof key, "[%s ", a[0]);
        const char *tok = strstr(sec, key);
        if (!tok || (end && tok > end))
            CB_FAIL("corobench help's %s entry has no %s", a[1], key);
        tok += strlen(key);
        if (strncmp(tok, want, n) || tok[n] != ']')
            CB_FAIL("corobench help: %s %s shows '%.*s', its parser takes %s", a[1], a[0],
                    (int)strcspn(tok, "]"), tok, want);
    }
}

/* The default that help prints for option (after "default: ", to the row's end), or "". */
static void help_default(const char *help, const char *option, char *buf, size_t len)
{
    char key[64];
    snprintf(key, sizeof key, "\n  %s ", option);
    const char *row = strstr(help, key), *end = row ? strstr(row + 1, "\n  -") : NULL;
    const char *d = row ? strstr(row, "default: ") : NULL;
    buf[0] = '\0';
    if (!d || (end && d > end))
        return;
    d += strlen("default: ");
    size_t n = strcspn(d, "\n");
    if (n && d[n - 1] == ')')
        n--;
    snprintf(buf, len, "%.*s", (int)n, d);
}

/* help's defaults are what the parsers do: run's parser given no option (and --quick) against
 * the rows of `help run`; compare's threshold against the rule compare prints; calibrate's and
 * export's from the definitions their parsers start from. */
CB_TEST(cli_help_shows_the_parsers_defaults)
{
    cb_test_cli h = cb_test_corobench("help", "run", NULL);
    CB_CHECK_EQ_INT(h.status, 0);
    cb_run_opts o, q;
    char *plain[] = {"run", NULL}, *quick[] = {"run", "--quick", NULL};
    CB_CHECK_EQ_INT(cb_run_opts_parse(1, plain, &o), CB_OPTS_PARSED);
    CB_CHECK_EQ_INT(cb_run_opts_parse(2, quick, &q), CB_OPTS_PARSED);
    char got[128], want[128];
    struct { const char *option; } rows[5] = {
        {"--invocations K"}, {"--reps N"}, {"--warmup N"}, {"--min-rep-ms MS"}, {"--timeout SEC"}};
    for (int i = 0; i < 5; i++) {
        switch (i) {
        case 0: snprintf(want, sizeof want, "%u", o.invocations); break;
        case 1: snprintf(want, sizeof want, "%u; --quick: %u", o.measure.reps, q.measure.reps);
            break;
        case 2: snprintf(want, sizeof want, "%u", o.measure.warmup); break;
        case 3:
            snprintf(want, sizeof want, "%g; --quick: %g", o.measure.min_rep_ms,
                     q.measure.min_rep_ms);
            break;
        default: snprintf(want, sizeof want, "%g", o.timeout_s);
        }
        help_default(h.out, rows[i].option, got, sizeof got);
        if (strcmp(got, want))
            CB_FAIL("help run: %s's default '%s', the parser's '%s'", rows[i].option, got, want);
    }
    /* compare: the threshold of the rule it applies, on a file against itself */
    /* a fixture of the sources (tests run there; cb_test_root is the build's, another tree
     * under make check's sanitizer stage) */
    const char *fx = "tests/claims/jmpret/inconclusive-same-overlaps.json";
    cb_test_cli c = cb_test_corobench("compare", fx, fx, NULL);
    const char *rule = strstr(c.out, "lies above 1 + ");
    CB_CHECK(rule != NULL);
    h = cb_test_corobench("help", "compare", NULL);
    help_default(h.out, "--threshold PERCENT", got, sizeof got);
    snprintf(want, sizeof want, "%.*s", (int)strcspn(rule + 15, "%"), rule + 15);
    CB_CHECK_STREQ(got, want);
    h = cb_test_corobench("help", "calibrate", NULL);
    const cb_calibrate_defaults *cd = &cb_calibrate_default;
    help_default(h.out, "--switches N", got, sizeof got);
    snprintf(want, sizeof want, "%ld", cd->switches);
    CB_CHECK_STREQ(got, want);
    help_default(h.out, "--max-depth D", got, sizeof got);
    snprintf(want, sizeof want, "%ld", cd->max_depth);
    CB_CHECK_STREQ(got, want);
    help_default(h.out, "--runs N", got, sizeof got);
    snprintf(want, sizeof want, "%ld", cd->runs);
    CB_CHECK_STREQ(got, want);
    h = cb_test_corobench("help", "export", NULL);
    help_default(h.out, "--format F", got, sizeof got);
    CB_CHECK_STREQ(got, cb_export_default_format);
}

CB_TEST(cli_list_names_everything)
{
    cb_test_cli c = cb_test_corobench("list", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    const char *names[] = {"asm", "ucontext", "sm", "closure", "pingpong", "recursive", "io",
                           "depth", "switches", "sites", "height", "conns", "msgs", "size",
                           "transport", "stack", "stack_mode"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        CB_CHECK_CONTAINS(c.out, names[i]);
    /* 120 columns by default, --wide in full; a section alone. */
    for (const char *l = c.out, *nl; (nl = strchr(l, '\n')); l = nl + 1)
        if (nl - l > 120)
            CB_FAIL("list line of %d columns: %.*s", (int)(nl - l), (int)(nl - l), l);
    cb_test_cli w = cb_test_corobench("list", "--wide", NULL);
    CB_CHECK_EQ_INT(w.status, 0);
    CB_CHECK_CONTAINS(w.out, "reserved stack bytes per coroutine (rounded up to pages");
    cb_test_cli s = cb_test_corobench("list", "workloads", NULL);
    CB_CHECK_EQ_INT(s.status, 0);
    CB_CHECK_CONTAINS(s.out, "pingpong");
    CB_CHECK(!strstr(s.out, "implementations:") && !strstr(s.out, "event aliases"));
    s = cb_test_corobench("list", "impls", "events", NULL);
    CB_CHECK(strstr(s.out, "implementations:") && strstr(s.out, "event aliases") &&
             !strstr(s.out, "workloads:"));
}

static json_t *load(const char *path)
{
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    if (!doc)
        CB_FAIL("%s: %s (line %d)", path, e.text, e.line);
    return doc;
}

static json_t *field(json_t *obj, const char *key, int type)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        CB_FAIL("missing field '%s'", key);
    if (type >= 0 && (int)json_typeof(v) != type &&
        !(type == JSON_REAL && json_typeof(v) == JSON_INTEGER))
        CB_FAIL("field '%s' has JSON type %d, want %d", key, json_typeof(v), type);
    return v;
}

/* The cells of results file PATH whose status is not ok or unsupported, each with its error. */
static const char *failed_cells(const char *path)
{
    static char buf[4096];
    json_t *doc = json_load_file(path, 0, NULL), *cell;
    size_t i, len = 0;
    buf[0] = '\0';
    if (!doc)
        return "no results file";
    json_array_foreach(json_object_get(doc, "cells"), i, cell)
    {
        const char *st = json_string_value(json_object_get(cell, "status"));
        if (!st || !strcmp(st, "ok") || !strcmp(st, "unsupported") || len >= sizeof buf - 1)
            continue;
        char *params = json_dumps(json_object_get(cell, "params"), JSON_COMPACT | JSON_SORT_KEYS);
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s %s %s %s: %s; ",
                                json_string_value(json_object_get(cell, "workload")),
                                json_string_value(json_object_get(cell, "impl")),
                                params ? params : "?", st,
                                json_string_value(json_object_get(cell, "error")));
        free(params);
    }
    json_decref(doc);
    return buf;
}

CB_TEST_T(cli_quick_run_json_schema, 600)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "quick.json");
    /* --timeout 240: thread spawn's 10,000 threads took 33-65 s on a loaded 2-core VM, past the
     * 60 s default; this test is about the schema, not the time. */
    cb_test_cli c = cb_test_corobench("run", "--quick", "--timeout", "240", "-o", out, NULL);
    if (c.status == 1) /* a cell failed or timed out: its error, not the first progress lines */
        CB_FAIL("quick run exit 1: %s", failed_cells(out));
    if (c.status != 0)
        CB_FAIL("quick run exit %d: %s", c.status, c.err);
    CB_CHECK_CONTAINS(c.out, "pingpong");
    json_t *doc = load(out);
    CB_CHECK_STREQ(json_string_value(field(doc, "schema", JSON_STRING)), "corobench-results/2");
    CB_CHECK_EQ_INT(json_integer_value(field(field(doc, "run", JSON_OBJECT), "invocations",
                                             JSON_INTEGER)),
                    3);
    field(doc, "corobench_version", JSON_STRING);
    CB_CHECK(strlen(json_string_value(field(doc, "git_commit", JSON_STRING))) >= 7);
    CB_CHECK(strlen(json_string_value(field(doc, "created_utc", JSON_STRING))) == 20);
    json_t *m = field(doc, "machine", JSON_OBJECT);
    field(m, "hostname", JSON_STRING);
    field(m, "cpu_model", JSON_STRING);
    field(m, "arch", JSON_STRING);
    CB_CHECK(json_integer_value(field(m, "logical_cpus", JSON_INTEGER)) >= 1);
    field(m, "kernel", JSON_STRING);
    json_t *hz = field(m, "tsc_hz", -1);
    CB_CHECK(json_is_null(hz) || json_real_value(hz) > 1e8);
    json_t *b = field(doc, "build", JSON_OBJECT);
    CB_CHECK_CONTAINS(json_string_value(field(b, "compiler", JSON_STRING)), ".");
    CB_CHECK_CONTAINS(json_string_value(field(b, "cflags", JSON_STRING)), "-O2");
    field(doc, "unavailable", JSON_OBJECT);
    json_t *cells = field(doc, "cells", JSON_ARRAY), *cell;
    json_t *seen = json_object(); /* point -> first cell of that point */
    size_t i;
    CB_CHECK(json_array_size(cells) >= 3 * 4);
    json_array_foreach(cells, i, cell)
    {
        const cb_impl *im = cb_impl_find(json_string_value(field(cell, "impl", JSON_STRING)));
        const cb_workload *wl = cb_workload_find(json_string_value(field(cell, "workload", -1)));
        const char *why = im ? cb_impl_unavailable(im) : NULL;
        if (!strcmp(json_string_value(field(cell, "status", JSON_STRING)), "unsupported") &&
            (why || (im && wl && !cb_wl_family(wl, im)))) {
            /* a workload without a body for the family (io for direct, pipeline for closure)
             * says so; an implementation unavailable in this build (copystack under
             * AddressSanitizer) says why */
            char nobody[512];
            if (!why && im->external) /* its own program answers (docs/external.md) */
                snprintf(nobody, sizeof nobody, "no body for workload '%s'", wl->name);
            else if (!why)
                cb_wl_no_body(wl, im, nobody, sizeof nobody);
            CB_CHECK_CONTAINS(json_string_value(field(cell, "error", JSON_STRING)),
                              why ? why : nobody);
            continue;
        }
        if (!strcmp(json_string_value(field(cell, "status", JSON_STRING)), "unsupported") && im &&
            wl) {
            /* a body that cannot run here at its defaults says why (copystack's and thread's
             * coroutines as the scheduler's tasks, docs/sched.md) */
            cb_params dp;
            char r[512];
            cb_test_params(wl, im, NULL, &dp);
            const char *u = cb_wl_unsupported(wl, im, &dp, r, sizeof r);
            if (!u)
                CB_FAIL("%s %s: unsupported, and supported at its defaults", im->name, wl->name);
            CB_CHECK_CONTAINS(json_string_value(field(cell, "error", JSON_STRING)), u);
            continue;
        }
        CB_CHECK_STREQ(json_string_value(field(cell, "status", JSON_STRING)), "ok");
        CB_CHECK(json_is_null(field(cell, "error", -1)));
        const char *fam = json_string_value(field(cell, "family", JSON_STRING));
        CB_CHECK(!strcmp(fam, "stackful") || !strcmp(fam, "stackless") || !strcmp(fam, "baseline"));
        field(cell, "impl", JSON_STRING);
        field(cell, "workload", JSON_STRING);
        field(cell, "params", JSON_OBJECT);
        CB_CHECK_STREQ(json_string_value(field(cell, "variant", JSON_STRING)), "plain");
        CB_CHECK(json_integer_value(field(cell, "ops", JSON_INTEGER)) > 0);
        CB_CHECK(json_integer_value(field(cell, "suspensions", JSON_INTEGER)) > 0 ||
                 !strcmp(fam, "baseline"));
        const char *sum = json_string_value(field(cell, "checksum", JSON_STRING));
        CB_CHECK(strlen(sum) == 18 && !strncmp(sum, "0x", 2));
        json_t *ns = field(cell, "ns_per_op", JSON_OBJECT);
        double med = json_real_value(field(ns, "median", JSON_REAL));
        double lo = json_real_value(field(ns, "min", JSON_REAL));
        double hi = json_real_value(field(ns, "max", JSON_REAL));
        CB_CHECK(lo > 0 && lo <= med && med <= hi);
        CB_CHECK(json_real_value(field(ns, "mad", JSON_REAL)) >= 0);
        /* 3 invocations of 3 repetitions: the estimate inside its interval, each process's
         * own samples and layout kept. */
        json_int_t reps = json_integer_value(field(ns, "reps", JSON_INTEGER));
        CB_CHECK_EQ_INT(reps, 9);
        CB_CHECK_EQ_INT(json_array_size(field(cell, "samples_ns_per_op", JSON_ARRAY)), reps);
        CB_CHECK_EQ_INT(json_integer_value(field(ns, "invocations", JSON_INTEGER)), 3);
        CB_CHECK_EQ_INT(json_integer_value(field(ns, "reps_per_invocation", JSON_INTEGER)), 3);
        json_t *ci = field(ns, "ci95", JSON_ARRAY);
        CB_CHECK(json_array_size(ci) == 2 && json_number_value(json_array_get(ci, 0)) <= med &&
                 med <= json_number_value(json_array_get(ci, 1)));
        CB_CHECK(json_is_false(field(cell, "single_invocation", -1)));
        CB_CHECK(json_is_boolean(field(field(cell, "variance_split", JSON_OBJECT),
                                       "between_dominates", -1)));
        json_t *invs = field(cell, "invocations", JSON_ARRAY), *inv;
        size_t j;
        CB_CHECK_EQ_INT(json_array_size(invs), 3);
        json_array_foreach(invs, j, inv)
        {
            CB_CHECK_EQ_INT(json_array_size(field(inv, "samples_ns_per_op", JSON_ARRAY)), 3);
            json_t *lay = field(inv, "layout", JSON_OBJECT);
            CB_CHECK(json_integer_value(field(lay, "env_pad_bytes", JSON_INTEGER)) < 4096);
            CB_CHECK(json_integer_value(field(lay, "stack_offset_bytes", JSON_INTEGER)) % 16 == 0);
            CB_CHECK(json_integer_value(field(lay, "heap_offset_bytes", JSON_INTEGER)) % 16 == 0);
            field(lay, "seed", JSON_STRING);
        }
        /* Same workload and workload parameters: same checksum and suspensions. */
        json_t *point = json_deep_copy(json_object_get(cell, "params"));
        json_object_del(point, "stack");
        json_object_del(point, "stack_mode");
        json_object_del(point, "alloc");
        json_object_set(point, "workload", json_object_get(cell, "workload"));
        char *key = json_dumps(point, JSON_SORT_KEYS | JSON_COMPACT);
        json_t *ref = json_object_get(seen, key);
        if (!ref)
            json_object_set(seen, key, cell);
        else if (!json_equal(json_object_get(ref, "checksum"), json_object_get(cell, "checksum")) ||
                 (strcmp(fam, "baseline") && /* direct suspends nowhere */
                  !json_equal(json_object_get(ref, "suspensions"),
                              json_object_get(cell, "suspensions"))))
            CB_FAIL("%s: %s and %s differ in checksum or suspensions", key,
                    json_string_value(json_object_get(ref, "impl")),
                    json_string_value(json_object_get(cell, "impl")));
        free(key);
        json_decref(point);
    }
    CB_CHECK(json_object_size(seen) >= 3);
    json_decref(seen);
    json_decref(doc);
    unlink(out);
}

/* An overflowing cell is recorded with the overflow message; the other cells still run. */
CB_TEST_T(cli_overflow_cell_recorded, 120)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "overflow.json");
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", "asm,sm", "--workload", "pingpong", "--param",
                      "depth=100000", "--param", "switches=10", "--param", "stack=16384", "--reps",
                      "1", "--warmup", "0", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    json_t *doc = load(out);
    json_t *cells = json_object_get(doc, "cells");
    CB_CHECK_EQ_INT(json_array_size(cells), 2);
    json_t *a = json_array_get(cells, 0), *s = json_array_get(cells, 1);
    CB_CHECK_STREQ(json_string_value(json_object_get(a, "impl")), "asm");
    CB_CHECK_STREQ(json_string_value(json_object_get(a, "status")), "failed");
    CB_CHECK_CONTAINS(json_string_value(json_object_get(a, "error")),
                      "coroutine stack overflow (impl=asm, stack=16384 bytes)");
    CB_CHECK_STREQ(json_string_value(json_object_get(s, "status")), "ok");
    json_decref(doc);
    unlink(out);
}

/* A closure cell reports what one malloc/free pair of its frames' size costs beside it, with as
 * many repetitions as its own timing in each invocation; other families' cells do not. */
CB_TEST_T(cli_closure_malloc_free, 120)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "mf.json");
    cb_test_cli c = cb_test_corobench("run", "--impl", "closure,sm", "--workload", "pingpong",
                                      "--param", "depth=3", "--param", "switches=1000", "--reps",
                                      "3", "--min-rep-ms", "1", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out);
    json_t *cells = json_object_get(doc, "cells");
    json_t *cl = json_array_get(cells, 0), *sm = json_array_get(cells, 1);
    CB_CHECK_STREQ(json_string_value(json_object_get(cl, "impl")), "closure");
    json_t *mf = json_object_get(cl, "malloc_free_ns");
    CB_CHECK(json_is_object(mf));
    CB_CHECK(json_real_value(json_object_get(mf, "median")) > 0);
    /* --reps 3 in each of the default 3 invocations; the estimate over their medians */
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(mf, "reps")), 9);
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(mf, "invocations")), 3);
    json_t *inv = json_array_get(json_object_get(cl, "invocations"), 2);
    CB_CHECK(json_is_object(json_object_get(inv, "malloc_free_ns")));
    /* a chain frame: the header and the level's locals */
    CB_CHECK(json_integer_value(json_object_get(cl, "malloc_free_bytes")) >
             (json_int_t)sizeof(cb_cl_frame));
    CB_CHECK(json_object_get(sm, "malloc_free_ns") == NULL);
    json_decref(doc);
    unlink(out);
}

/* A cell that runs past --timeout is killed and recorded as timeout. */
CB_TEST_T(cli_timeout_cell_recorded, 120)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "timeout.json");
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", "ucontext", "--workload", "pingpong", "--param",
                      "switches=1000000000000", "--timeout", "0.5", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    json_t *doc = load(out);
    json_t *cell = json_array_get(json_object_get(doc, "cells"), 0);
    CB_CHECK_STREQ(json_string_value(json_object_get(cell, "status")), "timeout");
    CB_CHECK_CONTAINS(json_string_value(json_object_get(cell, "error")), "timed out after 0.5 s");
    json_decref(doc);
    unlink(out);
}

/* export and report derive from the JSON: every ok cell appears, in the right block or row. */
CB_TEST_T(cli_export_and_report, 120)
{
    char out[256], dat[256], md[256];
    cb_test_tmp_path(out, sizeof out, "er.json");
    cb_test_tmp_path(dat, sizeof dat, "er.dat");
    cb_test_tmp_path(md, sizeof md, "er.md");
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", "asm,sm", "--workload", "pingpong,spawn", "--param",
                      "depth=0,3", "--param", "switches=2000", "--param", "n=100", "--reps", "1",
                      "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    c = cb_test_corobench("export", out, "--workload", "pingpong", "--x", "depth", "-o", dat, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = fopen(dat, "r");
    CB_CHECK(f != NULL);
    CB_CHECK(getdelim(&text, &len, '\0', f) > 0);
    fclose(f);
    CB_CHECK_CONTAINS(text, "y = ns per switch (median)");
    CB_CHECK_CONTAINS(text, "\"asm\"\n# depth ns_per_op.median ns_per_op.mad ns_per_op.min "
                            "ns_per_op.max\n0 ");
    CB_CHECK_CONTAINS(text, "\n\n\n# sm\n\"sm\"\n");
    size_t rows = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        rows += line[0] == '0' || line[0] == '3';
    CB_CHECK_EQ_INT(rows, 4);
    free(text);
    c = cb_test_corobench("report", out, "-o", md, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    f = fopen(md, "r");
    text = NULL;
    CB_CHECK(f && getdelim(&text, &len, '\0', f) > 0);
    fclose(f);
    CB_CHECK_CONTAINS(text, "### pingpong\n\npingpong (ns per switch: the median of the invocations' "
                            "medians");
    CB_CHECK_CONTAINS(text, "| point | asm | sm |");
    CB_CHECK_CONTAINS(text, "| depth=3 switches=2000 sites=distinct work=chain mode=symmetric |");
    /* Memory at a rest point: spawn has one, pingpong has none. */
    CB_CHECK_CONTAINS(text, "### spawn memory\n\nspawn memory (bytes per coroutine at rest");
    CB_CHECK_CONTAINS(text, "| depth=0 | 4096 / ");
    CB_CHECK_CONTAINS(text, "left out of it: n=100 frame=64 layout=aligned order=fifo seed=1 "
                            "deep_once=0");
    CB_CHECK(strstr(text, "### pingpong memory") == NULL);
    free(text);
    expect_usage("export needs RESULTS.json", NULL, "export", out, "--workload", "pingpong",
                 NULL);
    expect_usage("cannot read results '/nonexistent.json'", NULL, "report", "/nonexistent.json",
                 NULL);
    unlink(out);
    unlink(dat);
    unlink(md);
}

/* pingpong's op is a switch (symmetric) or a round trip through the root (asymmetric): each cell
 * records its own unit, and where a workload's cells differ, the report's table names it per
 * point, with the unit of the title and export's header "op". */
CB_TEST_T(cli_report_unit_per_point, 120)
{
    static const char *const names[3] = {"up.json", "up.md", "up.dat"};
    char path[3][256], *out = path[0], *md = path[1], *dat = path[2];
    for (int k = 0; k < 3; k++)
        cb_test_tmp_path(path[k], sizeof path[k], names[k]);
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm", "--workload", "pingpong", "--param",
                                      "mode=symmetric,asymmetric", "--param", "switches=2000",
                                      "--reps", "1", "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out), *cell;
    size_t i, asym = 0;
    json_array_foreach(json_object_get(doc, "cells"), i, cell)
    {
        int a = !strcmp(json_string_value(json_object_get(json_object_get(cell, "params"),
                                                          "mode")),
                        "asymmetric");
        CB_CHECK_STREQ(json_string_value(json_object_get(cell, "unit")),
                       a ? "round trip" : "switch");
        asym += a;
    }
    CB_CHECK_EQ_INT(asym, 1);
    json_decref(doc);
    cb_test_cli r = cb_test_corobench("report", out, "-o", md, "--no-plots", NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    char *text = cb_test_md_unwrap(cb_test_slurp(md));
    CB_CHECK_CONTAINS(text, "### pingpong\n\npingpong (ns per op, the unit each point names: the "
                            "median of the invocations' medians");
    CB_CHECK_CONTAINS(text, "work=chain mode=symmetric (per switch) |");
    CB_CHECK_CONTAINS(text, "work=chain mode=asymmetric (per round trip) |");
    free(text);
    cb_test_cli e = cb_test_corobench("export", out, "--workload", "pingpong", "--x", "depth",
                                      "-o", dat, NULL);
    CB_CHECK_EQ_INT(e.status, 0);
    text = cb_test_slurp(dat);
    CB_CHECK_CONTAINS(text, "y = ns per op (median); the unit differs between points");
    free(text);
    for (int k = 0; k < 3; k++)
        unlink(path[k]);
    free(c.out);
    free(c.err);
    free(r.out);
    free(r.err);
    free(e.out);
    free(e.err);
}

/* export of in in a JSON format to path (replaced), parsed, with n rows (array entries or
 * object members). */
static json_t *exported(const char *in, const char *format, const char *path, size_t n)
{
    cb_test_cli c = cb_test_corobench("export", in, "--format", format, "-o", path, "--force",
                                      NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *g = load(path);
    CB_CHECK_EQ_INT(json_is_array(g) ? json_array_size(g) : json_object_size(g), n);
    return g;
}

/* export --format csv|gbench|github-bench|bmf|deterministic and gnuplot's --y / --relative-to,
 * from one run. */
CB_TEST_T(cli_export_formats, 120)
{
    char out[256], csv[256], gb[256], det[256], dat[256];
    cb_test_tmp_path(out, sizeof out, "ef.json");
    cb_test_tmp_path(csv, sizeof csv, "ef.csv");
    cb_test_tmp_path(gb, sizeof gb, "ef.gb.json");
    cb_test_tmp_path(det, sizeof det, "ef.det.json");
    cb_test_tmp_path(dat, sizeof dat, "ef.dat");
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm,sm", "--workload", "pingpong", "--param", "depth=0,3",
                      "--param", "switches=2000", "--reps", "3", "--invocations", "1", "-o", out,
                      NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out);
    json_t *cell0 = json_array_get(json_object_get(doc, "cells"), 0);

    /* csv: a header and one row per cell; the row has the cell's checksum and median. */
    c = cb_test_corobench("export", out, "--format", "csv", "-o", csv, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    char *text = cb_test_slurp(csv);
    CB_CHECK(!strncmp(text, "impl,family,workload,params.depth,", 34));
    CB_CHECK_CONTAINS(text, ",ns_per_op.median,");
    CB_CHECK_CONTAINS(text, ",memory.totals.heap_bytes,");
    CB_CHECK_CONTAINS(text, json_string_value(json_object_get(cell0, "checksum")));
    size_t lines = 0;
    for (char *p = text; *p; p++)
        lines += *p == '\n';
    CB_CHECK_EQ_INT(lines, 1 + 4);
    free(text);

    /* gbench: context, 3 iteration rows and 3 aggregates per cell, named and numbered as google
     * benchmark does. */
    c = cb_test_corobench("export", out, "--format", "gbench", "-o", gb, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *g = load(gb), *rows = json_object_get(g, "benchmarks");
    CB_CHECK(json_is_object(json_object_get(g, "context")));
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(json_object_get(g, "context"),
                                                       "json_schema_version")),
                    1);
    CB_CHECK_EQ_INT(json_array_size(rows), 4 * (3 + 3));
    json_t *r0 = json_array_get(rows, 0), *r3 = json_array_get(rows, 3),
           *r4 = json_array_get(rows, 4);
    CB_CHECK_STREQ(json_string_value(json_object_get(r0, "name")),
                   "pingpong/asm/depth:0/switches:2000/sites:distinct/work:chain/mode:symmetric");
    CB_CHECK_STREQ(json_string_value(json_object_get(r0, "run_type")), "iteration");
    CB_CHECK_STREQ(json_string_value(json_object_get(r0, "time_unit")), "ns");
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(r0, "repetitions")), 3);
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(r0, "iterations")),
                    2000 * json_integer_value(json_object_get(cell0, "batch")));
    json_t *s0 = json_array_get(json_object_get(cell0, "samples_ns_per_op"), 0);
    CB_CHECK(json_real_value(json_object_get(r0, "real_time")) == json_number_value(s0));
    CB_CHECK_STREQ(
        json_string_value(json_object_get(r3, "name")),
        "pingpong/asm/depth:0/switches:2000/sites:distinct/work:chain/mode:symmetric_mean");
    CB_CHECK_STREQ(json_string_value(json_object_get(r3, "run_type")), "aggregate");
    CB_CHECK_STREQ(json_string_value(json_object_get(r4, "aggregate_name")), "median");
    CB_CHECK(json_real_value(json_object_get(r4, "real_time")) ==
             json_real_value(json_object_get(json_object_get(cell0, "ns_per_op"), "median")));
    json_decref(g);

    /* gbench --aggregates-only: the 3 aggregate rows per cell alone, as google benchmark's
     * --benchmark_report_aggregates_only writes them. */
    c = cb_test_corobench("export", out, "--format", "gbench", "--aggregates-only", "-o", gb,
                          "--force", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    g = load(gb);
    rows = json_object_get(g, "benchmarks");
    CB_CHECK_EQ_INT(json_array_size(rows), 4 * 3);
    size_t ri;
    json_t *rv;
    json_array_foreach(rows, ri, rv)
        CB_CHECK_STREQ(json_string_value(json_object_get(rv, "run_type")), "aggregate");
    CB_CHECK_STREQ(json_string_value(json_object_get(json_array_get(rows, 1), "name")),
                   "pingpong/asm/depth:0/switches:2000/sites:distinct/work:chain/mode:symmetric_median");
    json_decref(g);
    /* Google benchmark's own compare.py reads it where Debian's libbenchmark-tools (and SciPy,
     * which it imports) are installed: the cells compared with themselves, every one named. */
    if (access("/usr/share/benchmark/compare.py", R_OK) == 0 &&
        system("/usr/bin/python3 -c 'import scipy' 2>/dev/null") == 0) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "/usr/bin/python3 /usr/share/benchmark/compare.py benchmarks %s %s >%s 2>&1", gb,
                 gb, csv);
        CB_CHECK(system(cmd) == 0);
        text = cb_test_slurp(csv);
        CB_CHECK_CONTAINS(text, "pingpong/asm/depth:0/switches:2000/sites:distinct/work:chain/mode:symmetric_median");
        CB_CHECK_CONTAINS(text, "pingpong/sm/depth:3/switches:2000/sites:distinct/work:chain/mode:symmetric_mean");
        free(text);
    }

    /* github-bench: github-action-benchmark's customSmallerIsBetter, an array of {name, unit,
     * value, range, extra} as its extractor checks them; a cell of one invocation has no
     * interval, so no range, and says why in extra. */
    g = exported(out, "github-bench", gb, 4);
    CB_CHECK(json_is_array(g));
    json_array_foreach(g, ri, rv)
    {
        CB_CHECK(json_is_string(json_object_get(rv, "name")));
        CB_CHECK(json_is_string(json_object_get(rv, "unit")));
        CB_CHECK(json_is_number(json_object_get(rv, "value")));
        CB_CHECK(json_number_value(json_object_get(rv, "value")) > 0);
        CB_CHECK(json_object_get(rv, "range") == NULL);
        CB_CHECK_CONTAINS(json_string_value(json_object_get(rv, "extra")), "no interval");
    }
    rv = json_array_get(g, 0);
    CB_CHECK_STREQ(json_string_value(json_object_get(rv, "name")),
                   "pingpong/asm/depth:0/switches:2000/sites:distinct/work:chain/mode:symmetric");
    CB_CHECK(!strncmp(json_string_value(json_object_get(rv, "unit")), "ns/", 3));
    double med = json_real_value(json_object_get(json_object_get(cell0, "ns_per_op"), "median"));
    CB_CHECK(fabs(json_number_value(json_object_get(rv, "value")) - med) <= 1e-9 * med);
    CB_CHECK_CONTAINS(json_string_value(json_object_get(rv, "extra")),
                      json_string_value(json_object_get(cell0, "checksum")));
    json_decref(g);

    /* bmf: Bencher Metric Format, an object of benchmark name -> measure -> {value}. */
    g = exported(out, "bmf", gb, 4);
    CB_CHECK(json_is_object(g));
    const char *bk;
    json_object_foreach(g, bk, rv)
    {
        json_t *lat = json_object_get(rv, "latency");
        CB_CHECK(json_is_object(lat));
        CB_CHECK(json_number_value(json_object_get(lat, "value")) > 0);
        CB_CHECK(json_object_get(lat, "lower_value") == NULL);
    }
    rv = json_object_get(g, "pingpong/asm/depth:0/switches:2000/sites:distinct/work:chain/mode:symmetric");
    CB_CHECK(fabs(json_number_value(json_object_get(json_object_get(rv, "latency"), "value")) -
                  med) <= 1e-9 * med);
    json_decref(g);
    expect_usage("--aggregates-only is for --format gbench", NULL, "export", out, "--format",
                 "csv", "--aggregates-only", NULL);

    /* deterministic: identity and the deterministic fields only; compare reads it. */
    c = cb_test_corobench("export", out, "--format", "deterministic", "-o", det, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *d = load(det), *dc = json_array_get(json_object_get(d, "cells"), 0);
    CB_CHECK(json_object_get(dc, "samples_ns_per_op") == NULL);
    CB_CHECK(json_equal(json_object_get(dc, "checksum"), json_object_get(cell0, "checksum")));
    CB_CHECK(json_object_get(json_object_get(dc, "memory"), "heap_bytes_per_coro") != NULL);
    json_decref(d);
    c = cb_test_corobench("compare", det, out, "--metric", "deterministic", NULL);
    CB_CHECK_EQ_INT(c.status, 0);

    /* gnuplot with named fields, relative to sm: sm's own rows are 1, and every row's
     * suspensions too (the same work). A field no exported cell has (this run had no --rsb
     * sim) is refused rather than written as a column of NaN. */
    c = cb_test_corobench("export", out, "--workload", "pingpong", "--x", "depth", "--y",
                  "ns_per_op.median", "--y", "suspensions", "--relative-to", "sm", "-o",
                  dat, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    text = cb_test_slurp(dat);
    CB_CHECK_CONTAINS(text, "# depth ns_per_op.median suspensions\n");
    CB_CHECK_CONTAINS(text, "\"sm\"\n# depth ns_per_op.median suspensions\n0 1 1\n3 1 1\n");
    CB_CHECK_CONTAINS(text, "\"asm\"\n# depth ns_per_op.median suspensions\n0 ");
    free(text);
    expect_usage("--y 'rsbsim.mispredicted' is a number in none of the exported cells",
                 "ns_per_op.median", "export", out, "--workload", "pingpong", "--x", "depth",
                 "--y", "rsbsim.mispredicted", NULL);
    expect_usage("invalid value 'xml' for --format", "gbench", "export", out, "--format", "xml",
                 NULL);
    expect_usage("--x, --y and --relative-to are for --format gnuplot", NULL, "export", out,
                 "--format", "csv", "--x", "depth", NULL);
    json_decref(doc);
    unlink(out);
    unlink(csv);
    unlink(gb);
    unlink(det);
    unlink(dat);
}

/* The deterministic gate fails with the cell and the field when one deterministic value
 * differs from its baseline (here: a copy of the baseline with one simulated count changed). */
CB_TEST_T(cli_gate_names_changed_field, 120)
{
    char real[4096], copy[256], script[4096];
    struct utsname u;
    CB_SKIP_UNDER_ASAN("its instrumentation adds calls and returns to the simulated counts the "
                       "baseline holds");
    CB_CHECK(uname(&u) == 0);
    snprintf(real, sizeof real, "%s/%s/%s%s.json", cb_test_root(), CB_BASELINE_DIR,
             CB_GATE_BASELINE_PREFIX, u.machine);
    if (access(real, R_OK) != 0)
        CB_SKIP("no %s: the gate has no baseline for this architecture", real);
    cb_test_tmp_path(copy, sizeof copy, "gate-baseline.json");
    json_t *doc = load(real), *c;
    size_t i;
    const char *changed = NULL;
    json_array_foreach(json_object_get(doc, "cells"), i, c)
    {
        json_t *rsb = json_object_get(c, "rsbsim"), *mem = json_object_get(c, "memory");
        if (rsb) {
            json_object_set_new(rsb, "mispredicted",
                                json_integer(json_integer_value(json_object_get(rsb, "mispredicted")) + 1));
            changed = "rsbsim.mispredicted";
        } else if (mem) {
            json_object_set_new(mem, "heap_bytes_per_coro", json_real(-1));
            changed = "memory.heap_bytes_per_coro";
        } else
            continue;
        break;
    }
    CB_CHECK(changed != NULL);
    CB_CHECK(json_dump_file(doc, copy, JSON_INDENT(1)) == 0);
    json_decref(doc);
    snprintf(script, sizeof script, "%s/tests/gate.sh", cb_test_root());
    setenv("CB_GATE_BASELINE", copy, 1);
    char *argv[] = {script, "check", NULL}, *out, *err;
    int st = cb_test_spawn(argv, &out, &err);
    CB_CHECK_EQ_INT(st, 0); /* the stage's runner: failure is in its summary line */
    CB_CHECK_CONTAINS(out, "FAIL gate");
    CB_CHECK_CONTAINS(out, "0 passed, 1 failed");
    CB_CHECK_CONTAINS(out, "CHANGED pingpong depth=0 ");
    CB_CHECK_CONTAINS(out, changed);
    free(out);
    free(err);
    /* The unchanged baseline passes; it is the gate's own when none is named: the named
     * baseline gate-<arch> (one directory for the gate's and the user's, issue 32 item 8). */
    unsetenv("CB_GATE_BASELINE");
    st = cb_test_spawn(argv, &out, &err);
    CB_CHECK_CONTAINS(out, "1 passed, 0 failed");
    char named[256];
    snprintf(named, sizeof named, "as in %s/%s%s.json", CB_BASELINE_DIR, CB_GATE_BASELINE_PREFIX,
             u.machine);
    CB_CHECK_CONTAINS(out, named);
    free(out);
    free(err);
    unlink(copy);
}

/* One directory of baselines: the gate's sat in results/baseline/, the user's in
 * results/baselines/ (issue 32 item 8); results/ has no other baseline directory, and the
 * gate's is a named baseline, `compare --baseline gate-<arch>` reads the file tests/gate.sh
 * checks against. */
CB_TEST(cli_compare_reads_the_gate_baseline_by_name)
{
    struct utsname u;
    char name[128], path[4096];
    const char *dir = strrchr(CB_BASELINE_DIR, '/') + 1;
    DIR *d = opendir("results");
    CB_CHECK(d != NULL);
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, "baseline", strlen("baseline")) && strcmp(e->d_name, dir))
            CB_FAIL("results/%s beside %s: the gate's baselines and the user's in one directory",
                    e->d_name, CB_BASELINE_DIR);
    closedir(d);
    CB_CHECK(uname(&u) == 0);
    snprintf(name, sizeof name, "%s%s", CB_GATE_BASELINE_PREFIX, u.machine);
    cb_baseline_path(name, path, sizeof path);
    if (access(path, R_OK) != 0)
        CB_SKIP("no %s: the gate has no baseline for this architecture", path);
    cb_test_cli c = cb_test_corobench("compare", "--baseline", name, path, "--metric",
                                      "deterministic", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "0 deterministic changes");
    free(c.out);
    free(c.err);
}

/* make check's stages (tests/check.sh): a stage whose tool is missing (the cross compiler on a
 * machine where it could not be installed) is skipped with the reason, not failed; the stages
 * that have their tools run and are summed. Before, the aarch64 stage failed ("build failed")
 * on a machine without aarch64-linux-gnu-gcc (issue 32). */
CB_TEST(check_sh_skips_a_stage_without_its_tool)
{
    char script[4200]; /* the sources' script: cb_test_root() is the sanitizer build's tree there */
    snprintf(script, sizeof script, "%s/tests/check.sh", cb_root_dir());
    char *argv[] = {script,
                    "one", "", "true", "echo '2 passed, 0 failed'",
                    "cross", "sh cb-no-such-cross-gcc", "false", "echo '9 passed, 0 failed'",
                    "file", "/nonexistent/cb-sysroot/stdio.h", "false", "false",
                    "two", "sh", "true", "echo '3 passed, 0 failed, 1 skipped'",
                    NULL},
         *out, *err;
    int st = cb_test_spawn(argv, &out, &err);
    CB_CHECK_EQ_INT(st, 0);
    CB_CHECK_CONTAINS(out, "SKIP cross: cb-no-such-cross-gcc not found");
    CB_CHECK_CONTAINS(out, "SKIP file: /nonexistent/cb-sysroot/stdio.h not found");
    CB_CHECK(strstr(out, "build failed") == NULL);
    CB_CHECK_CONTAINS(out, "stages skipped: cross (cb-no-such-cross-gcc not found) file "
                           "(/nonexistent/cb-sysroot/stdio.h not found)\n5 passed, 0 failed, "
                           "1 skipped\n");
    free(out);
    free(err);
    /* A stage with its tools that fails to build still fails. */
    char *argv2[] = {script, "bad", "sh", "false", "true", NULL};
    st = cb_test_spawn(argv2, &out, &err);
    CB_CHECK(st != 0);
    CB_CHECK_CONTAINS(out, "FAIL bad: build failed");
    free(out);
    free(err);
}

/* Sets the samples of the ok cell matching (workload, impl, variant, "NAME=VALUE ...") to
 * inv invocations of n repetitions, repetition r of invocation j at
 * value * (1 + (r + j) / 1000); fails when there is no such cell. */
static void set_samples(json_t *doc, const char *wl, const char *impl, const char *variant,
                        const char *match, double value, size_t n, size_t inv)
{
    json_t *c;
    size_t i;
    json_array_foreach(json_object_get(doc, "cells"), i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "workload")), wl) ||
            strcmp(json_string_value(json_object_get(c, "impl")), impl) ||
            strcmp(json_string_value(json_object_get(c, "variant")), variant))
            continue;
        char buf[128], *save = NULL;
        snprintf(buf, sizeof buf, "%s", match);
        int ok = 1;
        for (char *t = strtok_r(buf, " ", &save); t && ok; t = strtok_r(NULL, " ", &save)) {
            char *eq = strchr(t, '=');
            *eq = '\0';
            json_t *v = json_object_get(json_object_get(c, "params"), t);
            char have[64];
            if (json_is_integer(v))
                snprintf(have, sizeof have, "%lld", (long long)json_integer_value(v));
            else
                snprintf(have, sizeof have, "%s", json_is_string(v) ? json_string_value(v) : "");
            ok = !strcmp(have, eq + 1);
        }
        if (!ok)
            continue;
        json_t *s = json_array(), *invs = json_array();
        for (size_t j = 0; j < inv; j++) {
            json_t *one = json_array();
            for (size_t k = 0; k < n; k++) {
                json_array_append_new(one, json_real(value * (1 + (double)(k + j) / 1000)));
                json_array_append_new(s, json_real(value * (1 + (double)(k + j) / 1000)));
            }
            json_array_append_new(invs, json_pack("{s:o}", "samples_ns_per_op", one));
        }
        json_object_set_new(c, "samples_ns_per_op", s);
        json_object_set_new(c, "invocations", invs);
        json_object_set_new(json_object_get(c, "ns_per_op"), "median",
                            json_real(value * (1 + (double)(n / 2) / 1000)));
        return;
    }
    CB_FAIL("no %s %s %s cell with %s", wl, impl, variant, match);
}

/* The verdict the report's summary table gives claim number k (1-based). */
static void expect_verdict(const char *md, int k, const char *verdict)
{
    char row[32], want[64];
    snprintf(row, sizeof row, "\n- %d. **", k);
    const char *r = strstr(md, row);
    if (!r)
        CB_FAIL("no claim %d in the report", k);
    const char *end = strchr(r + 1, '\n');
    snprintf(want, sizeof want, "\n- %d. **%s**: ", k, verdict);
    if (strncmp(r, want, strlen(want)))
        CB_FAIL("claim %d: want %s in \"%.*s\"", k, verdict, (int)(end - r - 1), r + 1);
}

/* The report: Claims before the tables, every claim with a verdict from the set, at least 7
 * plots drawn as PNG and SVG, a plot without its data (the direct baseline) skipped with the
 * reason, claim 11 (no peers) not measured with its command; verdicts follow the samples
 * (claim 1 and 4 rewritten to known outcomes); the jmpret build never ranked in a row; two
 * results files shown side by side. */
CB_TEST_T(cli_report_claims_and_plots, 300)
{
    char out[256], md[256], mod[256], mdmod[256], plots[300];
    cb_test_tmp_path(out, sizeof out, "rep.json");
    cb_test_tmp_path(md, sizeof md, "rep.md");
    cb_test_tmp_path(mod, sizeof mod, "rep-mod.json");
    cb_test_tmp_path(mdmod, sizeof mdmod, "rep-mod.md");
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", "asm,asmjmp,ucontext,sm,closure", "--workload",
                      "pingpong,recursive,spawn,io", "--param", "pingpong.depth=0,4",
                      "--param", "sites=distinct,same", "--param", "pingpong.switches=2000",
                      "--param", "recursive.height=6,8", "--param", "spawn.n=100,300",
                      "--param", "io.conns=1,2", "--param", "io.msgs=10", "--reps", "5",
                      "--min-rep-ms", "0.2", "--variant", "plain,jmpret", "--rsb", "sim", "-o",
                      out, "--no-table", NULL);
    if (c.status == 2 && strstr(c.err, "--variant"))
        CB_SKIP("no variant builds on this architecture: %s", c.err);
    CB_CHECK_EQ_INT(c.status, 0);
    c = cb_test_corobench("report", out, "-o", md, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    char *text = cb_test_slurp(md);
    /* Every line within 120 columns: the claims' text, their tables, the appendix. */
    for (const char *l = text, *nl; (nl = strchr(l, '\n')); l = nl + 1)
        if (nl - l > 120)
            CB_FAIL("report line of %d columns: %.*s", (int)(nl - l), (int)(nl - l), l);
    cb_test_md_unwrap(text); /* a sentence wherever the wrap fell */
    char *claims = strstr(text, "\n## Claims\n"), *table = strstr(text, "\n### pingpong\n");
    CB_CHECK(claims && table && claims < table);
    /* The answer first: the summary (a row per workload with both families), then the
     * caveats, then the claims. */
    char *summ = strstr(text, "\n## Summary\n"), *cav = strstr(text, "\n## Caveats\n");
    CB_CHECK(summ && cav && summ < cav && cav < claims);
    CB_CHECK_CONTAINS(summ, "| workload | points | stackful faster | stackless faster | "
                            "undecided | typical stackful / stackless [95%] | range |");
    CB_CHECK(strstr(summ, "\n| pingpong | ") && strstr(summ, "\n| recursive | ") &&
             strstr(summ, "\n| io | "));
    CB_CHECK_CONTAINS(summ, "\nClaims on this machine (numbered as in the Claims section): "
                            "**supported** ");
    static const char *const verdicts[] = {"supported", "contradicted", "inconclusive",
                                           "not measured"};
    for (int k = 1; k <= (int)cb_claims_count(); k++) {
        int found = 0;
        for (int v = 0; v < 4 && !found; v++) {
            char want[64];
            snprintf(want, sizeof want, "\n- %d. **%s**: ", k, verdicts[v]);
            found = strstr(text, want) != NULL;
        }
        if (!found)
            CB_FAIL("claim %d has no verdict", k);
    }
    /* Memory: deterministic in a plain build. Under AddressSanitizer the stacks' locals live in
     * its fake stack, so asm's stack bytes neither grow with the height nor are the program's:
     * claims 7 and 8 are then not what is tested here. */
#if !defined(__SANITIZE_ADDRESS__)
    expect_verdict(text, 7, "supported");
    expect_verdict(text, 8, "supported");
#endif
    expect_verdict(text, 11, "not measured");
    CB_CHECK_CONTAINS(text, "To measure it: `corobench run --workload pingpong --impl all");
    /* Plots: files beside the report, embedded; the direct baseline's is skipped, said why. */
    size_t nstyles;
    const cb_plot_style *sty = cb_plot_styles(&nstyles);
    const char *sm_hex = sty[cb_plot_linetype("sm") - 1].colour;
    unsigned r, g, b;
    CB_CHECK(sscanf(sm_hex, "#%2x%2x%2x", &r, &g, &b) == 3);
    char sm_rgb[32]; /* as gnuplot's SVG terminal writes it */
    snprintf(sm_rgb, sizeof sm_rgb, "rgb(%3u, %3u, %3u)", r, g, b);
    snprintf(plots, sizeof plots, "%.*s-plots", (int)(strlen(md) - 3), md);
    static const char *const names[] = {"pingpong-depth-distinct", "pingpong-depth-same",
                                        "pingpong-mispredict", "pingpong-jmpret",
                                        "spawn-memory", "recursive", "io"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char f[512], link[256];
        snprintf(f, sizeof f, "%s/%s.png", plots, names[i]);
        struct stat st;
        if (stat(f, &st) != 0 || st.st_size < 1000)
            CB_FAIL("plot %s missing or empty", f);
        snprintf(f, sizeof f, "%s/%s.svg", plots, names[i]);
        CB_CHECK(stat(f, &st) == 0 && st.st_size > 1000);
        /* An SVG (not a PNG named .svg), with sm in sm's colour, the same in every plot. */
        char *svg = cb_test_slurp(f);
        CB_CHECK(svg && strstr(svg, "<svg"));
        if (strcmp(names[i], "spawn-memory"))
            CB_CHECK_CONTAINS(svg, sm_rgb);
        free(svg);
        snprintf(link, sizeof link, "-plots/%s.png>)", names[i]);
        CB_CHECK_CONTAINS(text, link);
    }
    /* Identical series drawn once with both names: asm's and ucontext's simulated counts at
     * distinct sites (one misprediction per level, both resuming with ret); listed under the
     * plot. */
    char dat[512];
    snprintf(dat, sizeof dat, "%s/pingpong-mispredict-0.dat", plots);
    char *mis = cb_test_slurp(dat);
    CB_CHECK(mis != NULL);
    /* Under AddressSanitizer asmjmp's counts gain the instrumentation's returns and join them
     * ("asm, asmjmp, ucontext"): the merged label starts with asm and names ucontext. */
    const char *merged = strstr(mis, "\n\"asm, ");
    CB_CHECK(merged != NULL);
    const char *eol = strchr(merged + 1, '\n');
    CB_CHECK(eol && memmem(merged, (size_t)(eol - merged), "ucontext\"", 9));
    CB_CHECK(!strstr(mis, "\n\"ucontext\"\n"));
    free(mis);
    const char *said = strstr(text, "drawn as one line (they overlap: equal within 1%, or 0.5% "
                                    "of a linear axis) in simulated / hardware mispredicted "
                                    "returns per switch, sites=distinct: asm, ");
    CB_CHECK(said != NULL);
    eol = strchr(said, '\n');
    CB_CHECK(eol && memmem(said, (size_t)(eol - said), "ucontext", 8));
    /* The same report as one HTML page: self-contained (nothing fetched), the summary and the
     * claims, sortable tables, each drawn plot inline with its data behind a click, the
     * implementations' colours. */
    char html[256];
    cb_test_tmp_path(html, sizeof html, "rep.html");
    c = cb_test_corobench("report", out, "-o", html, "--force", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    char *page = cb_test_slurp(html);
    CB_CHECK(page && !strncmp(page, "<!DOCTYPE html>", 15));
    char *hs = strstr(page, "<h2 id=\"summary\">"), *hc = strstr(page, "<h2 id=\"claims\">");
    CB_CHECK(hs && hc && hs < hc);
    CB_CHECK_CONTAINS(page, "<table class=\"sortable\">");
    CB_CHECK_CONTAINS(page, "<script>document.querySelectorAll('table.sortable')");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char id[128];
        snprintf(id, sizeof id, "<figure id=\"plot-%s\">\n<svg", names[i]);
        const char *fig = strstr(page, id), *end = fig ? strstr(fig, "</figure>") : NULL;
        if (!fig || !end)
            CB_FAIL("no inline figure %s", id);
        const char *det = strstr(fig, "<details><summary>Data of this plot</summary>");
        CB_CHECK(det && det < end && strstr(det, "<td>"));
    }
    CB_CHECK_CONTAINS(page, "<a href=\"#plot-pingpong-mispredict\">");
    char swatch[64];
    snprintf(swatch, sizeof swatch, "class=\"sw\" style=\"background:%s\"", sm_hex);
    CB_CHECK_CONTAINS(page, swatch);
    /* Nothing fetched: no source, link or import; "http" only in the SVGs' namespaces. */
    CB_CHECK(!strstr(page, " src=") && !strstr(page, "<link") && !strstr(page, "@import") &&
             !strstr(page, "url("));
    for (const char *h = page; (h = strstr(h, "http")); h++)
        if (strncmp(h, "http://www.w3.org/", 18))
            CB_FAIL("the page names a network address: %.60s", h);
    free(page);
    unlink(html);
    CB_CHECK_CONTAINS(text, "### overhead\n\noverhead over the baseline without coroutines "
                            "(direct).\n\nNot drawn: the results lack its data.");
    CB_CHECK_CONTAINS(text, "no pingpong cells of direct, the baseline");
    CB_CHECK_CONTAINS(text, "series counters.ret-mispredicts.per_op skipped");
    /* A variant is never a row's fastest: its ratio is to its plain twin. */
    CB_CHECK_CONTAINS(text, "| point | asm | asm (jmpret) |");
    /* the parameters every row shares said once under the table (mdfit.c) */
    const char *row = strstr(table, "\n| depth=4 sites=distinct |");
    CB_CHECK_CONTAINS(table, "\nParameters every point above has, left out of it: switches=2000 "
                             "work=chain mode=symmetric.");
    CB_CHECK(row != NULL);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(row + 1, "\n"), row + 1);
    char *save = NULL, *field = strtok_r(line, "|", &save); /* point */
    field = strtok_r(NULL, "|", &save);                      /* asm */
    CB_CHECK(field && !strstr(field, "plain"));
    field = strtok_r(NULL, "|", &save); /* asm (jmpret) */
    CB_CHECK(field != NULL);
    CB_CHECK_CONTAINS(field, "x plain");
    free(text);

    /* Known outcomes, each cell three invocations. Claim 1: distinct sites 10x slower than the
     * same sites at the deepest depth, the slope too: supported; reversed: contradicted; a cell
     * of one process (no interval): inconclusive. Claim 4: ucontext as fast as asm:
     * contradicted. */
    json_t *doc = load(out);
    set_samples(doc, "pingpong", "asm", "plain", "depth=0 sites=distinct", 10, 5, 3);
    set_samples(doc, "pingpong", "asm", "plain", "depth=0 sites=same", 10, 5, 3);
    set_samples(doc, "pingpong", "asm", "plain", "depth=4 sites=distinct", 100, 5, 3);
    set_samples(doc, "pingpong", "asm", "plain", "depth=4 sites=same", 12, 5, 3);
    set_samples(doc, "pingpong", "ucontext", "plain", "depth=0 sites=distinct", 10.1, 5, 3);
    /* Claim 1 names the simulated model with how well it fits this CPU. */
    json_t *mrsb = json_object_get(json_object_get(doc, "machine"), "rsb");
    CB_CHECK(mrsb != NULL);
    json_object_set_new(mrsb, "source", json_string("calibrated"));
    json_object_set_new(mrsb, "r2", json_real(0.97));
    json_object_set_new(mrsb, "ns_per_mispredict", json_real(5.04));
    json_object_set_new(mrsb, "twin", json_string("sites"));
    char model_label[96];
    snprintf(model_label, sizeof model_label, "Model (%s %lld, calibrated R^2 0.97)",
             json_string_value(json_object_get(mrsb, "model")),
             (long long)json_integer_value(json_object_get(mrsb, "entries")));
    CB_CHECK(json_dump_file(doc, mod, 0) == 0);
    c = cb_test_corobench("report", mod, "-o", mdmod, "--force", "--no-plots", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    text = cb_test_md_unwrap(cb_test_slurp(mdmod));
    expect_verdict(text, 1, "supported");
    expect_verdict(text, 4, "contradicted");
    CB_CHECK_CONTAINS(text, "each level adds 22.5 ns per switch with distinct sites and 0.5 ns");
    CB_CHECK_CONTAINS(text, model_label);
    CB_CHECK_CONTAINS(text, "the calibration (calibrated, against the sites twin) measured 5.0 ns");
    free(text);
    /* A default as run writes it: no calibration's cost, R^2 or twin (the reader checks). */
    json_object_set_new(mrsb, "source", json_string("default"));
    json_object_set_new(mrsb, "r2", json_null());
    json_object_set_new(mrsb, "ns_per_mispredict", json_null());
    json_object_set_new(mrsb, "twin", json_null());
    CB_CHECK(json_dump_file(doc, mod, 0) == 0);
    c = cb_test_corobench("report", mod, "-o", mdmod, "--force", "--no-plots", NULL);
    text = cb_test_md_unwrap(cb_test_slurp(mdmod));
    CB_CHECK_CONTAINS(text, ", uncalibrated default)");
    free(text);
    set_samples(doc, "pingpong", "asm", "plain", "depth=4 sites=same", 200, 5, 3);
    CB_CHECK(json_dump_file(doc, mod, 0) == 0);
    c = cb_test_corobench("report", mod, "-o", mdmod, "--force", "--no-plots", NULL);
    text = cb_test_md_unwrap(cb_test_slurp(mdmod));
    expect_verdict(text, 1, "contradicted");
    free(text);
    set_samples(doc, "pingpong", "asm", "plain", "depth=4 sites=same", 12, 5, 1); /* 1 process */
    CB_CHECK(json_dump_file(doc, mod, 0) == 0);
    c = cb_test_corobench("report", mod, "-o", mdmod, "--force", "--no-plots", NULL);
    text = cb_test_md_unwrap(cb_test_slurp(mdmod));
    expect_verdict(text, 1, "inconclusive");
    free(text);
    json_decref(doc);

    /* Without gnuplot the plots are not drawn, and the report says why. */
    const char *path = getenv("PATH");
    char *saved_path = path ? strdup(path) : NULL;
    setenv("PATH", "/nonexistent", 1);
    c = cb_test_corobench("report", out, "-o", mdmod, "--force", NULL);
    if (saved_path)
        setenv("PATH", saved_path, 1);
    free(saved_path);
    CB_CHECK_EQ_INT(c.status, 0);
    text = cb_test_md_unwrap(cb_test_slurp(mdmod));
    CB_CHECK_CONTAINS(text, "### io\n\nio: messages per second vs connections.\n\nNot drawn: "
                            "cannot run gnuplot");
    CB_CHECK_CONTAINS(text, "Plots: io (not drawn: cannot run gnuplot");
    free(text);
    /* Two files of one machine are one machine's results: one set of claims, the second
     * file named. */
    c = cb_test_corobench("report", out, mod, "-o", mdmod, "--force", "--no-plots", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    text = cb_test_md_unwrap(cb_test_slurp(mdmod));
    CB_CHECK(strstr(text, "Machines side by side") == NULL);
    CB_CHECK_CONTAINS(text, "- also: `");
    const char *first = strstr(text, "\n## Claims\n");
    CB_CHECK(first && !strstr(first + 1, "\n## Claims\n"));
    free(text);
    /* Two machines: side by side, then a section each. */
    doc = load(mod);
    json_object_set_new(json_object_get(doc, "machine"), "hostname", json_string("other-host"));
    CB_CHECK(json_dump_file(doc, mod, 0) == 0);
    json_decref(doc);
    c = cb_test_corobench("report", out, mod, "-o", mdmod, "--force", "--no-plots", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    text = cb_test_md_unwrap(cb_test_slurp(mdmod));
    CB_CHECK_CONTAINS(text, "## Machines side by side");
    CB_CHECK_CONTAINS(text, "other-host");
    CB_CHECK_CONTAINS(text, "### pingpong (median ns per op; x = times machine A)");
    CB_CHECK_CONTAINS(text, "\n# Machine B\n");
    free(text);
    expect_usage("unexpected argument '--bogus' for report", NULL, "report", out, "--bogus",
                 NULL);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s' '%s' '%s' '%.*s-plots'", out, md, mod, mdmod,
             plots, (int)(strlen(mdmod) - 3), mdmod);
    CB_CHECK(system(cmd) == 0);
}

/* Claim 11 meets each peer with the fastest of corobench's runtimes of its family at every
 * point both ran in one file (the implementations' own parameters at their defaults: the asm
 * switches with fpu=1, closure with malloc), and lists where a peer is faster. Peers are the own cells cloned under a peer's name, so the
 * test needs neither Boost nor a C++20 compiler; the samples are synthetic. */
static void clone_as(json_t *doc, const char *impl, const char *as)
{
    json_t *cells = json_object_get(doc, "cells"), *c;
    size_t i;
    json_array_foreach(cells, i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "impl")), impl))
            continue;
        json_t *copy = json_deep_copy(c);
        json_object_set_new(copy, "impl", json_string(as));
        json_object_del(json_object_get(copy, "params"), "fpu");
        /* The clone is a cell of that implementation: its row, not the original's (the
         * reader takes kind and defaults from it; without one, from its own table). */
        json_object_del(copy, "impl_row");
        json_array_append_new(cells, copy);
        return;
    }
    CB_FAIL("no %s cell to clone", impl);
}

/* The report of doc (written to json) in md, whose claim 11 has the verdict; its text. */
static char *claim11(json_t *doc, const char *json, const char *md, const char *verdict)
{
    CB_CHECK(json_dump_file(doc, json, 0) == 0);
    cb_test_cli c = cb_test_corobench("report", json, "-o", md, "--force", "--no-plots", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    char *text = cb_test_md_unwrap(cb_test_slurp(md));
    expect_verdict(text, 11, verdict);
    return text;
}

CB_TEST_T(cli_report_claim_peers, 120)
{
    char out[256], md[256];
    cb_test_tmp_path(out, sizeof out, "peers.json");
    cb_test_tmp_path(md, sizeof md, "peers.md");
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", "asm,asmjmp,sm,closure", "--workload",
                                      "pingpong", "--param", "depth=0", "--param",
                                      "switches=2000", "--param", "fpu=1,0", "--param",
                                      "work=chain,none", "--reps", "5", "--min-rep-ms", "0.2",
                                      "-o", out, "--no-table", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out);
    free(claim11(doc, out, md, "not measured")); /* no peers yet */
    clone_as(doc, "asm", "fcontext");
    clone_as(doc, "sm", "cxx20");
    const char *chain = "depth=0 work=chain fpu=1", *peer = "depth=0 work=chain";
    /* The faster asm switch is asmjmp: it meets fcontext. The fpu=0 and work=none cells, faster
     * still, are other points and stay out. */
    set_samples(doc, "pingpong", "asm", "plain", chain, 16, 5, 3);
    set_samples(doc, "pingpong", "asmjmp", "plain", chain, 7, 5, 3);
    set_samples(doc, "pingpong", "asm", "plain", "depth=0 work=chain fpu=0", 1, 5, 3);
    set_samples(doc, "pingpong", "asmjmp", "plain", "depth=0 work=none fpu=1", 1, 5, 3);
    set_samples(doc, "pingpong", "fcontext", "plain", peer, 15, 5, 3);
    set_samples(doc, "pingpong", "sm", "plain", "depth=0 work=chain", 3, 5, 3);
    set_samples(doc, "pingpong", "closure", "plain", "depth=0 work=chain", 7, 5, 3);
    set_samples(doc, "pingpong", "cxx20", "plain", peer, 6, 5, 3);
    char *text = claim11(doc, out, md, "supported");
    CB_CHECK_CONTAINS(text, "Over 2 pairs");
    CB_CHECK_CONTAINS(text, "Where a peer is faster by the estimate: nowhere.");
    free(text);
    /* asmjmp slower than asm: asm is the one that meets fcontext; 7% slower is within the
     * equivalence margin (10%): as fast. */
    set_samples(doc, "pingpong", "asmjmp", "plain", chain, 17, 5, 3);
    free(claim11(doc, out, md, "supported"));
    /* 14% slower than fcontext: contradicted, and the row says where. */
    set_samples(doc, "pingpong", "fcontext", "plain", peer, 14, 5, 3);
    text = claim11(doc, out, md, "contradicted");
    /* the one row, 130 columns, is written turned: a row per column (mdfit.c) */
    CB_CHECK_CONTAINS(text, "\n| corobench's fastest | asm 16.0 ns |\n| peer | fcontext 14.0 ns |\n"
                            "| corobench's / peer [95%] | 1.14x [");
    CB_CHECK_CONTAINS(text, "slower beyond that at 1,");
    free(text);
    /* Within the noise of the fastest peer: supported (as fast as). */
    set_samples(doc, "pingpong", "fcontext", "plain", peer, 15.9, 5, 3);
    free(claim11(doc, out, md, "supported"));
    json_decref(doc);
    unlink(out);
    unlink(md);
}

/* A run written directly in a directory named results/ becomes results/latest.json (a relative
 * link, replaced by the next such run); one written elsewhere leaves latest.json alone. */
CB_TEST(cli_run_links_latest)
{
    char dir[256], a[300], b[300], other[256], link[300], target[300];
    cb_test_tmp_path(dir, sizeof dir, "latest");
    snprintf(a, sizeof a, "%s/results/a.json", dir);
    snprintf(b, sizeof b, "%s/results/b.json", dir);
    snprintf(link, sizeof link, "%s/results/latest.json", dir);
    cb_test_tmp_path(other, sizeof other, "latest-other.json");
    mkdir(dir, 0777);
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", "sm", "--workload", "pingpong", "--param",
                      "switches=100", "--reps", "1", "-o", a, "--no-table", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.err, "(latest.json points at it)");
    ssize_t n = readlink(link, target, sizeof target - 1);
    CB_CHECK(n > 0);
    target[n] = '\0';
    CB_CHECK_STREQ(target, "a.json");
    c = cb_test_corobench("run", "--invocations", "1", "--impl", "sm", "--workload", "pingpong", "--param", "switches=100",
                  "--reps", "1", "-o", b, "--no-table", NULL);
    n = readlink(link, target, sizeof target - 1);
    CB_CHECK(n > 0);
    target[n] = '\0';
    CB_CHECK_STREQ(target, "b.json");
    c = cb_test_corobench("run", "--invocations", "1", "--impl", "sm", "--workload", "pingpong", "--param", "switches=100",
                  "--reps", "1", "-o", other, "--no-table", NULL);
    CB_CHECK(strstr(c.err, "latest.json") == NULL);
    n = readlink(link, target, sizeof target - 1);
    CB_CHECK(n > 0);
    target[n] = '\0';
    CB_CHECK_STREQ(target, "b.json");
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, other);
    CB_CHECK(system(cmd) == 0);
}

/* --events end to end: a first-touch spawn cell (no warm-up: the kept repetition maps and touches
 * fresh stacks) counts page faults per op > 0; a hardware alias is either counted (a machine with
 * a PMU) or null with a reason naming the errno. */
CB_TEST_T(cli_events_counted_in_cells, 120)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "events.json");
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", "asm,sm", "--workload", "spawn", "--param", "n=2000",
                      "--warmup", "0", "--reps", "1", "--events", "page-faults,instructions",
                      "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out), *cell;
    size_t i;
    json_array_foreach(json_object_get(doc, "cells"), i, cell)
    {
        json_t *ctr = json_object_get(cell, "counters");
        json_t *pf = json_object_get(ctr, "page-faults");
        CB_CHECK(json_is_object(pf));
        CB_CHECK(json_real_value(json_object_get(pf, "per_op")) > 0);
        CB_CHECK(json_real_value(json_object_get(pf, "running_ratio")) > 0.99);
        json_t *ins = json_object_get(ctr, "instructions");
        if (json_is_null(ins))
            CB_CHECK_CONTAINS(json_string_value(json_object_get(
                                  json_object_get(cell, "counters_unavailable"), "instructions")),
                              "perf_event_open: E");
        else
            CB_CHECK(json_real_value(json_object_get(ins, "per_op")) > 0);
    }
    json_decref(doc);
    unlink(out);
}

/* Does any process have `needle` among its arguments? */
static int process_with_arg(const char *needle)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d))) {
        char path[300], buf[4096];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i < n && !found; i += strlen(buf + i) + 1) {
            buf[n] = '\0';
            found = !strcmp(buf + i, needle);
        }
    }
    if (d)
        closedir(d);
    return found;
}

/* An interrupted run takes its running cell down with it and writes what finished. */
CB_TEST_T(cli_interrupt_kills_the_cell, 60)
{
    char out[256], marker[64];
    cb_test_tmp_path(out, sizeof out, "interrupted.json");
    snprintf(marker, sizeof marker, "switches=%ld", 100000000000L + getpid());
    cb_proc run;
    cb_test_corobench_start(&run, "run", "--invocations", "1", "--impl", "ucontext", "--workload", "pingpong", "--param",
                            marker, "-o", out, NULL);
    for (int i = 0; i < 500 && !cb_test_child_of(run.pid, NULL); i++)
        usleep(20000); /* until the cell's child runs */
    usleep(100000);
    kill(run.pid, SIGINT);
    int st = cb_test_wait(&run);
    CB_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 130);
    for (int i = 0; i < 50 && process_with_arg(marker); i++)
        usleep(20000);
    CB_CHECK(!process_with_arg(marker));
    /* What finished (here: nothing) is written, marked interrupted (test_reliability.c). */
    json_t *doc = load(out);
    CB_CHECK(json_is_true(json_object_get(json_object_get(doc, "run"), "interrupted")));
    CB_CHECK_EQ_INT(json_array_size(json_object_get(doc, "cells")), 0);
    json_decref(doc);
    unlink(out);
}

/* Makes every ok cell's samples synthetic and writes the document to path: `inv` invocations
 * (0: a schema-1 cell, one process's samples and no `invocations`), invocation j's level
 * level[j] (cycled), its repetitions spread[0..n) times level, all times scale and times the
 * cell's position (so cells differ). */
static void write_scaled(json_t *doc, const char *path, const double *spread, size_t n,
                         const double *level, size_t inv, double scale)
{
    json_t *c;
    size_t i;
    json_object_set_new(doc, "schema", json_string(inv ? "corobench-results/2"
                                                       : "corobench-results/1"));
    json_array_foreach(json_object_get(doc, "cells"), i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "status")), "ok"))
            continue;
        json_t *all = json_array(), *invs = json_array();
        for (size_t j = 0; j < (inv ? inv : 1); j++) {
            json_t *s = json_array();
            for (size_t k = 0; k < n; k++) {
                double v = spread[k] * level[j % 3] * scale * (double)(i + 1);
                json_array_append_new(s, json_real(v));
                json_array_append_new(all, json_real(v));
            }
            json_array_append_new(invs, json_pack("{s:I, s:o}", "invocation", (json_int_t)j,
                                                  "samples_ns_per_op", s));
        }
        json_object_set_new(c, "samples_ns_per_op", all);
        if (inv)
            json_object_set_new(c, "invocations", invs);
        else
            json_object_del(c, "invocations"), json_decref(invs);
    }
    CB_CHECK(json_dump_file(doc, path, JSON_INDENT(1)) == 0);
}

/* compare: the samples are made synthetic (the machine's noise must not decide the test), the
 * document is a real run's. A cell's verdict comes from the 95% interval of new/base
 * (interval.h): a file with itself and a 2% slowdown are unchanged (exit 0), a 1.5x slowdown is
 * REGRESSED (exit 1) and the reverse improved (exit 0); one invocation a side (a schema-1 file)
 * is inconclusive, with the reason. A uniform shift that no cell's interval shows is found by
 * the whole-run interval over the cells. A failed, missing or other-work cell in NEW exits 1;
 * deterministic fields are compared exactly unless --metric time, a garbage-collected heap
 * never; a truncated file exits 2 naming its line. */
CB_TEST_T(cli_compare, 120)
{
    static const double spread[] = {10.0, 10.3, 10.1, 10.4, 10.2};
    static const double level[] = {1.0, 1.01, 0.995}, wide[] = {1.0, 1.25, 0.85};
    char base[256], other[256];
    cb_test_tmp_path(base, sizeof base, "cmp-base.json");
    cb_test_tmp_path(other, sizeof other, "cmp-new.json");
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm,sm", "--workload", "pingpong", "--param",
                      "switches=2000", "--param", "depth=0,1,2", "--reps", "1", "--invocations",
                      "2", "-o", base, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(base);
    write_scaled(doc, base, spread, 5, level, 3, 1);

    c = cb_test_corobench("compare", base, base, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "0 regressed, 0 improved, 6 unchanged, 0 inconclusive");
    CB_CHECK_CONTAINS(c.out, "geomean new/base: 1.000x over 6 cells");
    write_scaled(doc, other, spread, 5, level, 3, 1.02);
    c = cb_test_corobench("compare", base, other, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "0 regressed, 0 improved, 6 unchanged");
    write_scaled(doc, other, spread, 5, level, 3, 1.5);
    c = cb_test_corobench("compare", base, other, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    CB_CHECK_CONTAINS(c.out, "REGRESSED");
    CB_CHECK_CONTAINS(c.out, "6 regressed, 0 improved");
    CB_CHECK_CONTAINS(c.out, "geomean new/base: 1.500x");
    c = cb_test_corobench("compare", other, base, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "0 regressed, 6 improved");
    /* Processes 25% apart, every cell 10% slower: no cell's interval clears 1.05, the run's
     * does (the six ratios agree). */
    char noisy[256];
    cb_test_tmp_path(noisy, sizeof noisy, "cmp-noisy.json");
    write_scaled(doc, noisy, spread, 5, wide, 3, 1);
    write_scaled(doc, other, spread, 5, wide, 3, 1.10);
    c = cb_test_corobench("compare", noisy, other, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    CB_CHECK_CONTAINS(c.out, "0 regressed, 0 improved, 6 unchanged");
    CB_CHECK_CONTAINS(c.out, "whole run: geomean 1.100x [95% CI 1.100, 1.100] over the 6 cells "
                             "with an interval: REGRESSED");
    c = cb_test_corobench("compare", noisy, noisy, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "over the 6 cells with an interval: unchanged");
    /* One invocation a side (a schema-1 file): inconclusive, even 1.5x slower, and why. */
    write_scaled(doc, noisy, spread, 5, level, 0, 1);
    write_scaled(doc, other, spread, 5, level, 0, 1.5);
    c = cb_test_corobench("compare", noisy, other, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "0 regressed, 0 improved, 0 unchanged, 6 inconclusive");
    CB_CHECK_CONTAINS(c.out, "K=1/1: needs >= 2 invocations a side");
    CB_CHECK_CONTAINS(c.out, "note: 6 cells inconclusive: one invocation on a side");
    CB_CHECK_CONTAINS(c.out, "whole run: inconclusive");
    unlink(noisy);
    json_decref(doc);
    doc = load(base);

    json_t *cell0 = json_array_get(json_object_get(doc, "cells"), 0);
    /* A failed cell in NEW. */
    json_t *failed = json_deep_copy(doc), *f0 = json_array_get(json_object_get(failed, "cells"), 0);
    json_object_set_new(f0, "status", json_string("failed"));
    json_object_set_new(f0, "error", json_string("signal 11"));
    CB_CHECK(json_dump_file(failed, other, 0) == 0);
    json_decref(failed);
    c = cb_test_corobench("compare", base, other, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    CB_CHECK_CONTAINS(c.out, "ERROR pingpong depth=0 switches=2000 sites=distinct work=chain "
                             "mode=symmetric asm/plain:"); /* the rest wraps: 100 columns */
    CB_CHECK_CONTAINS(c.out, "signal 11");
    CB_CHECK_CONTAINS(c.out, "1 failed or timed out in new");
    /* A missing cell: an error unless --allow-missing. */
    json_t *missing = json_deep_copy(doc);
    json_array_remove(json_object_get(missing, "cells"), 1);
    CB_CHECK(json_dump_file(missing, other, 0) == 0);
    json_decref(missing);
    c = cb_test_corobench("compare", base, other, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    CB_CHECK_CONTAINS(c.out, "1 missing in new");
    c = cb_test_corobench("compare", base, other, "--allow-missing", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    /* Another checksum is an error whatever the metric. */
    json_t *sum = json_object_get(cell0, "checksum");
    char saved[32];
    snprintf(saved, sizeof saved, "%s", json_string_value(sum));
    json_object_set_new(cell0, "checksum", json_string("0x0000000000000000"));
    CB_CHECK(json_dump_file(doc, other, 0) == 0);
    c = cb_test_corobench("compare", base, other, "--metric", "time", NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    CB_CHECK_CONTAINS(c.out, "different"); /* the rest wraps: 100 columns */
    CB_CHECK_CONTAINS(c.out, "work: checksum");
    json_object_set_new(cell0, "checksum", json_string(saved));
    /* A deterministic field: compared exactly unless only time is asked for. */
    json_t *mem = json_object_get(cell0, "memory");
    json_object_set_new(mem, "heap_bytes_per_coro", json_real(12345.5));
    CB_CHECK(json_dump_file(doc, other, 0) == 0);
    c = cb_test_corobench("compare", base, other, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    CB_CHECK_CONTAINS(c.out, "CHANGED pingpong depth=0 switches=2000 sites=distinct work=chain "
                             "mode=symmetric asm/plain:");
    CB_CHECK_CONTAINS(c.out, "memory.heap_bytes_per_coro ");
    CB_CHECK_CONTAINS(c.out, "-> 12345.5");
    c = cb_test_corobench("compare", base, other, "--metric", "time", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    c = cb_test_corobench("compare", base, other, "--metric", "deterministic", NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    CB_CHECK(strstr(c.out, "new/base [95% CI]") == NULL);
    /* The same heap from a garbage-collected runtime's statistics: a measurement, not gated. */
    json_object_set_new(mem, "runtime_stats", json_string("runtime.MemStats HeapAlloc"));
    CB_CHECK(json_dump_file(doc, other, 0) == 0);
    c = cb_test_corobench("compare", base, other, "--metric", "deterministic", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK(strstr(c.out, "CHANGED") == NULL);
    CB_CHECK_CONTAINS(c.out, "note: 1 cells' heap bytes come from a garbage-collected runtime");
    json_decref(doc);

    /* Bad input: a truncated file names the parser's line and column. */
    FILE *in = fopen(base, "r"), *out = fopen(other, "w");
    char buf[1500];
    size_t got = fread(buf, 1, sizeof buf, in);
    fwrite(buf, 1, got, out);
    fclose(in);
    fclose(out);
    expect_usage("cannot read results", " column ", "compare", base, other, NULL);
    c = cb_test_corobench("compare", base, other, NULL);
    CB_CHECK_CONTAINS(c.err, "line ");
    expect_usage("compare needs two results files or directories", NULL, "compare", base, NULL);
    expect_usage("invalid value 'x' for --threshold", NULL, "compare", base, base, "--threshold",
                 "x", NULL);
    expect_usage("invalid value 'speed' for --metric", "deterministic", "compare", base, base,
                 "--metric", "speed", NULL);
    expect_usage("unexpected argument '--alpha' for compare", NULL, "compare", base, base,
                 "--alpha", "0.05", NULL);
    unlink(base);
    unlink(other);
}

/* compare matches a cell by its point and implementation: the implementation's own parameters
 * off their defaults are named beside it ("asm stack=16384/plain"), not in the point; one runtime
 * under two names (a plugin in BASE, its external twin in NEW) is matched with --rename OLD=NEW
 * (without it: "missing in new"); a rename without '=' or naming no implementation of BASE is
 * bad input, exit 2, one line naming the value and the valid form. */
CB_TEST_T(cli_compare_rename, 60)
{
    char base[256], other[256];
    cb_test_tmp_path(base, sizeof base, "cmp-rename-base.json");
    cb_test_tmp_path(other, sizeof other, "cmp-rename-new.json");
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm", "--workload", "pingpong", "--param",
                                      "switches=2000", "--param", "depth=0", "--param",
                                      "stack=16384", "--reps", "2", "--invocations", "2", "-o",
                                      base, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(base);
    json_t *cell = json_array_get(json_object_get(doc, "cells"), 0);
    json_object_set_new(cell, "impl", json_string("myrt"));
    CB_CHECK(json_dump_file(doc, other, 0) == 0);
    json_decref(doc);
    c = cb_test_corobench("compare", base, other, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    CB_CHECK_CONTAINS(c.out, "ERROR pingpong depth=0 switches=2000 sites=distinct work=chain "
                             "mode=symmetric asm stack=16384/plain:");
    CB_CHECK_CONTAINS(c.out, "missing in new");
    c = cb_test_corobench("compare", base, other, "--rename", "asm=myrt", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "note: base's implementation 'asm' is compared as new's 'myrt'");
    CB_CHECK_CONTAINS(c.out, "mode=symmetric myrt stack=16384/plain");
    CB_CHECK_CONTAINS(c.out, "0 missing in new, 0 only in new");
    expect_usage("invalid value 'asm' for --rename (valid: OLD=NEW", NULL, "compare", base, other,
                 "--rename", "asm", NULL);
    expect_usage("invalid value 'sm=myrt' for --rename: no cell of base has implementation 'sm'",
                 NULL, "compare", base, other, "--rename", "sm=myrt", NULL);
    unlink(base);
    unlink(other);
}

/* The cells of doc from..to-1 alone, written to path. */
static void write_part(json_t *doc, const char *path, size_t from, size_t to)
{
    json_t *part = json_deep_copy(doc), *cells = json_object_get(part, "cells");
    while (json_array_size(cells) > to)
        json_array_remove(cells, to);
    for (size_t i = 0; i < from; i++)
        json_array_remove(cells, 0);
    CB_CHECK(json_dump_file(part, path, JSON_INDENT(1)) == 0);
    json_decref(part);
}

/* Sets every ok cell's instructions_per_op to per_op (cell 0's times first) from source. */
static void set_instructions(json_t *doc, double per_op, double first, const char *source)
{
    json_t *c;
    size_t i;
    json_array_foreach(json_object_get(doc, "cells"), i, c)
        if (!strcmp(json_string_value(json_object_get(c, "status")), "ok"))
            cb_cell_set_instructions(c, per_op * (i == 0 ? first : 1), source);
}

/* compare's instructions column (issue 34, item 3): where both files' cells carry
 * instructions_per_op from one source, new/base is shown, "changed" past --instr-threshold (1.5%
 * by default); reported, never gated: a 2.5% instruction change alone exits 0, and a 1.5x time
 * regression with unchanged instructions still exits 1. Counts from two sources are not
 * compared; a bad threshold or a bad instructions_per_op exits 2 naming it. Run's merge takes
 * the median of its invocations' instructions:u (cb_invs_instructions). */
CB_TEST_T(cli_compare_instructions, 120)
{
    static const double spread[] = {10.0, 10.3, 10.1, 10.4, 10.2}, level[] = {1.0, 1.01, 0.995};
    char base[256], other[256];
    cb_test_tmp_path(base, sizeof base, "cmpi-base.json");
    cb_test_tmp_path(other, sizeof other, "cmpi-new.json");
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm,sm", "--workload", "pingpong",
                                      "--param", "switches=2000", "--param", "depth=0,1",
                                      "--reps", "1", "--invocations", "2", "-o", base, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(base);
    set_instructions(doc, 200, 1, "callgrind");
    write_scaled(doc, base, spread, 5, level, 3, 1);
    set_instructions(doc, 200, 1.025, "callgrind");
    write_scaled(doc, other, spread, 5, level, 3, 1);
    c = cb_test_corobench("compare", base, other, "--format", "md", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "instructions/op new/base");
    CB_CHECK_CONTAINS(c.out, "| 1.0250 changed |");
    CB_CHECK_CONTAINS(c.out, "| 1.0000 |");
    CB_CHECK_CONTAINS(c.out, "instructions per op (callgrind): in both files for 4 cells; 1 "
                             "changed beyond 1.5%; the largest change +2.50%");
    c = cb_test_corobench("compare", base, other, "--format", "json", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "\"instructions_per_op\"");
    c = cb_test_corobench("compare", base, other, "--instr-threshold", "3", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "0 changed beyond 3%");
    /* a time regression is never vetoed by unchanged instructions */
    set_instructions(doc, 200, 1, "callgrind");
    write_scaled(doc, other, spread, 5, level, 3, 1.5);
    c = cb_test_corobench("compare", base, other, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    CB_CHECK_CONTAINS(c.out, "4 regressed");
    CB_CHECK_CONTAINS(c.out, "0 changed beyond 1.5%");
    /* two sources: not compared */
    set_instructions(doc, 200, 1, "instructions:u (perf_event_open)");
    write_scaled(doc, other, spread, 5, level, 3, 1);
    c = cb_test_corobench("compare", base, other, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "4 cells have them in both files, counted by two different "
                             "sources");
    CB_CHECK(strstr(c.out, " changed beyond") == NULL);
    /* bad input */
    c = cb_test_corobench("compare", base, other, "--instr-threshold", "-1", NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "invalid value '-1' for --instr-threshold (valid: a percentage >= 0)");
    json_object_set_new(json_array_get(json_object_get(doc, "cells"), 0), "instructions_per_op",
                        json_pack("{s:f}", "value", -3.0));
    write_scaled(doc, other, spread, 5, level, 3, 1);
    c = cb_test_corobench("compare", base, other, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "instructions_per_op.value");
    json_decref(doc);
    /* run's merge: the median over the invocations' instructions:u; none: NaN and why */
    json_t *invs = json_pack("[{s:{s:{s:f}}}, {s:{s:{s:f}}}, {s:{s:{s:f}}}]", "counters",
                             "instructions", "per_op", 101.0, "counters", "instructions",
                             "per_op", 99.0, "counters", "instructions", "per_op", 100.5);
    CB_CHECK(fabs(cb_invs_instructions(invs, NULL) - 100.5) < 1e-9);
    json_decref(invs);
    invs = json_pack("[{s:{s:s}}]", "counters_unavailable", "instructions", "no PMU");
    const char *why = NULL;
    CB_CHECK(isnan(cb_invs_instructions(invs, &why)));
    CB_CHECK(why && !strcmp(why, "no PMU"));
    json_decref(invs);
    unlink(base);
    unlink(other);
}

/* compare's sides and forms: BASE a directory, NEW two files (the first three cells as they
 * were, the last three 1.5x slower); the regressions come first in each of text, md and json,
 * each parsed here; text fits 100 columns; --only-changed leaves the unchanged cells out; a
 * cell in two files of a side is refused. */
CB_TEST_T(cli_compare_formats, 120)
{
    static const double spread[] = {10.0, 10.3, 10.1, 10.4, 10.2, 10.05, 10.35};
    static const double level[] = {1.0, 1.01, 0.995};
    char dir[256], base[300], n1[256], n2[256], sides[600], tmp[256];
    cb_test_tmp_path(dir, sizeof dir, "cmpf-dir");
    CB_CHECK(mkdir(dir, 0755) == 0);
    snprintf(base, sizeof base, "%s/base.json", dir);
    cb_test_tmp_path(n1, sizeof n1, "cmpf-n1.json");
    cb_test_tmp_path(n2, sizeof n2, "cmpf-n2.json");
    cb_test_tmp_path(tmp, sizeof tmp, "cmpf-tmp.json");
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm,sm", "--workload", "pingpong",
                                      "--param", "switches=2000", "--param", "depth=0,1,2",
                                      "--reps", "1", "--invocations", "1", "-o", base, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(base);
    CB_CHECK_EQ_INT(json_array_size(json_object_get(doc, "cells")), 6);
    write_scaled(doc, base, spread, 7, level, 3, 1);
    write_part(doc, n1, 0, 3);
    write_scaled(doc, tmp, spread, 7, level, 3, 1.5);
    write_part(doc, n2, 3, 6);
    snprintf(sides, sizeof sides, "%s,%s", n1, n2);
    const char *key3 = "pingpong depth=1 switches=2000 sites=distinct work=chain mode=symmetric sm/plain";

    /* json: the record of both sides, the regressed cells first with their percentage. */
    c = cb_test_corobench("compare", dir, sides, "--format", "json", NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    json_error_t je;
    json_t *j = json_loads(c.out, 0, &je);
    CB_CHECK(j != NULL);
    CB_CHECK_STREQ(json_string_value(json_object_get(j, "schema")), "corobench-compare/1");
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(j, "status")), 1);
    CB_CHECK_EQ_INT(json_array_size(json_object_get(j, "base")), 1);
    CB_CHECK_EQ_INT(json_array_size(json_object_get(j, "new")), 2);
    json_t *cells = json_object_get(j, "cells"), *x;
    CB_CHECK_EQ_INT(json_array_size(cells), 6);
    size_t i;
    json_array_foreach(cells, i, x)
    {
        const char *v = json_string_value(json_object_get(x, "verdict"));
        CB_CHECK_STREQ(v, i < 3 ? "REGRESSED" : "unchanged");
        double pct = json_number_value(json_object_get(x, "change_percent"));
        CB_CHECK(fabs(pct - (i < 3 ? 50.0 : 0.0)) < 1e-6);
    }
    CB_CHECK_CONTAINS(json_string_value(json_object_get(json_object_get(j, "summary"), "time")),
                      "3 regressed, 0 improved, 3 unchanged");
    json_decref(j);

    /* --only-changed: the three regressed cells alone. */
    c = cb_test_corobench("compare", dir, sides, "--format", "json", "--only-changed", NULL);
    j = json_loads(c.out, 0, &je);
    CB_CHECK(j != NULL);
    CB_CHECK_EQ_INT(json_array_size(json_object_get(j, "cells")), 3);
    json_decref(j);

    /* md: a heading with the outcome, then a table whose first row is a regression. */
    c = cb_test_corobench("compare", dir, sides, "--format", "md", NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    CB_CHECK(!strncmp(c.out, "### corobench compare: **regressed", 34));
    const char *hdr = "| verdict | change | base ns/op | new ns/op | new/base | decided by | cell |\n"
                      "|---|---:|---:|---:|---:|---|---|\n| **REGRESSED** | +50.0% |";
    CB_CHECK_CONTAINS(c.out, hdr);
    size_t rows = 0;
    for (char *l = strstr(c.out, hdr); l && (l = strstr(l + 1, "\n| ")); )
        rows++;
    CB_CHECK_EQ_INT(rows, 6);

    /* text: within 100 columns, a regression's figures first, its name below. */
    c = cb_test_corobench("compare", dir, sides, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    size_t col = 0, widest = 0;
    for (char *p = c.out; *p; p++) {
        col = *p == '\n' ? 0 : col + 1;
        widest = col > widest ? col : widest;
    }
    CB_CHECK(widest <= 100);
    CB_CHECK(!strncmp(c.out, "verdict ", 8));
    char *first = strchr(c.out, '\n') + 1;
    CB_CHECK(!strncmp(first, "REGRESSED", 9));
    CB_CHECK_CONTAINS(first, "+50.0%");
    c = cb_test_corobench("compare", base, base, "--only-changed", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "(6 unchanged cells not shown: --only-changed)");
    CB_CHECK(strstr(c.out, key3) == NULL);

    /* A cell on both files of a side, an empty directory, a bad --format. */
    snprintf(sides, sizeof sides, "%s,%s", n1, base);
    expect_usage("is in both", NULL, "compare", base, sides, NULL);
    CB_CHECK(unlink(base) == 0);
    expect_usage("has no .json files", NULL, "compare", dir, n1, NULL);
    expect_usage("invalid value 'xml' for --format", "md", "compare", n1, n1, "--format", "xml",
                 NULL);
    json_decref(doc);
    unlink(n1);
    unlink(n2);
    unlink(tmp);
    rmdir(dir);
}

/* Named baselines: run --save-baseline NAME writes results/baselines/NAME.json beside its -o
 * file (replacing an older one), compare --baseline NAME NEW reads it as the base side; a bad
 * or unknown name is one line and exit 2, and nothing is written. */
CB_TEST_T(cli_baseline, 120)
{
    char out[256], name[32], path[128], cmp_arg[64];
    cb_test_tmp_path(out, sizeof out, "bl.json");
    snprintf(name, sizeof name, "cbtest-%d", (int)getpid());
    snprintf(path, sizeof path, "results/baselines/%s.json", name);
    for (int round = 0; round < 2; round++) { /* the second replaces the first */
        cb_test_cli c = cb_test_corobench("run", "--impl", "asm", "--workload", "pingpong",
                                          "--param", "switches=2000", "--param", "depth=0",
                                          "--reps", "2", "--no-table", "-o", out, "--force",
                                          "--save-baseline", name, NULL);
        CB_CHECK_EQ_INT(c.status, 0);
        CB_CHECK_CONTAINS(c.err, "saved in results/baselines/");
    }
    json_t *a = load(out), *b = load(path);
    CB_CHECK(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    cb_test_cli c = cb_test_corobench("compare", "--baseline", name, out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "pingpong depth=0 switches=2000 sites=distinct work=chain "
                             "mode=symmetric asm/plain");
    c = cb_test_corobench("compare", "--baseline", name, out, "--format", "json", NULL);
    json_error_t je;
    json_t *j = json_loads(c.out, 0, &je);
    CB_CHECK(j != NULL);
    CB_CHECK_STREQ(json_string_value(json_array_get(json_object_get(j, "base"), 0)), path);
    json_decref(j);
    expect_usage("invalid value '../x' for --save-baseline", "letters, digits", "run", "--impl",
                 "asm", "--save-baseline", "../x", NULL);
    /* the gate's baseline in git is rewritten by make baseline only */
    expect_usage("invalid value 'gate-x86_64' for --save-baseline", "make baseline", "run",
                 "--impl", "asm", "--save-baseline", "gate-x86_64", NULL);
    snprintf(cmp_arg, sizeof cmp_arg, "%s-none", name);
    expect_usage("no baseline", "--save-baseline NAME", "compare", "--baseline", cmp_arg, out,
                 NULL);
    expect_usage("compare --baseline NAME takes one other side", NULL, "compare", "--baseline",
                 name, out, out, NULL);
    unlink(path);
    unlink(out);
}

/* Issue 30, LOW 5: a baseline's path that cannot be replaced (a directory there) was refused
 * with "(valid: a new path, or a regular file with --force)", and --save-baseline takes no
 * --force (it replaces the baseline anyway): the advice names only what works. */
CB_TEST(save_baseline_refusal_names_no_force)
{
    char out[256], name[32], path[128];
    cb_test_tmp_path(out, sizeof out, "blf.json");
    snprintf(name, sizeof name, "cbtest-%d-dir", (int)getpid());
    snprintf(path, sizeof path, "results/baselines/%s.json", name);
    CB_CHECK_EQ_INT(mkdir(path, 0700), 0);
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm", "--workload", "pingpong", "--param",
                                      "switches=2000", "--param", "depth=0", "--reps", "2",
                                      "--no-table", "-o", out, "--force", "--save-baseline", name,
                                      NULL);
    rmdir(path);
    CB_CHECK_EQ_INT(c.status, 2);
    char want[300];
    snprintf(want, sizeof want, "baseline output: '%s' is a directory (valid: a new path, or a "
             "regular file, which is replaced)", path);
    CB_CHECK_CONTAINS(c.err, want);
    CB_CHECK(!strstr(c.err, "--force"));
    CB_CHECK(access(out, F_OK) != 0);
    free(c.out);
    free(c.err);
}

/* A workload whose run fails (here: guarded stacks forced past the vm.max_map_count budget) is
 * recorded as failed with the workload's reason, and the other cells still run. */
CB_TEST_T(cli_run_error_recorded, 120)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "runerr.json");
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", "asm", "--workload", "spawn,recursive", "--param",
                      "n=40000", "--param", "height=5", "--param", "stack_mode=guarded", "--reps",
                      "1", "--warmup", "0", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 1);
    json_t *doc = load(out);
    json_t *cells = json_object_get(doc, "cells");
    CB_CHECK_EQ_INT(json_array_size(cells), 2);
    json_t *spawn = json_array_get(cells, 0), *rec = json_array_get(cells, 1);
    CB_CHECK_STREQ(json_string_value(json_object_get(spawn, "status")), "failed");
    CB_CHECK_CONTAINS(json_string_value(json_object_get(spawn, "error")),
                      "spawn: cannot create coroutine");
    CB_CHECK_CONTAINS(json_string_value(json_object_get(spawn, "error")),
                      "Cannot allocate memory");
    CB_CHECK_STREQ(json_string_value(json_object_get(rec, "status")), "ok");
    json_decref(doc);
    unlink(out);
}

/* machine.environment: every condition recorded (null where this machine has no such file), and
 * one "corobench: warning:" line on stderr per entry of its warnings array; the run goes on. */
CB_TEST_T(cli_environment_checked, 60)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "env.json");
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", "sm", "--workload", "pingpong", "--param", "switches=100",
                      "--reps", "1", "--pin", "0", "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_error_t je;
    json_t *doc = json_load_file(out, 0, &je);
    CB_CHECK(doc != NULL);
    json_t *env = json_object_get(json_object_get(doc, "machine"), "environment");
    CB_CHECK(json_is_object(env));
    static const char *const keys[] = {"governor", "turbo", "smt_sibling", "hypervisor",
                                       "loadavg", "warnings"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!json_object_get(env, keys[i]))
            CB_FAIL("machine.environment has no '%s'", keys[i]);
    CB_CHECK(json_is_boolean(json_object_get(env, "hypervisor")));
    json_t *w = json_object_get(env, "warnings");
    CB_CHECK(json_is_array(w));
    size_t lines = 0;
    for (const char *p = c.err; (p = strstr(p, "corobench: warning: ")); p++)
        lines++;
    CB_CHECK_EQ_INT(lines, json_array_size(w));
    size_t i;
    json_t *v;
    json_array_foreach(w, i, v) CB_CHECK_CONTAINS(c.err, json_string_value(v));
    json_decref(doc);
    unlink(out);
    free(c.out);
    free(c.err);
}

/* The repetitions a cell keeps (docs/measurement.md): 5 in each of 3 invocations by default, after a separate memory
 * pass and at least two warm-ups at the final batch; each at least min_rep_ms long or the cell
 * batch_limited with the reason; the drift between halves, steal time; the table's overhead over
 * direct and its flags. No timing is asserted: only the fields and their consistency. */
CB_TEST_T(cli_repetition_fields, 120)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "reps.json");
    cb_test_cli c = cb_test_corobench("run", "--impl", "sm,direct", "--workload", "pingpong",
                                      "--param", "switches=2000", "--min-rep-ms", "1", "--pin",
                                      "0", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out), *cell;
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(json_object_get(doc, "run"), "reps")), 5);
    size_t i;
    json_array_foreach(json_object_get(doc, "cells"), i, cell)
    {
        CB_CHECK_EQ_INT(json_integer_value(field(field(cell, "ns_per_op", JSON_OBJECT), "reps",
                                                 JSON_INTEGER)),
                        15);
        CB_CHECK(json_integer_value(field(cell, "warmup_reps", JSON_INTEGER)) >= 3 * 2);
        double shortest = json_real_value(field(cell, "shortest_rep_ms", JSON_REAL));
        json_t *limited = field(cell, "batch_limited", -1), *why = field(cell, "batch_limited_why", -1);
        CB_CHECK(json_is_boolean(limited));
        if (json_is_true(limited))
            CB_CHECK(json_is_string(why) && json_string_length(why) > 0);
        else
            CB_CHECK(shortest >= 1.0 && json_is_null(why));
        double drift = json_real_value(field(cell, "drift_pct", JSON_REAL));
        json_t *u = field(cell, "unstable", -1);
        if (drift > 3 || drift < -3) {
            CB_CHECK(json_is_object(u));
            CB_CHECK(json_real_value(json_object_get(u, "first_half_median")) > 0);
            CB_CHECK(json_real_value(json_object_get(u, "second_half_median")) > 0);
        } else {
            CB_CHECK(json_is_null(u));
        }
        json_t *steal = field(cell, "steal_ns_per_rep", -1);
        CB_CHECK(json_is_null(steal) || json_number_value(steal) >= 0);
    }
    /* The table: sm's overhead over direct, and when a cell has a flag, the flags' legend or,
     * for a letter on most cells (here: one of the two), the line saying it is not shown. */
    CB_CHECK_CONTAINS(c.out, "over direct");
    json_t *sm = json_array_get(json_object_get(doc, "cells"), 0);
    CB_CHECK_STREQ(json_string_value(json_object_get(sm, "impl")), "sm");
    char flags[16];
    if (cb_cell_flags(sm, flags, sizeof flags)[0])
        CB_CHECK(strstr(c.out, "flags: P preempted") || strstr(c.out, "Not shown per cell"));
    json_decref(doc);
    unlink(out);
    free(c.out);
    free(c.err);
}

/* A repetition that cannot reach min_rep_ms (the batch at the harness's cap) is batch limited,
 * and says why. */
CB_TEST_T(cli_batch_limited_says_why, 120)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "limited.json");
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", "direct", "--workload", "recursive",
                                      "--param", "height=1", "--min-rep-ms", "60000", "--reps",
                                      "2", "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out), *cell = json_array_get(json_object_get(doc, "cells"), 0);
    CB_CHECK(json_is_true(field(cell, "batch_limited", -1)));
    CB_CHECK_CONTAINS(json_string_value(field(cell, "batch_limited_why", JSON_STRING)),
                      "harness's limit");
    CB_CHECK(json_real_value(field(cell, "shortest_rep_ms", JSON_REAL)) < 60000);
    json_decref(doc);
    unlink(out);
    free(c.out);
    free(c.err);
}

/* The report: overhead over direct beside each model's median, and the memory table with page
 * tables and the kernel's bytes (> 0 for guarded stacks). */
CB_TEST_T(cli_report_direct_and_kernel_bytes, 120)
{
    char out[256], md[256];
    cb_test_tmp_path(out, sizeof out, "rk.json");
    cb_test_tmp_path(md, sizeof md, "rk.md");
    cb_test_cli c = cb_test_corobench("run", "--invocations", "1", "--impl", "asm,direct", "--workload", "spawn",
                                      "--param", "n=2000", "--param", "stack_mode=guarded",
                                      "--reps", "2", "--min-rep-ms", "1", "--no-table", "-o", out,
                                      NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    cb_test_cli r = cb_test_corobench("report", out, "-o", md, NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    char *text = cb_test_md_unwrap(cb_test_slurp(md));
    CB_CHECK_CONTAINS(text, "[+d] = ns over direct");
    CB_CHECK_CONTAINS(text, "page tables / kernel");
    json_t *doc = load(out), *asm_ = json_array_get(json_object_get(doc, "cells"), 0);
    double kb = json_real_value(json_object_get(json_object_get(asm_, "memory"),
                                                "kernel_bytes_per_coro"));
    CB_CHECK(kb > 0);
    char want[64];
    snprintf(want, sizeof want, " / %.0f |", kb); /* the asm column ends with its kernel bytes */
    CB_CHECK_CONTAINS(text, want);
    CB_CHECK_CONTAINS(text, " [+"); /* asm's overhead over direct */
    json_decref(doc);
    free(text);
    unlink(out);
    unlink(md);
    free(c.out);
    free(c.err);
    free(r.out);
    free(r.err);
}

/* Invocations (docs/measurement.md): the order the processes of a run's cells run in
 * (interleaved: A1 B1 C1 A2 B2 C2), each one's layout recorded, K = 1 marked and without an
 * interval; the readers taking a schema-1 file (one process per cell); the test knob that slows
 * one cell (the A/A test's, docs/ci.md). No timing is asserted. */
/* Three cells, two invocations each: cell i's invocation r is the (3r + i)th process run, and
 * no two invocations of a cell share a layout. */
CB_TEST_T(invocations_interleaved, 120)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "inv.json");
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm,sm,closure", "--workload", "pingpong",
                                      "--param", "switches=500", "--param", "depth=0",
                                      "--reps", "2", "--warmup", "1", "--min-rep-ms", "0.2",
                                      "--invocations", "2", "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out), *cell;
    CB_CHECK_EQ_INT(json_integer_value(field(field(doc, "run", JSON_OBJECT), "invocations",
                                             JSON_INTEGER)),
                    2);
    CB_CHECK(json_is_string(json_object_get(json_object_get(doc, "run"), "layout_seed")));
    size_t i;
    CB_CHECK_EQ_INT(json_array_size(json_object_get(doc, "cells")), 3);
    json_array_foreach(json_object_get(doc, "cells"), i, cell)
    {
        json_t *invs = json_object_get(cell, "invocations");
        CB_CHECK_EQ_INT(json_array_size(invs), 2);
        for (size_t r = 0; r < 2; r++) {
            json_t *inv = json_array_get(invs, r);
            CB_CHECK_EQ_INT(json_integer_value(field(inv, "invocation", JSON_INTEGER)), r);
            CB_CHECK_EQ_INT(json_integer_value(field(inv, "sequence", JSON_INTEGER)), 3 * r + i);
            CB_CHECK_EQ_INT(json_array_size(json_object_get(inv, "samples_ns_per_op")), 2);
        }
        CB_CHECK(!json_equal(json_object_get(json_array_get(invs, 0), "layout"),
                             json_object_get(json_array_get(invs, 1), "layout")));
        CB_CHECK(json_is_false(json_object_get(cell, "single_invocation")));
        CB_CHECK(json_is_array(json_object_get(json_object_get(cell, "ns_per_op"), "ci95")));
    }
    json_decref(doc);
    /* The table states K and the repetitions. */
    c = cb_test_corobench("run", "--impl", "sm", "--workload", "pingpong", "--param",
                          "switches=500", "--param", "depth=0", "--reps", "2", "--warmup", "0",
                          "--invocations", "1", "-o", out, "--force", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "each cell: 1 invocations (processes, interleaved across cells) x 2 "
                             "repetitions");
    CB_CHECK_CONTAINS(c.out, "[no interval: K=1]");
    doc = load(out);
    cell = json_array_get(json_object_get(doc, "cells"), 0);
    CB_CHECK(json_is_true(json_object_get(cell, "single_invocation")));
    CB_CHECK(json_is_null(json_object_get(json_object_get(cell, "ns_per_op"), "ci95")));
    CB_CHECK_CONTAINS(json_string_value(json_object_get(cell, "ci95_why")), "single invocation");
    json_decref(doc);
    unlink(out);
}

/* A schema-1 file (before invocations: one process per cell, no `invocations`, no ci95) is
 * still read by report, export and compare; its cells count as one invocation each. */
CB_TEST_T(invocations_schema1_read, 120)
{
    char out[256], old[256], md[256], csv[256];
    cb_test_tmp_path(out, sizeof out, "s2.json");
    cb_test_tmp_path(old, sizeof old, "s1.json");
    cb_test_tmp_path(md, sizeof md, "s1.md");
    cb_test_tmp_path(csv, sizeof csv, "s1.csv");
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm,sm", "--workload", "pingpong",
                                      "--param", "switches=500", "--param", "depth=0,1",
                                      "--reps", "2", "--warmup", "0", "--invocations", "1",
                                      "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out), *cell;
    size_t i;
    /* What a corobench-results/1 writer wrote: no run.invocations, cells without the
     * invocation fields. */
    json_object_set_new(doc, "schema", json_string("corobench-results/1"));
    json_t *run = json_object_get(doc, "run");
    json_object_del(run, "invocations");
    json_object_del(run, "layout_seed");
    json_object_del(run, "interleaved");
    json_array_foreach(json_object_get(doc, "cells"), i, cell)
    {
        static const char *const added[] = {"invocations", "single_invocation", "variance_split",
                                            "ci95_why", "invocations_asked", "request"};
        for (size_t k = 0; k < sizeof added / sizeof added[0]; k++)
            json_object_del(cell, added[k]);
        json_t *ns = json_object_get(cell, "ns_per_op");
        json_object_del(ns, "ci95");
        json_object_del(ns, "invocations");
        json_object_del(ns, "reps_per_invocation");
    }
    CB_CHECK(json_dump_file(doc, old, JSON_INDENT(1)) == 0);
    json_decref(doc);
    c = cb_test_corobench("report", old, "-o", md, "--no-plots", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    c = cb_test_corobench("export", old, "--format", "csv", "-o", csv, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    c = cb_test_corobench("compare", old, out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "4 inconclusive");
    c = cb_test_corobench("compare", old, old, "--metric", "deterministic", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    /* Another schema is still refused, naming those it reads. */
    doc = load(old);
    json_object_set_new(doc, "schema", json_string("corobench-results/0"));
    CB_CHECK(json_dump_file(doc, old, 0) == 0);
    json_decref(doc);
    c = cb_test_corobench("compare", old, out, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "(valid: \"corobench-results/2\", \"corobench-results/1\" or "
                             "\"corobench-record/1\")");
    unlink(out);
    unlink(old);
    unlink(md);
    unlink(csv);
    char plots[300];
    snprintf(plots, sizeof plots, "%.*s-plots", (int)(strlen(md) - 3), md);
    rmdir(plots);
}

/* COROBENCH_TEST_SLOWDOWN=FACTOR@IMPL/WORKLOAD slows that cell only, and the cell says so. */
CB_TEST_T(invocations_test_slowdown_knob, 120)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "slow.json");
    setenv("COROBENCH_TEST_SLOWDOWN", "1.5@sm/pingpong", 1);
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm,sm", "--workload", "pingpong",
                                      "--param", "switches=500", "--param", "depth=0",
                                      "--reps", "1", "--warmup", "0", "--invocations", "1",
                                      "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out), *cells = json_object_get(doc, "cells");
    json_t *asm_cell = json_array_get(cells, 0), *sm = json_array_get(cells, 1);
    CB_CHECK_STREQ(json_string_value(json_object_get(sm, "impl")), "sm");
    CB_CHECK(json_number_value(json_object_get(sm, "test_slowdown")) == 1.5);
    CB_CHECK(json_object_get(asm_cell, "test_slowdown") == NULL);
    json_decref(doc);
    unlink(out);
}

/* A repetition the process was preempted in (another task's time in its clock) is redone, at
 * most --reps times per invocation, and the cell counts the redos; not for thread, whose own
 * hand-offs preempt each other. A busy loop pinned to the cell's CPU makes the preemptions. */
CB_TEST_T(invocations_preempted_repetition_redone, 120)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || !CPU_ISSET(1, &set))
        CB_SKIP("CPU 1 is not ours to use here");
    char out[256];
    cb_test_tmp_path(out, sizeof out, "preempted.json");
    pid_t hog = fork();
    if (hog == 0) {
        /* never outlives this test, even one killed at its time limit */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        alarm(120);
        CPU_ZERO(&set);
        CPU_SET(1, &set);
        sched_setaffinity(0, sizeof set, &set);
        for (;;)
            ;
    }
    CB_CHECK(hog > 0);
    cb_test_cli c = cb_test_corobench("run", "--impl", "sm,thread", "--workload", "pingpong",
                                      "--param", "switches=2000", "--reps", "3", "--min-rep-ms",
                                      "20", "--invocations", "2", "--pin", "1", "--no-table",
                                      "-o", out, NULL);
    kill(hog, SIGKILL);
    waitpid(hog, NULL, 0);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *doc = load(out), *cells = json_object_get(doc, "cells"), *cell, *inv;
    size_t i, j;
    json_array_foreach(cells, i, cell)
    {
        const char *impl = json_string_value(json_object_get(cell, "impl"));
        long long redone = json_integer_value(json_object_get(cell, "preempted_redone"));
        if (!strcmp(impl, "thread")) {
            CB_CHECK_EQ_INT(redone, 0);
            continue;
        }
        /* 20 ms repetitions sharing their CPU with a busy loop: each is preempted */
        CB_CHECK(redone >= 1);
        json_array_foreach(json_object_get(cell, "invocations"), j, inv)
            CB_CHECK(json_integer_value(json_object_get(inv, "preempted_redone")) <= 3);
    }
    json_decref(doc);
    unlink(out);
}

/* The plots' styles (harness/results/style.c, from the rows of impls/impls.c): one per
 * implementation, a build variant with its implementation's, every listed implementation its own colour, and a name the table lacks a
 * spare of its own, the same each time. */
CB_TEST(report_style_one_per_impl)
{
    size_t n;
    const cb_plot_style *s = cb_plot_styles(&n);
    CB_CHECK_EQ_INT((long long)cb_plot_linetype("asm-jmpret"), (long long)cb_plot_linetype("asm"));
    CB_CHECK_EQ_INT((long long)cb_plot_linetype("cxx20-clang"),
                    (long long)cb_plot_linetype("cxx20-clang-jmpret"));
    CB_CHECK(cb_plot_linetype("cxx20-clang") != cb_plot_linetype("cxx20"));
    /* a series named with a parameter (closure's alloc) or drawn as one with others: the first
     * implementation's (both had a spare colour, in every pingpong plot of run.sh's suite) */
    CB_CHECK_EQ_INT((long long)cb_plot_linetype("closure alloc=pool"),
                    (long long)cb_plot_linetype("closure"));
    CB_CHECK_EQ_INT((long long)cb_plot_linetype("asm, ucontext"), (long long)cb_plot_linetype("asm"));
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(s[i].colour, s[j].colour))
                CB_FAIL("entries %zu and %zu share %s", j, i, s[i].colour);
    for (size_t k = 0; k < cb_nimpls; k++) {
        const cb_impl *im = &cb_impls[k];
        size_t lt = cb_plot_linetype(im->name);
        CB_CHECK(lt >= 1 && lt <= n);
        if (!s[lt - 1].impl || strcmp(s[lt - 1].impl, im->name))
            CB_FAIL("implementation %s has no style of its own (its row's .colour and .point in "
                    "impls/impls.c)",
                    im->name);
    }
    size_t a = cb_plot_linetype("plugin-a"), b = cb_plot_linetype("plugin-b");
    CB_CHECK(a != b && !s[a - 1].impl && !s[b - 1].impl);
    CB_CHECK_EQ_INT((long long)cb_plot_linetype("plugin-a"), (long long)a);
}

/* run --dry-run prints the plan (cells, invocations, estimated time) and runs and writes
 * nothing; a run not on a terminal prints one line per finished invocation on stderr, with its
 * place (cell i of N, invocation r of K), elapsed time and ETA, prefixed by COROBENCH_STAGE
 * (run.sh's stage); the table on stdout fits 120 columns, and a flag on more than half of the
 * cells is not shown. */
CB_TEST_T(cli_run_plan_and_progress, 120)
{
    char out[256];
    cb_test_tmp_path(out, sizeof out, "progress.json");
    unlink(out);
    cb_test_cli c = cb_test_corobench("run", "--impl", "asm,sm", "--workload", "pingpong",
                                      "--param", "depth=0,4", "--dry-run", "-o", out, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "plan: 4 cells, 3 invocations each (12 processes)");
    CB_CHECK_CONTAINS(c.out, "  pingpong      4 cells: asm, sm\n");
    CB_CHECK_CONTAINS(c.out, "estimated time: ");
    CB_CHECK(access(out, F_OK) != 0);
    setenv("COROBENCH_STAGE", "stage 1/2: test", 1);
    c = cb_test_corobench("run", "--impl", "asm,sm", "--workload", "pingpong", "--param",
                          "depth=0,4", "--param", "switches=1000", "--invocations", "2", "--reps",
                          "2", "--min-rep-ms", "1", "-o", out, NULL);
    unsetenv("COROBENCH_STAGE");
    CB_CHECK_EQ_INT(c.status, 0);
    /* Interleaved: every cell's first invocation, then every cell's second; the line says the
     * cell and the invocation, not a count of processes that reads as a count of cells. */
    for (int r = 1; r <= 2; r++)
        for (int i = 1; i <= 4; i++) {
            char want[96];
            snprintf(want, sizeof want, "[stage 1/2: test] [cell %d/4, invocation %d/2, %d%%; ",
                     i, r, 100 * ((r - 1) * 4 + i) / 8);
            CB_CHECK_CONTAINS(c.err, want);
        }
    CB_CHECK_CONTAINS(c.err, ", ETA ");
    CB_CHECK_CONTAINS(c.err, "] pingpong sm depth=4 switches=1000 ");
    CB_CHECK(!strstr(c.err, "(invocation "));
    CB_CHECK_CONTAINS(c.err, " ns/switch\n");
    CB_CHECK(!strstr(c.err, "\r")); /* no terminal: no line rewritten in place */
    for (const char *l = c.out, *nl; (nl = strchr(l, '\n')); l = nl + 1)
        if (nl - l > 120)
            CB_FAIL("table line of %d columns: %.*s", (int)(nl - l), (int)(nl - l), l);
    const char *hl = strchr(c.out, '\n'); /* the header: no checksum column but with --wide */
    CB_CHECK(hl && !memmem(c.out, (size_t)(hl - c.out), "checksum", 8));
    cb_test_cli w = cb_test_corobench("run", "--impl", "sm", "--workload", "pingpong", "--param",
                                      "switches=1000", "--invocations", "1", "--reps", "2",
                                      "--min-rep-ms", "1", "--wide", "-o", out, "--force", NULL);
    CB_CHECK_EQ_INT(w.status, 0);
    hl = strchr(w.out, '\n');
    CB_CHECK(hl && memmem(w.out, (size_t)(hl - w.out), "checksum", 8));
    unlink(out);
}

/* A flag on more than half of the timed cells is left out of every table and said once. */
CB_TEST(cell_flags_only_where_they_tell)
{
    json_t *cells = json_array();
    for (int i = 0; i < 4; i++)
        json_array_append_new(cells, json_pack("{s:s, s:{s:f}, s:i, s:o}", "status", "ok",
                                               "ns_per_op", "median", 10.0, "preemptions",
                                               i < 3 ? 5 : 0, "unstable",
                                               i == 0 ? json_object() : json_null()));
    char keep[8], note[256], f[16];
    cb_cell_flags_telling(cells, keep, sizeof keep, note, sizeof note);
    CB_CHECK_STREQ(keep, "SDB");
    CB_CHECK_CONTAINS(note, "P (preempted) 3 of 4");
    CB_CHECK_STREQ(cb_cell_flags_kept(json_array_get(cells, 0), keep, f, sizeof f), "D");
    CB_CHECK_STREQ(cb_cell_flags_kept(json_array_get(cells, 3), keep, f, sizeof f), "");
    json_decref(cells);
}

/* The HTML page made from md (html.c), malloc'd. */
static char *html_of(const char *md)
{
    char *html = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&html, &len);
    CB_CHECK(f != NULL);
    CB_CHECK_EQ_INT(cb_html_from_md(f, md, ""), 0);
    fclose(f);
    return html;
}

/* html: every heading's id unique (the report had two "recursive", "io" and "spawn-memory"
 * ids: the plots' heading and the appendix's), the first keeping the plain slug that links use. */
CB_TEST(report_html_ids_unique)
{
    char *html = html_of("# report\n\n## Plots\n\n### recursive\n\ntext\n\n## Appendix\n\n"
                         "### recursive\n\n### recursive (ns per node)\n\n### io\n");
    CB_CHECK_CONTAINS(html, "<h3 id=\"recursive\">");
    CB_CHECK_CONTAINS(html, "<h3 id=\"recursive-2\">");
    CB_CHECK_CONTAINS(html, "<h3 id=\"recursive-3\">");
    CB_CHECK_CONTAINS(html, "<h3 id=\"io\">");
    free(html);
}

/* html: a colour swatch before an implementation's label (a name alone, with its variant, a
 * figure or another name), not before prose that starts with a name (claim 4's text had
 * ucontext's). */
CB_TEST(report_html_swatch_labels_not_prose)
{
    static const char md[] = "# t\n\n| what | fastest |\n|---|---|\n"
                             "| ucontext is far slower than asm | sm 20.8 ns |\n"
                             "| asm (jmpret) | asm, ucontext |\n";
    char *html = html_of(md);
    CB_CHECK_CONTAINS(html, "<td>ucontext is far slower");
    CB_CHECK_CONTAINS(html, "</span>sm 20.8 ns");
    CB_CHECK_CONTAINS(html, "</span>asm (jmpret)");
    CB_CHECK_CONTAINS(html, "</span>asm, ucontext");
    free(html);
}

/* Does every word of a (table pipes and separator rows aside) occur in b? */
static void words_kept(const char *a, const char *b)
{
    char *copy = strdup(a), *save = NULL;
    for (char *w = strtok_r(copy, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
        if (strcmp(w, "|") && strspn(w, "|-:") != strlen(w) && !strstr(b, w))
            CB_FAIL("'%s' lost in:\n%s", w, b);
    free(copy);
}

/* The report's Markdown within 120 columns and nothing lost (mdfit.c): a paragraph and a list
 * item wrapped (never so that a line starts a list), a heading cut with its text under it, a
 * wide table's shared parameters said once and its columns split into tables of the same rows,
 * a table whose one column cannot fit written as a list; the HTML made from it keeps a bold
 * span that a line's end cut. */
CB_TEST(report_md_fit_120_columns)
{
    char md[8192], *p = md;
    p += sprintf(p, "# report\n\n### 1. %s\n\n", "a heading that goes on and on past the "
                 "width of a terminal and of a code review, which is one hundred and twenty "
                 "columns wide");
    for (int i = 0; i < 12; i++)
        p += sprintf(p, "**word%d in bold** text - %d ", i, i);
    p += sprintf(p, "\n\n- an item %s\n\n", "that is long enough to need a second line, "
                 "with more words than one line of one hundred and twenty columns can hold");
    p += sprintf(p, "| workload | point | a | b | c |\n|---|---|---:|---:|---:|\n");
    for (int i = 0; i < 4; i++)
        p += sprintf(p, "| pingpong | depth=%d switches=20000 work=chain mode=symmetric | "
                     "%d1.25 [+0.4] (1.1x [0.92, 1.31]) | %d2.50 [+1.0] (2.2x [1.80, 2.61]) | "
                     "%d3.75 [+2.0] (3.3x [2.70, 3.92]) |\n", i, i, i, i);
    p += sprintf(p, "\n| point | aa | bb | cc |\n|---|---:|---:|---:|\n| n=1000 depth=0 "
                 "frame=64 layout=aligned order=fifo seed=1 | 4096 / 80 / 4170 / 135 / 479 | "
                 "4096 / 88 / 4186 / 135 / 479 | 8 / 368 / 389 / 0 / 1 |\n");
    p += sprintf(p, "\n| # | claim |\n|---|---|\n| 1 | %s |\n", "a sentence of a claim so "
                 "long that it alone is wider than the width, beside its number, and has to "
                 "become an item of a list instead");
    char *fit = cb_md_fit(md, 120);
    for (const char *l = fit, *nl; (nl = strchr(l, '\n')); l = nl + 1)
        if (nl - l > 120)
            CB_FAIL("line of %d columns: %.*s", (int)(nl - l), (int)(nl - l), l);
    words_kept(md, fit);
    CB_CHECK(!strstr(fit, "\n- 1 ") && !strstr(fit, "\n- 2 ")); /* "- 1" broke no line */
    CB_CHECK_CONTAINS(fit, "\n| pingpong | depth=0 | ");
    CB_CHECK_CONTAINS(fit, "pingpong: switches=20000 work=chain");
    CB_CHECK_CONTAINS(fit, "...\n\nIn full: 1. a heading that goes on");
    /* a line's end inside a bold span (an odd number of "**" on the line) */
    int odd = 0;
    for (const char *l = fit, *nl; (nl = strchr(l, '\n')); l = nl + 1) {
        int k = 0;
        for (const char *b = l; (b = strstr(b, "**")) && b < nl; b += 2)
            k++;
        odd |= k % 2;
    }
    CB_CHECK(odd);
    CB_CHECK_CONTAINS(fit, "The same rows, continued:");
    CB_CHECK_CONTAINS(fit, "\n- 1: claim: a sentence");
    /* one row, too wide: turned, a row per column */
    CB_CHECK_CONTAINS(fit, "\n| point | n=1000 depth=0 frame=64 layout=aligned order=fifo seed=1 |\n"
                           "| --- | ---: |\n| aa | 4096 / 80 / 4170 / 135 / 479 |\n");
    char *html = html_of(fit);
    CB_CHECK(!strstr(html, "**"));
    /* every bold span opened and closed, the one cut by a line's end too */
    int open = 0, close = 0;
    for (const char *b = html; (b = strstr(b, "<strong>word")); b++)
        open++;
    for (const char *b = html; (b = strstr(b, "bold</strong>")); b++)
        close++;
    CB_CHECK_EQ_INT(open, 12);
    CB_CHECK_EQ_INT(close, 12);
    free(html);
    free(fit);
}

/* "Cells that did not run" gives each reason once, with the cells it concerns (issue 32, item
 * 8: one three-line reason was repeated for each of 26 cells): sm's two unsupported
 * mode=asymmetric cells are one row naming both. */
CB_TEST_T(report_cells_not_run_one_row_per_reason, 60)
{
    char res[256];
    cb_test_tmp_path(res, sizeof res, "not-run.json");
    cb_test_cli c = cb_test_corobench("run", "--impl", "sm", "--workload", "pingpong", "--param",
                                      "mode=asymmetric", "--param", "depth=0,1", "--param",
                                      "switches=2000", "--reps", "1", "--invocations", "1",
                                      "--no-table", "-o", res, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    c = cb_test_corobench("report", res, "--no-plots", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    const char *sec = strstr(c.out, "## Cells that did not run");
    CB_CHECK(sec != NULL);
    /* the reason's one word "stackful" (a word: the report wraps its lines) once */
    const char *first = strstr(sec, "stackful");
    CB_CHECK(first != NULL);
    CB_CHECK(strstr(first + 1, "stackful") == NULL);
    CB_CHECK_CONTAINS(sec, "cells: 2: pingpong depth=0");
    CB_CHECK_CONTAINS(sec, "; pingpong depth=1 ");
    unlink(res);
}

/* The width and height of a PNG (its IHDR chunk), 0 when path is not one. */
static void png_size(const char *path, unsigned *w, unsigned *h)
{
    unsigned char b[24] = {0};
    FILE *f = fopen(path, "rb");
    *w = *h = 0;
    if (!f)
        return;
    if (fread(b, 1, sizeof b, f) == sizeof b && !memcmp(b + 12, "IHDR", 4)) {
        *w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19];
        *h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23];
    }
    fclose(f);
}

/* Every series of a plot's data file in a colour and point type of its own (its "# style:"
 * line); the number of series into *n. */
static void styles_distinct(const char *dat, size_t *n)
{
    char *text = cb_test_slurp(dat);
    if (!text)
        CB_FAIL("no plot data %s", dat);
    char seen[64][40];
    *n = 0;
    for (const char *p = text; (p = strstr(p, "\n# style: ")); p++) {
        char colour[16];
        int point;
        size_t lt;
        CB_CHECK(sscanf(p, "\n# style: linetype %zu, colour %15[^,], point type %d", &lt, colour,
                        &point) == 3);
        CB_CHECK(*n < 64);
        snprintf(seen[*n], sizeof seen[*n], "%s %d", colour, point);
        for (size_t k = 0; k < *n; k++)
            if (!strcmp(seen[k], seen[*n]))
                CB_FAIL("%s: two series share colour and point type %s:\n%s", dat, seen[k], text);
        (*n)++;
    }
    free(text);
}

/* Issue 32, item 5: a results file of asm (fpu=0,1), sm and closure (alloc=malloc,pool) at
 * pingpong depths 0 and 1 (both sites, simulated return-stack counts) and spawn at n=100 into
 * out, closure's pingpong cells again under 16 more allocators' names (alloc=a0..a15, 10%
 * slower each, depth 1 before 0): 21 series in pingpong-depth-distinct. With few, asm at fpu=1
 * alone; with one, pingpong at depth 0 alone. Skips without gnuplot or the simulator. */
static void plot_fixture(const char *out, int few, int one)
{
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        CB_SKIP("gnuplot not installed");
    cb_test_cli c = cb_test_corobench(
        "run", "--impl", "asm,sm,closure", "--workload", "pingpong,spawn", "--param",
        "pingpong.depth=0,1", "--param", "fpu=0,1", "--param", "alloc=malloc,pool", "--param",
        "sites=distinct,same", "--param", "pingpong.switches=200", "--param", "spawn.n=100",
        "--rsb", "sim", "--invocations", "1", "--reps", "2", "--min-rep-ms", "0.2", "-o", out,
        "--no-table", NULL);
    if (c.status == 2 && strstr(c.err, "--rsb"))
        CB_SKIP("no return-stack simulator build on this architecture: %s", c.err);
    if (c.status != 0)
        CB_FAIL("run: exit %d: %s", c.status, c.err);
    free(c.out);
    free(c.err);
    json_error_t e;
    json_t *doc = json_load_file(out, 0, &e), *cells, *cell, *keep = json_array();
    CB_CHECK(doc != NULL);
    cells = json_object_get(doc, "cells");
    size_t i, ncells = json_array_size(cells);
    for (int k = 0; k < 16; k++)
        for (i = ncells; i-- > 0;) {
            cell = json_array_get(cells, i);
            json_t *alloc = json_object_get(json_object_get(cell, "params"), "alloc");
            if (strcmp(json_string_value(json_object_get(cell, "impl")), "closure") ||
                strcmp(json_string_value(json_object_get(cell, "workload")), "pingpong") ||
                strcmp(json_string_value(alloc), "malloc"))
                continue;
            json_t *copy = json_deep_copy(cell);
            char v[8];
            snprintf(v, sizeof v, "a%d", k);
            json_object_set_new(json_object_get(copy, "params"), "alloc", json_string(v));
            /* 10% apart, so that no two draw one line (those are drawn once) */
            const char *name;
            json_t *ns = json_object_get(copy, "ns_per_op"), *val;
            json_object_foreach(ns, name, val) if (json_is_real(val))
                json_object_set_new(ns, name, json_real(json_number_value(val) * (1.1 + 0.1 * k)));
            json_array_append_new(cells, copy);
        }
    json_array_foreach(cells, i, cell)
    {
        json_t *params = json_object_get(cell, "params");
        const char *impl = json_string_value(json_object_get(cell, "impl"));
        if ((!few || (!strcmp(impl, "asm") &&
                      json_integer_value(json_object_get(params, "fpu")) == 1)) &&
            (!one || strcmp(json_string_value(json_object_get(cell, "workload")), "pingpong") ||
             json_integer_value(json_object_get(params, "depth")) == 0))
            json_array_append(keep, cell);
    }
    json_object_set_new(doc, "cells", keep);
    CB_CHECK_EQ_INT(json_dump_file(doc, out, 0), 0);
    json_decref(doc);
}

/* corobench report IN -o MD, which must succeed. */
static void report_ok(const char *in, const char *md)
{
    cb_test_cli c = cb_test_corobench("report", in, "-o", md, NULL);
    if (c.status != 0)
        CB_FAIL("report: exit %d: %s", c.status, c.err);
    free(c.out);
    free(c.err);
}

/* The fixture (plot_fixture) in NAME.json and its report in NAME.md, in the tests' directory:
 * their paths into in and md (len bytes each). */
static void plot_report(char *in, char *md, size_t len, const char *name, int few, int one)
{
    char file[64];
    snprintf(file, sizeof file, "%s.json", name);
    cb_test_tmp_path(in, len, file);
    snprintf(file, sizeof file, "%s.md", name);
    cb_test_tmp_path(md, len, file);
    plot_fixture(in, few, one);
    report_ok(in, md);
}

/* The file name of the plots directory beside the report md into buf. */
static void plot_file(char *buf, size_t len, const char *md, const char *name)
{
    snprintf(buf, len, "%.*s-plots/%s", (int)strlen(md) - 3, md, name);
}

/* Removes the files and the plots directory beside md. */
static void plot_cleanup(const char *in, const char *md)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%.*s-plots'", in, md, (int)strlen(md) - 3, md);
    CB_CHECK_EQ_INT(system(cmd), 0);
}

/* Issue 32, item 5. Each line drawn once from left to right: a block's rows ascend in x (a
 * report of several files drew pingpong's lines back and forth, depths 0, 4, 16 of the
 * languages' file before 1, 2, 8... of the suite's), a row without a value is left out (one
 * broke a line in two), and the pingpong plots take work=chain alone (work=none, at depth 0
 * only, drew five series of one point, and "work=chain" in every other name). */
CB_TEST_T(report_plot_lines_left_to_right, 300)
{
    char in[256], md[256], f[600];
    cb_test_tmp_path(in, sizeof in, "ltr.json");
    cb_test_tmp_path(md, sizeof md, "ltr.md");
    plot_fixture(in, 0, 0);
    /* closure alloc=a1 without a value at depth 1; sm at depth 0 again as work=none */
    json_error_t e;
    json_t *doc = json_load_file(in, 0, &e), *cell, *none = NULL;
    CB_CHECK(doc != NULL);
    size_t i;
    json_array_foreach(json_object_get(doc, "cells"), i, cell)
    {
        json_t *params = json_object_get(cell, "params");
        const char *alloc = json_string_value(json_object_get(params, "alloc"));
        if (alloc && !strcmp(alloc, "a1") &&
            json_integer_value(json_object_get(params, "depth")) == 1)
            json_object_set_new(cell, "rsbsim", json_object());
        if (!none && !strcmp(json_string_value(json_object_get(cell, "impl")), "sm") &&
            !strcmp(json_string_value(json_object_get(cell, "workload")), "pingpong") &&
            json_integer_value(json_object_get(params, "depth")) == 0)
            none = json_deep_copy(cell);
    }
    CB_CHECK(none != NULL);
    json_object_set_new(json_object_get(none, "params"), "work", json_string("none"));
    json_array_append_new(json_object_get(doc, "cells"), none);
    CB_CHECK_EQ_INT(json_dump_file(doc, in, 0), 0);
    json_decref(doc);
    report_ok(in, md);
    plot_file(f, sizeof f, md, "pingpong-depth-distinct-0.dat");
    char *dat = cb_test_slurp(f);
    CB_CHECK(dat != NULL);
    CB_CHECK_CONTAINS(dat, "\"closure alloc=a0\"\n# depth ns_per_op.median ns_per_op.mad "
                           "ns_per_op.min ns_per_op.max\n0 ");
    CB_CHECK(!strstr(dat, "work="));
    free(dat);
    plot_file(f, sizeof f, md, "pingpong-mispredict-0.dat");
    dat = cb_test_slurp(f);
    CB_CHECK(dat != NULL);
    const char *a1 = strstr(dat, "\"closure alloc=a1\"\n");
    CB_CHECK(a1 != NULL);
    a1 = strchr(strchr(a1, '\n') + 1, '\n') + 1; /* past the block's "# depth ..." line */
    if (strncmp(a1, "0 ", 2) || a1[strcspn(a1, "\n") + 1] == '1')
        CB_FAIL("closure alloc=a1's rows: want depth 0 alone:\n%s", a1);
    free(dat);
    plot_cleanup(in, md);
}

/* Issue 32, item 5. Series of one implementation (asm fpu=0 and fpu=1, closure alloc=malloc
 * and pool) shared its colour and point type (pingpong-depth-distinct of the default suite:
 * three inline series one navy diamond); now each has its own, the first the
 * implementation's, written on the series' "# style:" line of the data. */
CB_TEST_T(report_plot_series_styles_distinct, 300)
{
    char in[256], md[256], f[600];
    plot_report(in, md, sizeof in, "sty", 0, 0);
    size_t n;
    plot_file(f, sizeof f, md, "pingpong-depth-distinct-0.dat");
    styles_distinct(f, &n);
    CB_CHECK_EQ_INT((long long)n, 2 + 1 + 2 + 16); /* asm x 2 fpu, sm, closure x 18 allocs */
    char *dat = cb_test_slurp(f);
    size_t nstyles;
    const cb_plot_style *sty = cb_plot_styles(&nstyles);
    char want[96];
    snprintf(want, sizeof want, "# asm fpu=0\n# style: linetype %zu, colour %s,",
             cb_plot_linetype("asm"), sty[cb_plot_linetype("asm") - 1].colour);
    CB_CHECK_CONTAINS(dat, want);
    free(dat);
    plot_cleanup(in, md);
}

/* Issue 32, item 5. A plot of many series gets a larger canvas: pingpong-modes' panels of the
 * default suite were 115 pixels wide beside their keys, the ticks run together ("8101214"). */
CB_TEST_T(report_plot_canvas_grows_with_series, 300)
{
    char in[256], md[256], few[256], mdfew[256], f[600];
    plot_report(in, md, sizeof in, "cv", 0, 0);
    plot_report(few, mdfew, sizeof few, "cv-few", 1, 0);
    unsigned wmany, hmany, wfew, hfew;
    plot_file(f, sizeof f, md, "pingpong-depth-distinct.png");
    png_size(f, &wmany, &hmany);
    plot_file(f, sizeof f, mdfew, "pingpong-depth-distinct.png");
    png_size(f, &wfew, &hfew);
    CB_CHECK(wfew > 0 && hfew > 0);
    /* 21 series, the longest key entry "closure alloc=malloc": wider and taller than asm alone */
    if (!(wmany > wfew && hmany > hfew))
        CB_FAIL("canvas %ux%u for 21 series, %ux%u for 1", wmany, hmany, wfew, hfew);
    plot_cleanup(in, md);
    plot_cleanup(few, mdfew);
}

/* The headline's canvas widens with its longest row label: the default suite's spawn points
 * ("spawn:n=1000,depth=32,frame=1024,layout=aligned,deep_once=0,deep_share=1", 75 characters)
 * left its log axis 140 pixels wide on the fixed 1100 and clipped the x label. The report
 * passes the label's length; the script run at two lengths on the report's data. */
CB_TEST_T(report_headline_widens_with_its_labels, 300)
{
    char in[256], md[256], f[600], png[2][640];
    plot_report(in, md, sizeof in, "hlw", 0, 0);
    plot_file(f, sizeof f, md, "headline-0.dat");
    CB_CHECK(access(f, R_OK) == 0);
    unsigned w[2], h[2];
    const int label[2] = {20, 90};
    for (int k = 0; k < 2; k++) {
        snprintf(png[k], sizeof png[k], "%s-%d.png", f, label[k]);
        char e[2048];
        snprintf(e, sizeof e, "data='%s'; plotdir='%s/plots'; rows=8; label=%d; out='%s'", f,
                 cb_test_root(), label[k], png[k]);
        char gp[600];
        snprintf(gp, sizeof gp, "%s/plots/headline.gp", cb_test_root());
        char *argv[] = {"/usr/bin/gnuplot", "-e", e, gp, NULL}, *out, *err;
        int st = cb_test_spawn(argv, &out, &err);
        if (st != 0)
            CB_FAIL("gnuplot: exit %d: %s", st, err);
        free(out), free(err);
        png_size(png[k], &w[k], &h[k]);
        unlink(png[k]);
    }
    if (!(w[0] == 1100 && w[1] == 670 + 9 * 90 && h[0] == h[1]))
        CB_FAIL("headline canvas %ux%u at label 20, %ux%u at 90", w[0], h[0], w[1], h[1]);
    plot_cleanup(in, md);
}

/* Issue 32, item 5. A plot whose series have one x point is drawn as bars, a bar per series
 * and none merged (spawn-memory in --quick, n=1000 alone, was dots over one tick, its key
 * "asm, asmjmp, inline +2 more"), or, where its script draws no bars (pingpong-mispredict),
 * left out with the reason. */
CB_TEST_T(report_plot_one_x_point_bars_or_left_out, 300)
{
    char in[256], md[256], f[600];
    plot_report(in, md, sizeof in, "one", 0, 1);
    char *text = cb_test_slurp(md);
    cb_test_md_unwrap(text);
    CB_CHECK_CONTAINS(text, "- drawn as bars, a bar per series: every series of touched stack "
                            "bytes per coroutine has one point (n=100)");
    CB_CHECK_CONTAINS(text, "- drawn as bars, a bar per series: every series of median ns per "
                            "switch has one point (depth=0)");
    plot_file(f, sizeof f, md, "spawn-memory.png");
    struct stat st;
    CB_CHECK(stat(f, &st) == 0 && st.st_size > 1000);
    /* bars hide nothing: no two series of depth 0 drawn as one */
    plot_file(f, sizeof f, md, "pingpong-depth-distinct-0.dat");
    size_t n;
    styles_distinct(f, &n);
    CB_CHECK_EQ_INT((long long)n, 2 + 1 + 2 + 16);
    const char *mis = strstr(text, "\n### pingpong-mispredict\n");
    CB_CHECK(mis != NULL);
    CB_CHECK_CONTAINS(mis, "Not drawn: every series has one point (depth=0): lines would show "
                           "nothing, the tables give its figures. To measure its data: `");
    free(text);
    plot_cleanup(in, md);
}
