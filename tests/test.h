/* corobench's test framework (after libuv's runner): each test registers itself, runs in its own
 * forked process with a timeout, and passes, fails or skips. A broken context switch hangs or
 * crashes; the runner survives it and reports the test as failed with the signal or timeout.
 * Assertions print both values and stay on under NDEBUG. */
#ifndef CB_TEST_H
#define CB_TEST_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/proc.h"
#include "workloads/workload.h"

typedef void (*cb_test_fn)(void);
void cb_test_register(const char *name, cb_test_fn fn, unsigned timeout_s);
/* A test of a family derived from a registry: named prefix + entry + suffix, run as fn(arg). */
typedef void (*cb_test_arg_fn)(const void *arg);
void cb_test_register_arg(const char *prefix, const char *entry, const char *suffix,
                          cb_test_arg_fn fn, const void *arg, unsigned timeout_s);

/* Exit status of a skipped test. */
enum { CB_TEST_SKIP = 77 };

#define CB_TEST_T(name, timeout_s)                                                             \
    static void name(void);                                                                    \
    __attribute__((constructor)) static void cb_reg_##name(void)                               \
    {                                                                                          \
        cb_test_register(#name, name, timeout_s);                                              \
    }                                                                                          \
    static void name(void)
#define CB_TEST(name) CB_TEST_T(name, 120)

/* fn(const cb_co_backend *) as one test per stackful implementation of impls/impls.c, named
 * fn_<impl>: a new backend gets every such test by its row in the table. */
#define CB_TEST_PER_BACKEND(fn)                                                                \
    static void fn##_arg(const void *im) { fn(cb_test_backend(im)); }                          \
    __attribute__((constructor)) static void cb_reg_##fn(void)                                 \
    {                                                                                          \
        for (size_t i = 0; i < cb_nimpls; i++)                                                 \
            if (cb_impls[i].body == CB_BODY_STACKFUL)                                          \
                cb_test_register_arg(#fn "_", cb_impls[i].name, "", fn##_arg,                  \
                                     &cb_impls[i], 120);                                       \
    }

/* body(const cb_workload *) as one test per benchmark workload of workloads/workloads.c (the
 * harness's self-test excepted), named prefix<workload>suffix. */
#define CB_TEST_PER_WORKLOAD(body, prefix, suffix)                                             \
    static void body##_arg(const void *wl) { body(wl); }                                      \
    __attribute__((constructor)) static void cb_reg_##body(void)                               \
    {                                                                                          \
        for (size_t i = 0; i < cb_nworkloads; i++)                                             \
            if (!cb_workloads[i]->selftest)                                                    \
                cb_test_register_arg(prefix, cb_workloads[i]->name, suffix, body##_arg,        \
                                     cb_workloads[i], 120);                                    \
    }

#define CB_FAIL(...)                                                                           \
    do {                                                                                       \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                        \
        fprintf(stderr, __VA_ARGS__);                                                          \
        fputc('\n', stderr);                                                                   \
        exit(1);                                                                               \
    } while (0)

#define CB_SKIP(...)                                                                           \
    do {                                                                                       \
        fprintf(stderr, __VA_ARGS__);                                                          \
        fputc('\n', stderr);                                                                   \
        exit(CB_TEST_SKIP);                                                                    \
    } while (0)

/* In the whole-tree sanitizer build (make check-sanitize-all) the instrumentation changes some
 * figures a test asserts exactly (the calls and returns the simulator counts, heap and stack
 * bytes); such a test skips there, saying why. */
#if defined(__SANITIZE_ADDRESS__)
#define CB_UNDER_ASAN 1
#define CB_SKIP_UNDER_ASAN(why) CB_SKIP("under AddressSanitizer, %s", why)
#else
#define CB_UNDER_ASAN 0
#define CB_SKIP_UNDER_ASAN(why)                                                                \
    do {                                                                                       \
    } while (0)
#endif

#define CB_CHECK(cond)                                                                         \
    do {                                                                                       \
        if (!(cond))                                                                           \
            CB_FAIL("check failed: %s", #cond);                                                \
    } while (0)

#define CB_CHECK_EQ_U64(a, b)                                                                  \
    do {                                                                                       \
        uint64_t cb_a_ = (uint64_t)(a), cb_b_ = (uint64_t)(b);                                 \
        if (cb_a_ != cb_b_)                                                                    \
            CB_FAIL("%s == %s: %" PRIu64 " (0x%" PRIx64 ") != %" PRIu64 " (0x%" PRIx64 ")", #a,  \
                    #b, cb_a_, cb_a_, cb_b_, cb_b_);                                           \
    } while (0)

#define CB_CHECK_EQ_INT(a, b)                                                                  \
    do {                                                                                       \
        long long cb_a_ = (long long)(a), cb_b_ = (long long)(b);                              \
        if (cb_a_ != cb_b_)                                                                    \
            CB_FAIL("%s == %s: %lld != %lld", #a, #b, cb_a_, cb_b_);                           \
    } while (0)

#define CB_CHECK_STREQ(a, b)                                                                   \
    do {                                                                                       \
        const char *cb_a_ = (a), *cb_b_ = (b);                                                 \
        if (!cb_a_ || !cb_b_ || strcmp(cb_a_, cb_b_) != 0)                                     \
            CB_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, cb_a_ ? cb_a_ : "(null)",              \
                    cb_b_ ? cb_b_ : "(null)");                                                 \
    } while (0)

#define CB_CHECK_CONTAINS(hay, needle)                                                         \
    do {                                                                                       \
        const char *cb_h_ = (hay), *cb_n_ = (needle);                                          \
        if (!cb_h_ || !strstr(cb_h_, cb_n_))                                                   \
            CB_FAIL("%s does not contain \"%s\": \"%s\"", #hay, cb_n_, cb_h_ ? cb_h_ : "(null)"); \
    } while (0)

/* Runs argv (argv[0] a path) with stdout and stderr captured; returns the exit status, or
 * 128 + signal. Output buffers are malloc'd and NUL-terminated; callers free them. */
int cb_test_spawn(char *const argv[], char **out, char **err);
/* Runs fn in a forked child, stdout and stderr captured, to its end; returns as cb_test_spawn. */
int cb_test_fork(void (*fn)(void), char **out, char **err);
/* Fills argv with "<root>/bin/<binary>" (the path is written into path) followed by the arguments
 * in ap up to a NULL, then a NULL; returns how many it stored before the NULL. Fails the test
 * when they do not fit in cap - 1 entries. */
size_t cb_test_argv(char **argv, size_t cap, char *path, size_t pathlen, const char *binary,
                    const char *a0, va_list ap);
/* 1 if a test of that name is registered (docs that name a test can be checked). */
int cb_test_exists(const char *name);
/* Directory holding bin/ (the build root), from CB_BUILD_ROOT or ".". */
const char *cb_test_root(void);

/* support.c: what the test files share. */
typedef struct cb_test_cli {
    int status; /* exit status, or 128 + signal */
    char *out, *err;
} cb_test_cli;
/* The backend of a stackful implementation; skips the test when it cannot run here. */
const cb_co_backend *cb_test_backend(const cb_impl *im);
/* bin/corobench with the arguments up to a NULL, output captured. */
cb_test_cli cb_test_corobench(const char *a0, ...);
/* The same started in the background (p->pid is bin/corobench), and its end: the wait status. */
void cb_test_corobench_start(cb_proc *p, const char *a0, ...);
int cb_test_wait(cb_proc *p);
/* A live (not zombie) child of parent from /proc, 0 if none; with cpu_ticks its user + system
 * clock ticks. */
pid_t cb_test_child_of(pid_t parent, long *cpu_ticks);
/* /tmp/cbtest-<pid>-<name>, removed if it exists. */
void cb_test_tmp_path(char *buf, size_t len, const char *name);
/* The directory /tmp/cbtest-<pid>-<name>, made if it is not there (a static buffer: one name per
 * test file); cb_test_dir_cleanup removes it and what it holds. */
const char *cb_test_dir(const char *name);
void cb_test_dir_cleanup(const char *name);
/* The whole file, malloc'd; fails the test when it cannot be read. */
char *cb_test_slurp(const char *path);
/* The report's Markdown with the lines that the 120-column wrap broke (harness/report/mdfit.c)
 * joined again, as a Markdown reader joins them: a paragraph or a list item one line each, so a
 * test can look for a sentence wherever the wrap fell. In place; returns md. */
char *cb_test_md_unwrap(char *md);
/* The workload's and the implementation's parameters at their defaults, except those named in
 * set (name, value, name, value, ..., NULL; set may be NULL); fails the test on a bad value. */
void cb_test_params(const cb_workload *wl, const cb_impl *im, const char *const *set,
                    cb_params *p);

#endif
