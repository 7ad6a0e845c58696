/* The "ucontext" backend: glibc's own getcontext/makecontext/swapcontext (not a replacement).
 * glibc's swapcontext saves and restores the signal mask with rt_sigprocmask on every switch, a
 * system call per switch; that cost is part of what this backend measures. */
#include <stdint.h>
#include <ucontext.h>

#include "coro.h"

typedef struct uc_ctx {
    ucontext_t uc;
} uc_ctx;

/* The value in flight between swapcontext's two sides (single-threaded harness). */
static uintptr_t in_flight;

/* makecontext passes int arguments only: the cb_co pointer travels as two halves. */
static void uc_entry(unsigned hi, unsigned lo)
{
    cb_co *co = (cb_co *)(((uintptr_t)hi << 32) | (uintptr_t)lo);
    cb_co_entry_(co, in_flight);
}

static void uc_make(void *ctx, void *stack_lo, size_t size, cb_co *co)
{
    uc_ctx *c = ctx;
    uintptr_t p = (uintptr_t)co;
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = stack_lo;
    c->uc.uc_stack.ss_size = size;
    c->uc.uc_link = NULL; /* uc_entry never returns */
    makecontext(&c->uc, (void (*)(void))uc_entry, 2, (unsigned)(p >> 32), (unsigned)p);
}

static uintptr_t uc_jump(void *from, void *to, uintptr_t val)
{
    in_flight = val;
    swapcontext(&((uc_ctx *)from)->uc, &((uc_ctx *)to)->uc);
    return in_flight;
}

const cb_co_backend cb_backend_ucontext = {
    .name = "ucontext",
    .description = "glibc getcontext/makecontext/swapcontext; swapcontext saves the signal mask "
                   "with a system call on every switch",
    .ctx_size = sizeof(uc_ctx),
    .make = uc_make,
    .jump = uc_jump,
    .unavailable = NULL,
};
