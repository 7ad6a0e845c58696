/* corobench "asm" switch, AArch64 AAPCS64, ELF/GAS. Leaves with `ret` (through x30).
 *
 * The frame (frame.h, shared with switch_jmp.S) holds what AAPCS64 makes callee-saved; the
 * context is one word, the saved stack pointer. After the switch, x30 holds the resume address.
 *
 * `ret` branches to x30 and is predicted from the return stack, whose top belongs to the
 * coroutine we just left; that misprediction is what corobench measures (Boost.Context leaves
 * with `ret x4` from a separate PC slot, the same prediction).
 * BTI/PAC: both functions start with `bti c`, a NOP unless the binary is marked for BTI (they are
 * called through the backend's function pointers). The entry stub needs no landing pad: `ret`
 * is not checked by BTI. Return addresses are not signed: each C caller signs and authenticates
 * its own lr on its own stack, which the switch does not touch. Shadow stacks (GCS) and Clang's
 * shadow call stack (x18) are not switched; Linux does not enable either for ordinary processes.
 */
#include "frame.h"

        .text

/* uintptr_t cb_asm_ret_jump(void *from, void *to, uintptr_t val)
 *   x0 = &from->sp, x1 = &to->sp, x2 = value handed to the resumed side (returned in x0) */
        .globl  cb_asm_ret_jump
        .type   cb_asm_ret_jump, %function
        .p2align CB_ENTRY_ALIGN
cb_asm_ret_jump:
        bti     c                       /* reached through the backend's function pointer */
        CB_SWITCH_FRAME
        mov     x0, x2                  /* the value travels to the resumed side */
        ret                             /* to x30: the resume address from the other stack */
        .size   cb_asm_ret_jump, .-cb_asm_ret_jump

/* void cb_asm_ret_make(void *ctx, void *stack_lo, size_t size, cb_co *co)
 *   x0 = ctx, x1 = stack_lo, x2 = size, x3 = co. Builds a fresh frame (frame.h) at the aligned
 *   top of [stack_lo, stack_lo + size) and stores its address in ctx. */
        .globl  cb_asm_ret_make
        .type   cb_asm_ret_make, %function
        .p2align CB_ENTRY_ALIGN
cb_asm_ret_make:
        bti     c
        CB_MAKE_FRAME cb_asm_ret_entry  /* the first `ret` lands in the entry stub */
        ret                             /* to the creator (x30 untouched) */
        .size   cb_asm_ret_make, .-cb_asm_ret_make

/* First code run on a fresh stack: cb_co_entry_(co = x19, val = x0). It never returns. */
        .type   cb_asm_ret_entry, %function
        .p2align CB_ENTRY_ALIGN
cb_asm_ret_entry:
        mov     x1, x0                  /* val, from the first jump */
        mov     x0, x19                 /* co, from the frame make built */
        bl      cb_co_entry_
        brk     #0
        .size   cb_asm_ret_entry, .-cb_asm_ret_entry

        .section .note.GNU-stack,"",%progbits
