/* The "inline" backend: the switch of impls/asm/<arch>/switch_inline.h, an asm block that the
 * workloads' twins (built with CB_CO_INLINE, impls/coro_inline.h) take inline at every call site
 * of cb_co_resume, cb_co_yield and cb_co_transfer. The same block wrapped in a function is this
 * backend's jump, for the code that switches through coro.c (a coroutine's completion, the
 * runtime tests that loop over every backend); both use one context layout, so a coroutine
 * suspended by either is resumed by either. */
#include "coro.h"
#include "coro_inline.h"
#include CB_SWITCH_INLINE_FILE /* impls/asm/$(ARCH)/switch_inline.h, named by the Makefile */

void cb_inline_entry(void);
CB_INLINE_ENTRY_STUB(cb_inline_entry, cb_co_entry_);

static void inline_make(void *ctx, void *stack_lo, size_t size, cb_co *co)
{
    cb_inline_make(ctx, stack_lo, size, co, cb_inline_entry);
}

static uintptr_t inline_jump(void *from, void *to, uintptr_t val)
{
    return cb_inline_switch(from, to, val);
}

static uintptr_t inline_jump_nofpu(void *from, void *to, uintptr_t val)
{
    return cb_inline_switch_nofpu(from, to, val);
}

/* The two tables differ in the jump only (as asm's: the cell picks one, cb_impl_co_cfg); the
 * inlined verbs pick the block by the table their coroutine was made with. */
#define INLINE_TABLE                                                                            \
    .name = "inline",                                                                           \
    .description = "stack switch as an asm block inlined at each call site, every register "    \
                   "declared clobbered so only live values are spilled (x86-64: also MXCSR and " \
                   "the x87 control word); resumes with an indirect jmp (x86-64) or br (AArch64)", \
    .ctx_size = CB_INLINE_CTX_SIZE, .make = inline_make, .at_call_site = 1

static const cb_co_backend cb_backend_inline_nofpu = {INLINE_TABLE, .jump = inline_jump_nofpu};

const cb_co_backend cb_backend_inline = {
    INLINE_TABLE,
    .jump = inline_jump,
    .nofpu = &cb_backend_inline_nofpu,
};
