/* The stackful coroutine layer: one API (create, resume, yield, transfer, destroy, name) over
 * interchangeable switch backends (asm, ucontext, ...), the way Redis' ae.c sits over its polling
 * backends. Workloads of the stackful family are written against this file only.
 * Creation maps the stack (outside any timed region); resume/yield/transfer are the measured verbs. */
#ifndef CB_CORO_H
#define CB_CORO_H

#include <stddef.h>
#include <stdint.h>

#include "stack.h"

typedef struct cb_co cb_co;

/* Called on the new stack at the first resume; its return value goes to the resumer and the
 * coroutine is finished. */
typedef uintptr_t (*cb_co_fn)(void *arg, uintptr_t first);

/* What the layer needs from a backend: the verb set every backend implements. */
typedef struct cb_co_backend {
    const char *name;
    const char *description;
    size_t ctx_size; /* bytes of per-coroutine saved context, stored inside cb_co */
    /* Prepare ctx so that the first jump to it runs cb_co_entry_(co, val) on [lo, lo + size). */
    void (*make)(void *ctx, void *stack_lo, size_t stack_size, cb_co *co);
    /* Save the running context in from and continue to; returns the val of the jump that later
     * continues from. */
    uintptr_t (*jump)(void *from, void *to, uintptr_t val);
    /* NULL where the backend works on this machine, else why not. */
    const char *(*unavailable)(void);
    /* The optional verbs below are NULL (0) for a plain switch backend. */
    /* A fallible make, for a context that is a resource (a thread): 0, or -1 with errno set.
     * Used instead of make when set. */
    int (*create)(void *ctx, void *stack_lo, size_t stack_size, cb_co *co);
    /* Frees what make/create acquired (a thread, a save buffer), at destroy, before the stack. */
    void (*release)(void *ctx);
    /* A backend whose coroutines all run on one stack (copystack) lends it with share_stack
     * (0, or -1 with errno) instead of the layer mapping a stack per coroutine, and takes it back
     * with unshare_stack at destroy (-1: the stack's canary was overwritten). */
    int (*share_stack)(cb_stack *s, size_t size, cb_stack_mode mode);
    int (*unshare_stack)(const cb_stack *s);
    /* Every coroutine runs on a thread of its own: the layer has no stack switch to tell the
     * sanitizer about. */
    int own_thread;
    /* A switch that can leave the FP control state alone (the asm backends' fpu parameter): the
     * same backend whose jump treats MXCSR and the x87 control word as per-thread (fpu=0); this
     * one switches them with the coroutine (fpu=1). NULL: no such choice. */
    const struct cb_co_backend *nofpu;
    /* 1: the switch is inlined at each call site of the verbs, in the workloads' twins built
     * with CB_CO_INLINE (impls/coro_inline.h), which a cell of this backend runs. */
    int at_call_site;
    /* A runtime loaded with --impl-lib (impls/plugin.c): the layer calls its create, resume,
     * yield, done and destroy (include/corobench/runtime.h) instead of make and jump, and has
     * no transfer to offer. NULL for corobench's own backends. */
    const struct cb_plugin *plugin;
    const char *plugin_path; /* the shared object it came from (realpath) */
    /* what that file was when it was loaded (impls/plugin.h, cb_plugin_load_same) */
    const char *plugin_identity;
} cb_co_backend;

/* How a cell creates its coroutines, from its implementation's parameters (cb_impl_co_cfg):
 * the backend (its FP variant chosen), the reserved stack bytes and the stack mode. */
typedef struct cb_co_cfg {
    const cb_co_backend *be;
    size_t stack_size;
    cb_stack_mode stack_mode;
} cb_co_cfg;

enum { CB_CO_DEFAULT_STACK = 65536, CB_EXIT_OVERFLOW = 86 };

/* Returns NULL with errno set when the stack cannot be mapped. */
cb_co *cb_co_create(const cb_co_cfg *cfg, cb_co_fn fn, void *arg);
/* The same with the first frame `top_offset` bytes (a multiple of 64, below the stack size)
 * below the top of the stack: the reserved stack is unchanged, only where the coroutine starts
 * moves (spawn's layout=offset, against the cache-set aliasing of identically aligned stacks). */
cb_co *cb_co_create_at(const cb_co_cfg *cfg, cb_co_fn fn, void *arg, size_t top_offset);
/* Runs co until it yields, transfers away or finishes; returns the value it passed. */
uintptr_t cb_co_resume(cb_co *co, uintptr_t val);
/* From inside a coroutine: back to whoever resumed it. Returns the next resume's val. */
uintptr_t cb_co_yield(uintptr_t val);
/* Symmetric switch: hand control straight to `to`, which inherits this coroutine's resumer.
 * One transfer is exactly one stack switch. */
uintptr_t cb_co_transfer(cb_co *to, uintptr_t val);
/* Frees a finished or suspended (never the running) coroutine. A chunked stack whose canary was
 * overwritten is reported as a stack overflow and the process exits (CB_EXIT_OVERFLOW): the
 * measurement it belongs to cannot be trusted. */
void cb_co_destroy(cb_co *co);
int cb_co_done(const cb_co *co);
/* 1 while a coroutine runs (its own stack or thread), 0 on the thread's own context. */
int cb_co_inside(void);
const char *cb_co_name(const cb_co *co);
/* Bytes of the control block (cb_co plus backend context) that each coroutine heap-allocates. */
size_t cb_co_control_bytes(const cb_co_backend *be);
const cb_stack *cb_co_stack(const cb_co *co);

/* Installs, once per process, the SIGSEGV/SIGBUS reporter (on an alternate signal stack) that
 * turns a stack overflow into one stderr line and exit status CB_EXIT_OVERFLOW: a guarded
 * coroutine stack's guard page, a chunked one's canary or stack pointer, the thread's own stack
 * (stackless code recursing too deep). Any other fault dies of its signal. cb_co_create installs
 * it; a cell's child installs it for every family. */
void cb_co_install_fault_reporter(void);

/* The backend context of co (cb_co_context(NULL): the thread's own), for a backend that hops
 * through a context of its own between two coroutines (copystack's copier). */
void *cb_co_context(cb_co *co);

/* Entry point the backends' make() arranges to run first; never returns. */
void cb_co_entry_(cb_co *co, uintptr_t val) __attribute__((noreturn));

/* A body compiled with CB_CO_INLINE (the `inline` implementation's twins of the workloads,
 * tests/test_inline.c) takes resume, yield and transfer inline, the switch an asm block in its
 * own code (impls/coro_inline.h); it may switch only coroutines of the inline backend. */
#if defined(CB_CO_INLINE)
#include "coro_inline.h"
#endif

#endif
