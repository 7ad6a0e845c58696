/* Unit tests of the runtimes: the stackful layer over every switch backend (order, values, symmetric
 * transfer, 10,000 live coroutines, callee-saved registers, FP rounding mode, destroy, overflow
 * reports, stack modes) and the stackless sm and closure runtimes (order, suspension counts,
 * frames freed). Portable C: the same file runs natively and under qemu-aarch64. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>

#include "impls/closure.h"
#include "impls/hook.h"
#include "impls/impls.h"
#include "impls/sm.h"
#include "impls/thread.h"
#include "tests/test.h"

/* What the hand-written switches (asm, asmjmp: impls/asm/<arch>/switch_*.S; inline:
 * switch_inline.h) promise about the FP rounding mode: x86-64 keeps MXCSR and the x87 control
 * word per coroutine; AArch64 leaves FPCR shared, as AAPCS64 makes it thread-global state. */
#if defined(__x86_64__)
#define CORO_ASM_KEEPS_ROUNDING 1
#elif defined(__aarch64__)
#define CORO_ASM_KEEPS_ROUNDING 0
#else
#error "tests/test_coro.c: say whether this architecture's asm switch saves the FP rounding mode"
#endif

/* The backend of a stackful implementation; skips the test where it is unsupported. */
static const cb_co_backend *backend(const char *name)
{
    const cb_impl *impl = cb_impl_find(name);
    if (!impl)
        CB_FAIL("no implementation named %s", name);
    return cb_test_backend(impl);
}

/* Registers body(backend) once per stackful backend, as body_asm, body_asmjmp, body_ucontext. */
/* test.h has no "differ" check; this one prints the value both sides share. */
#define CHECK_NE_U64(a, b)                                                                     \
    do {                                                                                       \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                       \
        if (a_ == b_)                                                                          \
            CB_FAIL("%s != %s: both are %" PRIu64 " (0x%" PRIx64 ")", #a, #b, a_, a_);         \
    } while (0)

static cb_co *create_in(const cb_co_backend *be, cb_co_fn fn, void *arg, size_t stack,
                        cb_stack_mode mode)
{
    cb_co *co = cb_co_create(&(cb_co_cfg){be, stack, mode}, fn, arg);
    if (!co)
        CB_FAIL("cb_co_create(%s, stack=%zu): %s", be->name, stack, strerror(errno));
    return co;
}

static cb_co *create(const cb_co_backend *be, cb_co_fn fn, void *arg, size_t stack)
{
    return create_in(be, fn, arg, stack, CB_STACK_AUTO);
}

static uint64_t stacks_live(void)
{
    return cb_stack_stat.guarded_live + cb_stack_stat.chunked_live;
}

/* Events in the order they happened, one letter each. */
static char trace[64];
static size_t ntrace;

static void mark(char c)
{
    if (ntrace + 1 < sizeof trace)
        trace[ntrace++] = c;
}

/* ---- stackful: order, values, transfer, nesting ---------------------------------------------- */

static uintptr_t order_fn(void *arg, uintptr_t first)
{
    (void)arg, (void)first;
    mark('b');
    cb_co_yield(0);
    mark('d');
    cb_co_yield(0);
    mark('f');
    return 0;
}

static void coro_order(const cb_co_backend *be)
{
    uint64_t s0 = cb_rt.suspensions;
    cb_co *co = create(be, order_fn, NULL, CB_CO_DEFAULT_STACK);
    CB_CHECK_STREQ(cb_co_name(co), be->name);
    mark('a');
    cb_co_resume(co, 0);
    mark('c');
    CB_CHECK_EQ_INT(cb_co_done(co), 0);
    cb_co_resume(co, 0);
    mark('e');
    cb_co_resume(co, 0);
    mark('g');
    CB_CHECK_EQ_INT(cb_co_done(co), 1);
    CB_CHECK_STREQ(trace, "abcdefg");
    CB_CHECK_EQ_U64(cb_rt.suspensions - s0, 2); /* yields count, completion does not */
    cb_co_destroy(co);
}
CB_TEST_PER_BACKEND(coro_order)

/* A fresh coroutine runs on its own stack, near the top, with the 16-byte alignment both ABIs
 * require at a call (a frame address is 16-byte aligned when the stack was at entry). */
static uintptr_t where_fn(void *arg, uintptr_t self)
{
    (void)arg;
    const cb_stack *st = cb_co_stack((cb_co *)self);
    uintptr_t fa = (uintptr_t)__builtin_frame_address(0), lo = (uintptr_t)st->lo;
    /* A thread's stack top holds its signal stack, then glibc's thread descriptor and TLS. */
    uintptr_t near = arg ? CB_TH_ALT_STACK + 8192 : 4096;
    CB_CHECK_EQ_U64(fa % 16, 0);
    if (fa <= lo || lo + st->size - fa >= near)
        CB_FAIL("frame at %#jx, want within %ju bytes below the top of [%#jx, %#jx)",
                (uintmax_t)fa, (uintmax_t)near, (uintmax_t)lo, (uintmax_t)(lo + st->size));
    return fa;
}

static void coro_fresh_stack(const cb_co_backend *be)
{
    cb_co *co = create(be, where_fn, be->own_thread ? (void *)1 : NULL, CB_CO_DEFAULT_STACK);
    cb_co_resume(co, (uintptr_t)co);
    CB_CHECK_EQ_INT(cb_co_done(co), 1);
    cb_co_destroy(co);
}
CB_TEST_PER_BACKEND(coro_fresh_stack)

/* cb_co_create_at: the first frame starts top_offset bytes lower; the stack is the same size. */
static void coro_stack_offset(const cb_co_backend *be)
{
    enum { OFF = 2048 };
    if (be->own_thread)
        CB_SKIP("%s: a thread's first frame sits below its signal stack and glibc's thread "
                "descriptor, not at an offset the layer chooses", be->name);
    const cb_co_cfg cfg = {be, CB_CO_DEFAULT_STACK, CB_STACK_AUTO};
    cb_co *co = cb_co_create_at(&cfg, where_fn, NULL, OFF);
    CB_CHECK(co != NULL);
    const cb_stack *st = cb_co_stack(co);
    CB_CHECK_EQ_U64(st->size, CB_CO_DEFAULT_STACK);
    uintptr_t top = (uintptr_t)st->lo + st->size;
    uintptr_t fa = cb_co_resume(co, (uintptr_t)co);
    if (fa > top - OFF || fa < top - OFF - 1024)
        CB_FAIL("frame at %#jx, want within 1 KiB below top - %d = %#jx", (uintmax_t)fa, OFF,
                (uintmax_t)(top - OFF));
    cb_co_destroy(co);
    CB_CHECK(cb_co_create_at(&cfg, where_fn, NULL, 100) == NULL);
}
CB_TEST_PER_BACKEND(coro_stack_offset)

/* Every value is a full 64-bit word, so a switch that truncated to 32 bits would show. */
#define VAL(i) (0xfedcba9876543210u ^ ((uint64_t)(i) * 0x9e3779b97f4a7c15u))
enum { ECHO_ROUNDS = 8 };

static uintptr_t echo_fn(void *arg, uintptr_t v)
{
    uintptr_t k = (uintptr_t)arg;
    for (int i = 0; i < ECHO_ROUNDS; i++)
        v = cb_co_yield(v * 3 + k);
    return ~v;
}

static void coro_values(const cb_co_backend *be)
{
    uintptr_t k = 0x0123456789abcdefu;
    cb_co *co = create(be, echo_fn, (void *)k, CB_CO_DEFAULT_STACK);
    for (int i = 0; i < ECHO_ROUNDS; i++)
        CB_CHECK_EQ_U64(cb_co_resume(co, VAL(i)), VAL(i) * 3 + k);
    CB_CHECK_EQ_U64(cb_co_resume(co, VAL(99)), ~VAL(99));
    CB_CHECK_EQ_INT(cb_co_done(co), 1);
    cb_co_destroy(co);
}
CB_TEST_PER_BACKEND(coro_values)

/* A and B hand a counter to each other with cb_co_transfer: A sees the even values, B the odd
 * ones. The side that reaches HOPS finishes to main (the resumer both inherited). */
enum { HOPS = 1000 };
static cb_co *hop_peer[2];

static uintptr_t hop_fn(void *arg, uintptr_t v)
{
    uintptr_t me = (uintptr_t)arg, want = me;
    while (v < HOPS) {
        CB_CHECK_EQ_U64(v, want);
        want = v + 2;
        v = cb_co_transfer(hop_peer[!me], v + 1);
    }
    return v * 10 + me;
}

static void coro_transfer(const cb_co_backend *be)
{
    uint64_t s0 = cb_rt.suspensions;
    for (uintptr_t i = 0; i < 2; i++)
        hop_peer[i] = create(be, hop_fn, (void *)i, CB_CO_DEFAULT_STACK);
    CB_CHECK_EQ_U64(cb_co_resume(hop_peer[0], 0), HOPS * 10 + 0); /* A received HOPS */
    CB_CHECK_EQ_INT(cb_co_done(hop_peer[0]), 1);
    CB_CHECK_EQ_INT(cb_co_done(hop_peer[1]), 0);
    CB_CHECK_EQ_U64(cb_rt.suspensions - s0, HOPS); /* one per transfer */
    /* B is suspended inside its last transfer; main resumes it there. */
    CB_CHECK_EQ_U64(cb_co_resume(hop_peer[1], VAL(7)), VAL(7) * 10 + 1);
    CB_CHECK_EQ_INT(cb_co_done(hop_peer[1]), 1);
    cb_co_destroy(hop_peer[0]);
    cb_co_destroy(hop_peer[1]);
}
CB_TEST_PER_BACKEND(coro_transfer)

/* A coroutine resuming another: the inner one's yield returns to the outer, not to main. */
static const cb_co_backend *nest_be;

static uintptr_t inner_fn(void *arg, uintptr_t first)
{
    (void)arg;
    mark('c');
    uintptr_t v = cb_co_yield(first + 1);
    mark('e');
    return v + 1;
}

static uintptr_t outer_fn(void *arg, uintptr_t first)
{
    (void)arg;
    mark('b');
    cb_co *in = create(nest_be, inner_fn, NULL, CB_CO_DEFAULT_STACK);
    uintptr_t v = cb_co_resume(in, first + 1);
    mark('d');
    v = cb_co_yield(v + 1);
    v = cb_co_resume(in, v + 1);
    mark('f');
    CB_CHECK_EQ_INT(cb_co_done(in), 1);
    cb_co_destroy(in);
    return v + 1;
}

static void coro_nested(const cb_co_backend *be)
{
    nest_be = be;
    cb_co *out = create(be, outer_fn, NULL, CB_CO_DEFAULT_STACK);
    mark('a');
    CB_CHECK_EQ_U64(cb_co_resume(out, 100), 103);
    CB_CHECK_EQ_U64(cb_co_resume(out, 200), 203);
    mark('g');
    CB_CHECK_STREQ(trace, "abcdefg");
    cb_co_destroy(out);
}
CB_TEST_PER_BACKEND(coro_nested)

/* ---- stackful: many alive at once -------------------------------------------------------------- */

enum { MANY = 10000 };

static uintptr_t many_fn(void *arg, uintptr_t first)
{
    uintptr_t i = (uintptr_t)arg;
    uintptr_t second = cb_co_yield(first * 2 + i);
    return second ^ (i << 20);
}

static void coro_many(const cb_co_backend *be)
{
    char why[512];
    if (be->own_thread && cb_thread_limit(why, sizeof why) < MANY)
        CB_SKIP("%s: %d threads do not fit: this machine allows %s", be->name, MANY, why);
    uint64_t heap0 = cb_rt.heap_live_bytes, live0 = stacks_live();
    cb_co **co = malloc(MANY * sizeof *co);
    CB_CHECK(co != NULL);
    for (uintptr_t i = 0; i < MANY; i++)
        co[i] = create(be, many_fn, (void *)i, CB_CO_DEFAULT_STACK);
    for (uintptr_t i = 0; i < MANY; i++)
        CB_CHECK_EQ_U64(cb_co_resume(co[i], VAL(i)), VAL(i) * 2 + i);
    /* All suspended at once, each on a stack of its own, or all on the one shared stack (and
     * the copier's). */
    CB_CHECK_EQ_U64(stacks_live() - live0, be->share_stack ? 2 : MANY);
    for (uintptr_t i = 0; i < MANY; i++) {
        CB_CHECK_EQ_U64(cb_co_resume(co[i], i * 3), (i * 3) ^ (i << 20));
        CB_CHECK_EQ_INT(cb_co_done(co[i]), 1);
    }
    for (uintptr_t i = 0; i < MANY; i++)
        cb_co_destroy(co[i]);
    free(co);
    CB_CHECK_EQ_U64(cb_rt.heap_live_bytes, heap0);
    CB_CHECK_EQ_U64(stacks_live(), live0);
}
CB_TEST_PER_BACKEND(coro_many)

/* ---- stackful: callee-saved registers ---------------------------------------------------------- */

/* Without inline asm: reg_work keeps more integers and doubles live across each switch than
 * there are callee-saved registers (x86-64: rbx, rbp, r12-r15; AArch64: x19-x28, d8-d15), so the
 * compiler puts values in every one of them (GCC 12 -O2 does, on both). Each value is loaded from its own volatile slot, so
 * none can be recomputed after the call; all change after every switch and all reach the result.
 * Main and the coroutine run the same code with different values: a register the switch forgot
 * arrives holding the other side's value and changes the result. */
enum { REG_ROUNDS = 4 };
static volatile uint64_t reg_int[2][12];
static volatile double reg_dbl[2][10];
static cb_co *reg_co;

static void reg_resume(void) { cb_co_resume(reg_co, 0); }
static void reg_yield(void) { cb_co_yield(0); }
static void reg_stay(void) {}

static uint64_t bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static uint64_t reg_work(int side, void (*sw)(void))
{
    volatile uint64_t *n = reg_int[side];
    volatile double *f = reg_dbl[side];
    uint64_t a = n[0], b = n[1], c = n[2], d = n[3], e = n[4], g = n[5];
    uint64_t h = n[6], i = n[7], j = n[8], k = n[9], l = n[10], m = n[11];
    double p = f[0], q = f[1], r = f[2], s = f[3], t = f[4];
    double u = f[5], v = f[6], w = f[7], x = f[8], y = f[9];
    for (int round = 0; round < REG_ROUNDS; round++) {
        sw();
        a += b, b ^= c, c += d, d ^= e, e += g, g ^= h;
        h += i, i ^= j, j += k, k ^= l, l += m, m ^= a;
        p = p * 0.5 + q, q = q * 0.5 + r, r = r * 0.5 + s, s = s * 0.5 + t, t = t * 0.5 + u;
        u = u * 0.5 + v, v = v * 0.5 + w, w = w * 0.5 + x, x = x * 0.5 + y, y = y * 0.5 + p;
    }
    uint64_t sum = a ^ b * 3 ^ c * 5 ^ d * 7 ^ e * 11 ^ g * 13 ^ h * 17 ^ i * 19 ^ j * 23;
    sum ^= k * 29 ^ l * 31 ^ m * 37;
    sum ^= bits(p) ^ bits(q) * 3 ^ bits(r) * 5 ^ bits(s) * 7 ^ bits(t) * 11 ^ bits(u) * 13;
    return sum ^ bits(v) * 17 ^ bits(w) * 19 ^ bits(x) * 23 ^ bits(y) * 29;
}

static uintptr_t reg_fn(void *arg, uintptr_t first)
{
    (void)arg, (void)first;
    return reg_work(1, reg_yield);
}

static void coro_registers(const cb_co_backend *be)
{
    for (int side = 0; side < 2; side++) {
        for (int i = 0; i < 12; i++)
            reg_int[side][i] = VAL(side * 100 + i);
        for (int i = 0; i < 10; i++)
            reg_dbl[side][i] = (side + 1) * 1000.0 + i * 1.125;
    }
    uint64_t want0 = reg_work(0, reg_stay), want1 = reg_work(1, reg_stay);
    CHECK_NE_U64(want0, want1);
    reg_co = create(be, reg_fn, NULL, CB_CO_DEFAULT_STACK);
    uint64_t got0 = reg_work(0, reg_resume); /* REG_ROUNDS round trips */
    uint64_t got1 = cb_co_resume(reg_co, 0);  /* the coroutine finishes */
    CB_CHECK_EQ_U64(got0, want0);
    CB_CHECK_EQ_U64(got1, want1);
    cb_co_destroy(reg_co);
}
CB_TEST_PER_BACKEND(coro_registers)

/* x29 holds no value in reg_work (GCC keeps it as the frame pointer on AArch64), so a switch
 * that forgot it would pass there. A function with a variable-length array needs its frame
 * pointer (x29, rbp): its epilogue restores the stack pointer from it. */
enum { FP_SLOTS = 4 };
static volatile size_t fp_len = 37;

static uint64_t fp_work(int side, void (*sw)(void))
{
    size_t n = fp_len;
    volatile uint64_t vla[n], fixed[FP_SLOTS];
    for (size_t i = 0; i < n; i++)
        vla[i] = VAL(side * 1000 + i);
    for (size_t i = 0; i < FP_SLOTS; i++)
        fixed[i] = VAL(side * 1000 + 500 + i);
    uint64_t sum = 0;
    for (int round = 0; round < REG_ROUNDS; round++) {
        sw();
        for (size_t i = 0; i < n; i++)
            sum = sum * 31 + vla[i];
        for (size_t i = 0; i < FP_SLOTS; i++)
            sum = sum * 37 + fixed[i];
    }
    return sum;
}

static uintptr_t fp_fn(void *arg, uintptr_t first)
{
    (void)arg, (void)first;
    return fp_work(1, reg_yield);
}

static void coro_frame_pointer(const cb_co_backend *be)
{
    uint64_t want0 = fp_work(0, reg_stay), want1 = fp_work(1, reg_stay);
    CHECK_NE_U64(want0, want1);
    reg_co = create(be, fp_fn, NULL, CB_CO_DEFAULT_STACK);
    uint64_t got0 = fp_work(0, reg_resume);
    uint64_t got1 = cb_co_resume(reg_co, 0);
    CB_CHECK_EQ_U64(got0, want0);
    CB_CHECK_EQ_U64(got1, want1);
    cb_co_destroy(reg_co);
}
CB_TEST_PER_BACKEND(coro_frame_pointer)

/* ---- stackful: FP rounding mode ---------------------------------------------------------------- */

static volatile double fp_one = 1.0, fp_three = 3.0;

/* 1/3 in the current SSE/FPCR rounding mode; the volatile store keeps the division here. */
static double third(void)
{
    volatile double r = fp_one / fp_three;
    return r;
}

/* The coroutine runs upward while main runs downward; each must find its own mode after every
 * switch, both as fegetround() reports it (x87 control word on x86-64) and as a division
 * rounds (MXCSR). */
static uintptr_t round_fn(void *arg, uintptr_t first)
{
    (void)arg, (void)first;
    fesetround(FE_UPWARD);
    double up = third();
    cb_co_yield(bits(up));
    CB_CHECK_EQ_INT(fegetround(), FE_UPWARD);
    CB_CHECK_EQ_U64(bits(third()), bits(up));
    return 0;
}

static void coro_rounding(const cb_co_backend *be)
{
    if (RUNNING_ON_VALGRIND)
        CB_SKIP("under valgrind, which does not emulate a rounding mode other than to-nearest");
    if ((strncmp(be->name, "asm", 3) == 0 || !strcmp(be->name, "inline") ||
         !strcmp(be->name, "copystack")) &&
        !CORO_ASM_KEEPS_ROUNDING)
        CB_SKIP("%s: FPCR is shared by all coroutines on this architecture (AAPCS64 makes it "
                "thread-global; the switch does not save it)", be->name);
    CB_CHECK_EQ_INT(fesetround(FE_DOWNWARD), 0);
    double down = third();
    cb_co *co = create(be, round_fn, NULL, CB_CO_DEFAULT_STACK);
    uint64_t up = cb_co_resume(co, 0);
    CHECK_NE_U64(up, bits(down)); /* the test can tell the two modes apart */
    CB_CHECK_EQ_INT(fegetround(), FE_DOWNWARD);
    CB_CHECK_EQ_U64(bits(third()), bits(down));
    cb_co_resume(co, 0);
    CB_CHECK_EQ_INT(cb_co_done(co), 1);
    CB_CHECK_EQ_INT(fegetround(), FE_DOWNWARD);
    cb_co_destroy(co);
    fesetround(FE_TONEAREST);
}
CB_TEST_PER_BACKEND(coro_rounding)

/* fpu=0 (x86-64): the switch leaves MXCSR and the x87 control word alone, so a rounding mode set
 * inside a coroutine is seen by its resumer, the per-thread behaviour minicoro and libdill have;
 * the control run with fpu=1 keeps it per coroutine. */
static void fpu_off_leaks(const char *name)
{
    const cb_impl *im = cb_impl_find(name);
    if (!CORO_ASM_KEEPS_ROUNDING)
        CB_SKIP("%s: no FP control state is switched on this architecture", name);
    if (RUNNING_ON_VALGRIND)
        CB_SKIP("under valgrind, which does not emulate a rounding mode other than to-nearest");
    for (int fpu = 1; fpu >= 0; fpu--) {
        const cb_co_backend *be = fpu ? cb_test_backend(im) : cb_test_backend(im)->nofpu;
        CB_CHECK(be != NULL);
        CB_CHECK_EQ_INT(fesetround(FE_DOWNWARD), 0);
        cb_co *co = create(be, round_fn, NULL, CB_CO_DEFAULT_STACK);
        cb_co_resume(co, 0);
        CB_CHECK_EQ_INT(fegetround(), fpu ? FE_DOWNWARD : FE_UPWARD);
        cb_co_resume(co, 0); /* with fpu=0 it runs in the mode it leaked, which it checks */
        cb_co_destroy(co);
        fesetround(FE_TONEAREST);
    }
}
CB_TEST(coro_fpu_off_leaks_rounding_asm) { fpu_off_leaks("asm"); }
CB_TEST(coro_fpu_off_leaks_rounding_asmjmp) { fpu_off_leaks("asmjmp"); }

/* Every entry point of the hand-written switches starts a 64-byte cache line (frame.h's
 * CB_ENTRY_ALIGN): where a switch sits in its line, and so its timing, must not move with the
 * link order of the code around it (docs/switch.md). Both fpu settings' entries. */
CB_TEST(coro_switch_entries_line_aligned)
{
    static const char *const names[] = {"asm", "asmjmp"};
    for (size_t i = 0; i < 2; i++) {
        for (int fpu = 1; fpu >= 0; fpu--) {
            const cb_co_backend *be = fpu ? backend(names[i]) : backend(names[i])->nofpu;
            CB_CHECK(be != NULL);
            CB_CHECK_EQ_U64((uintptr_t)be->jump % 64, 0);
            CB_CHECK_EQ_U64((uintptr_t)be->make % 64, 0);
        }
    }
}

/* ---- stackful: destroy ------------------------------------------------------------------------- */

/* Yields v + 1 for every v it is given, until given 0. */
static uintptr_t park_fn(void *arg, uintptr_t v)
{
    (void)arg;
    while (v)
        v = cb_co_yield(v + 1);
    return 0;
}

/* A suspended (and a never-started) coroutine can be destroyed: the control block is freed and
 * the stack goes back to the pool, from which the next coroutine gets it without a new mapping
 * (a word written deep in the stack is still there: a fresh mapping would read zero). */
static void coro_destroy_suspended(const cb_co_backend *be)
{
    uint64_t heap0 = cb_rt.heap_live_bytes, live0 = stacks_live();
    cb_co *co = create(be, park_fn, NULL, CB_CO_DEFAULT_STACK);
    CB_CHECK_EQ_U64(cb_co_resume(co, 1), 2);
    CB_CHECK_EQ_U64(cb_co_resume(co, 5), 6);
    char *lo = cb_co_stack(co)->lo;
    uint64_t reserved = cb_stack_stat.reserved_bytes;
    *(volatile uint64_t *)(lo + 1024) = VAL(1);
    cb_co_destroy(co);
    CB_CHECK_EQ_U64(cb_rt.heap_live_bytes, heap0);
    CB_CHECK_EQ_U64(stacks_live(), live0);

    co = create(be, park_fn, NULL, CB_CO_DEFAULT_STACK);
    CB_CHECK_EQ_U64((uintptr_t)cb_co_stack(co)->lo, (uintptr_t)lo);
    /* the pool tells valgrind a reused stack is undefined; this test reads it on purpose */
    VALGRIND_MAKE_MEM_DEFINED(lo + 1024, sizeof(uint64_t));
    CB_CHECK_EQ_U64(*(volatile uint64_t *)(lo + 1024), VAL(1));
    CB_CHECK_EQ_U64(cb_stack_stat.reserved_bytes, reserved);
    cb_co_destroy(co); /* never started */
    CB_CHECK_EQ_U64(cb_rt.heap_live_bytes, heap0);
    CB_CHECK_EQ_U64(stacks_live(), live0);

    co = create(be, park_fn, NULL, CB_CO_DEFAULT_STACK);
    CB_CHECK_EQ_U64(cb_co_resume(co, 10), 11); /* a reused stack runs like a fresh one */
    cb_co_destroy(co);
    CB_CHECK_EQ_U64(cb_rt.heap_live_bytes, heap0);
}
CB_TEST_PER_BACKEND(coro_destroy_suspended)

/* ---- stackful: overflow reports, checked in a child process ------------------------------------ */

static const cb_co_backend *child_be;

/* Runs fn in a child with its stderr captured into *err (malloc'd); returns the exit status, or
 * 128 + the signal that killed it. */
static int run_child(void (*fn)(void), char **err)
{
    char *out;
    int st = cb_test_fork(fn, &out, err);
    free(out);
    return st;
}

static volatile size_t deep_limit = SIZE_MAX;

/* Unbounded recursion that cannot become a loop: each frame's array is passed down and read
 * after the call returns. */
static size_t deep(size_t depth, volatile char *up)
{
    volatile char frame[512];
    frame[0] = (char)depth;
    if (depth == deep_limit)
        return (size_t)up[0];
    return deep(depth + 1, frame) + (size_t)frame[0];
}

static uintptr_t deep_fn(void *arg, uintptr_t first)
{
    (void)arg, (void)first;
    return deep(0, NULL);
}

static void overflow_child(void)
{
    cb_co *co = create(child_be, deep_fn, NULL, 65536);
    cb_co_resume(co, 0);
}

/* The child's exit status must be `want`; on a mismatch its stderr says why. */
static void check_child(void (*fn)(void), int want, char **err)
{
    int st = run_child(fn, err);
    if (st != want)
        CB_FAIL("child exited with %d, want %d; its stderr: \"%s\"", st, want, *err);
}

static void coro_overflow(const cb_co_backend *be)
{
    char want[128], *err;
    child_be = be;
    snprintf(want, sizeof want, "coroutine stack overflow (impl=%s, stack=65536 bytes)\n",
             be->name);
    check_child(overflow_child, CB_EXIT_OVERFLOW, &err);
    CB_CHECK_CONTAINS(err, want);
    free(err);
}
CB_TEST_PER_BACKEND(coro_overflow)

/* Chunked stacks have no guard page; a write over the canary word at the low end is what an
 * overflow leaves behind, and destroy must report it. The clean run is the control. */
static uintptr_t canary_fn(void *arg, uintptr_t self)
{
    if (arg)
        *(volatile uint64_t *)cb_co_stack((cb_co *)self)->lo = 0;
    return 0;
}

static void canary_child(int smash)
{
    cb_co *co = create_in(child_be, canary_fn, (void *)(uintptr_t)smash, 65536, CB_STACK_CHUNKED);
    CB_CHECK_EQ_INT(cb_co_stack(co)->mode, CB_STACK_CHUNKED);
    cb_co_resume(co, (uintptr_t)co);
    cb_co_destroy(co);
}

static void canary_clean_child(void) { canary_child(0); }
static void canary_smash_child(void) { canary_child(1); }

static void coro_canary(const cb_co_backend *be)
{
    char want[128], *err;
    child_be = be;
    check_child(canary_clean_child, 0, &err);
    /* Not "" exactly: a sanitizer build may print its own notices (ASan warns about ucontext). */
    CB_CHECK(strstr(err, "overflow") == NULL);
    free(err);
    snprintf(want, sizeof want,
             "coroutine stack overflow (impl=%s, stack=65536 bytes) detected by canary",
             be->name);
    check_child(canary_smash_child, CB_EXIT_OVERFLOW, &err);
    CB_CHECK_CONTAINS(err, want);
    free(err);
}
CB_TEST_PER_BACKEND(coro_canary)

/* ---- stack allocator modes --------------------------------------------------------------------- */

static uintptr_t plus_one_fn(void *arg, uintptr_t v)
{
    (void)arg;
    return v + 1;
}

CB_TEST(stack_modes)
{
    const cb_co_backend *be = backend("asm");
    if (cb_stack_modes_used())
        CB_FAIL("modes used before any stack was handed out: %s", cb_stack_modes_used());
    cb_co *g = create_in(be, plus_one_fn, NULL, CB_CO_DEFAULT_STACK, CB_STACK_GUARDED);
    CHECK_NE_U64(cb_stack_stat.map_budget, 0);
    CB_CHECK_EQ_INT(cb_co_stack(g)->mode, CB_STACK_GUARDED);
    CB_CHECK_EQ_U64(cb_stack_guard_bytes(cb_co_stack(g)), cb_stack_page_size());
    CB_CHECK_STREQ(cb_stack_modes_used(), "guarded");
    cb_co *c = create_in(be, plus_one_fn, NULL, CB_CO_DEFAULT_STACK, CB_STACK_CHUNKED);
    CB_CHECK_EQ_INT(cb_co_stack(c)->mode, CB_STACK_CHUNKED);
    CB_CHECK_EQ_U64(cb_stack_guard_bytes(cb_co_stack(c)), 0);
    CB_CHECK_STREQ(cb_stack_modes_used(), "guarded+chunked");
    CB_CHECK_EQ_U64(cb_co_resume(g, 41), 42);
    CB_CHECK_EQ_U64(cb_co_resume(c, 42), 43);
    cb_co_destroy(g);
    cb_co_destroy(c);
}

/* The real thing: in auto mode, more coroutines than vm.max_map_count leaves room for guarded
 * stacks all get created, the ones past the budget on chunked stacks. */
enum { AUTO_COUNT = 40000, AUTO_MAX = 100000 };

CB_TEST(stack_auto_past_budget)
{
    if (RUNNING_ON_VALGRIND)
        CB_SKIP("under valgrind, whose address-space manager holds fewer segments than the "
                "%d stacks this test maps",
                AUTO_COUNT);
    const cb_co_backend *be = backend("asm");
    uint64_t heap0 = cb_rt.heap_live_bytes;
    cb_co *first = create(be, plus_one_fn, NULL, CB_CO_DEFAULT_STACK);
    uint64_t budget = cb_stack_stat.map_budget;
    size_t n = budget + 1000 > AUTO_COUNT ? budget + 1000 : AUTO_COUNT;
    if (n > AUTO_MAX)
        CB_SKIP("vm.max_map_count leaves room for %" PRIu64 " guarded stacks; crossing that "
                "would take too long here", budget);
    cb_co **co = malloc(n * sizeof *co);
    CB_CHECK(co != NULL);
    co[0] = first;
    for (size_t i = 1; i < n; i++)
        co[i] = create(be, plus_one_fn, NULL, CB_CO_DEFAULT_STACK);
    CB_CHECK_STREQ(cb_stack_modes_used(), "guarded+chunked");
    CB_CHECK_EQ_U64(cb_stack_stat.guarded_live, budget);
    CB_CHECK_EQ_U64(cb_stack_stat.chunked_live, n - budget);
    CB_CHECK_EQ_INT(cb_co_stack(co[0])->mode, CB_STACK_GUARDED);
    CB_CHECK_EQ_INT(cb_co_stack(co[n - 1])->mode, CB_STACK_CHUNKED);
    CB_CHECK_EQ_U64(cb_co_resume(co[0], 1), 2);
    CB_CHECK_EQ_U64(cb_co_resume(co[n - 1], 2), 3);
    for (size_t i = 0; i < n; i++)
        cb_co_destroy(co[i]);
    free(co);
    CB_CHECK_EQ_U64(stacks_live(), 0);
    CB_CHECK_EQ_U64(cb_rt.heap_live_bytes, heap0);
}

/* ---- sm: a frame with its callee's frame embedded ---------------------------------------------- */

/* leaf(k): suspends k times, then returns 10 * k. */
typedef struct sm_leaf {
    uint32_t state, k, i;
    uint64_t ret;
} sm_leaf;

/* outer: leaf(2) + leaf(1), the callee frame embedded in the caller's. */
typedef struct sm_outer {
    uint32_t state;
    uint64_t sum;
    sm_leaf leaf;
} sm_outer;

static cb_sm_status sm_leaf_resume(sm_leaf *f)
{
    switch (f->state) {
    case 0:
        mark('l');
        for (f->i = 0; f->i < f->k; f->i++) {
            f->state = 1;
            return cb_sm_suspend();
        case 1:
            mark('r');
        }
        f->ret = 10 * (uint64_t)f->k;
        return CB_SM_DONE;
    }
    __builtin_unreachable();
}

static cb_sm_status sm_outer_resume(sm_outer *f)
{
    switch (f->state) {
    case 0:
        f->leaf = (sm_leaf){.k = 2};
        f->state = 1;
        /* fall through */
    case 1:
        if (sm_leaf_resume(&f->leaf) == CB_SM_SUSPENDED)
            return CB_SM_SUSPENDED;
        f->sum = f->leaf.ret;
        f->leaf = (sm_leaf){.k = 1};
        f->state = 2;
        /* fall through */
    case 2:
        if (sm_leaf_resume(&f->leaf) == CB_SM_SUSPENDED)
            return CB_SM_SUSPENDED;
        f->sum += f->leaf.ret;
        return CB_SM_DONE;
    }
    __builtin_unreachable();
}

CB_TEST(sm_order_and_count)
{
    uint64_t heap0 = cb_rt.heap_live_bytes, s0 = cb_rt.suspensions;
    sm_outer *f = cb_sm_alloc(sizeof *f);
    memset(f, 0, sizeof *f);
    int polls = 1;
    while (sm_outer_resume(f) == CB_SM_SUSPENDED) {
        mark('|');
        polls++;
    }
    CB_CHECK_STREQ(trace, "l|r|rl|r");
    CB_CHECK_EQ_INT(polls, 4);
    CB_CHECK_EQ_U64(cb_rt.suspensions - s0, 3);
    CB_CHECK_EQ_U64(f->sum, 30);
    cb_sm_free(f, sizeof *f);
    CB_CHECK_EQ_U64(cb_rt.heap_live_bytes, heap0);
}

/* ---- closure: heap frames awaiting each other -------------------------------------------------- */

/* leaf(k): suspends k times, then returns 10 * k. */
typedef struct cl_leaf {
    cb_cl_frame h;
    uint32_t k, i;
} cl_leaf;

/* root: leaf(2) + leaf(0); the second completes synchronously inside await. */
typedef struct cl_root {
    cb_cl_frame h;
    uint64_t sum;
} cl_root;

static cb_cl_status cl_leaf_fn(cb_cl_frame *fh)
{
    cl_leaf *f = (cl_leaf *)fh;
    switch (f->h.state) {
    case 0:
        mark('l');
        for (f->i = 0; f->i < f->k; f->i++) {
            f->h.state = 1;
            return cb_cl_suspend(&f->h);
        case 1:
            mark('r');
        }
        f->h.result = 10 * (uint64_t)f->k;
        return cb_cl_done(&f->h);
    }
    __builtin_unreachable();
}

static cl_leaf *cl_leaf_new(cb_cl_frame *parent, uint32_t k)
{
    cl_leaf *c = cb_cl_new(parent->task, parent, cl_leaf_fn, sizeof *c);
    c->k = k;
    return c;
}

static cb_cl_status cl_root_fn(cb_cl_frame *fh)
{
    cl_root *f = (cl_root *)fh;
    switch (f->h.state) {
    case 0:
        f->h.state = 1;
        if (cb_cl_await(&f->h, &cl_leaf_new(&f->h, 2)->h) == CB_CL_SUSPENDED)
            return CB_CL_SUSPENDED;
        /* fall through */
    case 1:
        mark('a');
        f->sum = f->h.awaited;
        f->h.state = 2;
        if (cb_cl_await(&f->h, &cl_leaf_new(&f->h, 0)->h) == CB_CL_SUSPENDED)
            return CB_CL_SUSPENDED;
        /* fall through */
    case 2:
        mark('b');
        f->h.result = f->sum + f->h.awaited + 1;
        return cb_cl_done(&f->h);
    }
    __builtin_unreachable();
}

CB_TEST(closure_order_and_free)
{
    uint64_t heap0 = cb_rt.heap_live_bytes, s0 = cb_rt.suspensions;
    cb_cl_task t;
    memset(&t, 0, sizeof t);
    cl_root *root = cb_cl_new(&t, NULL, cl_root_fn, sizeof *root);
    CB_CHECK_EQ_INT(cb_cl_start(&t, &root->h), CB_CL_SUSPENDED);
    mark('|');
    CB_CHECK(t.innermost != &root->h); /* resumption goes straight to the leaf */
    CB_CHECK_EQ_INT(cb_cl_resume(&t), CB_CL_SUSPENDED);
    mark('|');
    CB_CHECK_EQ_U64(cb_rt.heap_live_bytes - heap0, sizeof(cl_root) + sizeof(cl_leaf));
    CB_CHECK_EQ_INT(cb_cl_resume(&t), CB_CL_DONE);
    CB_CHECK_STREQ(trace, "l|r|ralb");
    CB_CHECK_EQ_INT(t.done, 1);
    CB_CHECK_EQ_U64(t.result, 21);
    CB_CHECK_EQ_U64(cb_rt.suspensions - s0, 2);
    CB_CHECK_EQ_U64(cb_rt.heap_live_bytes, heap0); /* every frame freed on completion */
}

CB_TEST(closure_cancel_frees)
{
    uint64_t heap0 = cb_rt.heap_live_bytes;
    cb_cl_task t;
    memset(&t, 0, sizeof t);
    cl_root *root = cb_cl_new(&t, NULL, cl_root_fn, sizeof *root);
    CB_CHECK_EQ_INT(cb_cl_start(&t, &root->h), CB_CL_SUSPENDED);
    CHECK_NE_U64(cb_rt.heap_live_bytes, heap0);
    cb_cl_cancel(&t);
    CB_CHECK_EQ_U64(cb_rt.heap_live_bytes, heap0);
    CB_CHECK_EQ_INT(t.done, 0);
}

/* ---- the interposition layer (impls/hook.h) ------------------------------------------------ */

/* Outside a coroutine a registered descriptor's calls are the system's: read on an empty
 * non-blocking socket fails with EAGAIN at once, nothing counted as hooked. */
CB_TEST(hook_outside_a_coroutine_is_the_system_call)
{
    int sv[2];
    uint32_t want = 0;
    CB_CHECK_EQ_INT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    CB_CHECK_EQ_INT(cb_hook_fd(sv[0], &want), 0);
    uint64_t h0 = cb_rt.hooked_calls;
    char c = 0;
    errno = 0;
    CB_CHECK_EQ_INT((int)read(sv[0], &c, 1), -1);
    CB_CHECK_EQ_INT(errno, EAGAIN);
    CB_CHECK_EQ_INT((int)write(sv[1], "x", 1), 1);
    CB_CHECK_EQ_INT((int)read(sv[0], &c, 1), 1);
    CB_CHECK_EQ_INT(c, 'x');
    CB_CHECK_EQ_U64(cb_rt.hooked_calls, h0);
    CB_CHECK_EQ_INT((int)want, 0);
    cb_hook_unfd(sv[0]);
    close(sv[0]);
    close(sv[1]);
}

/* Inside coroutines, blocking accept, connect, read and write on loopback TCP: each call that
 * would block waits on the event loop (a minimal one here, as io.c's) instead of blocking. */
typedef struct hook_ep {
    int fd;
    uint32_t want;
    cb_co *co;
    char got;
} hook_ep;

static struct sockaddr_in hook_addr;
static int hook_epfd;

static uintptr_t hook_server(void *arg, uintptr_t first)
{
    (void)first;
    hook_ep *e = arg; /* fd: the listener */
    int s = accept(e->fd, NULL, NULL);
    if (s < 0)
        return 1;
    /* The connection, watched by the event loop for this coroutine from now on. */
    struct epoll_event ee = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = e};
    if (fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK) != 0 || cb_hook_fd(s, &e->want) != 0 ||
        epoll_ctl(hook_epfd, EPOLL_CTL_ADD, s, &ee) != 0)
        return 2;
    ssize_t n = read(s, &e->got, 1);
    cb_hook_unfd(s);
    close(s);
    return n == 1 ? 0 : 3;
}

static uintptr_t hook_client(void *arg, uintptr_t first)
{
    (void)first;
    hook_ep *e = arg;
    if (connect(e->fd, (struct sockaddr *)&hook_addr, sizeof hook_addr) != 0)
        return 4;
    return write(e->fd, "y", 1) == 1 ? 0 : 5;
}

CB_TEST(hook_blocking_calls_wait_on_the_event_loop)
{
    const cb_co_backend *be = backend("asm");
    socklen_t len = sizeof hook_addr;
    hook_ep ep[2] = {{.fd = -1}, {.fd = -1}};
    memset(&hook_addr, 0, sizeof hook_addr);
    hook_addr.sin_family = AF_INET;
    hook_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ep[0].fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ep[1].fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CB_CHECK(ep[0].fd >= 0 && ep[1].fd >= 0);
    CB_CHECK_EQ_INT(bind(ep[0].fd, (struct sockaddr *)&hook_addr, sizeof hook_addr), 0);
    CB_CHECK_EQ_INT(listen(ep[0].fd, 4), 0);
    CB_CHECK_EQ_INT(getsockname(ep[0].fd, (struct sockaddr *)&hook_addr, &len), 0);
    int epfd = hook_epfd = epoll_create1(0);
    CB_CHECK(epfd >= 0);
    for (int i = 0; i < 2; i++) {
        CB_CHECK_EQ_INT(cb_hook_fd(ep[i].fd, &ep[i].want), 0);
        struct epoll_event ee = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = &ep[i]};
        CB_CHECK_EQ_INT(epoll_ctl(epfd, EPOLL_CTL_ADD, ep[i].fd, &ee), 0);
    }
    ep[0].co = create_in(be, hook_server, &ep[0], 65536, CB_STACK_AUTO);
    ep[1].co = create_in(be, hook_client, &ep[1], 65536, CB_STACK_AUTO);
    uint64_t h0 = cb_rt.hooked_calls, s0 = cb_rt.suspensions;
    /* The server first: its accept finds no connection and must wait, not block. */
    for (int i = 0; i < 2; i++)
        CB_CHECK_EQ_U64(cb_co_resume(ep[i].co, 0), 0);
    CB_CHECK_EQ_INT((int)ep[0].want, EPOLLIN);
    int live = 2 - cb_co_done(ep[0].co) - cb_co_done(ep[1].co);
    for (int rounds = 0; live && rounds < 100; rounds++) {
        struct epoll_event ev[4];
        int n = epoll_wait(epfd, ev, 4, 5000);
        CB_CHECK(n > 0);
        for (int k = 0; k < n; k++) {
            hook_ep *e = ev[k].data.ptr;
            if (!e->want || !(ev[k].events & (e->want | EPOLLERR | EPOLLHUP)))
                continue;
            e->want = 0;
            uintptr_t r = cb_co_resume(e->co, 0);
            if (cb_co_done(e->co)) {
                CB_CHECK_EQ_U64(r, 0);
                live--;
            }
        }
    }
    CB_CHECK_EQ_INT(live, 0);
    CB_CHECK_EQ_INT(ep[0].got, 'y');
    CB_CHECK(cb_rt.suspensions > s0);       /* at least the accept waited */
    CB_CHECK(cb_rt.hooked_calls - h0 >= 4); /* accept, connect, read, write */
    for (int i = 0; i < 2; i++) {
        cb_hook_unfd(ep[i].fd);
        close(ep[i].fd);
        cb_co_destroy(ep[i].co);
    }
    close(epfd);
}
