/* The return-stack-buffer simulator's hooks, x86-64 System V, ELF/GAS. tools/asmrw.c inserts
 *   call cb_rsbsim_on_call ; .long RET - . ; call TARGET ; RET:     at calls into corobench code
 *   call cb_rsbsim_on_ret  ; ret                                     at returns (and tail jumps out)
 * Both preserve every register and the flags (operands, return values, and what -fipa-ra keeps
 * live across a call); they write below rsp only where a `call` writes anyway. Not rewritten. */
#include "harness/rsbsim.h"

        .text

/* The flags and the three registers a hook uses, saved on entry and restored before it
 * returns (4 words: after saving, the hook's own return address is at 32(%rsp)). */
        .macro SAVE_SCRATCH
        pushfq
        .cfi_adjust_cfa_offset 8
        pushq   %rax
        .cfi_adjust_cfa_offset 8
        pushq   %rcx
        .cfi_adjust_cfa_offset 8
        pushq   %rdx
        .cfi_adjust_cfa_offset 8
        .endm
        .macro RESTORE_SCRATCH
        popq    %rdx
        .cfi_adjust_cfa_offset -8
        popq    %rcx
        .cfi_adjust_cfa_offset -8
        popq    %rax
        .cfi_adjust_cfa_offset -8
        popfq
        .cfi_adjust_cfa_offset -8
        .endm

/* Push: reads the 32-bit offset stored right after the hook's call, which locates RET, the
 * return address the instrumented call will push; returns past the offset. */
        .globl  cb_rsbsim_on_call
        .type   cb_rsbsim_on_call, @function
        .p2align 4
cb_rsbsim_on_call:
        .cfi_startproc
        SAVE_SCRATCH
        movq    32(%rsp), %rax          /* where the .long sits (above rdx, rcx, rax, flags) */
        movslq  (%rax), %rcx
        addq    %rax, %rcx              /* rcx = RET */
        addq    $4, %rax
        movq    %rax, 32(%rsp)          /* come back after the .long */
        leaq    cb_rsbsim(%rip), %rdx
        movq    CB_RSBSIM_OFF_TOS(%rdx), %rax
        incq    %rax                    /* tos = (tos + 1) mod entries */
        cmpq    CB_RSBSIM_OFF_ENTRIES(%rdx), %rax
        jb      1f
        xorl    %eax, %eax
1:      movq    %rax, CB_RSBSIM_OFF_TOS(%rdx)
        movq    %rcx, CB_RSBSIM_OFF_RING(%rdx,%rax,8)   /* overwrites the oldest when full */
        RESTORE_SCRATCH
        ret
        .cfi_endproc
        .size   cb_rsbsim_on_call, .-cb_rsbsim_on_call

/* Pop and compare: the target of the instrumented return is the word above our own return
 * address. The pop happens always; the counts only while counting. */
        .globl  cb_rsbsim_on_ret
        .type   cb_rsbsim_on_ret, @function
        .p2align 4
cb_rsbsim_on_ret:
        .cfi_startproc
        SAVE_SCRATCH
        leaq    cb_rsbsim(%rip), %rdx
        movq    CB_RSBSIM_OFF_TOS(%rdx), %rax
        movq    CB_RSBSIM_OFF_RING(%rdx,%rax,8), %rcx   /* the prediction */
        testq   %rax, %rax              /* tos = (tos - 1) mod entries */
        jnz     1f
        movq    CB_RSBSIM_OFF_ENTRIES(%rdx), %rax
1:      decq    %rax
        movq    %rax, CB_RSBSIM_OFF_TOS(%rdx)
        cmpq    $0, CB_RSBSIM_OFF_COUNTING(%rdx)
        je      2f
        incq    CB_RSBSIM_OFF_RETS(%rdx)
        cmpq    40(%rsp), %rcx          /* the real target: 3 registers, flags, our return, it */
        je      2f
        incq    CB_RSBSIM_OFF_MISPREDICTED(%rdx)
2:      RESTORE_SCRATCH
        ret
        .cfi_endproc
        .size   cb_rsbsim_on_ret, .-cb_rsbsim_on_ret

        .section .note.GNU-stack,"",@progbits
