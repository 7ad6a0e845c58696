/* A corobench runtime plugin over Boost.Context's fcontext that owns its stacks
 * (docs/plugin.md): a template to copy for a runtime with its own stack pool. The stacks come from
 * the plugin's own mmap with a guard page, and a destroyed coroutine's stack is kept in a free
 * list for the next create, as a runtime's pool would; corobench measures that pool, not its own.
 * Build it with only the installed header and Debian's libboost-context-dev:
 *     cc -O2 -fPIC -shared -I PREFIX/include -o libcb_fcontext.so fcontext_plugin.c \
 *         -lboost_context
 * Boost's make_fcontext/jump_fcontext have C linkage; their prototypes (from
 * boost/context/detail/fcontext.hpp) are declared here so no C++ header is needed. */
#include <corobench/runtime.h>

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct fc_transfer {
    void *fctx;
    void *data;
} fc_transfer;

fc_transfer jump_fcontext(void *to, void *data);
void *make_fcontext(void *sp, size_t size, void (*fn)(fc_transfer));

typedef struct coro {
    void *fctx;         /* the coroutine's context while it is switched out */
    void *back;         /* its resumer's, while the coroutine runs */
    cb_plugin_fn fn;
    void *arg;
    uintptr_t val;
    int done;
    struct coro *outer; /* the coroutine that was running when this one was resumed */
    char *map;          /* the stack's mapping, the guard page first */
    size_t map_size;
    struct coro *next_free;
} coro;

static coro *running;
static coro *pool; /* destroyed coroutines whose stacks wait for the next create */

static void entry(fc_transfer t)
{
    coro *c = t.data;
    c->back = t.fctx;
    c->val = c->fn(c->arg, c->val);
    c->done = 1;
    jump_fcontext(c->back, c); /* never continued */
    abort();
}

static void *fc_create(cb_plugin_fn fn, void *arg, void *stack_lo, size_t stack_size)
{
    (void)stack_lo; /* NULL: this plugin owns its stacks */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = (stack_size + page - 1) / page * page + page;
    coro *c = pool;
    while (c && c->map_size != size)
        c = c->next_free;
    if (c) { /* unlink the reused one */
        coro **p = &pool;
        while (*p != c)
            p = &(*p)->next_free;
        *p = c->next_free;
    } else {
        if (!(c = calloc(1, sizeof *c)))
            return NULL;
        c->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                      -1, 0);
        if (c->map == MAP_FAILED || mprotect(c->map, page, PROT_NONE) != 0) {
            int e = errno;
            if (c->map != MAP_FAILED)
                munmap(c->map, size);
            free(c);
            errno = e;
            return NULL;
        }
        c->map_size = size;
    }
    c->fn = fn;
    c->arg = arg;
    c->done = 0;
    c->fctx = make_fcontext(c->map + size, size - page, entry);
    return c;
}

static uintptr_t fc_resume(void *co, uintptr_t val)
{
    coro *c = co;
    c->val = val;
    c->outer = running;
    running = c;
    fc_transfer t = jump_fcontext(c->fctx, c);
    c->fctx = t.fctx; /* where it yielded (unused once done) */
    running = c->outer;
    return c->val;
}

static uintptr_t fc_yield(uintptr_t val)
{
    coro *c = running;
    c->val = val;
    fc_transfer t = jump_fcontext(c->back, c);
    c->back = t.fctx; /* the next resumer's context */
    return c->val;
}

static int fc_done(const void *co) { return ((const coro *)co)->done; }

static void fc_destroy(void *co)
{
    coro *c = co;
    c->next_free = pool;
    pool = c;
}

static const cb_plugin plugin = {
    .abi = CB_PLUGIN_ABI,
    .name = "fctx-plugin",
    .family = "stackful",
    .description = "example plugin (examples/fcontext): Boost.Context's jump_fcontext on stacks "
                   "the plugin maps and pools itself",
    .owns_stacks = 1,
    .create = fc_create,
    .resume = fc_resume,
    .yield = fc_yield,
    .done = fc_done,
    .destroy = fc_destroy,
};

const cb_plugin *corobench_plugin(void) { return &plugin; }
