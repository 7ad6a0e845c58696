/* corobench "asmjmp" switch, AArch64 AAPCS64, ELF/GAS. Leaves with `br` (an indirect branch).
 *
 * Saves the same state as switch_ret.S in the same frame (frame.h); only the way out differs.
 *
 * The resume address is loaded into x30 (the resumed code expects its own lr back) and reached
 * with `br x30`: an indirect branch, which does not pop the return stack (`ret` would), so it is
 * predicted by the indirect-branch predictor instead. The entry stub starts with `bti j`, the
 * landing pad an indirect `br` needs when the binary is marked for BTI (a NOP otherwise); a
 * resumed C call site has no landing pad, so this switch cannot run in a BTI-enforcing process
 * (Linux enforces BTI only for binaries marked with it; corobench is not).
 */
#include "frame.h"

        .text

/* uintptr_t cb_asm_jmp_jump(void *from, void *to, uintptr_t val)
 *   x0 = &from->sp, x1 = &to->sp, x2 = value handed to the resumed side (returned in x0) */
        .globl  cb_asm_jmp_jump
        .type   cb_asm_jmp_jump, %function
        .p2align CB_ENTRY_ALIGN
cb_asm_jmp_jump:
        bti     c                       /* reached through the backend's function pointer */
        CB_SWITCH_FRAME
        mov     x0, x2                  /* the value travels to the resumed side */
        br      x30                     /* indirect branch: the return stack is left as it is */
        .size   cb_asm_jmp_jump, .-cb_asm_jmp_jump

/* void cb_asm_jmp_make(void *ctx, void *stack_lo, size_t size, cb_co *co)
 *   x0 = ctx, x1 = stack_lo, x2 = size, x3 = co. Same frame as switch_ret.S's make. */
        .globl  cb_asm_jmp_make
        .type   cb_asm_jmp_make, %function
        .p2align CB_ENTRY_ALIGN
cb_asm_jmp_make:
        bti     c
        CB_MAKE_FRAME cb_asm_jmp_entry
        ret
        .size   cb_asm_jmp_make, .-cb_asm_jmp_make

/* First code run on a fresh stack: cb_co_entry_(co = x19, val = x0). It never returns. */
        .type   cb_asm_jmp_entry, %function
        .p2align CB_ENTRY_ALIGN
cb_asm_jmp_entry:
        bti     j                       /* an indirect-branch target */
        mov     x1, x0                  /* val, from the first jump */
        mov     x0, x19                 /* co, from the frame make built */
        bl      cb_co_entry_
        brk     #0
        .size   cb_asm_jmp_entry, .-cb_asm_jmp_entry

        .section .note.GNU-stack,"",%progbits
