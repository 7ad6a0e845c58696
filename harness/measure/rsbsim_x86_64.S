/* The return-stack-buffer simulator's hooks, x86-64 System V, ELF/GAS. tools/asmrw.c inserts
 *   call cb_rsbsim_on_call ; .long RET - . ; call TARGET ; RET:     at calls into corobench code
 *   call cb_rsbsim_on_ret  ; ret                                     at returns (and tail jumps out)
 * Each saves the flags and every call-clobbered general-purpose register of the instrumented code
 * (operands, arguments, return values, and what -fipa-ra keeps live across a call), aligns the
 * stack and calls the simulator in C (harness/measure/rsbsim.c, whose hook functions use general
 * registers only). They write below rsp only where a `call` writes anyway. Not rewritten. */

        .text

/* Saved frame, from rbp up: rbp, r11, r10, r9, r8, rdi, rsi, rdx, rcx, rax, flags (11 words),
 * then the hook's own return address at 88(%rbp) and the word above it at 96(%rbp). */
        .macro SAVE_CALLER_SAVED
        pushfq
        .cfi_adjust_cfa_offset 8
        .irp reg, rax, rcx, rdx, rsi, rdi, r8, r9, r10, r11, rbp
        pushq   %\reg
        .cfi_adjust_cfa_offset 8
        .endr
        movq    %rsp, %rbp
        .cfi_def_cfa_register %rbp
        andq    $-16, %rsp              /* the C call needs a 16-byte aligned stack */
        .endm
        .macro RESTORE_CALLER_SAVED
        movq    %rbp, %rsp
        .cfi_def_cfa_register %rsp
        .irp reg, rbp, r11, r10, r9, r8, rdi, rsi, rdx, rcx, rax
        popq    %\reg
        .cfi_adjust_cfa_offset -8
        .endr
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
        SAVE_CALLER_SAVED
        movq    88(%rbp), %rax          /* where the .long sits */
        movslq  (%rax), %rdi
        addq    %rax, %rdi              /* rdi = RET */
        addq    $4, %rax
        movq    %rax, 88(%rbp)          /* come back after the .long */
        call    cb_rsbsim_push
        RESTORE_CALLER_SAVED
        ret
        .cfi_endproc
        .size   cb_rsbsim_on_call, .-cb_rsbsim_on_call

/* Pop: the instrumented `ret` is the instruction our own return address points at (its site);
 * its target is the word above our return address. */
        .globl  cb_rsbsim_on_ret
        .type   cb_rsbsim_on_ret, @function
        .p2align 4
cb_rsbsim_on_ret:
        .cfi_startproc
        SAVE_CALLER_SAVED
        movq    88(%rbp), %rdi          /* site */
        movq    96(%rbp), %rsi          /* target */
        call    cb_rsbsim_pop
        RESTORE_CALLER_SAVED
        ret
        .cfi_endproc
        .size   cb_rsbsim_on_ret, .-cb_rsbsim_on_ret

        .section .note.GNU-stack,"",@progbits
