/* The switch frame of AArch64 AAPCS64 (ELF/GAS), shared by switch_ret.S and switch_jmp.S, which
 * differ only in how they leave. It holds exactly what AAPCS64 makes callee-saved: x19-x28, x29
 * (fp), x30 (lr), sp and d8-d15 (only the low 64 bits of v8-v15 are callee-saved). FPCR is not
 * saved: AAPCS64 makes it thread-global state (a rounding mode set in one coroutine is seen by
 * all), unlike the x86-64 switch, which keeps MXCSR and the x87 control word per coroutine. x18
 * (platform register) is a temporary on Linux and not saved. The context is one word: the saved
 * stack pointer. The frame it points at (160 bytes, 16-byte aligned, laid out like an ordinary
 * prologue):
 *
 *   offset  contents                    (stack grows down; sp points at offset 0)
 *   +0      x29 (fp)  (fresh coroutine: 0, ends frame-pointer walks)
 *   +8      x30 (lr)  the resume address (fresh coroutine: the entry stub)
 *   +16     x19       (fresh coroutine: the cb_co pointer)
 *   +24     x20
 *   +32     x21
 *   +40     x22
 *   +48     x23
 *   +56     x24
 *   +64     x25
 *   +72     x26
 *   +80     x27
 *   +88     x28
 *   +96     d8
 *   +104    d9
 *   +112    d10
 *   +120    d11
 *   +128    d12
 *   +136    d13
 *   +144    d14
 *   +152    d15
 */

/* Every entry point of the switch files starts a 64-byte cache line: where a switch sits in its
 * line (how its bytes split over fetch blocks, lines and predictor entries) then does not depend
 * on the size and link order of the code around it, and neither does its timing (docs/switch.md).
 * A preprocessor number, so the variant builds' rewriter sees the same `.p2align 6`. */
#define CB_ENTRY_ALIGN 6

/* Saves the running side's frame on its stack, stores its sp at [x0], switches to the stack
 * whose sp is at [x1] and restores the frame found there, the resume address in x30 and x2
 * untouched; the caller leaves with `ret` or `br x30`. */
        .macro  CB_SWITCH_FRAME
        stp     x29, x30, [sp, #-160]!  /* +0 fp, +8 lr (our resume address); allocates the frame */
        stp     x19, x20, [sp, #16]     /* +16, +24 */
        stp     x21, x22, [sp, #32]     /* +32, +40 */
        stp     x23, x24, [sp, #48]     /* +48, +56 */
        stp     x25, x26, [sp, #64]     /* +64, +72 */
        stp     x27, x28, [sp, #80]     /* +80, +88 */
        stp     d8, d9, [sp, #96]       /* +96, +104: low halves of v8, v9 */
        stp     d10, d11, [sp, #112]    /* +112, +120 */
        stp     d12, d13, [sp, #128]    /* +128, +136 */
        stp     d14, d15, [sp, #144]    /* +144, +152 */
        mov     x9, sp                  /* sp cannot be the source of str */
        str     x9, [x0]                /* from->sp */

        ldr     x9, [x1]                /* to->sp */
        mov     sp, x9                  /* now on the other stack */
        ldp     d8, d9, [sp, #96]
        ldp     d10, d11, [sp, #112]
        ldp     d12, d13, [sp, #128]
        ldp     d14, d15, [sp, #144]
        ldp     x19, x20, [sp, #16]
        ldp     x21, x22, [sp, #32]
        ldp     x23, x24, [sp, #48]
        ldp     x25, x26, [sp, #64]
        ldp     x27, x28, [sp, #80]
        ldp     x29, x30, [sp], #160    /* fp, resume address; frees the frame */
        .endm

/* make(ctx = x0, stack_lo = x1, size = x2, co = x3): builds a fresh frame at the 16-byte aligned
 * top of [stack_lo, stack_lo + size), resuming in entry, and stores its address in ctx. After
 * the first switch pops it, sp = top (16-byte aligned, as AAPCS64 requires at every call) in the
 * entry stub. x30 is untouched. */
        .macro  CB_MAKE_FRAME entry
        add     x9, x1, x2              /* top of the stack */
        and     x9, x9, #-16            /* 16-byte aligned, as AAPCS64 requires of sp */
        sub     x9, x9, #160            /* room for the frame */
        adr     x10, \entry
        stp     xzr, x10, [x9]          /* fp = 0; the first switch lands in the entry stub */
        stp     x3, xzr, [x9, #16]      /* x19 = co, x20 */
        stp     xzr, xzr, [x9, #32]     /* x21, x22 */
        stp     xzr, xzr, [x9, #48]     /* x23, x24 */
        stp     xzr, xzr, [x9, #64]     /* x25, x26 */
        stp     xzr, xzr, [x9, #80]     /* x27, x28 */
        stp     xzr, xzr, [x9, #96]     /* d8, d9 */
        stp     xzr, xzr, [x9, #112]    /* d10, d11 */
        stp     xzr, xzr, [x9, #128]    /* d12, d13 */
        stp     xzr, xzr, [x9, #144]    /* d14, d15 */
        str     x9, [x0]                /* ctx = the frame */
        .endm
