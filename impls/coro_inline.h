/* The stackful layer's inside, shared by impls/coro.c and the verbs it inlines at their call sites.
 * The control block (struct cb_co), the running coroutine and the thread's own context are here
 * so that code compiled with CB_CO_INLINE (the workloads' twins that the `inline` implementation
 * runs, its tests) can take cb_co_resume, cb_co_yield and cb_co_transfer inline: the same
 * bookkeeping as coro.c's, then the switch of impls/asm/<arch>/switch_inline.h as an asm block in
 * the caller's own function (docs/switch.md). Such code may switch only coroutines of the inline
 * backend; every other file calls coro.c's verbs, which reach a backend through its jump. */
#ifndef CB_CORO_INLINE_H
#define CB_CORO_INLINE_H

#include "runtime.h"
#include "stack.h"

/* AddressSanitizer must be told about every stack switch (its fake stacks and stack bounds);
 * only the sanitizer build (make check-sanitize) compiles these in. */
#if defined(__SANITIZE_ADDRESS__)
#define CB_ASAN 1
#else
#define CB_ASAN 0
#endif

enum { CB_CO_SUSPENDED_, CB_CO_RUNNING_, CB_CO_DONE_ };

struct cb_co {
    const struct cb_co_backend *be;
    cb_co *resumer; /* where yield and completion go */
    cb_co_fn fn;
    void *arg;
    int state;
    cb_stack stack;
#if CB_ASAN
    void *asan_fake_stack;   /* ASan's fake stack of this coroutine while it is switched out */
    const void *asan_bottom; /* the thread's own stack, learnt on the first switch */
    size_t asan_size;
#endif
    _Alignas(16) unsigned char ctx[]; /* backend context, be->ctx_size bytes */
};

/* The thread's own stack, as a coroutine the others can return to. Sized for any backend. */
typedef struct cb_co_main {
    cb_co co;
    _Alignas(16) unsigned char ctx[8192]; /* AArch64's ucontext_t alone is over 4 KiB */
} cb_co_main;

extern cb_co_main cb_co_main_;
extern cb_co *cb_co_current_; /* set before every jump, by the side that jumps */
/* The backend whose context cb_co_main_.ctx last held: each backend reads its own layout there. */
extern const struct cb_co_backend *cb_co_main_be_;

void cb_co_misuse_(const char *what) __attribute__((noreturn, cold));

/* A resume from the thread's own stack with another backend than the last one's: that backend's
 * state in the main context would read as this one's (a thread's baton, copystack's on_shared);
 * every jump out of main rewrites what it needs. */
static inline void cb_co_main_backend_(const struct cb_co_backend *be)
{
    __builtin_memset(cb_co_main_.ctx, 0, sizeof cb_co_main_.ctx);
    cb_co_main_be_ = be;
}
#if CB_ASAN
void cb_co_asan_start_(cb_co *self, cb_co *to, int self_done);
void cb_co_asan_finish_(cb_co *self);
#endif

/* The bookkeeping of each verb before its switch, shared by coro.c's verbs and the inlined ones:
 * the checks, who resumes whom, the states, the suspension count. Each returns the running side. */
static inline __attribute__((always_inline)) cb_co *cb_co_before_resume_(cb_co *co)
{
    if (co->state != CB_CO_SUSPENDED_)
        cb_co_misuse_("resume of a coroutine that is running or finished");
    cb_co *self = cb_co_current_;
    if (self == &cb_co_main_.co && cb_co_main_be_ != co->be)
        cb_co_main_backend_(co->be);
    co->resumer = self;
    co->state = CB_CO_RUNNING_;
    return self;
}

static inline __attribute__((always_inline)) cb_co *cb_co_before_yield_(void)
{
    cb_co *self = cb_co_current_;
    if (self == &cb_co_main_.co)
        cb_co_misuse_("yield outside a coroutine");
    self->state = CB_CO_SUSPENDED_;
    cb_rt_count_suspension();
    return self;
}

static inline __attribute__((always_inline)) cb_co *cb_co_before_transfer_(cb_co *to)
{
    cb_co *self = cb_co_current_;
    if (to->state != CB_CO_SUSPENDED_ || self == &cb_co_main_.co)
        cb_co_misuse_(
            "transfer to a coroutine that is not suspended, or from outside a coroutine");
    to->resumer = self->resumer;
    to->state = CB_CO_RUNNING_;
    self->state = CB_CO_SUSPENDED_;
    cb_rt_count_suspension();
    return self;
}

#if defined(CB_CO_INLINE)
#include CB_SWITCH_INLINE_FILE /* impls/asm/$(ARCH)/switch_inline.h, named by the Makefile */

/* The inline backend with fpu=1 (impls/backend_inline.c); its fpu=0 twin is another table. */
extern const struct cb_co_backend cb_backend_inline;

/* be: the table the coroutine being switched was made with, which says fpu=1 or 0. */
static inline __attribute__((always_inline)) uintptr_t
cb_coi_switch_(const struct cb_co_backend *be, cb_co *self, cb_co *to, uintptr_t val)
{
    cb_co_current_ = to;
#if CB_ASAN
    cb_co_asan_start_(self, to, 0);
#endif
    uintptr_t r;
#if CB_INLINE_HAS_FPU
    if (be == &cb_backend_inline)
        r = cb_inline_switch(self->ctx, to->ctx, val);
    else
        r = cb_inline_switch_nofpu(self->ctx, to->ctx, val);
#else
    (void)be;
    r = cb_inline_switch(self->ctx, to->ctx, val);
#endif
#if CB_ASAN
    cb_co_asan_finish_(self);
#endif
    return r;
}

static inline __attribute__((always_inline)) uintptr_t cb_coi_resume(cb_co *co, uintptr_t val)
{
    cb_co *self = cb_co_before_resume_(co);
    return cb_coi_switch_(co->be, self, co, val);
}

static inline __attribute__((always_inline)) uintptr_t cb_coi_yield(uintptr_t val)
{
    cb_co *self = cb_co_before_yield_();
    return cb_coi_switch_(self->be, self, self->resumer, val);
}

static inline __attribute__((always_inline)) uintptr_t cb_coi_transfer(cb_co *to, uintptr_t val)
{
    cb_co *self = cb_co_before_transfer_(to);
    return cb_coi_switch_(self->be, self, to, val);
}

#define cb_co_resume(co, val) cb_coi_resume((co), (val))
#define cb_co_yield(val) cb_coi_yield((val))
#define cb_co_transfer(to, val) cb_coi_transfer((to), (val))
#endif

#endif
