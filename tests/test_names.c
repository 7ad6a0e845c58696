/* No implementation or workload name written as a string literal in harness/run/,
 * harness/results/, harness/report/ or impls/languages.c, and no language runtime's name in the
 * suite's scripts (run.sh, scripts/run-args.sh, tests/aa.sh) (issue 29 items 3 and 8;
 * docs/architecture.md): code there takes
 * an implementation's facts from its row or from the results file, and names a built-in through
 * the tables (CB_IMPL_ASM, &cb_wl_pingpong), so that a renamed or added one is not silently
 * missed. The names are the tables' own (cb_impls' built-ins, cb_workloads). A literal the
 * scan finds fails naming the file and the line, unless tests/names.txt lists that file and
 * name with the reason it remains; a line of names.txt that matches nothing fails too. Run from
 * the source tree's root, as make check does. */
#include <dirent.h>
#include <sys/stat.h>

#include "impls/impls.h"
#include "test.h"
#include "workloads/workload.h"

enum { MAX_ALLOWED = 64 };

typedef struct allowed {
    char file[160], name[40];
    int used;
} allowed;

static int is_name(const char *s)
{
    for (size_t k = 0; k < CB_IMPL_BUILTINS; k++)
        if (!strcmp(s, cb_impl_name((cb_impl_id)k)))
            return 1;
    for (size_t i = 0; i < cb_nworkloads; i++)
        if (!strcmp(s, cb_workloads[i]->name))
            return 1;
    return 0;
}

/* Whether a name, or only a language's (a row of kind language), is to be refused. */
static int refused(const char *s, int languages_only)
{
    if (!languages_only)
        return is_name(s);
    const cb_impl *im = cb_impl_find(s);
    return im && im->kind == CB_KIND_LANGUAGE;
}

/* Marks the line of names.txt that allows `name` in `path` used, or reports the name. */
static void found(const char *path, int line, const char *name, allowed *al, size_t nal,
                  FILE *err, int *bad)
{
    size_t k = 0;
    while (k < nal && (strcmp(al[k].file, path) || strcmp(al[k].name, name)))
        k++;
    if (k < nal) {
        al[k].used = 1;
        return;
    }
    fprintf(err, "%s:%d: \"%s\" is an implementation's or a workload's name (take it "
                 "from the row or the file, or name it through the tables)\n",
            path, line, name);
    (*bad)++;
}

/* A shell script's words (runs of a-z, 0-9, '_', '-'), comments skipped: a language's name
 * among them fails (run.sh's list of the languages came from the rows' kind, issue 29). */
static void scan_shell(const char *path, allowed *al, size_t nal, FILE *err, int *bad)
{
    FILE *f = fopen(path, "r");
    CB_CHECK(f != NULL);
    char text[4096];
    for (int line = 1; fgets(text, sizeof text, f); line++) {
        char word[64];
        size_t n = 0;
        for (const char *c = text;; c++) {
            int in = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' ||
                     *c == '-';
            if (in && n < sizeof word - 1) {
                word[n++] = *c;
                continue;
            }
            word[n] = '\0';
            if (n && refused(word, 1))
                found(path, line, word, al, nal, err, bad);
            n = 0;
            if (!*c || (*c == '#' && (c == text || c[-1] == ' ' || c[-1] == '\t')))
                break;
        }
    }
    fclose(f);
}

/* The string literals of one source file, comments and character constants skipped; each
 * that is a name fails, or marks its line of names.txt used. */
static void scan_file(const char *path, allowed *al, size_t nal, FILE *err, int *bad)
{
    FILE *f = fopen(path, "r");
    CB_CHECK(f != NULL);
    int c, line = 1;
    while ((c = fgetc(f)) != EOF) {
        if (c == '\n')
            line++;
        if (c == '/') {
            int d = fgetc(f);
            if (d == '/') {
                while ((c = fgetc(f)) != EOF && c != '\n')
                    ;
                line++;
            } else if (d == '*') {
                int prev = 0;
                while ((c = fgetc(f)) != EOF && !(prev == '*' && c == '/')) {
                    line += c == '\n';
                    prev = c;
                }
            } else if (d != EOF) {
                ungetc(d, f);
            }
        } else if (c == '\'') {
            while ((c = fgetc(f)) != EOF && c != '\'')
                if (c == '\\')
                    fgetc(f);
        } else if (c == '"') {
            char lit[64];
            size_t n = 0;
            int esc = 0;
            while ((c = fgetc(f)) != EOF && c != '"' && c != '\n') {
                if (c == '\\') {
                    fgetc(f);
                    esc = 1;
                } else if (n < sizeof lit - 1) {
                    lit[n++] = (char)c;
                }
            }
            lit[n] = '\0';
            if (!esc && is_name(lit))
                found(path, line, lit, al, nal, err, bad);
        }
    }
    fclose(f);
}

static void scan_dir(const char *dir, allowed *al, size_t nal, FILE *err, int *bad)
{
    DIR *d = opendir(dir);
    if (!d)
        CB_FAIL("%s: cannot open it (run from the source tree's root)", dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[600];
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            scan_dir(path, al, nal, err, bad);
            continue;
        }
        size_t len = strlen(e->d_name);
        if (len > 2 && e->d_name[len - 2] == '.' &&
            (e->d_name[len - 1] == 'c' || e->d_name[len - 1] == 'h'))
            scan_file(path, al, nal, err, bad);
    }
    closedir(d);
}

CB_TEST(names_not_written_in_the_harness)
{
    allowed al[MAX_ALLOWED];
    size_t nal = 0;
    FILE *f = fopen("tests/names.txt", "r");
    CB_CHECK(f != NULL);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (nal == MAX_ALLOWED)
            CB_FAIL("tests/names.txt: more than %d lines", MAX_ALLOWED);
        if (sscanf(line, "%159s %39[^:]:", al[nal].file, al[nal].name) != 2 ||
            !strchr(line, ':'))
            CB_FAIL("tests/names.txt: '%s' is not FILE NAME: REASON", line);
        al[nal++].used = 0;
    }
    fclose(f);
    char *errors = NULL;
    size_t elen = 0;
    FILE *err = open_memstream(&errors, &elen);
    int bad = 0;
    static const char *const dirs[] = {"harness/run", "harness/results", "harness/report"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        scan_dir(dirs[i], al, nal, err, &bad);
    /* The languages' programs are their rows' (cb_impl_program), not a strcmp chain. */
    scan_file("impls/languages.c", al, nal, err, &bad);
    /* The suite's scripts take the languages from the rows (corobench list impls --kind). */
    static const char *const scripts[] = {"run.sh", "scripts/run-args.sh", "tests/aa.sh"};
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++)
        scan_shell(scripts[i], al, nal, err, &bad);
    for (size_t k = 0; k < nal; k++)
        if (!al[k].used) {
            fprintf(err, "tests/names.txt: %s names no \"%s\" any more: remove the line\n",
                     al[k].file, al[k].name);
            bad++;
        }
    fclose(err);
    if (bad)
        CB_FAIL("%d names written in the harness:\n%s", bad, errors);
    free(errors);
}
