/* Runs every registered test (or those named on the command line) each in a forked child with a
 * timeout; prints one line per test and finally "N passed, M failed[, K skipped]". */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "harness/proc.h"
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

int cb_test_spawn(char *const argv[], char **out, char **err)
{
    int op[2], ep[2];
    if (pipe2(op, O_CLOEXEC) || pipe2(ep, O_CLOEXEC))
        CB_FAIL("pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(op[1], 1);
        dup2(ep[1], 2);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        execv(argv[0], argv);
        fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(op[1]);
    close(ep[1]);
    cb_proc_result r;
    cb_proc_collect(pid, op[0], ep[0], 0, &r);
    *out = r.out;
    *err = r.err;
    return cb_proc_exit_code(r.wait_status);
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
    int ep[2], op[2];
    if (pipe2(op, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
        perror("pipe");
        exit(2);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(op[1], 1);
        dup2(ep[1], 2);
        t->fn();
        fflush(NULL);
        _exit(0);
    }
    close(op[1]);
    close(ep[1]);
    cb_proc_result pr;
    cb_proc_collect(pid, op[0], ep[0], t->timeout_s, &pr);
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
