/* The reliability cases of docs/bad-input.md that need more than a command line: --force keeps
 * the mode, outputs on a full device, an unwritable directory found before measuring, two runs at
 * once, leading zeros, interrupts that keep the finished cells, and cells that never outlive
 * their run (PR_SET_PDEATHSIG, and their own timer when the run is stopped). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/common/output.h"
#include "harness/common/proc.h"
#include "impls/impls.h"
#include "test.h"

/* bin/corobench with the arguments, started in the background: stderr captured, stdout captured
 * too or sent to out_fd (>= 0). */
typedef struct started {
    cb_proc p;
    char *argv[40];
    char path[4096];
    int out_fd;
} started;

static int start_body(void *arg)
{
    started *s = arg;
    if (s->out_fd >= 0 && dup2(s->out_fd, 1) < 0)
        return 126;
    return cb_proc_exec(s->argv);
}

static void start(started *s, int out_fd, const char *a0, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, a0);
    cb_test_argv(s->argv, 40, s->path, sizeof s->path, "corobench", a0, ap);
    va_end(ap);
    s->out_fd = out_fd;
    cb_proc_opts po = {.pin_cpu = -1, .stdin_null = 1};
    if (cb_proc_start(&s->p, &po, start_body, s, why, sizeof why))
        CB_FAIL("%s", why);
}

/* Waits for it: the exit status (128 + signal), and its stderr when err is not NULL. */
static int finish(started *s, char **err)
{
    cb_proc_result r;
    cb_proc_wait(&s->p, 0, &r);
    if (err)
        *err = strdup(r.err);
    cb_proc_result_free(&r);
    return cb_proc_exit_code(r.wait_status);
}

static void tmp_dir(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "/tmp/cbtest-%ld-%s", (long)getpid(), name);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", buf, buf);
    CB_CHECK(system(cmd) == 0);
}

static void rm_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CB_CHECK(system(cmd) == 0);
}

static json_t *load(const char *path)
{
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    if (!doc)
        CB_FAIL("%s: %s", path, e.text);
    return doc;
}

/* A short ordinary run: two cells. */
#define QUICK_RUN "run", "--invocations", "1", "--impl", "asm,sm", "--workload", "pingpong", "--param", \
                  "switches=1000", "--reps", "1", "--warmup", "0", "--no-table"

/* The one mkdir -p of the harness (common/output.c; calibrate's default directory, report's
 * plots, the named baselines): the levels it made are noted and removed again, deepest first,
 * leaving what was there; a path past max_new new levels, a symbolic link to nothing or a file
 * in the way is refused with nothing made. */
CB_TEST(out_mkdirs_notes_and_removes_what_it_made)
{
    char dir[256], deep[400], path[400];
    struct stat st;
    tmp_dir(dir, sizeof dir, "mkdirs");
    snprintf(deep, sizeof deep, "%s/a/b/c", dir);
    cb_made_dirs made = {.n = 0};
    /* three new levels, two allowed: refused, nothing made */
    errno = 0;
    CB_CHECK_EQ_INT(cb_mkdirs(deep, 2, &made), -1);
    CB_CHECK_EQ_INT(errno, ENOENT);
    CB_CHECK_EQ_INT(made.n, 0);
    snprintf(path, sizeof path, "%s/a", dir);
    CB_CHECK(stat(path, &st) != 0);
    /* allowed: all three made and noted, top first */
    CB_CHECK_EQ_INT(cb_mkdirs(deep, 3, &made), 0);
    CB_CHECK_EQ_INT(made.n, 3);
    CB_CHECK_STREQ(made.path[0], path);
    CB_CHECK_STREQ(made.path[2], deep);
    CB_CHECK(stat(deep, &st) == 0 && S_ISDIR(st.st_mode));
    /* again: nothing new */
    cb_made_dirs again = {.n = 0};
    CB_CHECK_EQ_INT(cb_mkdirs(deep, 0, &again), 0);
    CB_CHECK_EQ_INT(again.n, 0);
    /* rolled back: the three gone, the directory that was there kept */
    cb_rmdirs_made(&made);
    CB_CHECK_EQ_INT(made.n, 0);
    CB_CHECK(stat(path, &st) != 0);
    CB_CHECK(stat(dir, &st) == 0);
    /* a symbolic link to nothing, a file in the way */
    snprintf(path, sizeof path, "%s/link", dir);
    CB_CHECK_EQ_INT(symlink("/nonexistent-cbtest-dir", path), 0);
    errno = 0;
    CB_CHECK_EQ_INT(cb_mkdirs(path, 1, &made), -1);
    CB_CHECK_EQ_INT(errno, ENOENT);
    snprintf(path, sizeof path, "%s/file", dir);
    close(open(path, O_WRONLY | O_CREAT, 0600));
    snprintf(deep, sizeof deep, "%s/file/x", dir);
    CB_CHECK_EQ_INT(cb_mkdirs(path, 1, &made), -1);
    CB_CHECK_EQ_INT(errno, ENOTDIR);
    CB_CHECK_EQ_INT(cb_mkdirs(deep, 1, &made), -1);
    CB_CHECK_EQ_INT(made.n, 0);
    rm_dir(dir);
}

CB_TEST(out_force_keeps_mode)
{
    char dir[256], out[300], fresh[300], md[300], *e;
    started s;
    tmp_dir(dir, sizeof dir, "force");
    snprintf(out, sizeof out, "%s/r.json", dir);
    FILE *f = fopen(out, "w");
    CB_CHECK(f && fputs("old\n", f) >= 0 && fclose(f) == 0);
    CB_CHECK(chmod(out, 0600) == 0);
    start(&s, -1, QUICK_RUN, "-o", out, "--force", NULL);
    CB_CHECK_EQ_INT(finish(&s, NULL), 0);
    struct stat st;
    CB_CHECK(stat(out, &st) == 0 && S_ISREG(st.st_mode));
    CB_CHECK_EQ_INT(st.st_mode & 07777, 0600);
    json_decref(load(out));
    /* report too, and one missing directory level is made (and said) */
    snprintf(md, sizeof md, "%s/r.md", dir);
    f = fopen(md, "w");
    CB_CHECK(f && fclose(f) == 0);
    CB_CHECK(chmod(md, 0640) == 0);
    start(&s, -1, "report", out, "-o", md, "--force", NULL);
    CB_CHECK_EQ_INT(finish(&s, NULL), 0);
    CB_CHECK(stat(md, &st) == 0 && (st.st_mode & 07777) == 0640 && st.st_size > 100);
    snprintf(fresh, sizeof fresh, "%s/new/x.json", dir);
    start(&s, -1, QUICK_RUN, "-o", fresh, NULL);
    CB_CHECK_EQ_INT(finish(&s, &e), 0);
    CB_CHECK_CONTAINS(e, "created directory");
    free(e);
    json_decref(load(fresh));
    rm_dir(dir);
}

/* The report's plots directory is an output too: a file or a link at STEM-plots, or a
 * directory of plots already there without --force, is refused before anything is written
 * (the plots used to be written into it, one error line per plot, exit 0). */
CB_TEST_T(out_report_plots_dir_not_clobbered, 120)
{
    char dir[256], good[300], md[300], pd[320], mine[340], *e;
    started s;
    tmp_dir(dir, sizeof dir, "plotsdir");
    snprintf(good, sizeof good, "%s/good.json", dir);
    start(&s, -1, QUICK_RUN, "-o", good, NULL);
    CB_CHECK_EQ_INT(finish(&s, NULL), 0);
    snprintf(md, sizeof md, "%s/r.md", dir);
    snprintf(pd, sizeof pd, "%s/r-plots", dir);
    /* a file there */
    FILE *f = fopen(pd, "w");
    CB_CHECK(f && fclose(f) == 0);
    start(&s, -1, "report", good, "-o", md, NULL);
    CB_CHECK_EQ_INT(finish(&s, &e), 2);
    CB_CHECK_CONTAINS(e, "r-plots' exists and is not a directory (valid: a new path for the "
                         "plots beside the report, or --no-plots)");
    CB_CHECK(strchr(e, '\n') == e + strlen(e) - 1); /* one line */
    free(e);
    CB_CHECK(access(md, F_OK) != 0);
    start(&s, -1, "report", good, "-o", md, "--no-plots", NULL);
    CB_CHECK_EQ_INT(finish(&s, NULL), 0);
    CB_CHECK(unlink(md) == 0 && unlink(pd) == 0);
    /* a link there, even with --force */
    CB_CHECK(symlink(dir, pd) == 0);
    start(&s, -1, "report", good, "-o", md, "--force", NULL);
    CB_CHECK_EQ_INT(finish(&s, NULL), 2);
    CB_CHECK(unlink(pd) == 0);
    /* a directory of someone's plots: kept without --force, replaced with it */
    CB_CHECK(mkdir(pd, 0755) == 0);
    snprintf(mine, sizeof mine, "%s/recursive.png", pd);
    f = fopen(mine, "w");
    CB_CHECK(f && fputs("mine\n", f) >= 0 && fclose(f) == 0);
    start(&s, -1, "report", good, "-o", md, NULL);
    CB_CHECK_EQ_INT(finish(&s, &e), 2);
    CB_CHECK_CONTAINS(e, "r-plots' exists (valid: a new path, --force to replace the plots in "
                         "it, or --no-plots)");
    free(e);
    char *kept = cb_test_slurp(mine);
    CB_CHECK_STREQ(kept, "mine\n");
    free(kept);
    CB_CHECK(access(md, F_OK) != 0);
    start(&s, -1, "report", good, "-o", md, "--force", NULL);
    CB_CHECK_EQ_INT(finish(&s, NULL), 0);
    rm_dir(dir);
}

/* Standard output on a full device is a failure with a message, for every command. */
CB_TEST(out_full_device_fails)
{
    char dir[256], good[300];
    started s;
    tmp_dir(dir, sizeof dir, "full");
    snprintf(good, sizeof good, "%s/good.json", dir);
    start(&s, -1, QUICK_RUN, "-o", good, NULL);
    CB_CHECK_EQ_INT(finish(&s, NULL), 0);
    int full = open("/dev/full", O_WRONLY);
    if (full < 0)
        CB_SKIP("no /dev/full here");
    const char *const cmds[][8] = {
        {"list", NULL},
        {"report", good, NULL},
        {"export", good, "--workload", "pingpong", "--x", "depth", NULL},
        {"compare", good, good, NULL},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        const char *const *c = cmds[i];
        char *e;
        start(&s, full, c[0], c[1], c[2], c[3], c[4], c[5], c[6], NULL);
        int st = finish(&s, &e);
        if (st == 0 || !strstr(e, "No space left on device"))
            CB_FAIL("%s to /dev/full: exit %d, stderr: %s", c[0], st, e);
        free(e);
    }
    close(full);
    rm_dir(dir);
}

/* A directory the user may not write is refused before any cell runs. As root, a directory's
 * mode does not stop writing, so the check runs as nobody. */
CB_TEST(out_unwritable_dir_refused_up_front)
{
    char dir[256], ro[300], out[400], *e;
    started s;
    tmp_dir(dir, sizeof dir, "ro");
    snprintf(ro, sizeof ro, "%s/ro", dir);
    snprintf(out, sizeof out, "%s/r.json", ro);
    CB_CHECK(mkdir(ro, 0555) == 0 && chmod(ro, 0555) == 0);
    if (geteuid() == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            CB_SKIP("cannot become nobody to test an unwritable directory");
        char bin[4096];
        snprintf(bin, sizeof bin, "%s/bin/corobench", cb_test_root());
        if (access(bin, X_OK) != 0)
            CB_SKIP("nobody may not run %s", bin);
    }
    /* Cells that would take minutes: the refusal must come first. */
    start(&s, -1, "run", "--invocations", "1", "--impl", "ucontext", "--workload", "pingpong", "--param",
          "switches=100000000000", "-o", out, NULL);
    int st = finish(&s, &e);
    if (st != 2 || !strstr(e, "cannot write in directory"))
        CB_FAIL("exit %d, stderr: %s", st, e);
    CB_CHECK(strstr(e, "cells") == NULL); /* nothing ran */
    free(e);
}

/* Two runs in the same directory at once, without -o: two files, no cell lost. */
CB_TEST_T(out_two_runs_unique_names, 120)
{
    char dir[256], root[4096];
    started a, b;
    tmp_dir(dir, sizeof dir, "two");
    CB_CHECK(realpath(cb_test_root(), root) != NULL); /* before the chdir */
    setenv("CB_BUILD_ROOT", root, 1);
    CB_CHECK(chdir(dir) == 0);
    start(&a, -1, QUICK_RUN, NULL);
    start(&b, -1, QUICK_RUN, NULL);
    CB_CHECK_EQ_INT(finish(&a, NULL), 0);
    CB_CHECK_EQ_INT(finish(&b, NULL), 0);
    DIR *d = opendir("results");
    CB_CHECK(d != NULL);
    struct dirent *e;
    size_t files = 0, cells = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "latest.json")) /* a link to one */
            continue;
        CB_CHECK(strstr(e->d_name, ".json") != NULL);
        char p[600];
        snprintf(p, sizeof p, "results/%s", e->d_name);
        json_t *doc = load(p);
        cells += json_array_size(json_object_get(doc, "cells"));
        json_decref(doc);
        files++;
    }
    closedir(d);
    CB_CHECK_EQ_INT(files, 2);
    CB_CHECK_EQ_INT(cells, 4);
    rm_dir(dir);
}

/* Two runs with one -o: one writes it, the other must not replace it nor exit 0, and keeps its
 * cells beside it. */
CB_TEST_T(out_two_runs_one_path, 120)
{
    char dir[256], out[300], second[300], *ta, *tb;
    started a, b;
    tmp_dir(dir, sizeof dir, "same");
    snprintf(out, sizeof out, "%s/r.json", dir);
    snprintf(second, sizeof second, "%s/r-2.json", dir);
    start(&a, -1, QUICK_RUN, "-o", out, NULL);
    start(&b, -1, QUICK_RUN, "-o", out, NULL);
    int sa = finish(&a, &ta), sb = finish(&b, &tb);
    if (!((sa == 0) ^ (sb == 0)))
        CB_FAIL("exit %d and %d (want one 0): %s / %s", sa, sb, ta, tb);
    const char *loser = sa ? ta : tb;
    int lst = sa ? sa : sb;
    if (lst == 1) { /* both measured: the second found the path taken at its commit */
        CB_CHECK_CONTAINS(loser, "appeared while corobench was working");
        CB_CHECK_CONTAINS(loser, "r-2.json");
        json_decref(load(second));
    } else { /* the second started after the first had written */
        CB_CHECK_EQ_INT(lst, 2);
        CB_CHECK_CONTAINS(loser, "exists");
    }
    json_decref(load(out));
    free(ta);
    free(tb);
    rm_dir(dir);
}

/* A results file is read whole only up to 256 MiB: a larger file, or a pipe that never ends
 * (`report /dev/stdin` fed from /dev/zero), is refused instead of taking all the memory. */
CB_TEST_T(results_larger_than_limit_refused, 60)
{
    char big[256], path[4096], *o, *e;
    cb_test_tmp_path(big, sizeof big, "big.json");
    int fd = open(big, O_WRONLY | O_CREAT | O_EXCL, 0644);
    CB_CHECK(fd >= 0 && ftruncate(fd, (off_t)257 << 20) == 0); /* sparse: no disk, no time */
    close(fd);
    cb_test_cli c = cb_test_corobench("report", big, NULL);
    unlink(big);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "is larger than 256 MiB (valid: a corobench-results/2 file up to "
                             "that size)");
    snprintf(path, sizeof path, "head -c 300000000 /dev/zero | '%s/bin/corobench' report "
                                "/dev/stdin", cb_test_root());
    char *sh[] = {"/bin/sh", "-c", path, NULL};
    CB_CHECK_EQ_INT(cb_test_spawn(sh, &o, &e), 2);
    CB_CHECK_CONTAINS(e, "results '/dev/stdin' is larger than 256 MiB");
    free(o);
    free(e);
}

/* --param depth=010 runs depth 10, switches=08 runs 8: decimal, as typed. */
CB_TEST(parse_leading_zero_is_decimal)
{
    char dir[256], out[300];
    started s;
    tmp_dir(dir, sizeof dir, "zero");
    snprintf(out, sizeof out, "%s/r.json", dir);
    start(&s, -1, "run", "--invocations", "1", "--impl", "sm", "--workload", "pingpong", "--param", "depth=010",
          "--param", "switches=08", "--reps", "1", "--no-table", "-o", out, NULL);
    CB_CHECK_EQ_INT(finish(&s, NULL), 0);
    json_t *doc = load(out);
    json_t *p = json_object_get(json_array_get(json_object_get(doc, "cells"), 0), "params");
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(p, "depth")), 10);
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(p, "switches")), 8);
    json_decref(doc);
    rm_dir(dir);
}

/* Waits until parent's cell is the spinning `fault kind=hang` one (it has used CPU time). */
static pid_t wait_for_hang_cell(pid_t parent)
{
    for (int i = 0; i < 500; i++) {
        long ticks = 0;
        pid_t c = cb_test_child_of(parent, &ticks);
        if (c && ticks >= 20)
            return c;
        usleep(20000);
    }
    CB_FAIL("no spinning cell under %ld", (long)parent);
}

/* The process state letter of pid ('?' when it is gone). */
static char proc_state(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *rp = strrchr(buf, ')');
    return rp ? rp[2] : '?';
}

/* Whether pid has ended (gone, or a zombie nobody reaped), waiting up to 2 s for it. */
static int ended(pid_t pid)
{
    for (int i = 0; i < 100 && proc_state(pid) != '?' && proc_state(pid) != 'Z'; i++)
        usleep(20000);
    return proc_state(pid) == '?' || proc_state(pid) == 'Z';
}

static void interrupt_case(int sig, int want_status, const char *name)
{
    char dir[256], out[300], *e;
    started s;
    tmp_dir(dir, sizeof dir, sig == SIGINT ? "int" : "term");
    snprintf(out, sizeof out, "%s/r.json", dir);
    start(&s, -1, "run", "--invocations", "1", "--impl", "sm", "--workload", "recursive,fault", "--param",
          "kind=hang", "--param", "height=4", "--reps", "1", "--warmup", "0",
                      "--timeout", "60", "--no-table", "-o", out, NULL);
    pid_t cell = wait_for_hang_cell(s.p.pid);
    CB_CHECK(kill(s.p.pid, sig) == 0);
    CB_CHECK_EQ_INT(finish(&s, &e), want_status);
    CB_CHECK_CONTAINS(e, name);
    CB_CHECK_CONTAINS(e, "1 of 2 cells finished");
    CB_CHECK_CONTAINS(e, out);
    free(e);
    json_t *doc = load(out), *run = json_object_get(doc, "run");
    CB_CHECK(json_is_true(json_object_get(run, "interrupted")));
    json_t *unfinished = json_object_get(run, "unfinished");
    CB_CHECK_EQ_INT(json_array_size(unfinished), 1);
    CB_CHECK_CONTAINS(json_string_value(json_array_get(unfinished, 0)), "fault sm/plain");
    json_t *cells = json_object_get(doc, "cells");
    CB_CHECK_EQ_INT(json_array_size(cells), 1);
    CB_CHECK_STREQ(json_string_value(json_object_get(json_array_get(cells, 0), "status")), "ok");
    json_decref(doc);
    CB_CHECK(ended(cell));
    rm_dir(dir);
}

/* SIGINT or SIGTERM: the finished cells are written with run.interrupted and the unfinished
 * ones listed, the path printed, exit 130 or 143; the running cell is killed. */
CB_TEST_T(interrupt_keeps_finished_cells, 120)
{
    interrupt_case(SIGINT, 130, "interrupted by SIGINT");
    interrupt_case(SIGTERM, 143, "interrupted by SIGTERM");
}

/* A second signal exits at once; no temporary file is left behind. */
CB_TEST_T(interrupt_twice_exits_at_once, 120)
{
    char dir[256], out[300];
    started s;
    tmp_dir(dir, sizeof dir, "twice");
    snprintf(out, sizeof out, "%s/r.json", dir);
    start(&s, -1, "run", "--invocations", "1", "--impl", "sm", "--workload", "fault", "--param",
          "kind=hang", "--timeout", "60", "--no-table", "-o", out, NULL);
    pid_t cell = wait_for_hang_cell(s.p.pid);
    kill(s.p.pid, SIGINT);
    kill(s.p.pid, SIGINT);
    CB_CHECK_EQ_INT(finish(&s, NULL), 130);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".tmp."))
            CB_FAIL("temporary file %s left", e->d_name);
    if (d)
        closedir(d);
    CB_CHECK(ended(cell));
    rm_dir(dir);
}

/* The output directory removed while the run measured: the cells are not lost, they go to a
 * unique name in $TMPDIR, said on stderr (they were discarded, with exit 1). */
CB_TEST_T(out_vanished_dir_results_kept, 120)
{
    char dir[256], sub[300], out[320], tmp[300], cmd[700], *e;
    started s;
    tmp_dir(dir, sizeof dir, "vanish");
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(out, sizeof out, "%s/r.json", sub);
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    CB_CHECK(mkdir(sub, 0755) == 0 && mkdir(tmp, 0755) == 0);
    setenv("TMPDIR", tmp, 1);
    start(&s, -1, "run", "--invocations", "1", "--impl", "sm", "--workload", "recursive,fault", "--param",
          "kind=hang", "--param", "height=4", "--reps", "1", "--warmup", "0", "--timeout", "3",
          "--no-table", "-o", out, NULL);
    wait_for_hang_cell(s.p.pid);
    snprintf(cmd, sizeof cmd, "rm -rf %s", sub);
    CB_CHECK(system(cmd) == 0);
    CB_CHECK_EQ_INT(finish(&s, &e), 1);
    unsetenv("TMPDIR");
    CB_CHECK_CONTAINS(e, "cannot write the results to");
    CB_CHECK_CONTAINS(e, "results written to '");
    const char *at = strstr(e, "results written to '");
    char moved[512];
    CB_CHECK(sscanf(at, "results written to '%511[^']'", moved) == 1);
    CB_CHECK(!strncmp(moved, tmp, strlen(tmp)));
    free(e);
    json_t *doc = load(moved);
    CB_CHECK_EQ_INT(json_array_size(json_object_get(doc, "cells")), 2);
    json_decref(doc);
    rm_dir(dir);
}

/* SIGKILL to the run: its cell dies too (PR_SET_PDEATHSIG), even with a long timeout. */
CB_TEST_T(orphan_cell_dies_with_run, 60)
{
    char dir[256], out[300];
    started s;
    tmp_dir(dir, sizeof dir, "orphan");
    snprintf(out, sizeof out, "%s/r.json", dir);
    start(&s, -1, "run", "--invocations", "1", "--impl", "asm", "--workload", "fault", "--param",
          "kind=hang", "--timeout", "600", "--no-table", "-o", out, NULL);
    pid_t cell = wait_for_hang_cell(s.p.pid);
    CB_CHECK(kill(s.p.pid, SIGKILL) == 0);
    CB_CHECK_EQ_INT(finish(&s, NULL), 137);
    if (!ended(cell))
        CB_FAIL("cell %ld still running (state %c) after its run was killed", (long)cell,
                proc_state(cell));
    CB_CHECK(access(out, F_OK) != 0);
    rm_dir(dir);
}

/* SIGKILL to the run while a language runtime's program (go, node: a child of the cell's
 * process) spins: the program dies too, not only the cell's process. */
CB_TEST_T(orphan_runtime_dies_with_run, 120)
{
    size_t tried = 0;
    for (const char *const *rt = (const char *const[]){"go", "node", "csharp", "luajit", NULL}; *rt; rt++) {
        const char *why = cb_impl_unavailable(cb_impl_find(*rt));
        if (why) {
            fprintf(stderr, "%s: skipped: %s\n", *rt, why);
            continue;
        }
        char dir[256], out[300];
        started s;
        tmp_dir(dir, sizeof dir, *rt);
        snprintf(out, sizeof out, "%s/r.json", dir);
        start(&s, -1, "run", "--invocations", "1", "--impl", *rt, "--workload", "fault", "--param", "kind=hang",
              "--timeout", "600", "--no-table", "-o", out, NULL);
        pid_t cell = 0;
        for (int i = 0; i < 500 && !(cell = cb_test_child_of(s.p.pid, NULL)); i++)
            usleep(20000);
        CB_CHECK(cell > 0);
        pid_t prog = wait_for_hang_cell(cell);
        CB_CHECK(kill(s.p.pid, SIGKILL) == 0);
        CB_CHECK_EQ_INT(finish(&s, NULL), 137);
        CB_CHECK(ended(cell));
        if (!ended(prog)) {
            char st = proc_state(prog);
            kill(prog, SIGKILL);
            CB_FAIL("%s's program %ld still running (state %c) after its run was killed", *rt,
                    (long)prog, st);
        }
        rm_dir(dir);
        tried++;
    }
    if (!tried)
        CB_SKIP("none of go, node, csharp and luajit is available here");
}

/* A stopped run cannot kill its cell at the timeout: the cell's own timer does. */
CB_TEST_T(orphan_cell_backstop_timer, 60)
{
    char dir[256], out[300];
    started s;
    tmp_dir(dir, sizeof dir, "backstop");
    snprintf(out, sizeof out, "%s/r.json", dir);
    start(&s, -1, "run", "--invocations", "1", "--impl", "sm", "--workload", "fault", "--param",
          "kind=hang", "--timeout", "0.5", "--no-table", "-o", out, NULL);
    pid_t cell = 0, pid = s.p.pid;
    for (int i = 0; i < 500 && !(cell = cb_test_child_of(pid, NULL)); i++)
        usleep(1000);
    CB_CHECK(cell > 0);
    CB_CHECK(kill(pid, SIGSTOP) == 0);
    /* backstop: 1.5 x the timeout + 1 s = 1.75 s after the cell started */
    for (int i = 0; i < 400 && proc_state(cell) != 'Z' && proc_state(cell) != '?'; i++)
        usleep(20000);
    char st = proc_state(cell);
    CB_CHECK(kill(pid, SIGCONT) == 0);
    if (st != 'Z' && st != '?')
        CB_FAIL("cell still alive (state %c) 8 s after a 0.5 s timeout", st);
    CB_CHECK_EQ_INT(finish(&s, NULL), 1);
    json_t *doc = load(out), *c = json_array_get(json_object_get(doc, "cells"), 0);
    CB_CHECK_STREQ(json_string_value(json_object_get(c, "status")), "timeout");
    CB_CHECK_CONTAINS(json_string_value(json_object_get(c, "error")), "timed out after 0.5 s");
    json_decref(doc);
    rm_dir(dir);
}
