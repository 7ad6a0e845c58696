/* corobench's runtime plugin interface, version 1 (docs/plugin.md).
 *
 * A coroutine runtime built as a shared object joins a run with `corobench run --impl-lib
 * PATH`: corobench dlopens PATH, calls corobench_plugin() once, and registers the implementation
 * it describes. Its cells run corobench's stackful workload bodies, which need only the five
 * verbs below; a body that switches straight from one coroutine to another (pingpong
 * mode=symmetric, pipeline sched=direct) is recorded as unsupported, with that reason.
 *
 * This header is the whole contract: it includes nothing of corobench, and a plugin links
 * nothing of it. Build a plugin with, for example,
 *     cc -O2 -fPIC -shared -I PREFIX/include -o libmyrt.so myrt.c
 *
 * Rules a plugin keeps (corobench checks what it can and records a cell that breaks one as
 * failed, with the reason):
 *  - one thread: corobench calls every verb from the thread that runs the cell;
 *  - create() does not run fn; the first resume() runs fn(arg, val) on the coroutine's own
 *    stack; resume() returns when the coroutine yields (the value it passed to yield()) or
 *    when fn returns (fn's value), and done() is then 1 from that point on;
 *  - yield() is called from inside a running coroutine only (from any call depth: the bodies
 *    yield from the bottom of a chain of calls), and returns the value of the next resume();
 *  - a coroutine may resume another one (it is then that one's resumer);
 *  - destroy() is given a suspended or finished coroutine, never the running one. */
#ifndef COROBENCH_RUNTIME_H
#define COROBENCH_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface; a plugin sets cb_plugin.abi to it. */
#define CB_PLUGIN_ABI 1

/* The coroutine's function: arg as given to create, first the value of the first resume.
 * Its return value is what the last resume returns. */
typedef uintptr_t (*cb_plugin_fn)(void *arg, uintptr_t first);

typedef struct cb_plugin {
    unsigned abi;            /* CB_PLUGIN_ABI */
    const char *name;        /* the implementation's name in --impl and in results: 1 to 32 of
                              * a-z, 0-9, '_', '-', starting with a letter; not a built-in's */
    const char *family;      /* "stackful": every coroutine runs on a stack of its own */
    const char *description; /* one sentence for `corobench list` and the results */
    /* 0: corobench allocates each coroutine's stack (its guarded or chunked stacks, the cell's
     * stack and stack_mode parameters) and passes it to create; 1: the plugin allocates its own,
     * create is given stack_lo NULL and the cell's stack parameter as stack_size. */
    int owns_stacks;
    /* A new suspended coroutine, or NULL (errno set) when it cannot be made. */
    void *(*create)(cb_plugin_fn fn, void *arg, void *stack_lo, size_t stack_size);
    /* Runs co until it yields or finishes; returns the value it passed. */
    uintptr_t (*resume)(void *co, uintptr_t val);
    /* From inside a coroutine: back to its resumer with val; returns the next resume's val. */
    uintptr_t (*yield)(uintptr_t val);
    /* 1 once co's function has returned, else 0. */
    int (*done)(const void *co);
    /* Frees co (and its stack, when the plugin owns stacks). */
    void (*destroy)(void *co);
} cb_plugin;

/* The one symbol corobench looks up in the shared object. */
const cb_plugin *corobench_plugin(void);

#ifdef __cplusplus
}
#endif

#endif
