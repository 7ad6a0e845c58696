/* The "asm" backend: the hand-written switch in impls/asm/<arch>/switch_ret.S (the Makefile picks
 * the architecture's file). Its context is one saved stack pointer. */
#include "coro.h"

uintptr_t cb_asm_ret_jump(void *from, void *to, uintptr_t val);
void cb_asm_ret_make(void *ctx, void *stack_lo, size_t size, cb_co *co);

const cb_co_backend cb_backend_asm = {
    .name = "asm",
    .description = "hand-written assembly switch: the ABI's callee-saved registers and stack "
                   "pointer (x86-64: also MXCSR and the x87 control word); resumes with ret",
    .ctx_size = sizeof(void *),
    .make = cb_asm_ret_make,
    .jump = cb_asm_ret_jump,
    .unavailable = NULL,
};
