/* Stackful coroutine layer over a backend's make/jump verbs, plus the stack-overflow reporter:
 * a SIGSEGV handler on an alternate signal stack that recognises a fault in the running
 * coroutine's guard page and says so before exiting. */
#include "coro.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <ucontext.h>
#include <unistd.h>

#include "coro_inline.h"
#include "include/corobench/runtime.h"
#include "runtime.h"

#if CB_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

enum { CO_SUSPENDED = CB_CO_SUSPENDED_, CO_RUNNING = CB_CO_RUNNING_, CO_DONE = CB_CO_DONE_ };

cb_co_main cb_co_main_ = {.co = {.state = CO_RUNNING}};
cb_co *cb_co_current_ = &cb_co_main_.co;
const cb_co_backend *cb_co_main_be_;
static int handler_installed;

static size_t fmt_u64(char *p, uint64_t v)
{
    char tmp[24];
    size_t n = 0, i;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (i = 0; i < n; i++)
        p[i] = tmp[n - 1 - i];
    return n;
}

static size_t put(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return n;
}

/* Async-signal-safe: formats with put/fmt_u64 only, then _exit. */
static void report_overflow(const cb_co *co, const char *how)
{
    char msg[192];
    size_t n = put(msg, "coroutine stack overflow (impl=");
    n += put(msg + n, co->be->name);
    n += put(msg + n, ", stack=");
    n += fmt_u64(msg + n, co->stack.size);
    n += put(msg + n, " bytes)");
    n += put(msg + n, how);
    n += put(msg + n, "\n");
    if (write(2, msg, n) < 0) {
        /* nothing more can be said */
    }
    _exit(CB_EXIT_OVERFLOW);
}

/* The stack pointer when the fault happened (0 where unknown). */
static uintptr_t fault_sp(const void *uc)
{
    const ucontext_t *u = uc;
#if defined(__x86_64__)
    return (uintptr_t)u->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    return (uintptr_t)u->uc_mcontext.sp;
#else
    (void)u;
    return 0;
#endif
}

static uint64_t thread_stack_limit; /* RLIMIT_STACK, read when the handler is installed */

/* Async-signal-safe, like report_overflow: a stackless coroutine (or any code on the thread's
 * own stack) that recursed past the thread's stack limit. */
static void report_thread_overflow(void)
{
    char msg[160];
    size_t n = put(msg, "thread stack overflow (RLIMIT_STACK ");
    if (thread_stack_limit == (uint64_t)RLIM_INFINITY)
        n += put(msg + n, "unlimited");
    else {
        n += fmt_u64(msg + n, thread_stack_limit);
        n += put(msg + n, " bytes");
    }
    n += put(msg + n, "; the code on the thread's stack recursed too deep)\n");
    if (write(2, msg, n) < 0) {
        /* nothing more can be said */
    }
    _exit(CB_EXIT_OVERFLOW);
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    const cb_co *co = cb_co_current_;
    const char *addr = si->si_addr;
    uintptr_t sp = fault_sp(uc);
    /* A fault within 64 KiB of the stack pointer is the stack running out. */
    int near_sp = sp && (uintptr_t)addr < sp + 4096 && (uintptr_t)addr + 65536 > sp;
    if (co != &cb_co_main_.co && co->stack.mode == CB_STACK_GUARDED) {
        const char *lo = co->stack.lo;
        /* The guard page, or a frame so large it jumped over it (up to 64 KiB below). */
        if (addr < lo && addr >= lo - 65536)
            report_overflow(co, "");
    } else if (co != &cb_co_main_.co && co->stack.mode == CB_STACK_CHUNKED) {
        /* No guard page: the coroutine ran down through the stacks below its own in the chunk
         * and then off the mapping. Its canary, or a stack pointer below its stack, says so. */
        if (*(volatile uint64_t *)co->stack.lo != cb_stack_canary())
            report_overflow(co, " detected at fault: chunked stack, canary overwritten");
        if (sp && sp < (uintptr_t)co->stack.lo)
            report_overflow(co, " detected at fault: chunked stack, stack pointer below it");
    } else if (co == &cb_co_main_.co && near_sp) {
        report_thread_overflow();
    }
    /* Not ours: die of the original signal so the parent sees it. */
    signal(sig, SIG_DFL);
}

static void install_handler(void)
{
    static char altstack[65536];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
    struct sigaction sa;
    struct rlimit rl;
    if (handler_installed || sigaltstack(&ss, NULL) != 0)
        return;
    thread_stack_limit = getrlimit(RLIMIT_STACK, &rl) == 0 ? (uint64_t)rl.rlim_cur : 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    handler_installed = 1;
}

void cb_co_install_fault_reporter(void) { install_handler(); }

size_t cb_co_control_bytes(const cb_co_backend *be) { return sizeof(cb_co) + be->ctx_size; }

const cb_stack *cb_co_stack(const cb_co *co) { return &co->stack; }

/* ---- a plugin's coroutines (include/corobench/runtime.h) ----------------------------------- */

/* The plugin's handle of co, kept in its context bytes. */
static void **plugin_handle(cb_co *co) { return (void **)(void *)co->ctx; }

/* A plugin that breaks the interface's rules: one stderr line and the cell fails with it. */
static void plugin_broke(const cb_co *co, const char *what)
{
    fprintf(stderr, "corobench: plugin %s: %s\n", co->be->name, what);
    fflush(stderr);
    _exit(1);
}

/* Where the last plugin resume was called from: a stackful coroutine's first frame is far from
 * it, on a stack of its own. */
static const char *plugin_resume_frame;

/* What the plugin's resume runs first: the body's function, on the plugin's stack. */
static uintptr_t plugin_entry(void *arg, uintptr_t first)
{
    cb_co *co = arg;
    char here;
    const char *lo = co->stack.lo;
    if (lo ? &here < lo || &here >= lo + co->stack.size
           : plugin_resume_frame && &here < plugin_resume_frame &&
                 &here > plugin_resume_frame - 65536)
        plugin_broke(co, lo ? "declares family stackful but ran a coroutine outside the stack "
                              "corobench gave it"
                            : "declares family stackful but ran a coroutine on its resumer's "
                              "stack");
    uintptr_t r = co->fn(co->arg, first);
    co->state = CO_DONE;
    return r;
}

static cb_co *plugin_create(cb_co *co, size_t stack_size, cb_stack_mode mode, size_t top_offset)
{
    const cb_co_backend *be = co->be;
    const cb_plugin *pl = be->plugin;
    if (!pl->owns_stacks && cb_stack_alloc(&co->stack, stack_size, mode) != 0) {
        int e = errno;
        cb_rt_free(co, cb_co_control_bytes(be));
        errno = e;
        return NULL;
    }
    void *h = pl->create(plugin_entry, co, pl->owns_stacks ? NULL : co->stack.lo,
                         pl->owns_stacks ? stack_size : co->stack.size - top_offset);
    if (!h) {
        int e = errno ? errno : ENOMEM;
        if (!pl->owns_stacks)
            cb_stack_free(&co->stack);
        cb_rt_free(co, cb_co_control_bytes(be));
        errno = e;
        return NULL;
    }
    *plugin_handle(co) = h;
    return co;
}

static uintptr_t plugin_resume(cb_co *co, uintptr_t val)
{
    if (co->state != CO_SUSPENDED)
        cb_co_misuse_("resume of a coroutine that is running or finished");
    const cb_plugin *pl = co->be->plugin;
    cb_co *self = cb_co_current_;
    char here;
    co->resumer = self;
    co->state = CO_RUNNING;
    cb_co_current_ = co;
    plugin_resume_frame = &here;
    uintptr_t r = pl->resume(*plugin_handle(co), val);
    cb_co_current_ = self;
    int done = pl->done(*plugin_handle(co)) != 0;
    if (done != (co->state == CO_DONE))
        plugin_broke(co, done ? "done() says 1 for a coroutine whose function has not returned"
                              : "done() says 0 for a coroutine whose function has returned");
    if (!done && co->state != CO_SUSPENDED)
        plugin_broke(co, "resume() returned while the coroutine neither yielded nor finished");
    return r;
}

cb_co *cb_co_create(const cb_co_cfg *cfg, cb_co_fn fn, void *arg)
{
    return cb_co_create_at(cfg, fn, arg, 0);
}

cb_co *cb_co_create_at(const cb_co_cfg *cfg, cb_co_fn fn, void *arg, size_t top_offset)
{
    const cb_co_backend *be = cfg->be;
    size_t stack_size = cfg->stack_size;
    if (!handler_installed)
        install_handler();
    if (be->ctx_size > sizeof cb_co_main_.ctx || top_offset % 64 || top_offset >= stack_size) {
        errno = EINVAL;
        return NULL;
    }
    cb_co *co = cb_rt_alloc(cb_co_control_bytes(be));
    memset(co, 0, sizeof *co);
    co->be = be;
    co->fn = fn;
    co->arg = arg;
    co->state = CO_SUSPENDED;
    if (be->plugin)
        return plugin_create(co, stack_size, cfg->stack_mode, top_offset);
    if ((be->share_stack ? be->share_stack(&co->stack, stack_size, cfg->stack_mode)
                         : cb_stack_alloc(&co->stack, stack_size, cfg->stack_mode)) != 0) {
        int e = errno;
        cb_rt_free(co, cb_co_control_bytes(be));
        errno = e;
        return NULL;
    }
    if (!be->create) {
        be->make(co->ctx, co->stack.lo, co->stack.size - top_offset, co);
        return co;
    }
    if (be->create(co->ctx, co->stack.lo, co->stack.size - top_offset, co) != 0) {
        int e = errno;
        if (be->unshare_stack)
            be->unshare_stack(&co->stack);
        else
            cb_stack_free(&co->stack);
        cb_rt_free(co, cb_co_control_bytes(be));
        errno = e;
        return NULL;
    }
    return co;
}

void cb_co_misuse_(const char *what)
{
    fprintf(stderr, "corobench: coroutine layer: %s\n", what);
    abort();
}


#if CB_ASAN
/* The side that made this thread's last jump through this file: a worker of the scheduler that
 * enters a stackful task's carrier (impls/tasks.c) for the first time never set it, and must not
 * take the main thread's. */
static __thread cb_co *switched_from;

/* On arrival: close the switch and, coming from the thread's own stack, learn its bounds. */
static void asan_arrived(void *fake_stack)
{
    const void *bottom;
    size_t size;
    __sanitizer_finish_switch_fiber(fake_stack, &bottom, &size);
    if (switched_from == &cb_co_main_.co) {
        cb_co_main_.co.asan_bottom = bottom;
        cb_co_main_.co.asan_size = size;
    }
}

/* The same for a switch inlined at its call site (coro_inline.h). */
void cb_co_asan_start_(cb_co *self, cb_co *to, int self_done)
{
    int main = to == &cb_co_main_.co;
    switched_from = self;
    __sanitizer_start_switch_fiber(self_done ? NULL : &self->asan_fake_stack,
                                   main ? to->asan_bottom : to->stack.lo,
                                   main ? to->asan_size : to->stack.size);
}

void cb_co_asan_finish_(cb_co *self) { asan_arrived(self->asan_fake_stack); }
#endif

/* Every switch goes through here: `cb_co_current_` is set before the jump, by the side that
 * jumps. */
static inline __attribute__((always_inline)) uintptr_t switch_to(const cb_co_backend *be,
                                                                 cb_co *self, cb_co *to,
                                                                 uintptr_t val, int self_done)
{
    cb_co_current_ = to;
#if CB_ASAN
    if (be->own_thread)
        return be->jump(self->ctx, to->ctx, val);
    int main = to == &cb_co_main_.co;
    switched_from = self;
    __sanitizer_start_switch_fiber(self_done ? NULL : &self->asan_fake_stack,
                                   main ? to->asan_bottom : to->stack.lo,
                                   main ? to->asan_size : to->stack.size);
    uintptr_t r = be->jump(self->ctx, to->ctx, val);
    asan_arrived(self->asan_fake_stack);
    return r;
#else
    (void)self_done;
    return be->jump(self->ctx, to->ctx, val);
#endif
}

uintptr_t cb_co_resume(cb_co *co, uintptr_t val)
{
    if (co->be->plugin)
        return plugin_resume(co, val);
    cb_co *self = cb_co_before_resume_(co);
    return switch_to(co->be, self, co, val, 0);
}

uintptr_t cb_co_yield(uintptr_t val)
{
    cb_co *self = cb_co_before_yield_();
    if (self->be->plugin) {
        cb_co_current_ = self->resumer;
        return self->be->plugin->yield(val); /* resumed: plugin_resume set the current one */
    }
    return switch_to(self->be, self, self->resumer, val, 0);
}

uintptr_t cb_co_transfer(cb_co *to, uintptr_t val)
{
    cb_co *self = cb_co_before_transfer_(to);
    if (self->be->plugin) /* the workloads' needs keep a plugin's cells from asking */
        cb_co_misuse_("transfer between a plugin's coroutines (its interface has resume and "
                      "yield)");
    return switch_to(self->be, self, to, val, 0);
}

void cb_co_entry_(cb_co *co, uintptr_t val)
{
#if CB_ASAN
    if (!co->be->own_thread)
        asan_arrived(NULL);
#endif
    uintptr_t r = co->fn(co->arg, val);
    co->state = CO_DONE;
    switch_to(co->be, co, co->resumer, r, 1);
    cb_co_misuse_("a finished coroutine was resumed");
    abort();
}

void cb_co_destroy(cb_co *co)
{
    if (!co)
        return;
    if (co == cb_co_current_)
        cb_co_misuse_("destroy of the running coroutine");
    if (co->be->plugin) {
        co->be->plugin->destroy(*plugin_handle(co));
        if (!co->be->plugin->owns_stacks && cb_stack_free(&co->stack) != 0)
            report_overflow(co, " detected by canary at destroy");
        cb_rt_free(co, cb_co_control_bytes(co->be));
        return;
    }
    if (co->be->release)
        co->be->release(co->ctx);
#if CB_ASAN
    /* A coroutine that ends inside a frame with poisoned locals (fcontext's jump, a suspended
     * one) leaves that poison on its stack; the pool's next user must start clean. */
    if (!co->be->share_stack)
        __asan_unpoison_memory_region(co->stack.lo, co->stack.size);
#endif
    cb_stack s = co->stack;
    if ((co->be->unshare_stack ? co->be->unshare_stack(&co->stack) : cb_stack_free(&co->stack)) !=
        0) {
        co->stack = s;
        report_overflow(co, " detected by canary at destroy");
    }
    cb_rt_free(co, cb_co_control_bytes(co->be));
}

void *cb_co_context(cb_co *co) { return co ? co->ctx : cb_co_main_.co.ctx; }

int cb_co_done(const cb_co *co) { return co->state == CO_DONE; }

int cb_co_inside(void) { return cb_co_current_ != &cb_co_main_.co; }

const char *cb_co_name(const cb_co *co) { return co->be->name; }
