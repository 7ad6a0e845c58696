/* corobench "asm" switch, AArch64 AAPCS64, ELF/GAS. Leaves with `ret` (through x30).
 *
 * Saves exactly what AAPCS64 makes callee-saved: x19-x28, x29 (fp), x30 (lr), sp and d8-d15
 * (only the low 64 bits of v8-v15 are callee-saved). FPCR is not saved: AAPCS64 makes it
 * thread-global state (a rounding mode set in one coroutine is seen by all), unlike the x86-64
 * switch, which keeps MXCSR and the x87 control word per coroutine. x18 (platform register) is
 * a temporary on Linux and not saved. The context is one word: the saved stack pointer.
 * The frame it points at (160 bytes, 16-byte aligned, laid out like an ordinary prologue):
 *
 *   offset  contents                    (stack grows down; sp points at offset 0)
 *   +0      x29 (fp)  (fresh coroutine: 0, ends frame-pointer walks)
 *   +8      x30 (lr)  the resume address (fresh coroutine: cb_asm_ret_entry)
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
        .text

/* uintptr_t cb_asm_ret_jump(void *from, void *to, uintptr_t val)
 *   x0 = &from->sp, x1 = &to->sp, x2 = value handed to the resumed side (returned in x0) */
        .globl  cb_asm_ret_jump
        .type   cb_asm_ret_jump, %function
        .p2align 4
cb_asm_ret_jump:
        bti     c                       /* reached through the backend's function pointer */
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
        mov     x0, x2                  /* the value travels to the resumed side */
        ret                             /* to x30: the resume address from the other stack */
        .size   cb_asm_ret_jump, .-cb_asm_ret_jump

/* void cb_asm_ret_make(void *ctx, void *stack_lo, size_t size, cb_co *co)
 *   x0 = ctx, x1 = stack_lo, x2 = size, x3 = co. Builds the frame above at the aligned top of
 *   [stack_lo, stack_lo + size) and stores its address in ctx. After the first jump pops it,
 *   sp = top (16-byte aligned, as AAPCS64 requires at every call) in the entry stub. */
        .globl  cb_asm_ret_make
        .type   cb_asm_ret_make, %function
        .p2align 4
cb_asm_ret_make:
        bti     c
        add     x9, x1, x2              /* top of the stack */
        and     x9, x9, #-16            /* 16-byte aligned, as AAPCS64 requires of sp */
        sub     x9, x9, #160            /* room for the frame */
        adr     x10, cb_asm_ret_entry
        stp     xzr, x10, [x9]          /* fp = 0; the first `ret` lands in the entry stub */
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
        ret                             /* to the creator (x30 untouched) */
        .size   cb_asm_ret_make, .-cb_asm_ret_make

/* First code run on a fresh stack: cb_co_entry_(co = x19, val = x0). It never returns. */
        .type   cb_asm_ret_entry, %function
        .p2align 4
cb_asm_ret_entry:
        mov     x1, x0                  /* val, from the first jump */
        mov     x0, x19                 /* co, from the frame make built */
        bl      cb_co_entry_
        brk     #0
        .size   cb_asm_ret_entry, .-cb_asm_ret_entry

        .section .note.GNU-stack,"",%progbits
