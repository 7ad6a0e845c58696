/* Runs every registered test (or those named on the command line) each in a forked child with a
 * timeout; prints one line per test and finally "N passed, M failed[, K skipped]". */
#include <unistd.h>

#include "harness/run/proc.h"
#include "test.h"

typedef struct test {
    const char *name;
    cb_test_fn fn;
    unsigned timeout_s;
} test;

static test tests[512];
static size_t ntests;

void cb_test_register(const char *name, cb_test_fn fn, unsigned timeout_s)
{
    if (ntests == sizeof tests / sizeof tests[0]) {
        fprintf(stderr, "runner: too many tests\n");
        exit(2);
    }
    tests[ntests++] = (test){name, fn, timeout_s};
}

const char *cb_test_root(void)
{
    const char *r = getenv("CB_BUILD_ROOT");
    return r && *r ? r : ".";
}

size_t cb_test_argv(char **argv, size_t cap, char *path, size_t pathlen, const char *binary,
                    const char *a0, va_list ap)
{
    size_t n = 0;
    snprintf(path, pathlen, "%s/bin/%s", cb_test_root(), binary);
    argv[n++] = path;
    for (const char *a = a0; a; a = va_arg(ap, const char *)) {
        if (n + 1 >= cap)
            CB_FAIL("more than %zu arguments for %s", cap - 2, binary);
        argv[n++] = (char *)a;
    }
    argv[n] = NULL;
    return n;
}

/* Runs body(arg) in a child started as po says, to its end (no timeout), output captured. */
static int capture(const cb_proc_opts *po, cb_proc_body body, void *arg, char **out, char **err)
{
    cb_proc p;
    cb_proc_result r;
    char why[256];
    if (cb_proc_start(&p, po, body, arg, why, sizeof why))
        CB_FAIL("%s", why);
    cb_proc_wait(&p, 0, &r);
    *out = r.out;
    *err = r.err;
    return cb_proc_exit_code(r.wait_status);
}

int cb_test_spawn(char *const argv[], char **out, char **err)
{
    cb_proc_opts po = {.pin_cpu = -1, .stdin_null = 1};
    return capture(&po, cb_proc_exec, (void *)argv, out, err);
}

static int fn_body(void *fn)
{
    ((void (*)(void))fn)();
    return 0;
}

int cb_test_fork(void (*fn)(void), char **out, char **err)
{
    cb_proc_opts po = {.pin_cpu = -1};
    return capture(&po, fn_body, (void *)fn, out, err);
}

/* A child's output, indented, ending in a newline. */
static void print_block(const char *s)
{
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        printf("    %.*s\n", (int)n, s);
        s += n + (nl != NULL);
    }
}

static int run_one(const test *t, int verbose)
{
    cb_proc_opts po = {.own_group = 1, .pin_cpu = -1};
    cb_proc p;
    cb_proc_result pr;
    char why[256];
    if (cb_proc_start(&p, &po, fn_body, (void *)t->fn, why, sizeof why)) {
        fprintf(stderr, "runner: %s\n", why);
        exit(2);
    }
    cb_proc_wait(&p, t->timeout_s, &pr);
    char *out = pr.out, *err = pr.err;
    int timed_out = pr.timed_out, st = cb_proc_exit_code(pr.wait_status);
    int result; /* 0 pass, 1 fail, 2 skip */
    if (timed_out) {
        printf("FAIL %s: timed out after %u s\n", t->name, t->timeout_s);
        result = 1;
    } else if (st == 0) {
        printf("PASS %s\n", t->name);
        result = 0;
    } else if (st == CB_TEST_SKIP) {
        char *nl = strchr(err, '\n');
        if (nl)
            *nl = '\0';
        printf("SKIP %s: %s\n", t->name, err);
        result = 2;
    } else {
        if (st > 128)
            printf("FAIL %s: killed by signal %d (%s)\n", t->name, st - 128, strsignal(st - 128));
        else
            printf("FAIL %s: exit status %d\n", t->name, st);
        result = 1;
    }
    if (result == 1 || verbose) {
        print_block(err);
        print_block(out);
    }
    fflush(stdout);
    cb_proc_result_free(&pr);
    return result;
}

int main(int argc, char **argv)
{
    int verbose = 0, list = 0;
    size_t passed = 0, failed = 0, skipped = 0;
    int argi = 1;
    for (; argi < argc && argv[argi][0] == '-'; argi++) {
        if (!strcmp(argv[argi], "-v"))
            verbose = 1;
        else if (!strcmp(argv[argi], "-l"))
            list = 1;
        else {
            fprintf(stderr, "runner: unknown option '%s' (valid: -v, -l)\n", argv[argi]);
            return 2;
        }
    }
    for (size_t i = 0; i < ntests; i++) {
        int selected = argi == argc;
        for (int a = argi; a < argc && !selected; a++)
            selected = strstr(tests[i].name, argv[a]) != NULL;
        if (!selected)
            continue;
        if (list) {
            puts(tests[i].name);
            continue;
        }
        int r = run_one(&tests[i], verbose);
        passed += r == 0;
        failed += r == 1;
        skipped += r == 2;
    }
    if (list)
        return 0;
    if (skipped)
        printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
    else
        printf("%zu passed, %zu failed\n", passed, failed);
    return failed ? 1 : 0;
}
