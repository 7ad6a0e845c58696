/* corobench "inline" switch, AArch64 AAPCS64, GCC extended asm: the stack switch as an asm block
 * at the call site, included through coro.h where a body is compiled with CB_CO_INLINE, and by
 * impls/backend_inline.c. The Makefile picks this file by ARCH (CB_SWITCH_INLINE_FILE).
 *
 * The block declares every register the other side may change clobbered (x0-x28 but its operands,
 * x30, v0-v31 whose low halves d8-d15 are the callee-saved FP registers, the flags, memory), so
 * the compiler spills around it only the values live across the switch and the enclosing function
 * saves the callee-saved registers it is given once, in its prologue. x29 may be the caller's
 * frame pointer, which cannot be clobbered, so the block saves it in the context.
 *
 * The context, 24 bytes in cb_co's ctx (the stack is never written):
 *   +0   sp                  (fresh coroutine: the 16-byte aligned top of its stack)
 *   +8   resume address      (the block's own label; fresh: cb_inline_entry)
 *   +16  x29                 (fresh: the cb_co pointer)
 * FPCR is not switched: AAPCS64 makes it thread-global (docs/switch.md), so fpu=0 and fpu=1 run
 * the same block. The value handed over travels in x0; the block leaves with `br`, an indirect
 * branch (no `ret`: the return stack is not popped; docs/rsb.md), and lands on `bti j` (a NOP
 * unless the binary is marked for BTI). */
#ifndef CB_SWITCH_INLINE_H
#define CB_SWITCH_INLINE_H

#include <stddef.h>
#include <stdint.h>

enum { CB_INLINE_CTX_SIZE = 24 };

/* 0: no FP control state is switched on this architecture; fpu=0 is the same switch. */
#define CB_INLINE_HAS_FPU 0

#define CB_INLINE_CLOBBERS                                                                     \
    "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", \
        "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28",    \
        "x30", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", \
        "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24",    \
        "v25", "v26", "v27", "v28", "v29", "v30", "v31", "cc", "memory"

/* Saves the running side in from, resumes the side saved in to; returns the value the side that
 * later resumes this one hands over. */
static inline __attribute__((always_inline)) uintptr_t cb_inline_switch(void *from, void *to,
                                                                        uintptr_t val)
{
    register uintptr_t x0 __asm__("x0") = val;
    register void *x1 __asm__("x1") = from;
    register void *x2 __asm__("x2") = to;
    __asm__ volatile("adr x3, 1f\n\t"
                     "mov x4, sp\n\t"
                     "stp x4, x3, [x1]\n\t"
                     "str x29, [x1, #16]\n\t"
                     "ldp x4, x3, [x2]\n\t"
                     "ldr x29, [x2, #16]\n\t"
                     "mov sp, x4\n\t"
                     "br x3\n"
                     "1:\n\t"
                     "hint #36" /* bti j */
                     : "+r"(x0), "+r"(x1), "+r"(x2)
                     :
                     : CB_INLINE_CLOBBERS);
    return x0;
}

static inline __attribute__((always_inline)) uintptr_t cb_inline_switch_nofpu(void *from,
                                                                              void *to,
                                                                              uintptr_t val)
{
    return cb_inline_switch(from, to, val);
}

/* A fresh context: the first switch to it lands in entry (CB_INLINE_ENTRY_STUB) on the aligned
 * top of [lo, lo + size) with arg in the x29 slot. */
static inline void cb_inline_make(void *ctx, void *lo, size_t size, void *arg, void (*entry)(void))
{
    uintptr_t top = ((uintptr_t)lo + size) & ~(uintptr_t)15;
    uintptr_t words[3] = {top, (uintptr_t)entry, (uintptr_t)arg};
    __builtin_memcpy(ctx, words, sizeof words);
}

/* The first code on a fresh stack, as a top-level asm statement (one translation unit expands
 * it): target(arg = x29, val = x0), which never returns. */
#define CB_INLINE_ENTRY_STUB(name, target)                                                     \
    __asm__(".text\n\t"                                                                        \
            ".type " #name ", %function\n\t"                                                   \
            ".p2align 6\n"                                                                     \
            #name ":\n\t"                                                                      \
            "hint #36\n\t" /* bti j: reached by the switch's indirect branch */                \
            "mov x1, x0\n\t"                                                                   \
            "mov x0, x29\n\t"                                                                  \
            "mov x29, #0\n\t" /* ends frame-pointer walks */                                   \
            "mov x30, #0\n\t"                                                                  \
            "bl " #target "\n\t"                                                               \
            "brk #0\n\t"                                                                       \
            ".size " #name ", .-" #name)

#endif
