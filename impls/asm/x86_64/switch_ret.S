/* corobench "asm" switch, x86-64 System V, ELF/GAS. Leaves with `ret`.
 *
 * The frame (frame.h, shared with switch_jmp.S) holds what the ABI makes callee-saved, MXCSR and
 * the x87 control word included; the context is one word, the saved stack pointer. After the
 * switch, rsp points at the resume address (+56), which `ret` pops.
 *
 * `ret` pops the resume address: the CPU predicts it from its return stack buffer, whose top
 * belongs to the coroutine we just left; that misprediction is what corobench measures.
 * With CET shadow stacks enabled this switch would fault (the shadow stack is not switched);
 * Linux does not enable them for ordinary processes.
 */
#include "frame.h"

        .text

/* uintptr_t cb_asm_ret_jump(void *from, void *to, uintptr_t val)
 *   rdi = &from->sp, rsi = &to->sp, rdx = value handed to the resumed side (returned in rax) */
        .globl  cb_asm_ret_jump
        .type   cb_asm_ret_jump, @function
        .p2align CB_ENTRY_ALIGN
cb_asm_ret_jump:
        endbr64                         /* reached through the backend's function pointer */
        CB_SWITCH_FRAME
        movq    %rdx, %rax              /* the value travels to the resumed side */
        ret                             /* resume address from the other stack */
        .size   cb_asm_ret_jump, .-cb_asm_ret_jump

/* The same with fpu=0: MXCSR and the x87 control word are not switched. */
        .globl  cb_asm_ret_jump_nofpu
        .type   cb_asm_ret_jump_nofpu, @function
        .p2align CB_ENTRY_ALIGN
cb_asm_ret_jump_nofpu:
        endbr64                         /* reached through the backend's function pointer */
        CB_SWITCH_FRAME fpu=0
        movq    %rdx, %rax              /* the value travels to the resumed side */
        ret                             /* resume address from the other stack */
        .size   cb_asm_ret_jump_nofpu, .-cb_asm_ret_jump_nofpu

/* void cb_asm_ret_make(void *ctx, void *stack_lo, size_t size, cb_co *co)
 *   Builds a fresh frame (frame.h) at the aligned top of [stack_lo, stack_lo + size) and
 *   stores its address in ctx. */
        .globl  cb_asm_ret_make
        .type   cb_asm_ret_make, @function
        .p2align CB_ENTRY_ALIGN
cb_asm_ret_make:
        endbr64
        CB_MAKE_FRAME cb_asm_ret_entry  /* the first `ret` lands in the entry stub */
        ret
        .size   cb_asm_ret_make, .-cb_asm_ret_make

/* First code run on a fresh stack: cb_co_entry_(co = rbx, val = rax). It never returns. */
        .type   cb_asm_ret_entry, @function
        .p2align CB_ENTRY_ALIGN
cb_asm_ret_entry:
        movq    %rbx, %rdi
        movq    %rax, %rsi
        call    cb_co_entry_@PLT
        ud2
        .size   cb_asm_ret_entry, .-cb_asm_ret_entry

        .section .note.GNU-stack,"",@progbits
