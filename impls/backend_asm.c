/* The "asm" backend: the hand-written switch in impls/asm/<arch>/switch_ret.S (the Makefile picks
 * the architecture's file). Its context is one saved stack pointer. */
#include "coro.h"

uintptr_t cb_asm_ret_jump(void *from, void *to, uintptr_t val);
void cb_asm_ret_make(void *ctx, void *stack_lo, size_t size, cb_co *co);

#if defined(__x86_64__)
uintptr_t cb_asm_ret_jump_nofpu(void *from, void *to, uintptr_t val);
#define NOFPU_JUMP cb_asm_ret_jump_nofpu
#else
#define NOFPU_JUMP cb_asm_ret_jump /* AArch64: FPCR is not switched by either (docs/switch.md) */
#endif

/* The two tables differ in the jump only: fpu=1 switches MXCSR and the x87 control word with
 * the coroutine, the nofpu twin (fpu=0) leaves them per thread; the cell picks one
 * (cb_impl_co_cfg). Both are const. */
#define ASM_TABLE                                                                               \
    .name = "asm",                                                                              \
    .description = "hand-written assembly switch: the ABI's callee-saved registers and stack "  \
                   "pointer (x86-64: also MXCSR and the x87 control word); resumes with ret",   \
    .ctx_size = sizeof(void *),                                                                 \
    .make = cb_asm_ret_make

static const cb_co_backend cb_backend_asm_nofpu = {ASM_TABLE, .jump = NOFPU_JUMP};

const cb_co_backend cb_backend_asm = {
    ASM_TABLE,
    .jump = cb_asm_ret_jump,
    .nofpu = &cb_backend_asm_nofpu,
};
