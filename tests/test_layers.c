/* The layer rules (tests/layers.txt, docs/architecture.md "Layers") against every
 * `#include "..."` of params/, impls/, workloads/, harness/ and tools/: an arrow the table does
 * not allow fails with the file, the line and the rule it breaks. The checker is also run on
 * small planted trees, so that it is shown to fail on a violation, an unlisted folder and a
 * stale exception. Run from the source tree's root, as make check does. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

/* snprintf into an array, a path too long for it failing the test. */
#define PATHF(buf, ...)                                                                        \
    do {                                                                                       \
        if (snprintf(buf, sizeof buf, __VA_ARGS__) >= (int)sizeof buf)                         \
            CB_FAIL("path too long: %s", buf);                                                 \
    } while (0)

enum { MAX_RULES = 32, MAX_ALLOWED = 16, MAX_EXCEPT = 8 };

typedef struct rule {
    char folder[128]; /* "impls/", or "harness/=" for the files directly in harness/ */
    char allowed[MAX_ALLOWED][128];
    int nallowed;
} rule;

typedef struct except {
    char from[128], to[128], who[64];
    int used;
} except;

typedef struct layers {
    rule rules[MAX_RULES];
    int nrules;
    except ex[MAX_EXCEPT];
    int nex;
    const char *root;
    FILE *err; /* one line per broken arrow, into errors */
    char *errors;
    size_t elen;
    int nerrors, nincludes;
} layers;

/* One broken arrow: a line appended to the errors (a memory stream, read after fclose). */
static void error(layers *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void error(layers *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(L->err, fmt, ap) < 0 || fputc('\n', L->err) == EOF)
        CB_FAIL("cannot note an error: %s", strerror(errno));
    va_end(ap);
    L->nerrors++;
}

/* Reads the table; a malformed line fails the test (the table is the single source). */
static void load_rules(layers *L, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        CB_FAIL("cannot read %s: %s", path, strerror(errno));
    char line[1024];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        line[strcspn(line, "\n")] = '\0';
        char *s = line + strspn(line, " \t");
        if (!*s || *s == '#')
            continue;
        if (!strncmp(s, "except ", 7)) {
            if (L->nex == MAX_EXCEPT)
                CB_FAIL("%s:%d: more than %d exceptions", path, ln, MAX_EXCEPT);
            except *e = &L->ex[L->nex++];
            memset(e, 0, sizeof *e);
            if (sscanf(s + 7, "%127s %127s %63[^:]:", e->from, e->to, e->who) != 3 ||
                !strchr(s, ':'))
                CB_FAIL("%s:%d: want 'except FROM TO WHO: REASON', got '%s'", path, ln, s);
            continue;
        }
        char *colon = strchr(s, ':');
        if (!colon || L->nrules == MAX_RULES)
            CB_FAIL("%s:%d: want 'FOLDER: ALLOWED...', got '%s'", path, ln, s);
        rule *r = &L->rules[L->nrules++];
        memset(r, 0, sizeof *r);
        snprintf(r->folder, sizeof r->folder, "%.*s", (int)(colon - s), s);
        for (char *tok = strtok(colon + 1, " \t"); tok; tok = strtok(NULL, " \t")) {
            if (r->nallowed == MAX_ALLOWED)
                CB_FAIL("%s:%d: more than %d allowed folders", path, ln, MAX_ALLOWED);
            snprintf(r->allowed[r->nallowed++], 128, "%s", tok);
        }
    }
    fclose(f);
    if (L->nrules == 0)
        CB_FAIL("%s: no rules", path);
}

/* Whether rule folder f (or allowed folder) covers path p. */
static int covers(const char *f, const char *p)
{
    size_t n = strlen(f);
    if (n > 1 && f[n - 1] == '=') /* directly in the folder only */
        return !strncmp(p, f, n - 1) && !strchr(p + n - 1, '/');
    return !strncmp(p, f, n);
}

/* The rule whose folder covers path, the longest one; NULL when none does. */
static const rule *layer_of(const layers *L, const char *path)
{
    const rule *best = NULL;
    for (int i = 0; i < L->nrules; i++)
        if (covers(L->rules[i].folder, path) &&
            (!best || strlen(L->rules[i].folder) > strlen(best->folder)))
            best = &L->rules[i];
    return best;
}

/* a/b/../c -> a/c, ./ dropped; 0 when it climbs above the root. */
static int normalize(char *p)
{
    char *parts[64], *save, tmp[PATH_MAX];
    int n = 0;
    snprintf(tmp, sizeof tmp, "%s", p);
    for (char *t = strtok_r(tmp, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (!strcmp(t, "."))
            continue;
        if (!strcmp(t, "..")) {
            if (n == 0)
                return 0;
            n--;
        } else if (n < 64)
            parts[n++] = t;
    }
    p[0] = '\0';
    for (int i = 0; i < n; i++) {
        strcat(p, parts[i]);
        if (i + 1 < n)
            strcat(p, "/");
    }
    return 1;
}

static int exists(const layers *L, const char *rel)
{
    char full[PATH_MAX];
    struct stat sb;
    PATHF(full, "%s/%s", L->root, rel);
    return stat(full, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* One include of file (relative to the root) at line ln: resolved as the compiler does with
 * -I. (beside the including file first, then from the root), then checked. */
static void check_include(layers *L, const char *file, int ln, const char *name)
{
    char dir[PATH_MAX], target[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    *(slash ? slash : dir) = '\0';
    L->nincludes++;
    PATHF(target, "%s%s%s", dir, *dir ? "/" : "", name);
    if (!normalize(target) || !exists(L, target)) {
        snprintf(target, sizeof target, "%s", name);
        if (!normalize(target) || !exists(L, target)) {
            error(L, "%s:%d: #include \"%s\" is no file of the tree", file, ln, name);
            return;
        }
    }
    const rule *from = layer_of(L, file), *to = layer_of(L, target);
    if (!to) {
        error(L, "%s:%d: #include \"%s\": %s is in no layer of tests/layers.txt", file, ln, name,
              target);
        return;
    }
    if (from == to)
        return;
    for (int i = 0; i < from->nallowed; i++)
        if (covers(from->allowed[i], target))
            return;
    for (int i = 0; i < L->nex; i++)
        if (covers(L->ex[i].from, file) && covers(L->ex[i].to, target)) {
            L->ex[i].used = 1;
            return;
        }
    char allowed[1024] = "";
    for (int i = 0; i < from->nallowed; i++)
        snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), " %s",
                 from->allowed[i]);
    error(L, "%s:%d: #include \"%s\" (%s) breaks the rule '%s:%s' (%s is not allowed)", file, ln,
          name, target, from->folder, allowed, to->folder);
}

static void check_file(layers *L, const char *rel)
{
    if (!layer_of(L, rel)) {
        error(L, "%s: its folder is in no layer of tests/layers.txt", rel);
        return;
    }
    char full[PATH_MAX], line[4096];
    PATHF(full, "%s/%s", L->root, rel);
    FILE *f = fopen(full, "r");
    if (!f)
        CB_FAIL("cannot read %s: %s", full, strerror(errno));
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        char *s = line + strspn(line, " \t");
        if (*s != '#')
            continue;
        s += 1 + strspn(s + 1, " \t");
        if (strncmp(s, "include", 7))
            continue;
        s += 7 + strspn(s + 7, " \t");
        char *end = *s == '"' ? strchr(s + 1, '"') : NULL;
        if (end) /* <...> names a system or library header: not a layer of the tree */
            check_include(L, rel, ln, (*end = '\0', s + 1));
    }
    fclose(f);
}

static int is_source(const char *name)
{
    static const char *const ext[] = {".c", ".h", ".cc", ".hh", ".S", NULL};
    const char *dot = strrchr(name, '.');
    for (int i = 0; dot && ext[i]; i++)
        if (!strcmp(dot, ext[i]))
            return 1;
    return 0;
}

/* Every source file below rel (a folder relative to the root), in name order. */
static void walk(layers *L, const char *rel)
{
    char full[PATH_MAX];
    PATHF(full, "%s/%s", L->root, rel);
    struct dirent **ents;
    int n = scandir(full, &ents, NULL, alphasort);
    if (n < 0)
        CB_FAIL("cannot read %s: %s", full, strerror(errno));
    for (int i = 0; i < n; i++) {
        char child[PATH_MAX], cfull[PATH_MAX];
        struct stat sb;
        PATHF(child, "%s/%s", rel, ents[i]->d_name);
        PATHF(cfull, "%s/%s", L->root, child);
        if (ents[i]->d_name[0] != '.' && lstat(cfull, &sb) == 0) {
            if (S_ISDIR(sb.st_mode))
                walk(L, child);
            else if (S_ISREG(sb.st_mode) && is_source(ents[i]->d_name))
                check_file(L, child);
        }
        free(ents[i]);
    }
    free(ents);
}

/* Checks the tree at root against root/tests/layers.txt; the broken arrows in L->errors. */
static void check_tree(layers *L, const char *root)
{
    memset(L, 0, sizeof *L);
    L->root = root;
    L->err = open_memstream(&L->errors, &L->elen);
    CB_CHECK(L->err != NULL);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/tests/layers.txt", root);
    load_rules(L, path);
    static const char *const roots[] = {"params", "impls", "workloads", "harness", "tools"};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        char full[PATH_MAX];
        struct stat sb;
        snprintf(full, sizeof full, "%s/%s", root, roots[i]);
        if (stat(full, &sb) == 0)
            walk(L, roots[i]);
    }
    for (int i = 0; i < L->nex; i++)
        if (!L->ex[i].used)
            error(L, "tests/layers.txt: the exception '%s -> %s' (%s) matches no include: remove "
                     "it",
                  L->ex[i].from, L->ex[i].to, L->ex[i].who);
    CB_CHECK_EQ_INT(fclose(L->err), 0);
}

CB_TEST(layers_every_include_follows_the_table)
{
    layers L;
    check_tree(&L, ".");
    if (L.nerrors)
        CB_FAIL("%d include(s) break the layers:\n%s", L.nerrors, L.errors);
    CB_CHECK(L.nincludes > 100); /* it did read the tree */
    free(L.errors);
}

/* A tiny tree in a temporary directory: its rules, and files "path\0content" pairs. */
static void plant(const char *dir, const char *rules, const char *const *files)
{
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CB_CHECK_EQ_INT(system(cmd), 0);
    CB_CHECK_EQ_INT(mkdir(dir, 0700), 0);
    for (size_t i = 0; files[i]; i += 2) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
            *s = '\0';
            mkdir(path, 0700);
            *s = '/';
        }
        FILE *f = fopen(path, "w");
        CB_CHECK(f != NULL && fputs(files[i + 1], f) >= 0 && fclose(f) == 0);
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/tests", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/tests/layers.txt", dir);
    FILE *f = fopen(path, "w");
    CB_CHECK(f != NULL && fputs(rules, f) >= 0 && fclose(f) == 0);
}

CB_TEST(layers_checker_fails_on_planted_violations)
{
    char dir[256];
    cb_test_tmp_path(dir, sizeof dir, "layers");
    static const char rules[] = "params/:\n"
                                "harness/common/: params/\n"
                                "harness/measure/: harness/common/ params/\n"
                                "harness/run/: harness/common/ harness/measure/ params/\n"
                                "harness/=: harness/common/ harness/run/\n"
                                "except harness/measure/old.c harness/run/ someone: until moved\n";
    /* Allowed: a folder's own files (relative and from the root), down the layers, the
     * exception; planted: measure including run (line 3), params including harness (line 2). */
    static const char *const ok[] = {
        "params/p.h", "int p;\n",
        "harness/common/c.h", "#include \"params/p.h\"\n",
        "harness/measure/m.c", "#include <stdio.h>\n#include \"m.h\"\n#include \"../common/c.h\"\n",
        "harness/measure/m.h", "#include \"harness/common/c.h\"\n",
        "harness/measure/old.c", "#include \"harness/run/r.h\"\n",
        "harness/run/r.h", "# include \"harness/measure/m.h\"\n",
        "harness/main.c", "#include \"run/r.h\"\n#include \"common/c.h\"\n",
        NULL};
    plant(dir, rules, ok);
    layers L;
    check_tree(&L, dir);
    if (L.nerrors)
        CB_FAIL("the allowed tree gave:\n%s", L.errors);
    CB_CHECK_EQ_INT(L.nincludes, 8);
    free(L.errors);

    static const char *const bad[] = {
        "params/p.h", "/* a parameter */\n#include \"harness/common/c.h\"\n",
        "harness/common/c.h", "int c;\n",
        "harness/measure/m.c", "#include \"m.h\"\n\n  #  include \"harness/run/r.h\"\n",
        "harness/measure/m.h", "int m;\n",
        "harness/measure/old.c", "int old;\n",
        "harness/run/r.h", "int r;\n",
        "harness/extra/x.c", "int x;\n",
        "harness/main.c", "#include \"run/missing.h\"\n",
        NULL};
    plant(dir, rules, bad);
    check_tree(&L, dir);
    CB_CHECK_EQ_INT(L.nerrors, 5);
    CB_CHECK_CONTAINS(L.errors, "params/p.h:2: #include \"harness/common/c.h\" (harness/common/c.h) "
                                "breaks the rule 'params/:' (harness/common/ is not allowed)");
    CB_CHECK_CONTAINS(L.errors,
                      "harness/measure/m.c:3: #include \"harness/run/r.h\" (harness/run/r.h) "
                      "breaks the rule 'harness/measure/: harness/common/ params/' "
                      "(harness/run/ is not allowed)");
    CB_CHECK_CONTAINS(L.errors, "harness/extra/x.c: its folder is in no layer");
    CB_CHECK_CONTAINS(L.errors, "harness/main.c:1: #include \"run/missing.h\" is no file");
    CB_CHECK_CONTAINS(L.errors, "exception 'harness/measure/old.c -> harness/run/' (someone) "
                                "matches no include");
    free(L.errors);
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CB_CHECK_EQ_INT(system(cmd), 0);
}
