/* The "asmjmp" backend: the hand-written switch in impls/asm/<arch>/switch_jmp.S, which saves the
 * same state as "asm" but leaves through an indirect jump to the resume address instead of `ret`
 * (as Boost.Context, libaco, minicoro, libdill and Go do). Its context is one saved stack pointer. */
#include "coro.h"

uintptr_t cb_asm_jmp_jump(void *from, void *to, uintptr_t val);
void cb_asm_jmp_make(void *ctx, void *stack_lo, size_t size, cb_co *co);

#if defined(__x86_64__)
uintptr_t cb_asm_jmp_jump_nofpu(void *from, void *to, uintptr_t val);
#define NOFPU_JUMP cb_asm_jmp_jump_nofpu
#else
#define NOFPU_JUMP cb_asm_jmp_jump /* AArch64: FPCR is not switched by either (docs/switch.md) */
#endif

/* The two tables differ in the jump only: fpu=1 switches MXCSR and the x87 control word with
 * the coroutine, the nofpu twin (fpu=0) leaves them per thread; the cell picks one
 * (cb_impl_co_cfg). Both are const. */
#define ASMJMP_TABLE                                                                            \
    .name = "asmjmp",                                                                           \
    .description = "hand-written assembly switch, same saved state as asm; resumes with an "    \
                   "indirect jmp (x86-64) or br (AArch64) instead of ret",                      \
    .ctx_size = sizeof(void *),                                                                 \
    .make = cb_asm_jmp_make

static const cb_co_backend cb_backend_asmjmp_nofpu = {ASMJMP_TABLE, .jump = NOFPU_JUMP};

const cb_co_backend cb_backend_asmjmp = {
    ASMJMP_TABLE,
    .jump = cb_asm_jmp_jump,
    .nofpu = &cb_backend_asmjmp_nofpu,
};
