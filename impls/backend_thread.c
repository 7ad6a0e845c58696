/* The "thread" backend: every coroutine is an OS thread (the baseline every coroutine model exists
 * to beat, as lmbench's lat_ctx measures it), on a stack from the same allocator as the others.
 * Exactly one thread runs at a time: a switch hands the baton to the target through its futex
 * word (store, FUTEX_WAKE) and waits on its own (FUTEX_WAIT), so the stackful workload bodies run
 * unchanged, with the same checksum and suspensions, and every switch is a kernel wake-up plus a
 * block: two context switches per round trip, which is what this backend measures.
 * The top CB_TH_ALT_STACK bytes of a coroutine's stack are its signal stack (sigaltstack is per
 * thread), so an overflow into the guard page is still reported by name; glibc puts the thread's
 * descriptor and TLS at the top of the rest. Destroy wakes the thread with `die` set: it leaves
 * through pthread_exit from inside its switch and is joined before its stack is freed. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "coro.h"
#include "thread.h"

typedef struct th_ctx {
    atomic_uint go; /* futex word: 1 once this side holds the baton */
    int die;        /* set by destroy: leave instead of running on */
    uintptr_t val;  /* the value handed over with the baton */
    int started;
    pthread_t tid;
    cb_co *co;
    void *alt;      /* this thread's signal stack */
} th_ctx;

static void futex(atomic_uint *w, int op, unsigned v)
{
    syscall(SYS_futex, w, op, v, NULL, NULL, 0);
}

static void give(th_ctx *t, uintptr_t val)
{
    t->val = val;
    atomic_store_explicit(&t->go, 1, memory_order_release);
    futex(&t->go, FUTEX_WAKE_PRIVATE, 1);
}

/* Blocks until the baton comes back; returns the value that came with it. */
static uintptr_t take(th_ctx *c)
{
    while (atomic_load_explicit(&c->go, memory_order_acquire) == 0)
        futex(&c->go, FUTEX_WAIT_PRIVATE, 0);
    atomic_store_explicit(&c->go, 0, memory_order_relaxed);
    if (c->die)
        pthread_exit(NULL);
    return c->val;
}

static uintptr_t th_jump(void *from, void *to, uintptr_t val)
{
    give(to, val);
    return take(from);
}

static void *th_main(void *arg)
{
    th_ctx *c = arg;
    stack_t ss = {.ss_sp = c->alt, .ss_size = CB_TH_ALT_STACK}, old;
    /* Unless the thread has one already (AddressSanitizer gives each thread its own, and unmaps
     * whatever is installed when the thread exits). */
    if (sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE))
        sigaltstack(&ss, NULL);
    uintptr_t v = take(c);
    cb_co_entry_(c->co, v);
}

static int th_create(void *ctx, void *stack_lo, size_t size, cb_co *co)
{
    th_ctx *c = ctx;
    pthread_attr_t attr;
    memset(c, 0, sizeof *c);
    c->co = co;
    if (size < cb_thread_min_stack()) {
        errno = EINVAL;
        return -1;
    }
    c->alt = (char *)stack_lo + size - CB_TH_ALT_STACK;
    pthread_attr_init(&attr);
    int rc = pthread_attr_setstack(&attr, stack_lo, size - CB_TH_ALT_STACK);
    if (rc == 0)
        rc = pthread_create(&c->tid, &attr, th_main, c);
    pthread_attr_destroy(&attr);
    if (rc) {
        errno = rc;
        return -1;
    }
    c->started = 1;
    return 0;
}

static void th_release(void *ctx)
{
    th_ctx *c = ctx;
    if (!c->started)
        return;
    c->die = 1;
    give(c, 0);
    pthread_join(c->tid, NULL);
    c->started = 0;
}

const cb_co_backend cb_backend_thread = {
    .name = "thread",
    .description = "an OS thread per coroutine; a switch is a futex hand-off (wake the target, "
                   "block on its own word), one thread running at a time",
    .ctx_size = sizeof(th_ctx),
    .jump = th_jump,
    .create = th_create,
    .release = th_release,
    .own_thread = 1,
};

size_t cb_thread_min_stack(void)
{
    long m = sysconf(_SC_THREAD_STACK_MIN);
    return (size_t)(m > 0 ? m : 16384) + CB_TH_ALT_STACK;
}

/* ---- how many threads this process may start --------------------------------------------- */

static long read_long(const char *path, int field)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (!f)
        return -1;
    if (field == 0) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
    } else { /* /proc/loadavg: "l1 l5 l15 running/total last_pid" */
        long running;
        if (fscanf(f, "%*s %*s %*s %ld/%ld", &running, &v) != 2)
            v = -1;
    }
    fclose(f);
    return v;
}

static long mem_available_kib(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long v = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %ld kB", &v) == 1)
            break;
    fclose(f);
    return v;
}

uint64_t cb_thread_limit(char *why, size_t len)
{
    long total = read_long("/proc/loadavg", 1);
    long threads_max = read_long("/proc/sys/kernel/threads-max", 0);
    long pid_max = read_long("/proc/sys/kernel/pid_max", 0);
    long mem = mem_available_kib();
    struct rlimit rl;
    uint64_t nproc = getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                         ? (uint64_t)rl.rlim_cur
                         : UINT64_MAX;
    uint64_t used = total > 0 ? (uint64_t)total : 0, lim = UINT64_MAX;
#define CB_TH_MIN(x)                                                                           \
    do {                                                                                       \
        uint64_t x_ = (x);                                                                     \
        lim = x_ < lim ? x_ : lim;                                                             \
    } while (0)
    CB_TH_MIN(nproc > used ? nproc - used : 0);
    if (threads_max > 0)
        CB_TH_MIN((uint64_t)threads_max > used ? (uint64_t)threads_max - used : 0);
    if (pid_max > 0)
        CB_TH_MIN((uint64_t)pid_max > used ? (uint64_t)pid_max - used : 0);
    if (mem > 0)
        CB_TH_MIN((uint64_t)mem / CB_TH_KIB_PER_THREAD);
    if (RUNNING_ON_VALGRIND)
        CB_TH_MIN(CB_TH_VALGRIND_MAX);
#undef CB_TH_MIN
    lim = lim > CB_TH_MARGIN ? lim - CB_TH_MARGIN : 0;
    char rlim[32];
    if (nproc == UINT64_MAX)
        snprintf(rlim, sizeof rlim, "unlimited");
    else
        snprintf(rlim, sizeof rlim, "%llu", (unsigned long long)nproc);
    snprintf(why, len,
             "%llu threads: the least of RLIMIT_NPROC (%s), kernel.threads-max (%ld) and "
             "kernel.pid_max (%ld) less the %ld threads running, MemAvailable (%ld KiB) / %d KiB "
             "per thread (kernel stack and task, touched stack)%s, less a margin of %d",
             (unsigned long long)lim, rlim, threads_max, pid_max, total, mem,
             CB_TH_KIB_PER_THREAD,
             RUNNING_ON_VALGRIND ? ", valgrind's --max-threads (500)" : "", CB_TH_MARGIN);
    return lim;
}
