/* The switch frame of x86-64 System V (ELF/GAS), shared by switch_ret.S and switch_jmp.S, which
 * differ only in how they leave. It holds exactly what the ABI makes callee-saved: rbx, rbp,
 * r12-r15 and rsp, plus the control bits of MXCSR and the x87 control word (callee-saved
 * "control" state per the psABI). The context is one word: the saved stack pointer. The frame it
 * points at:
 *
 *   offset  contents                    (stack grows down; rsp points at offset 0)
 *   +0      MXCSR (4 bytes) | x87 CW (2) | pad (2)
 *   +8      r15
 *   +16     r14
 *   +24     r13
 *   +32     r12
 *   +40     rbx      (fresh coroutine: the cb_co pointer)
 *   +48     rbp      (fresh coroutine: 0, ends frame-pointer walks)
 *   +56     resume address, pushed by the caller's `call` (fresh coroutine: the entry stub)
 */

/* Every entry point of the switch files starts a 64-byte cache line: where a switch sits in its
 * line (how its bytes split over fetch blocks, lines and predictor entries) then does not depend
 * on the size and link order of the code around it, and neither does its timing (docs/switch.md).
 * A preprocessor number, so the variant builds' rewriter sees the same `.p2align 6`. */
#define CB_ENTRY_ALIGN 6

/* Saves the running side's frame on its stack, stores its rsp at (rdi), switches to the stack
 * whose rsp is at (rsi) and restores the frame found there. fpu=0 leaves MXCSR and the x87
 * control word alone (the slot stays, unused): they are then per-thread state, as minicoro and
 * libdill treat them, which is wrong for code that changes the rounding mode inside a coroutine
 * (docs/switch.md). Leaves rsp at the resume address
 * (+56) and rdx untouched; the caller leaves with `ret` or an indirect jump. */
        .macro  CB_SWITCH_FRAME fpu=1
        pushq   %rbp                    /* +48 */
        pushq   %rbx                    /* +40 */
        pushq   %r12                    /* +32 */
        pushq   %r13                    /* +24 */
        pushq   %r14                    /* +16 */
        pushq   %r15                    /* +8 */
        subq    $8, %rsp
        .if \fpu
        stmxcsr (%rsp)                  /* +0: MXCSR (rounding mode, exception masks) */
        fnstcw  4(%rsp)                 /* +4: x87 control word */
        .endif
        movq    %rsp, (%rdi)            /* from->sp */

        movq    (%rsi), %rsp            /* to->sp: now on the other stack */
        .if \fpu
        ldmxcsr (%rsp)
        fldcw   4(%rsp)
        .endif
        addq    $8, %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        .endm

/* make(ctx = rdi, stack_lo = rsi, size = rdx, co = rcx): builds a fresh frame at the 16-byte
 * aligned top of [stack_lo, stack_lo + size), resuming in entry, and stores its address in ctx.
 * After the first switch pops it, rsp = top (16-byte aligned) in the entry stub. */
        .macro  CB_MAKE_FRAME entry
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
        leaq    \entry(%rip), %r8
        movq    %r8, 56(%rax)           /* the first switch lands in the entry stub */
        movq    %rax, (%rdi)
        .endm
