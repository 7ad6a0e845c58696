/* Stackful tasks on the scheduler (tasks.h; docs/sched.md, "Stackful tasks"). A carrier is a
 * coroutine of the cell's backend whose function runs the bodies of tasks, one after another; the
 * switches between a worker and a carrier are the backend's jump, made here on contexts the
 * carrier holds, not through coro.c's verbs: those keep the thread's current coroutine in one
 * process-wide variable, right for a cell's single thread and wrong for W workers. The carriers'
 * stacks come from coro.c and stack.c, which are not thread-safe; every make and destroy holds
 * one lock, taken on a worker only when its pool is empty. */
#include "tasks.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coro_inline.h" /* CB_ASAN */
#include CB_SWITCH_INLINE_FILE /* the inline backend's block, taken inline below */

#if CB_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__)
#define CB_TSAN 1
#include <sanitizer/tsan_interface.h>
#else
#define CB_TSAN 0
#endif

extern const cb_co_backend cb_backend_inline;

struct cb_carrier {
    cb_co *co;
    void *co_ctx; /* the backend context of co */
    const cb_co_backend *be;
    cb_carrier *next; /* in a pool */
    cb_stask *task;   /* the task it runs, from its first run to its end */
    cb_sched_status status; /* what the body asked when it switched out */
#if CB_TSAN
    void *fiber, *home_fiber;
#endif
#if CB_ASAN
    void *fake, *home_fake;
    const void *home_lo;
    size_t home_size;
#endif
    /* The worker's context while the carrier runs: the backend's context bytes. */
    _Alignas(16) unsigned char home[];
};

/* A worker's pool of idle carriers, in its slot (cb_sched_worker_slot), touched by that worker
 * during a run and by cb_stask_prepare's thread between runs. */
typedef struct wpool {
    cb_carrier *free;
    cb_co_cfg cfg;
    int has_cfg;
} wpool;

static pthread_mutex_t make_lock = PTHREAD_MUTEX_INITIALIZER;
static cb_stask_counts counts;

/* ---- the switch ------------------------------------------------------------------------- */

static inline __attribute__((always_inline)) void jump(const cb_co_backend *be, void *from,
                                                       void *to)
{
    if (be->at_call_site) {
#if CB_INLINE_HAS_FPU
        if (be == &cb_backend_inline)
            cb_inline_switch(from, to, 0);
        else
            cb_inline_switch_nofpu(from, to, 0);
#else
        cb_inline_switch(from, to, 0);
#endif
    } else {
        be->jump(from, to, 0);
    }
}

#if CB_ASAN
/* The bounds of the calling thread's own stack (a worker's), for ASan's switch back to it. */
static __thread const void *thread_lo;
static __thread size_t thread_size;
static void thread_bounds(const void **lo, size_t *size)
{
    if (!thread_lo) {
        pthread_attr_t a;
        void *addr = NULL;
        size_t sz = 0;
        if (pthread_getattr_np(pthread_self(), &a) == 0) {
            pthread_attr_getstack(&a, &addr, &sz);
            pthread_attr_destroy(&a);
        }
        thread_lo = addr;
        thread_size = sz;
    }
    *lo = thread_lo;
    *size = thread_size;
}
#endif

/* From the worker: into the carrier, back when the body waits, yields or ends. */
static void switch_in(cb_carrier *c)
{
#if CB_TSAN
    c->home_fiber = __tsan_get_current_fiber();
    __tsan_switch_to_fiber(c->fiber, 0);
#endif
#if CB_ASAN
    thread_bounds(&c->home_lo, &c->home_size);
    const cb_stack *st = cb_co_stack(c->co);
    __sanitizer_start_switch_fiber(&c->home_fake, st->lo, st->size);
#endif
    jump(c->be, c->home, c->co_ctx);
#if CB_ASAN
    __sanitizer_finish_switch_fiber(c->home_fake, NULL, NULL);
#endif
}

/* From the carrier: back to the worker that switched in; returns when a worker resumes it. */
static void switch_out(cb_carrier *c)
{
#if CB_TSAN
    __tsan_switch_to_fiber(c->home_fiber, 0);
#endif
#if CB_ASAN
    __sanitizer_start_switch_fiber(&c->fake, c->home_lo, c->home_size);
#endif
    jump(c->be, c->co_ctx, c->home);
#if CB_ASAN
    __sanitizer_finish_switch_fiber(c->fake, NULL, NULL);
#endif
}

/* The carrier's function: a task's body after another, never returning. */
static uintptr_t carrier_main(void *arg, uintptr_t first)
{
    (void)first;
    cb_carrier *c = arg;
    for (;;) {
        cb_stask *x = c->task;
        x->body(x);
        c->status = CB_SCHED_DONE;
        switch_out(c);
    }
    return 0;
}

/* ---- carriers and pools ------------------------------------------------------------------- */

/* Under make_lock. NULL with errno. */
static cb_carrier *carrier_make(const cb_co_cfg *cfg)
{
    cb_carrier *c = calloc(1, sizeof *c + cfg->be->ctx_size);
    if (!c)
        return NULL;
    c->be = cfg->be;
    /* A carrier is the scheduler's, kept across cells like its deques: its control block is not
     * the cell's heap (impls/runtime.h counts that), whoever made it */
    cb_rt_stats heap = cb_rt;
    c->co = cb_co_create(cfg, carrier_main, c);
    cb_rt.heap_allocs = heap.heap_allocs;
    cb_rt.heap_live_bytes = heap.heap_live_bytes;
    if (!c->co) {
        int e = errno;
        free(c);
        errno = e;
        return NULL;
    }
    c->co_ctx = cb_co_context(c->co);
#if CB_TSAN
    c->fiber = __tsan_create_fiber(0);
#endif
    counts.carriers++;
    return c;
}

/* Under make_lock: a carrier between tasks (never one a body runs on). */
static void carrier_destroy(cb_carrier *c)
{
#if CB_TSAN
    __tsan_destroy_fiber(c->fiber);
#endif
    counts.carriers--;
    cb_rt_stats heap = cb_rt;
    cb_co_destroy(c->co);
    cb_rt.heap_allocs = heap.heap_allocs;
    cb_rt.heap_live_bytes = heap.heap_live_bytes;
    free(c);
}

static void pool_empty(wpool *p)
{
    pthread_mutex_lock(&make_lock);
    while (p->free) {
        cb_carrier *c = p->free;
        p->free = c->next;
        carrier_destroy(c);
    }
    pthread_mutex_unlock(&make_lock);
}

static void pool_free(void *slot)
{
    wpool *p = slot;
    pool_empty(p);
    free(p);
}

/* On worker w: a carrier from its pool, made when the pool is empty. A worker has no way to fail
 * the run, so a stack that cannot be mapped ends the process with the reason, as the runtime's
 * own allocations do. */
static cb_carrier *carrier_take(cb_sched_worker *w)
{
    wpool *p = *cb_sched_worker_slot(w);
    if (!p) {
        fprintf(stderr, "corobench: a stackful task ran on a scheduler that cb_stask_prepare "
                        "did not prepare\n");
        abort();
    }
    cb_carrier *c = p->free;
    if (c) {
        p->free = c->next;
        return c;
    }
    pthread_mutex_lock(&make_lock);
    c = carrier_make(&p->cfg);
    pthread_mutex_unlock(&make_lock);
    if (!c) {
        fprintf(stderr, "corobench: a worker cannot map a stackful task's stack (stack=%zu): %s\n",
                p->cfg.stack_size, cb_stack_strerror(errno));
        abort();
    }
    return c;
}

static void carrier_give(cb_sched_worker *w, cb_carrier *c)
{
    wpool *p = *cb_sched_worker_slot(w);
    c->task = NULL;
    c->next = p->free;
    p->free = c;
}

/* ---- the task's verbs --------------------------------------------------------------------- */

cb_sched_status cb_stask_run(cb_sched_task *t, cb_sched_worker *w)
{
    cb_stask *x = (cb_stask *)t;
    cb_carrier *c = x->c;
    int32_t id = (int32_t)cb_sched_worker_id(w);
    if (!c) {
        c = carrier_take(w);
        c->task = x;
        x->c = c;
    } else if (t->last_worker != id) {
        cb_sched_count_migration(w);
    }
    t->last_worker = id;
    x->w = w;
    switch_in(c);
    /* The task cannot run again before this returns (sched.h: its own share of a WAIT, a
     * YIELD's push after the return), so its carrier is still this worker's to read. */
    cb_sched_status st = c->status;
    if (st == CB_SCHED_DONE) {
        x->c = NULL;
        carrier_give(w, c);
    }
    return st;
}

cb_sched_worker *cb_stask_wait(cb_stask *x)
{
    cb_carrier *c = x->c;
    c->status = CB_SCHED_WAIT;
    switch_out(c);
    return x->w;
}

cb_sched_worker *cb_stask_yield(cb_stask *x)
{
    cb_carrier *c = x->c;
    c->status = CB_SCHED_YIELD;
    switch_out(c);
    return x->w;
}

/* ---- set-up ------------------------------------------------------------------------------- */

const char *cb_stask_unsupported(const cb_co_cfg *cfg)
{
    const cb_co_backend *be = cfg->be;
    if (be->plugin)
        return "a plugin's coroutines switch through its own resume and yield, which cannot "
               "carry a task from one worker to another";
    if (be->own_thread || be->create)
        return "its coroutines are threads of their own: a task cannot move to a worker";
    if (be->share_stack)
        return "its coroutines share one stack, which W workers cannot run on at once";
    if (!be->make || !be->jump)
        return be->unavailable ? be->unavailable() : "no switch in this build";
    return NULL;
}

int cb_stask_prepare(cb_sched *s, const cb_co_cfg *cfg, char *err, size_t errlen)
{
    const char *why = cb_stask_unsupported(cfg);
    if (why) {
        snprintf(err, errlen, "%s on the scheduler: %s", cfg->be->name, why);
        return -1;
    }
    /* here, not on a worker at its first carrier: the reporter's alternate signal stack is the
     * installing thread's (one buffer), and a worker's would be taken for the sanitizer's own
     * at the thread's end (ASan: "failed to deallocate" it) */
    cb_co_install_fault_reporter();
    cb_sched_set_slot_free(s, pool_free);
    int fresh = 0;
    for (unsigned i = 0; i < cb_sched_workers(s); i++) {
        void **slot = cb_sched_worker_slot(cb_sched_worker_at(s, i));
        wpool *p = *slot;
        if (!p) {
            p = calloc(1, sizeof *p);
            if (!p) {
                snprintf(err, errlen, "stackful tasks: out of memory");
                return -1;
            }
            *slot = p;
        }
        if (p->has_cfg && (p->cfg.be != cfg->be || p->cfg.stack_size != cfg->stack_size ||
                           p->cfg.stack_mode != cfg->stack_mode)) {
            pool_empty(p);
            p->has_cfg = 0;
        }
        fresh |= !p->has_cfg;
        p->cfg = *cfg;
        p->has_cfg = 1;
    }
    return fresh;
}

cb_stask_counts cb_stask_counts_now(void)
{
    pthread_mutex_lock(&make_lock);
    cb_stask_counts c = counts;
    pthread_mutex_unlock(&make_lock);
    return c;
}

size_t cb_stask_carrier_bytes(const cb_co_cfg *cfg)
{
    return sizeof(cb_carrier) + cfg->be->ctx_size + cb_co_control_bytes(cfg->be);
}
