/* Runs every registered test (or those named on the command line) each in a forked child with a
 * timeout; prints one line per test and finally "N passed, M failed[, K skipped]". */
#include <unistd.h>

#include "harness/common/proc.h"
#include "test.h"

typedef struct test {
    const char *name;
    cb_test_fn fn;         /* a plain test, or */
    cb_test_arg_fn fn_arg; /* one of a family derived from a registry, with its entry */
    const void *arg;
    unsigned timeout_s;
} test;

static test tests[512];
static size_t ntests;

static void add(test t)
{
    if (ntests == sizeof tests / sizeof tests[0]) {
        fprintf(stderr, "runner: too many tests\n");
        exit(2);
    }
    tests[ntests++] = t;
}

void cb_test_register(const char *name, cb_test_fn fn, unsigned timeout_s)
{
    add((test){name, fn, NULL, NULL, timeout_s});
}

void cb_test_register_arg(const char *prefix, const char *entry, const char *suffix,
                          cb_test_arg_fn fn, const void *arg, unsigned timeout_s)
{
    char *name;
    if (asprintf(&name, "%s%s%s", prefix, entry, suffix) < 0)
        abort();
    add((test){name, NULL, fn, arg, timeout_s});
}

static int test_body(void *arg)
{
    const test *t = arg;
    if (t->fn_arg)
        t->fn_arg(t->arg);
    else
        t->fn();
    return 0;
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
    if (cb_proc_start(&p, &po, test_body, (void *)t, why, sizeof why)) {
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

int cb_test_exists(const char *name)
{
    for (size_t i = 0; i < ntests; i++)
        if (!strcmp(tests[i].name, name))
            return 1;
    return 0;
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
