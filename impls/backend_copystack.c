/* The "copystack" backend: libaco's shared-stack model. Every coroutine runs on one shared stack
 * (from the same allocator as the others); each coroutine owns a heap save buffer. A coroutine
 * that takes the shared stack over from another one first has the other's used part, from its
 * saved stack pointer to the top, copied out to the other's buffer, then its own image copied
 * back in. As in libaco the copy is lazy: going to the thread's own context (a yield to main)
 * or back to the coroutine whose frames are still on the shared stack copies nothing.
 * The register switch is asmjmp's (impls/asm/<arch>/switch_jmp.S), as libaco's is a jmp.
 * A copy between two coroutines cannot run on the shared stack it overwrites: main-to-coroutine
 * copies run on the thread's own stack; coroutine-to-coroutine (transfer) copies hop through a
 * small copier context with a stack of its own, as libaco's symmetric hand-off goes through main.
 * Bytes copied (out plus in) are counted in cb_rt.stack_copy_bytes. Pointers to a suspended
 * coroutine's locals are invalid while another coroutine holds the stack (libaco's rule too);
 * no workload passes them. */
#include <errno.h>
#include <string.h>
#include <valgrind/valgrind.h>
#include <valgrind/memcheck.h>

#include "coro.h"
#include "runtime.h"

uintptr_t cb_asm_jmp_jump(void *from, void *to, uintptr_t val);
void cb_asm_jmp_make(void *ctx, void *stack_lo, size_t size, cb_co *co);
extern const cb_co_backend cb_backend_asmjmp;

enum { CS_COPIER_STACK = 16384, CS_FRAME_MAX = 256 };

typedef struct cs_ctx {
    void *sp;           /* asmjmp's context word: the saved stack pointer */
    int on_shared;      /* 0 for the thread's own context (the main coroutine) */
    char *top;          /* its first frame's top: the shared stack's, less any start offset */
    unsigned char *buf; /* image of [sp, top) while another coroutine holds the shared stack */
    size_t cap;
} cs_ctx;

static struct {
    cb_stack stack;  /* the shared stack, mapped while any copystack coroutine exists */
    size_t size;     /* the size it was asked for */
    size_t users;    /* coroutines created and not destroyed */
    cs_ctx *owner;   /* whose frames are on the shared stack */
    cb_co *copier;   /* the hop for coroutine-to-coroutine copies */
    cs_ctx *to;      /* the hop in flight */
    uintptr_t val;
} cs;

static void reserve(cs_ctx *c, size_t len)
{
    if (len <= c->cap)
        return;
    size_t cap = c->cap ? c->cap : 256;
    while (cap < len)
        cap *= 2;
    cb_rt_free(c->buf, c->cap);
    c->buf = cb_rt_alloc(cap);
    c->cap = cap;
}

/* The owner's frames leave the shared stack for its buffer. */
static void save(cs_ctx *c)
{
    size_t len = (size_t)(c->top - (char *)c->sp);
    reserve(c, len);
    memcpy(c->buf, c->sp, len);
    cb_rt.stack_copy_bytes += len;
}

static void restore(cs_ctx *c)
{
    size_t len = (size_t)(c->top - (char *)c->sp);
    /* memcheck marked the shared stack below the last owner's frames dead; they live again. */
    VALGRIND_MAKE_MEM_UNDEFINED(c->sp, len);
    memcpy(c->sp, c->buf, len);
    cb_rt.stack_copy_bytes += len;
    cs.owner = c;
}

/* Runs on its own stack: moves the caller (the owner, just switched out) off the shared stack
 * and the target on, then continues the target. */
static __attribute__((noreturn)) uintptr_t copier_main(void *arg, uintptr_t unused)
{
    (void)arg, (void)unused;
    void *self = cb_co_context(cs.copier);
    for (;;) {
        save(cs.owner);
        restore(cs.to);
        cb_asm_jmp_jump(self, &cs.to->sp, cs.val);
    }
}

static uintptr_t cs_jump(void *from, void *to, uintptr_t val)
{
    cs_ctx *f = from, *t = to;
    if (!t->on_shared || t == cs.owner)
        return cb_asm_jmp_jump(&f->sp, &t->sp, val);
    if (!f->on_shared) { /* on the thread's own stack: copy here */
        if (cs.owner)
            save(cs.owner);
        restore(t);
        return cb_asm_jmp_jump(&f->sp, &t->sp, val);
    }
    cs.to = t;
    cs.val = val;
    return cb_asm_jmp_jump(&f->sp, cb_co_context(cs.copier), 0);
}

/* The first frame is built by asmjmp's make on a scratch area with the shared top's alignment
 * and becomes the coroutine's saved image (it holds no address of the stack it sits on). */
static void cs_make(void *ctx, void *stack_lo, size_t size, cb_co *co)
{
    cs_ctx *c = ctx;
    _Alignas(16) unsigned char scratch[CS_FRAME_MAX];
    void *sp;
    memset(c, 0, sizeof *c);
    cb_asm_jmp_make(&sp, scratch, sizeof scratch, co);
    size_t len = (size_t)(scratch + sizeof scratch - (unsigned char *)sp);
    reserve(c, len);
    memcpy(c->buf, sp, len);
    /* size is the shared stack's, less the start offset cb_co_create_at asked for. */
    c->top = (char *)((uintptr_t)((char *)stack_lo + size) & ~(uintptr_t)15);
    c->sp = c->top - len;
    c->on_shared = 1;
}

static void cs_release(void *ctx)
{
    cs_ctx *c = ctx;
    if (cs.owner == c)
        cs.owner = NULL;
    cb_rt_free(c->buf, c->cap);
    c->buf = NULL;
    c->cap = 0;
}

static int cs_share(cb_stack *s, size_t size, cb_stack_mode mode)
{
    if (cs.users == 0) {
        if (cb_stack_alloc(&cs.stack, size, mode) != 0)
            return -1;
        const cb_co_cfg copier = {&cb_backend_asmjmp, CS_COPIER_STACK, mode};
        cs.copier = cb_co_create(&copier, copier_main, NULL);
        if (!cs.copier) {
            int e = errno;
            cb_stack_free(&cs.stack);
            errno = e;
            return -1;
        }
        cs.size = size;
        cs.owner = NULL;
    } else if (size != cs.size) {
        errno = EINVAL; /* one shared stack, one size at a time */
        return -1;
    }
    cs.users++;
    *s = cs.stack;
    return 0;
}

static int cs_unshare(const cb_stack *s)
{
    (void)s;
    if (--cs.users)
        return 0;
    cb_co_destroy(cs.copier);
    cs.copier = NULL;
    cs.owner = NULL;
    return cb_stack_free(&cs.stack);
}

static const char *cs_unavailable(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return "not in the AddressSanitizer build: ASan's shadow of the shared stack would still "
           "describe the previous owner's frames after a copy";
#else
    return NULL;
#endif
}

const cb_co_backend cb_backend_copystack = {
    .name = "copystack",
    .description = "libaco-style shared stack: every coroutine runs on one stack; a switch "
                   "copies the used part out to the owner's save buffer and the next one's back "
                   "(asmjmp's register switch)",
    .ctx_size = sizeof(cs_ctx),
    .make = cs_make,
    .jump = cs_jump,
    .unavailable = cs_unavailable,
    .release = cs_release,
    .share_stack = cs_share,
    .unshare_stack = cs_unshare,
};
