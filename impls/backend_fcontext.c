/* The "fcontext" backend: Boost.Context's own switch (make_fcontext/jump_fcontext from Debian's
 * libboost-context-dev), called from C through its C-linkage symbols, on stacks from the same
 * allocator as every other backend. The prototypes are Boost's (boost/context/detail/fcontext.hpp,
 * extern "C"), declared here so no C++ header is needed.
 * jump_fcontext(to, data) continues `to` and hands it {the caller's fresh context, data}; the
 * caller's context word is only known to whoever it lands in, so every jump carries a message
 * naming the jumping side's slot, and the receiving side stores the context there.
 * The Makefile links -lboost_context and defines CB_HAVE_FCONTEXT when a link probe succeeds;
 * without it the backend registers as unavailable and says why. */
#include "coro.h"

typedef struct cb_fc_transfer {
    void *fctx;
    void *data;
} cb_fc_transfer;

typedef struct fc_ctx {
    void *fctx; /* Boost's context: the suspended side's stack pointer */
    cb_co *co;
} fc_ctx;

typedef struct fc_msg {
    fc_ctx *from, *to;
    uintptr_t val;
} fc_msg;

#if CB_HAVE_FCONTEXT
cb_fc_transfer jump_fcontext(void *to, void *vp);
void *make_fcontext(void *sp, size_t size, void (*fn)(cb_fc_transfer));

static uintptr_t fc_jump(void *from, void *to, uintptr_t val)
{
    fc_msg m = {from, to, val};
    cb_fc_transfer t = jump_fcontext(m.to->fctx, &m);
    fc_msg *r = t.data; /* the message of the side that continued this one */
    r->from->fctx = t.fctx;
    return r->val;
}

static void fc_entry(cb_fc_transfer t)
{
    fc_msg *m = t.data;
    m->from->fctx = t.fctx;
    cb_co_entry_(m->to->co, m->val);
}

static void fc_make(void *ctx, void *stack_lo, size_t size, cb_co *co)
{
    fc_ctx *c = ctx;
    c->co = co;
    c->fctx = make_fcontext((char *)stack_lo + size, size, fc_entry);
}

static const char *fc_unavailable(void) { return NULL; }
#else
/* No switch to offer: make and jump stay NULL and the layer is never asked to use them. */
#define fc_make NULL
#define fc_jump NULL

static const char *fc_unavailable(void)
{
    return "built without Boost.Context: the Makefile's link probe found no libboost_context "
           "(Debian: libboost-context-dev, installed by scripts/install-deps.sh)";
}
#endif

const cb_co_backend cb_backend_fcontext = {
    .name = "fcontext",
    .description = "Boost.Context's make_fcontext/jump_fcontext (Debian libboost-context-dev), "
                   "called through their C symbols: saves MXCSR and the x87 control word on "
                   "x86-64; leaves with an indirect jmp",
    .ctx_size = sizeof(fc_ctx),
    .make = fc_make,
    .jump = fc_jump,
    .unavailable = fc_unavailable,
};
