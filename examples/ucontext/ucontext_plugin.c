/* A minimal corobench runtime plugin over glibc's ucontext (docs/plugin.md): a template to copy.
 * corobench gives each coroutine its stack (owns_stacks 0), so only the switch is the plugin's.
 * Build it with only the installed header:
 *     cc -O2 -fPIC -shared -I PREFIX/include -o libcb_ucontext.so ucontext_plugin.c
 * and run it next to corobench's own switch:
 *     corobench run --impl-lib ./libcb_ucontext.so --impl asm,uctx-plugin \
 *         --workload recursive,pingpong --param pingpong.mode=asymmetric --quick */
#include <corobench/runtime.h>

#include <stdlib.h>
#include <ucontext.h>

typedef struct coro {
    ucontext_t self;    /* the coroutine's context while it is switched out */
    ucontext_t back;    /* its resumer's, while the coroutine runs */
    cb_plugin_fn fn;
    void *arg;
    uintptr_t val;      /* the value in flight between resume and yield */
    int done;
    struct coro *outer; /* the coroutine that was running when this one was resumed */
} coro;

static coro *running; /* NULL on the thread's own context */

/* makecontext passes int arguments only: the pointer travels as two halves. */
static void entry(unsigned hi, unsigned lo)
{
    coro *c = (coro *)(((uintptr_t)hi << 32) | (uintptr_t)lo);
    c->val = c->fn(c->arg, c->val);
    c->done = 1;
    /* uc_link is c->back: returning here resumes the resumer. */
}

/* The context of a new coroutine in c, on [stack_lo, stack_lo + stack_size). */
static void prepare(coro *c, void *stack_lo, size_t stack_size)
{
    getcontext(&c->self);
    c->self.uc_stack.ss_sp = stack_lo;
    c->self.uc_stack.ss_size = stack_size;
    c->self.uc_link = &c->back; /* where entry's return goes */
    uintptr_t p = (uintptr_t)c;
    makecontext(&c->self, (void (*)(void))entry, 2, (unsigned)(p >> 32), (unsigned)p);
}

static void *uc_create(cb_plugin_fn fn, void *arg, void *stack_lo, size_t stack_size)
{
    coro *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->fn = fn;
    c->arg = arg;
    prepare(c, stack_lo, stack_size);
    return c;
}

static uintptr_t uc_resume(void *co, uintptr_t val)
{
    coro *c = co;
    c->val = val;
    c->outer = running;
    running = c;
    swapcontext(&c->back, &c->self);
    running = c->outer;
    return c->val;
}

static uintptr_t uc_yield(uintptr_t val)
{
    coro *c = running;
    c->val = val;
    swapcontext(&c->self, &c->back);
    return c->val; /* set by the next resume */
}

static int uc_done(const void *co) { return ((const coro *)co)->done; }

static void uc_destroy(void *co) { free(co); }

static const cb_plugin plugin = {
    .abi = CB_PLUGIN_ABI,
    .name = "uctx-plugin",
    .family = "stackful",
    .description = "example plugin (examples/ucontext): glibc swapcontext on corobench's stacks",
    .owns_stacks = 0,
    .create = uc_create,
    .resume = uc_resume,
    .yield = uc_yield,
    .done = uc_done,
    .destroy = uc_destroy,
};

const cb_plugin *corobench_plugin(void) { return &plugin; }
