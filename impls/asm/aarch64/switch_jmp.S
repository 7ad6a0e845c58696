/* corobench "asmjmp" switch, AArch64 AAPCS64, ELF/GAS. Leaves with `br` (an indirect branch).
 *
 * Saves the same state as switch_ret.S (x19-x28, x29, x30, sp, d8-d15; FPCR stays thread-global
 * as AAPCS64 makes it) in the same 160-byte frame; only the way out differs:
 *
 *   offset  contents                    (stack grows down; sp points at offset 0)
 *   +0      x29 (fp)  (fresh coroutine: 0)
 *   +8      x30 (lr)  the resume address (fresh coroutine: cb_asm_jmp_entry)
 *   +16     x19       (fresh coroutine: the cb_co pointer)
 *   +24..+88  x20-x28
 *   +96..+152 d8-d15
 *
 * The resume address is loaded into x30 (the resumed code expects its own lr back) and reached
 * with `br x30`: an indirect branch, which does not pop the return stack (`ret` would), so it is
 * predicted by the indirect-branch predictor instead. The entry stub starts with `bti j`, the
 * landing pad an indirect `br` needs when the binary is marked for BTI (a NOP otherwise); a
 * resumed C call site has no landing pad, so this switch cannot run in a BTI-enforcing process
 * (Linux enforces BTI only for binaries marked with it; corobench is not).
 */
        .text

/* uintptr_t cb_asm_jmp_jump(void *from, void *to, uintptr_t val)
 *   x0 = &from->sp, x1 = &to->sp, x2 = value handed to the resumed side (returned in x0) */
        .globl  cb_asm_jmp_jump
        .type   cb_asm_jmp_jump, %function
        .p2align 4
cb_asm_jmp_jump:
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
        br      x30                     /* indirect branch: the return stack is left as it is */
        .size   cb_asm_jmp_jump, .-cb_asm_jmp_jump

/* void cb_asm_jmp_make(void *ctx, void *stack_lo, size_t size, cb_co *co)
 *   x0 = ctx, x1 = stack_lo, x2 = size, x3 = co. Same frame as switch_ret.S's make. */
        .globl  cb_asm_jmp_make
        .type   cb_asm_jmp_make, %function
        .p2align 4
cb_asm_jmp_make:
        bti     c
        add     x9, x1, x2              /* top of the stack */
        and     x9, x9, #-16
        sub     x9, x9, #160            /* room for the frame */
        adr     x10, cb_asm_jmp_entry
        stp     xzr, x10, [x9]          /* fp = 0; the first jump lands in the entry stub */
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
        ret
        .size   cb_asm_jmp_make, .-cb_asm_jmp_make

/* First code run on a fresh stack: cb_co_entry_(co = x19, val = x0). It never returns. */
        .type   cb_asm_jmp_entry, %function
        .p2align 4
cb_asm_jmp_entry:
        bti     j                       /* an indirect-branch target */
        mov     x1, x0                  /* val, from the first jump */
        mov     x0, x19                 /* co, from the frame make built */
        bl      cb_co_entry_
        brk     #0
        .size   cb_asm_jmp_entry, .-cb_asm_jmp_entry

        .section .note.GNU-stack,"",%progbits
