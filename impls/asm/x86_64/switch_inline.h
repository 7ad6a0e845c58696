/* corobench "inline" switch, x86-64 System V, GCC extended asm: the stack switch as an asm block
 * at the call site (Photon's "context switch at the call site"), included through coro.h where a
 * body is compiled with CB_CO_INLINE, and by impls/backend_inline.c. The Makefile picks this file
 * by ARCH (CB_SWITCH_INLINE_FILE).
 *
 * A function-call switch (switch_ret.S, switch_jmp.S) saves every callee-saved register on every
 * switch, live or not. Here the block declares every register the other side may change clobbered
 * (all general registers but rsp and rbp, every xmm and x87 register, the flags, memory), so the
 * compiler spills around it only the values live across the switch, and the enclosing function
 * saves the callee-saved registers it is given once, in its prologue, as for any call.
 *
 * The context, 32 bytes in cb_co's ctx (the stack is never written, so a red zone below rsp is
 * safe):
 *   +0   rsp                     (fresh coroutine: the 16-byte aligned top of its stack)
 *   +8   resume address          (the block's own label; fresh: cb_inline_entry)
 *   +16  rbp                     (the frame pointer may be fixed in the caller, so it is saved
 *                                 here instead of clobbered; fresh: the cb_co pointer)
 *   +24  MXCSR (4) | x87 CW (2)  (fpu=1 only, as the asm switch: docs/switch.md)
 * The value handed over travels in rdx; the block leaves with `jmp *8(to)`, an indirect jump (no
 * `ret`: nothing is pushed or popped on the return stack; docs/rsb.md), and the resumed side
 * lands on `endbr64` (a NOP unless the binary is marked for IBT). */
#ifndef CB_SWITCH_INLINE_H
#define CB_SWITCH_INLINE_H

#include <stddef.h>
#include <stdint.h>

enum { CB_INLINE_CTX_SIZE = 32 };

/* 1: the FP control state can be switched (fpu=1) or left per thread (fpu=0). */
#define CB_INLINE_HAS_FPU 1

/* Everything the code on the other side of a switch may change, except what the block saves
 * itself (rsp, rbp) and its operands (rdx, rsi, rdi, declared in-out). */
#define CB_INLINE_CLOBBERS                                                                     \
    "rax", "rbx", "rcx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "xmm0", "xmm1", \
        "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",      \
        "xmm12", "xmm13", "xmm14", "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", \
        "st(6)", "st(7)", "cc", "memory"

/* The block: saves the running side in (from), resumes the side saved in (to) and lands on the
 * label when some later switch resumes this side; fp is the FP control state's part (fpu=1) or
 * nothing. val travels in rdx. */
#define CB_INLINE_BLOCK(from, to, val, fp)                                                     \
    __asm__ volatile("leaq 1f(%%rip), %%rax\n\t"                                               \
                     "movq %%rsp, 0(%[f])\n\t"                                                 \
                     "movq %%rax, 8(%[f])\n\t"                                                 \
                     "movq %%rbp, 16(%[f])\n\t" fp "movq 16(%[t]), %%rbp\n\t"                 \
                     "movq 0(%[t]), %%rsp\n\t"                                                 \
                     "jmp *8(%[t])\n"                                                          \
                     "1:\n\t"                                                                  \
                     "endbr64"                                                                 \
                     : "+d"(val), [f] "+S"(from), [t] "+D"(to)                                 \
                     :                                                                         \
                     : CB_INLINE_CLOBBERS)

/* fpu=1: this side's MXCSR and x87 control word are stored, the other side's loaded. */
#define CB_INLINE_FPU                                                                          \
    "stmxcsr 24(%[f])\n\t"                                                                     \
    "fnstcw 28(%[f])\n\t"                                                                      \
    "ldmxcsr 24(%[t])\n\t"                                                                     \
    "fldcw 28(%[t])\n\t"

/* Saves the running side in from, resumes the side saved in to; returns the value the side that
 * later resumes this one hands over. fpu=1: MXCSR and the x87 control word travel too. */
static inline __attribute__((always_inline)) uintptr_t cb_inline_switch(void *from, void *to,
                                                                        uintptr_t val)
{
    CB_INLINE_BLOCK(from, to, val, CB_INLINE_FPU);
    return val;
}

/* fpu=0: MXCSR and the x87 control word stay per thread (their slots are not touched). */
static inline __attribute__((always_inline)) uintptr_t cb_inline_switch_nofpu(void *from,
                                                                              void *to,
                                                                              uintptr_t val)
{
    CB_INLINE_BLOCK(from, to, val, "");
    return val;
}

/* A fresh context: the first switch to it lands in entry (CB_INLINE_ENTRY_STUB) on the aligned
 * top of [lo, lo + size) with arg in the rbp slot, and the creator's FP control state. */
static inline void cb_inline_make(void *ctx, void *lo, size_t size, void *arg, void (*entry)(void))
{
    unsigned char *c = ctx;
    uintptr_t top = ((uintptr_t)lo + size) & ~(uintptr_t)15;
    uintptr_t words[3] = {top, (uintptr_t)entry, (uintptr_t)arg};
    __builtin_memcpy(c, words, sizeof words);
    __asm__ volatile("stmxcsr 24(%0)\n\t"
                     "fnstcw 28(%0)"
                     :
                     : "r"(c)
                     : "memory");
    c[30] = c[31] = 0;
}

/* The first code on a fresh stack, as a top-level asm statement (one translation unit expands
 * it): target(arg = the rbp slot, val = rdx), which never returns. rsp is 16-byte aligned here,
 * so the `call` leaves the callee the ABI's alignment. */
#define CB_INLINE_ENTRY_STUB(name, target)                                                     \
    __asm__(".text\n\t"                                                                        \
            ".type " #name ", @function\n\t"                                                   \
            ".p2align 6\n"                                                                     \
            #name ":\n\t"                                                                      \
            "endbr64\n\t" /* reached by the switch's indirect jump */                          \
            "movq %rbp, %rdi\n\t"                                                              \
            "movq %rdx, %rsi\n\t"                                                              \
            "xorl %ebp, %ebp\n\t" /* ends frame-pointer walks */                               \
            "call " #target "@PLT\n\t"                                                         \
            "ud2\n\t"                                                                          \
            ".size " #name ", .-" #name)

#endif
