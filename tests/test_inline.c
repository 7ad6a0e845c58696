/* ABI tests of the inline switch (impls/asm/<arch>/switch_inline.h), compiled here as the
 * workloads' twins are, with the coroutine verbs inlined at their call sites (CB_CO_INLINE): the
 * callee-saved registers, set to known values in assembly, hold across switches, both inside the
 * function that switches and for its caller; with fpu=1 MXCSR and the x87 control word stay per
 * coroutine (with fpu=0 they leak, the control that shows the test can tell); a signal delivered
 * over and over during a switch-heavy loop changes no result. Natively and under qemu-aarch64;
 * make check also runs them under ASan's fiber API and valgrind. */
#define CB_CO_INLINE 1

#include <signal.h>
#include <sys/time.h>
#include <valgrind/valgrind.h>

#include "impls/coro.h"
#include "impls/impls.h"
#include "tests/test.h"
#include "workloads/run_once.h"

static const cb_co_backend *inline_backend(void)
{
    const cb_impl *im = cb_impl_find("inline");
    if (!im)
        CB_FAIL("no implementation named inline");
    return cb_test_backend(im);
}

enum { ROUNDS = 1000 };

static cb_co *reg_co;

/* One inline switch: side 1 is the coroutine, side 0 main. */
static inline __attribute__((always_inline)) void switch_once(int side, uintptr_t v)
{
    if (side)
        cb_co_yield(v);
    else
        cb_co_resume(reg_co, v);
}

/* The callee-saved registers of the ABI, in the order the helpers below load and store them:
 * x86-64 rbx, rbp, r12-r15; AArch64 x19-x28, x29, d8-d15 (as integers). */
#if defined(__x86_64__)
enum { NREGS = 6 };
static const char *const reg_names[NREGS] = {"rbx", "rbp", "r12", "r13", "r14", "r15"};

/* uint64_t with_regs(fn, arg, in[NREGS], out[NREGS]): loads in[] into the callee-saved
 * registers, calls fn(arg), stores what they hold after it into out[]; its own caller's values
 * are saved and restored around that. */
uint64_t cb_test_with_regs(uint64_t (*fn)(void *), void *arg, const uint64_t *in, uint64_t *out);
__asm__(".text\n\t"
        ".globl cb_test_with_regs\n\t"
        ".type cb_test_with_regs, @function\n"
        "cb_test_with_regs:\n\t"
        "pushq %rbx\n\t"
        "pushq %rbp\n\t"
        "pushq %r12\n\t"
        "pushq %r13\n\t"
        "pushq %r14\n\t"
        "pushq %r15\n\t"
        "pushq %rcx\n\t" /* out; rsp is now 16-byte aligned for the call */
        "movq 0(%rdx), %rbx\n\t"
        "movq 8(%rdx), %rbp\n\t"
        "movq 16(%rdx), %r12\n\t"
        "movq 24(%rdx), %r13\n\t"
        "movq 32(%rdx), %r14\n\t"
        "movq 40(%rdx), %r15\n\t"
        "movq %rdi, %rax\n\t"
        "movq %rsi, %rdi\n\t"
        "call *%rax\n\t"
        "popq %rcx\n\t"
        "movq %rbx, 0(%rcx)\n\t"
        "movq %rbp, 8(%rcx)\n\t"
        "movq %r12, 16(%rcx)\n\t"
        "movq %r13, 24(%rcx)\n\t"
        "movq %r14, 32(%rcx)\n\t"
        "movq %r15, 40(%rcx)\n\t"
        "popq %r15\n\t"
        "popq %r14\n\t"
        "popq %r13\n\t"
        "popq %r12\n\t"
        "popq %rbp\n\t"
        "popq %rbx\n\t"
        "ret\n\t"
        ".size cb_test_with_regs, .-cb_test_with_regs");

#elif defined(__aarch64__)
enum { NREGS = 19 };
static const char *const reg_names[NREGS] = {"x19", "x20", "x21", "x22", "x23", "x24", "x25",
                                             "x26", "x27", "x28", "x29", "d8",  "d9",  "d10",
                                             "d11", "d12", "d13", "d14", "d15"};

uint64_t cb_test_with_regs(uint64_t (*fn)(void *), void *arg, const uint64_t *in, uint64_t *out);
__asm__(".text\n\t"
        ".globl cb_test_with_regs\n\t"
        ".type cb_test_with_regs, %function\n"
        "cb_test_with_regs:\n\t"
        "stp x29, x30, [sp, #-176]!\n\t"
        "stp x19, x20, [sp, #16]\n\t"
        "stp x21, x22, [sp, #32]\n\t"
        "stp x23, x24, [sp, #48]\n\t"
        "stp x25, x26, [sp, #64]\n\t"
        "stp x27, x28, [sp, #80]\n\t"
        "stp d8, d9, [sp, #96]\n\t"
        "stp d10, d11, [sp, #112]\n\t"
        "stp d12, d13, [sp, #128]\n\t"
        "stp d14, d15, [sp, #144]\n\t"
        "str x3, [sp, #160]\n\t" /* out */
        "ldp x19, x20, [x2, #0]\n\t"
        "ldp x21, x22, [x2, #16]\n\t"
        "ldp x23, x24, [x2, #32]\n\t"
        "ldp x25, x26, [x2, #48]\n\t"
        "ldp x27, x28, [x2, #64]\n\t"
        "ldr x29, [x2, #80]\n\t"
        "ldp d8, d9, [x2, #88]\n\t"
        "ldp d10, d11, [x2, #104]\n\t"
        "ldp d12, d13, [x2, #120]\n\t"
        "ldp d14, d15, [x2, #136]\n\t"
        "mov x4, x0\n\t"
        "mov x0, x1\n\t"
        "blr x4\n\t"
        "ldr x3, [sp, #160]\n\t"
        "stp x19, x20, [x3, #0]\n\t"
        "stp x21, x22, [x3, #16]\n\t"
        "stp x23, x24, [x3, #32]\n\t"
        "stp x25, x26, [x3, #48]\n\t"
        "stp x27, x28, [x3, #64]\n\t"
        "str x29, [x3, #80]\n\t"
        "stp d8, d9, [x3, #88]\n\t"
        "stp d10, d11, [x3, #104]\n\t"
        "stp d12, d13, [x3, #120]\n\t"
        "stp d14, d15, [x3, #136]\n\t"
        "ldp x19, x20, [sp, #16]\n\t"
        "ldp x21, x22, [sp, #32]\n\t"
        "ldp x23, x24, [sp, #48]\n\t"
        "ldp x25, x26, [sp, #64]\n\t"
        "ldp x27, x28, [sp, #80]\n\t"
        "ldp d8, d9, [sp, #96]\n\t"
        "ldp d10, d11, [sp, #112]\n\t"
        "ldp d12, d13, [sp, #128]\n\t"
        "ldp d14, d15, [sp, #144]\n\t"
        "ldp x29, x30, [sp], #176\n\t"
        "ret\n\t"
        ".size cb_test_with_regs, .-cb_test_with_regs");

#else
#error "tests/test_inline.c: no register test for this architecture"
#endif

/* Inside one function: NPIN values live across an inline switch, more than the registers the
 * block leaves alone, made opaque by an empty asm so that the compiler cannot recompute them.
 * It must keep each in a register the other side cannot change, or spill it; a register missing
 * from the block's clobbers would come back holding the other side's value. */
enum { NPIN = 8 };
static void pinned_across(int side, uint64_t base, uint64_t got[NPIN])
{
    uint64_t v0 = base, v1 = base + 1, v2 = base + 2, v3 = base + 3, v4 = base + 4, v5 = base + 5,
             v6 = base + 6, v7 = base + 7;
    __asm__ volatile(""
                     : "+r"(v0), "+r"(v1), "+r"(v2), "+r"(v3), "+r"(v4), "+r"(v5), "+r"(v6),
                       "+r"(v7));
    switch_once(side, base);
    __asm__ volatile(""
                     : "+r"(v0), "+r"(v1), "+r"(v2), "+r"(v3), "+r"(v4), "+r"(v5), "+r"(v6),
                       "+r"(v7));
    uint64_t v[NPIN] = {v0, v1, v2, v3, v4, v5, v6, v7};
    for (int k = 0; k < NPIN; k++)
        got[k] = v[k];
}

static uint64_t reg_value(int side, int i)
{
    return 0x5a5a000000000000ULL | (uint64_t)side << 32 | (uint64_t)(i + 1) * 0x1111;
}

/* ROUNDS switches, each with known values pinned in registers across it. */
typedef struct reg_run {
    int side;
    int bad; /* pinned values that came back wrong */
} reg_run;

static __attribute__((noinline)) uint64_t switch_rounds(void *arg)
{
    reg_run *r = arg;
    for (int i = 0; i < ROUNDS; i++) {
        uint64_t base = 0x7700000000000000ULL | (uint64_t)r->side << 40 | (uint64_t)i << 8;
        uint64_t got[NPIN];
        pinned_across(r->side, base, got);
        for (int k = 0; k < NPIN; k++)
            r->bad += got[k] != base + (uint64_t)k;
    }
    return 0;
}

static void check_regs(const char *who, const uint64_t *in, const uint64_t *out)
{
    for (int i = 0; i < NREGS; i++)
        if (in[i] != out[i])
            CB_FAIL("%s: %s was 0x%016" PRIx64 " before its inline switches, 0x%016" PRIx64
                    " after",
                    who, reg_names[i], in[i], out[i]);
}

static reg_run co_run;

static uintptr_t reg_fn(void *arg, uintptr_t first)
{
    (void)arg, (void)first;
    uint64_t in[NREGS], out[NREGS];
    for (int i = 0; i < NREGS; i++)
        in[i] = reg_value(1, i);
    cb_test_with_regs(switch_rounds, &co_run, in, out);
    check_regs("coroutine", in, out);
    return 0;
}

/* Both sides switch ROUNDS times from a function whose caller set every callee-saved register to
 * a known value in assembly: those must be intact when it returns (its prologue saved what the
 * block clobbers), and values pinned in registers across each switch must come back. */
CB_TEST(inline_callee_saved_hold)
{
    for (int fpu = 1; fpu >= 0; fpu--) {
        const cb_co_backend *be = fpu ? inline_backend() : inline_backend()->nofpu;
        co_run = (reg_run){1, 0};
        reg_run main_run = {0, 0};
        reg_co = cb_co_create(&(cb_co_cfg){be, CB_CO_DEFAULT_STACK, CB_STACK_AUTO}, reg_fn, NULL);
        CB_CHECK(reg_co != NULL);
        uint64_t in[NREGS], out[NREGS];
        for (int i = 0; i < NREGS; i++)
            in[i] = reg_value(0, i);
        cb_test_with_regs(switch_rounds, &main_run, in, out);
        check_regs("main", in, out);
        cb_co_resume(reg_co, 0); /* the coroutine checks its own and finishes */
        CB_CHECK_EQ_INT(cb_co_done(reg_co), 1);
        CB_CHECK_EQ_INT(main_run.bad, 0);
        CB_CHECK_EQ_INT(co_run.bad, 0);
        cb_co_destroy(reg_co);
    }
}

#if defined(__x86_64__)
/* The FP control state, set and read in assembly: MXCSR's rounding control (bits 13-14) and the
 * x87 control word's (bits 10-11). */
static void set_fpctl(uint32_t mxcsr, uint16_t cw)
{
    __asm__ volatile("ldmxcsr %0\n\t"
                     "fldcw %1"
                     :
                     : "m"(mxcsr), "m"(cw));
}

static void get_fpctl(uint32_t *mxcsr, uint16_t *cw)
{
    __asm__ volatile("stmxcsr %0\n\t"
                     "fnstcw %1"
                     : "=m"(*mxcsr), "=m"(*cw));
}

enum { MXCSR_NEAREST = 0x1f80, MXCSR_UP = 0x5f80, CW_NEAREST = 0x037f, CW_UP = 0x0b7f };

static int fp_leaks; /* main saw the coroutine's state after a switch */

static uintptr_t fpctl_fn(void *arg, uintptr_t first)
{
    (void)arg, (void)first;
    set_fpctl(MXCSR_UP, CW_UP);
    for (int i = 0; i < 100; i++) {
        cb_co_yield(0);
        uint32_t m;
        uint16_t c;
        get_fpctl(&m, &c);
        if (m != MXCSR_UP || c != CW_UP)
            set_fpctl(MXCSR_UP, CW_UP); /* fpu=0: main's state leaked in; take ours back */
    }
    return 0;
}

/* fpu=1: each side keeps the MXCSR and x87 control word it set; fpu=0: the coroutine's leak to
 * main, as docs/switch.md says (which shows the check can fail). */
CB_TEST(inline_fp_control_per_coroutine)
{
    if (RUNNING_ON_VALGRIND)
        CB_SKIP("under valgrind, which does not emulate a rounding mode other than to-nearest");
    for (int fpu = 1; fpu >= 0; fpu--) {
        const cb_co_backend *be = fpu ? inline_backend() : inline_backend()->nofpu;
        set_fpctl(MXCSR_NEAREST, CW_NEAREST);
        cb_co *co = cb_co_create(&(cb_co_cfg){be, CB_CO_DEFAULT_STACK, CB_STACK_AUTO}, fpctl_fn,
                                 NULL);
        CB_CHECK(co != NULL);
        fp_leaks = 0;
        while (!cb_co_done(co)) {
            cb_co_resume(co, 0);
            uint32_t m;
            uint16_t c;
            get_fpctl(&m, &c);
            if (m != MXCSR_NEAREST || c != CW_NEAREST) {
                fp_leaks++;
                set_fpctl(MXCSR_NEAREST, CW_NEAREST);
            }
        }
        cb_co_destroy(co);
        if (fpu)
            CB_CHECK_EQ_INT(fp_leaks, 0);
        else
            CB_CHECK(fp_leaks > 0);
    }
    set_fpctl(MXCSR_NEAREST, CW_NEAREST);
}
#endif

/* ---- a signal during a switch-heavy loop ----------------------------------------------------- */

static volatile sig_atomic_t signals, rearm;

/* The next SIGALRM, 20 µs after this handler ends: a one-shot timer armed again by the handler,
 * not a periodic one. Under qemu-user a delivered signal costs more than 20 µs, and a periodic
 * 20 µs timer left the loop no time between handlers (the test ran out its 120 s on a Zen 5 VM,
 * before and after this change's commit); this way the loop always gets 20 µs between two. */
static const struct itimerval next_alarm = {{0, 0}, {0, 20}};

/* Uses the stack below the interrupted code's (past its red zone, as the kernel places the
 * frame), every caller-saved register and the FP unit; then returns into the loop. */
static void busy_handler(int sig)
{
    (void)sig;
    volatile uint64_t scratch[256];
    volatile double f = 1.0;
    for (int i = 0; i < 256; i++) {
        scratch[i] = (uint64_t)i * 0x9e3779b97f4a7c15ULL;
        f = f * 1.0001 + (double)scratch[i];
    }
    signals = signals + 1;
    if (rearm)
        setitimer(ITIMER_REAL, &next_alarm, NULL); /* a system call, safe in a handler */
}

/* pingpong's inline twin (its stackful body with the switch inlined, workloads/workloads.c) run
 * with SIGALRM 20 µs after each handler ends, and without: the same checksum and suspensions, and no crash. */
CB_TEST(inline_signal_during_switches)
{
    const cb_impl *im = cb_impl_find("inline"), *ref = cb_impl_find("asm");
    const cb_workload *wl = cb_workload_find("pingpong");
    CB_CHECK(im && ref && wl);
    static const char *const depths[] = {"depth=0", "depth=3"};
    for (size_t d = 0; d < 2; d++) {
        const char *set[] = {depths[d], "switches=300000", NULL};
        cb_params p;
        cb_test_params(wl, ref, set, &p);
        char err[512];
        cb_wl_once want, got;
        CB_CHECK(cb_wl_run_once(wl, ref, &p, NULL, &want, err, sizeof err) == 0);
        cb_test_params(wl, im, set, &p);
        struct sigaction sa = {.sa_handler = busy_handler, .sa_flags = SA_RESTART};
        sigemptyset(&sa.sa_mask);
        CB_CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
        signals = 0;
        rearm = 1;
        CB_CHECK(setitimer(ITIMER_REAL, &next_alarm, NULL) == 0);
        int rc = cb_wl_run_once(wl, im, &p, NULL, &got, err, sizeof err);
        rearm = 0;
        struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_REAL, &off, NULL);
        signal(SIGALRM, SIG_IGN); /* one still pending (valgrind delivers late) must not kill */
        CB_CHECK(rc == 0);
        CB_CHECK_EQ_U64(got.res.checksum, want.res.checksum);
        CB_CHECK_EQ_U64(got.suspensions, want.suspensions);
        if (signals == 0)
            CB_FAIL("no SIGALRM arrived during %s (the run was too short to test anything)",
                    depths[d]);
    }
}

/* Every workload with a stackful body has its inline twin (the Makefile's INLINE_WL, listed in
 * workloads/workloads.c), and the inline implementation runs the twin's stackful body. */
CB_TEST(inline_twin_per_workload)
{
    const cb_impl *im = cb_impl_find("inline");
    CB_CHECK(im != NULL);
    for (size_t i = 0; i < cb_nworkloads; i++) {
        const cb_workload *wl = cb_workloads[i], *twin = cb_workload_inline_twin(wl);
        const cb_family_ops *sf = &wl->family[CB_BODY_STACKFUL];
        if (!sf->setup)
            continue;
        if (!twin)
            CB_FAIL("%s has a stackful body but no inline twin (add it to the Makefile's "
                    "INLINE_WL and to workloads/workloads.c)",
                    wl->name);
        CB_CHECK(twin != wl);
        CB_CHECK(cb_wl_family(wl, im) == &twin->family[CB_BODY_STACKFUL]);
        CB_CHECK(twin->family[CB_BODY_STACKFUL].run != sf->run);
    }
}
