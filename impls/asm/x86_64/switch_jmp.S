/* corobench "asmjmp" switch, x86-64 System V, ELF/GAS. Leaves with an indirect `jmp`.
 *
 * Saves the same state as switch_ret.S in the same frame (frame.h); only the way out differs.
 *
 * The resume address is popped into r8 and reached with `jmp *%r8`, as Boost.Context, libaco,
 * minicoro, libdill and Go leave their switches: the jump is predicted by the indirect-branch
 * predictor, not the return stack buffer. The return stack is not popped, so the entry the
 * caller's `call` pushed stays on it: the resumed side's next `ret` meets it (docs/rsb.md).
 * No shadow-stack support (see switch_ret.S); the entry stub starts with `endbr64`, since an
 * indirect jump lands there under IBT.
 */
#include "frame.h"

        .text

/* uintptr_t cb_asm_jmp_jump(void *from, void *to, uintptr_t val)
 *   rdi = &from->sp, rsi = &to->sp, rdx = value handed to the resumed side (returned in rax) */
        .globl  cb_asm_jmp_jump
        .type   cb_asm_jmp_jump, @function
        .p2align CB_ENTRY_ALIGN
cb_asm_jmp_jump:
        endbr64                         /* reached through the backend's function pointer */
        CB_SWITCH_FRAME
        popq    %r8                     /* +56: the resume address; rsp is now the caller's */
        movq    %rdx, %rax              /* the value travels to the resumed side */
        jmp     *%r8                    /* indirect jump: the return stack is left as it is */
        .size   cb_asm_jmp_jump, .-cb_asm_jmp_jump

/* The same with fpu=0: MXCSR and the x87 control word are not switched. */
        .globl  cb_asm_jmp_jump_nofpu
        .type   cb_asm_jmp_jump_nofpu, @function
        .p2align CB_ENTRY_ALIGN
cb_asm_jmp_jump_nofpu:
        endbr64                         /* reached through the backend's function pointer */
        CB_SWITCH_FRAME fpu=0
        popq    %r8                     /* +56: the resume address; rsp is now the caller's */
        movq    %rdx, %rax              /* the value travels to the resumed side */
        jmp     *%r8                    /* indirect jump: the return stack is left as it is */
        .size   cb_asm_jmp_jump_nofpu, .-cb_asm_jmp_jump_nofpu

/* void cb_asm_jmp_make(void *ctx, void *stack_lo, size_t size, cb_co *co)
 *   Builds a fresh frame (frame.h) at the aligned top of [stack_lo, stack_lo + size) and
 *   stores its address in ctx. */
        .globl  cb_asm_jmp_make
        .type   cb_asm_jmp_make, @function
        .p2align CB_ENTRY_ALIGN
cb_asm_jmp_make:
        endbr64
        CB_MAKE_FRAME cb_asm_jmp_entry
        ret
        .size   cb_asm_jmp_make, .-cb_asm_jmp_make

/* First code run on a fresh stack: cb_co_entry_(co = rbx, val = rax). It never returns. */
        .type   cb_asm_jmp_entry, @function
        .p2align CB_ENTRY_ALIGN
cb_asm_jmp_entry:
        endbr64                         /* an indirect-jump target */
        movq    %rbx, %rdi
        movq    %rax, %rsi
        call    cb_co_entry_@PLT
        ud2
        .size   cb_asm_jmp_entry, .-cb_asm_jmp_entry

        .section .note.GNU-stack,"",@progbits
