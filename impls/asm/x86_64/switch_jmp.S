/* corobench "asmjmp" switch, x86-64 System V, ELF/GAS. Leaves with an indirect `jmp`.
 *
 * Saves the same state as switch_ret.S (rbx, rbp, r12-r15, rsp, MXCSR and the x87 control word)
 * in the same frame; only the way out differs. The context is one word: the saved stack pointer.
 *
 *   offset  contents                    (stack grows down; rsp points at offset 0)
 *   +0      MXCSR (4 bytes) | x87 CW (2) | pad (2)
 *   +8      r15
 *   +16     r14
 *   +24     r13
 *   +32     r12
 *   +40     rbx      (fresh coroutine: the cb_co pointer)
 *   +48     rbp      (fresh coroutine: 0, ends frame-pointer walks)
 *   +56     resume address, pushed by the caller's `call` (fresh coroutine: cb_asm_jmp_entry)
 *
 * The resume address is popped into r8 and reached with `jmp *%r8`, as Boost.Context, libaco,
 * minicoro, libdill and Go leave their switches: the jump is predicted by the indirect-branch
 * predictor, not the return stack buffer. The return stack is not popped, so the entry the
 * caller's `call` pushed stays on it: the resumed side's next `ret` meets it (docs/rsb.md).
 * No shadow-stack support (see switch_ret.S); the entry stub starts with `endbr64`, since an
 * indirect jump lands there under IBT.
 */
        .text

/* uintptr_t cb_asm_jmp_jump(void *from, void *to, uintptr_t val)
 *   rdi = &from->sp, rsi = &to->sp, rdx = value handed to the resumed side (returned in rax) */
        .globl  cb_asm_jmp_jump
        .type   cb_asm_jmp_jump, @function
        .p2align 4
cb_asm_jmp_jump:
        endbr64                         /* reached through the backend's function pointer */
        pushq   %rbp                    /* +48 */
        pushq   %rbx                    /* +40 */
        pushq   %r12                    /* +32 */
        pushq   %r13                    /* +24 */
        pushq   %r14                    /* +16 */
        pushq   %r15                    /* +8 */
        subq    $8, %rsp
        stmxcsr (%rsp)                  /* +0: MXCSR (rounding mode, exception masks) */
        fnstcw  4(%rsp)                 /* +4: x87 control word */
        movq    %rsp, (%rdi)            /* from->sp */

        movq    (%rsi), %rsp            /* to->sp: now on the other stack */
        ldmxcsr (%rsp)
        fldcw   4(%rsp)
        addq    $8, %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        popq    %r8                     /* +56: the resume address; rsp is now the caller's */
        movq    %rdx, %rax              /* the value travels to the resumed side */
        jmp     *%r8                    /* indirect jump: the return stack is left as it is */
        .size   cb_asm_jmp_jump, .-cb_asm_jmp_jump

/* void cb_asm_jmp_make(void *ctx, void *stack_lo, size_t size, cb_co *co)
 *   Builds the frame above at the aligned top of [stack_lo, stack_lo + size) and stores its
 *   address in ctx. After the first jump pops it, rsp = top (16-byte aligned) in the entry. */
        .globl  cb_asm_jmp_make
        .type   cb_asm_jmp_make, @function
        .p2align 4
cb_asm_jmp_make:
        endbr64
        leaq    (%rsi,%rdx), %rax       /* top of the stack */
        andq    $-16, %rax
        subq    $64, %rax               /* room for the frame */
        stmxcsr (%rax)                  /* start with the creator's FP control state */
        fnstcw  4(%rax)
        movw    $0, 6(%rax)
        movq    $0, 8(%rax)             /* r15 */
        movq    $0, 16(%rax)            /* r14 */
        movq    $0, 24(%rax)            /* r13 */
        movq    $0, 32(%rax)            /* r12 */
        movq    %rcx, 40(%rax)          /* rbx = co */
        movq    $0, 48(%rax)            /* rbp */
        leaq    cb_asm_jmp_entry(%rip), %r8
        movq    %r8, 56(%rax)           /* the first jump lands in the entry stub */
        movq    %rax, (%rdi)
        ret
        .size   cb_asm_jmp_make, .-cb_asm_jmp_make

/* First code run on a fresh stack: cb_co_entry_(co = rbx, val = rax). It never returns. */
        .type   cb_asm_jmp_entry, @function
        .p2align 4
cb_asm_jmp_entry:
        endbr64                         /* an indirect-jump target */
        movq    %rbx, %rdi
        movq    %rax, %rsi
        call    cb_co_entry_@PLT
        ud2
        .size   cb_asm_jmp_entry, .-cb_asm_jmp_entry

        .section .note.GNU-stack,"",@progbits
