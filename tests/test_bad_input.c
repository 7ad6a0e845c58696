/* docs/bad-input.md, executed: every row of its tables whose last column is `table` is run here
 * (placeholders replaced by fixtures), and must give the exit status and the message of the row;
 * the other rows name the test that covers them, which must exist. After every row: nothing was
 * clobbered (the existing file, the symbolic link and /dev/full are as they were) and no
 * temporary file is left. Then the cases that need more than a command line: mode kept by
 * --force, outputs to a full device, two runs at once, interrupts, orphans, a stopped parent. */
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

typedef struct fixtures {
    char dir[256], good[300], existing[300], link[300], fifo[300], fresh[300];
    char *longarg;
} fixtures;

/* A results document edited at one path ("cells.0.workload"): value is JSON text, "DELETE"
 * removes the member, "RAW:text" replaces the whole file by text. */
static const struct {
    const char *name, *path, *value;
} bad_docs[] = {
    {"B_workload_null", "cells.0.workload", "null"},
    {"B_impl_number", "cells.1.impl", "3"},
    {"B_impl_empty", "cells.0.impl", "\"\""},
    {"B_impl_markdown", "cells.0.impl", "\"sm\\n## INJECTED ![t](https://evil.example/p.png)\""},
    {"B_param_newline", "cells.0.params.sites", "\"same\\n## x\""},
    {"B_workload_quote", "cells.0.workload", "\"ping\\\"pong\""},
    {"B_family_missing", "cells.0.family", "DELETE"},
    {"B_status_7", "cells.0.status", "7"},
    {"B_status_unknown", "cells.0.status", "\"great\""},
    {"B_median_string", "cells.0.ns_per_op.median", "\"12\""},
    {"B_median_null", "cells.0.ns_per_op.median", "null"},
    {"B_median_missing", "cells.0.ns_per_op.median", "DELETE"},
    {"B_median_zero", "cells.0.ns_per_op.median", "0"},
    {"B_median_negative", "cells.0.ns_per_op.median", "-5"},
    {"B_mad_negative", "cells.0.ns_per_op.mad", "-1"},
    {"B_reps_zero", "cells.0.ns_per_op.reps", "0"},
    {"B_ops_zero", "cells.0.ops", "0"},
    {"B_suspensions_real", "cells.0.suspensions", "1.5"},
    {"B_checksum_number", "cells.0.checksum", "12"},
    {"B_params_array", "cells.0.params", "[]"},
    {"B_param_real", "cells.0.params.depth", "1.5"},
    {"B_failed_no_error", "cells.0.status", "\"failed\""},
    {"B_error_number", "cells.0.error", "5"},
    {"B_samples_string", "cells.0.samples_ns_per_op.0", "\"x\""},
    {"B_ci95_reversed", "cells.0.ns_per_op.ci95", "[2, 1]"},
    {"B_invocations_empty", "cells.0.invocations", "[]"},
    {"B_inv_samples_string", "cells.0.invocations.0.samples_ns_per_op.1", "\"x\""},
    {"B_memory_string", "cells.0.memory", "\"x\""},
    {"B_memory_touched_string", "cells.0.memory.touched_bytes_per_coro", "\"x\""},
    {"B_rsbsim_negative", "cells.0.rsbsim", "{\"model\": \"circular\", \"rets\": -1}"},
    {"B_cell_number", "cells.0", "42"},
    {"B_duplicate", "cells.2", "DUP0"},
    {"B_cells_missing", "cells", "DELETE"},
    {"B_cells_object", "cells", "{}"},
    {"B_schema_missing", "schema", "DELETE"},
    {"B_schema_other", "schema", "\"corobench-results/0\""},
    {"B_record_old", "schema", "\"corobench-record/0\""},
    {"B_machine_string", "machine", "\"x\""},
    {"B_hostname_null", "machine.hostname", "null"},
    {"B_cpus_string", "machine.logical_cpus", "\"2\""},
    {"B_unavailable_number", "unavailable.x", "1"},
    {"B_empty_object", NULL, "RAW:{}"},
    {"B_top_array", NULL, "RAW:[]"},
    {"B_empty_file", NULL, "RAW:"},
    {"B_syntax", NULL, "RAW:{\"schema\":\n  \"corobench-results/1\",,}"},
    {"B_dup_key", NULL, "RAW:{\"schema\": \"corobench-results/1\", \"schema\": \"x\"}"},
    {"B_nan", NULL, "RAW:{\"schema\": NaN}"},
    {"B_huge_number", NULL, "RAW:{\"schema\": 1e999}"},
};

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CB_CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *t = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&t, &cap, '\0', f);
    fclose(f);
    if (n < 0) {
        free(t);
        return strdup("");
    }
    return t;
}

/* Replaces (or deletes) the member at a dotted path; numbers index arrays. */
static void edit(json_t *doc, const char *path, json_t *value)
{
    char buf[256], *save = NULL, *seg, *next;
    snprintf(buf, sizeof buf, "%s", path);
    json_t *at = doc;
    seg = strtok_r(buf, ".", &save);
    while ((next = strtok_r(NULL, ".", &save))) {
        at = json_is_array(at) ? json_array_get(at, (size_t)atoi(seg)) : json_object_get(at, seg);
        CB_CHECK(at != NULL);
        seg = next;
    }
    if (json_is_array(at)) {
        size_t i = (size_t)atoi(seg);
        if (value && i < json_array_size(at))
            CB_CHECK(json_array_set_new(at, i, value) == 0);
        else if (value)
            CB_CHECK(json_array_append_new(at, value) == 0);
        else
            json_array_remove(at, i);
    } else if (value) {
        json_object_set_new(at, seg, value);
    } else {
        json_object_del(at, seg);
    }
}

static int run_cli(char *const argv[], char **out, char **err)
{
    return cb_test_spawn(argv, out, err);
}

static void make_fixtures(fixtures *f)
{
    snprintf(f->dir, sizeof f->dir, "/tmp/cbtest-%ld-badinput", (long)getpid());
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    CB_CHECK(system(cmd) == 0);
    CB_CHECK(mkdir(f->dir, 0755) == 0);
    snprintf(f->good, sizeof f->good, "%s/good.json", f->dir);
    snprintf(f->existing, sizeof f->existing, "%s/existing.txt", f->dir);
    snprintf(f->link, sizeof f->link, "%s/link", f->dir);
    snprintf(f->fifo, sizeof f->fifo, "%s/fifo", f->dir);
    snprintf(f->fresh, sizeof f->fresh, "%s/new.out", f->dir);
    write_text(f->existing, "keep me\n");
    CB_CHECK(symlink(f->existing, f->link) == 0);
    CB_CHECK(mkfifo(f->fifo, 0644) == 0);
    f->longarg = malloc(100001);
    memset(f->longarg, 'x', 100000);
    f->longarg[100000] = '\0';
    char path[4096], *argv[] = {path, "run", "--impl", "asm,sm", "--workload", "pingpong",
                                "--param", "switches=2000", "--reps", "3", "--no-table", "-o",
                                f->good, NULL};
    snprintf(path, sizeof path, "%s/bin/corobench", cb_test_root());
    char *o, *e;
    int st = run_cli(argv, &o, &e);
    if (st != 0)
        CB_FAIL("fixture run: exit %d: %s", st, e);
    free(o);
    free(e);
    json_error_t je;
    for (size_t i = 0; i < sizeof bad_docs / sizeof bad_docs[0]; i++) {
        char p[400];
        snprintf(p, sizeof p, "%s/%s.json", f->dir, bad_docs[i].name);
        if (!strncmp(bad_docs[i].value, "RAW:", 4)) {
            write_text(p, bad_docs[i].value + 4);
            continue;
        }
        json_t *doc = json_load_file(f->good, 0, &je);
        CB_CHECK(doc != NULL);
        json_t *v = NULL;
        if (!strcmp(bad_docs[i].value, "DUP0"))
            v = json_deep_copy(json_array_get(json_object_get(doc, "cells"), 0));
        else if (strcmp(bad_docs[i].value, "DELETE"))
            v = json_loads(bad_docs[i].value, JSON_DECODE_ANY, &je);
        if (strcmp(bad_docs[i].value, "DELETE"))
            CB_CHECK(v != NULL);
        edit(doc, bad_docs[i].path, v);
        CB_CHECK(json_dump_file(doc, p, JSON_INDENT(1)) == 0);
        json_decref(doc);
    }
}

/* The argument with its placeholder (a whole word, or a word's leading "NAME/") replaced by
 * the fixture, as a fresh copy. */
static char *expand(const fixtures *f, const char *w)
{
    const struct {
        const char *name, *value;
    } ph[] = {{"GOOD", f->good},         {"DIR", f->dir},   {"EXISTING", f->existing},
              {"LINK", f->link},         {"FIFO", f->fifo}, {"NEW", f->fresh},
              {"LONG", f->longarg}};
    char *r;
    if (!strncmp(w, "B_", 2)) {
        if (asprintf(&r, "%s/%s.json", f->dir, w) < 0)
            abort();
        return r;
    }
    for (size_t i = 0; i < sizeof ph / sizeof ph[0]; i++) {
        size_t n = strlen(ph[i].name);
        if (strncmp(w, ph[i].name, n) || (w[n] && w[n] != '/'))
            continue;
        const char *rest = w + n;
        if (!strcmp(rest, "/LONG")) /* DIR/LONG: a path with a very long last component */
            rest = NULL;
        if (asprintf(&r, "%s%s%s", ph[i].value, rest ? rest : "/", rest ? "" : f->longarg) < 0)
            abort();
        return r;
    }
    const char *eq = strstr(w, "=LONG");
    if (eq && !eq[5]) {
        if (asprintf(&r, "%.*s=%s", (int)(eq - w), w, f->longarg) < 0)
            abort();
        return r;
    }
    return strdup(w);
}

/* The text between the first pair of backticks of s, into out. 0 if none. */
static int backticked(const char *s, char *out, size_t len)
{
    const char *a = strchr(s, '`'), *b = a ? strchr(a + 1, '`') : NULL;
    if (!b || (size_t)(b - a - 1) >= len)
        return 0;
    snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
    return 1;
}

static int no_temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int clean = 1;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".tmp."))
            clean = 0;
    if (d)
        closedir(d);
    return clean;
}

static size_t failures;

#define ROW_FAIL(...)                                                                          \
    do {                                                                                       \
        printf(__VA_ARGS__);                                                                   \
        putchar('\n');                                                                         \
        failures++;                                                                            \
    } while (0)

/* One row: "| `command` | status | `message` | table |" (or a test's name in the last column,
 * which must be a registered test). Returns 1 if it ran the command. */
static int run_row(const fixtures *f, char *line, size_t lineno)
{
    char *cols[5] = {0};
    size_t n = 0;
    for (char *p = line + 1, *bar; n < 5 && (bar = strstr(p, " |")); p = bar + 2)
        cols[n++] = p, *bar = '\0';
    if (n < 4 || cols[1][strspn(cols[1], " ")] < '0' || cols[1][strspn(cols[1], " ")] > '9')
        return 0; /* a header, a separator, or another table */
    if (strcmp(cols[3], " table")) {
        char test[128];
        if (!backticked(cols[3], test, sizeof test) || !cb_test_exists(test))
            ROW_FAIL("docs/bad-input.md:%zu: no test named in '%s'", lineno, cols[3]);
        return 0;
    }
    char cmd[512], raw[512], msg[1024];
    CB_CHECK(backticked(cols[0], cmd, sizeof cmd));
    int want = atoi(cols[1]);
    int has_msg = backticked(cols[2], raw, sizeof raw);
    /* DIR in a message is the temporary directory. */
    size_t m = 0;
    for (const char *p = raw; *p && m + sizeof f->dir < sizeof msg; p++) {
        if (!strncmp(p, "DIR", 3)) {
            m += (size_t)snprintf(msg + m, sizeof msg - m, "%s", f->dir);
            p += 2;
        } else {
            msg[m++] = *p;
        }
    }
    msg[m] = '\0';
    char path[4096], *argv[40];
    size_t argc = 0;
    snprintf(path, sizeof path, "%s/bin/corobench", cb_test_root());
    argv[argc++] = path;
    for (char *save = NULL, *w = strtok_r(cmd, " ", &save); w && argc < 39;
         w = strtok_r(NULL, " ", &save))
        argv[argc++] = expand(f, w);
    argv[argc] = NULL;
    char *out, *err;
    int st = run_cli(argv, &out, &err);
    if (st != want || (has_msg && !strstr(err, msg)))
        ROW_FAIL("docs/bad-input.md:%zu: %s: exit %d (want %d), stderr: %s(want: %s)", lineno,
                 cols[0], st, want, err, has_msg ? msg : "-");
    else if (want == 2) {
        char *nl = strchr(err, '\n');
        if (!nl || nl[1] || !strstr(err, "valid"))
            ROW_FAIL("docs/bad-input.md:%zu: not one line with the valid choices: %s", lineno,
                     err);
        if (strlen(err) > 600)
            ROW_FAIL("docs/bad-input.md:%zu: a %zu-byte message", lineno, strlen(err));
    }
    char *keep = read_text(f->existing);
    struct stat st_link, st_full;
    CB_CHECK(keep && !strcmp(keep, "keep me\n"));
    CB_CHECK(lstat(f->link, &st_link) == 0 && S_ISLNK(st_link.st_mode));
    CB_CHECK(stat("/dev/full", &st_full) == 0 && S_ISCHR(st_full.st_mode));
    if (want != 0)
        CB_CHECK(access(f->fresh, F_OK) != 0);
    unlink(f->fresh);
    if (!no_temp_files(f->dir))
        CB_FAIL("docs/bad-input.md:%zu: a temporary file was left in %s", lineno, f->dir);
    free(keep);
    for (size_t i = 1; i < argc; i++)
        free(argv[i]);
    free(out);
    free(err);
    return 1;
}

static char *bad_input_doc(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/bad-input.md", cb_test_root());
    char *doc = read_text(path);
    if (!doc) /* a build root elsewhere (the sanitizer build): the sources are here */
        doc = read_text(strcpy(path, "docs/bad-input.md"));
    if (!doc)
        CB_FAIL("cannot read %s", path);
    return doc;
}

CB_TEST_T(bad_input_table, 300)
{
    fixtures f;
    make_fixtures(&f);
    char *doc = bad_input_doc();
    size_t lineno = 0, rows = 0;
    for (char *line = doc, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        if (!strncmp(line, "| ", 2))
            rows += (size_t)run_row(&f, line, lineno);
    }
    if (failures)
        CB_FAIL("%zu rows of docs/bad-input.md failed", failures);
    CB_CHECK(rows >= 60);
    printf("%zu rows of docs/bad-input.md run\n", rows);
    free(doc);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f.dir);
    CB_CHECK(system(cmd) == 0);
}
