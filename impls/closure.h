/* The "closure" runtime: stackless coroutines the way C# Tasks and JavaScript async functions run.
 * Every async call allocates a heap frame with its live locals and a continuation (resume
 * function + parent frame). The callee starts synchronously inside its caller; when it suspends,
 * every frame on the way up returns CB_CL_SUSPENDED to the scheduler. Resumption calls the
 * innermost frame; a frame that completes after suspending (cb_cl_done) gives its parent the
 * result, is freed and resumes the parent through the continuation, a tail call from its own
 * code, as a completed C# Task runs its awaiter's continuation. A frame's code is one function
 * switching on its resume point (as C#'s MoveNext), or two (cb_cl_await_start): its start and
 * its continuation, as LLVM splits a C++20 coroutine (pingpong's chain levels).
 * Frames come from glibc malloc, or (alloc=pool, the task's use_pool) from a free list per task: a
 * completed frame is kept on its task's list and handed to the task's next frame of the same
 * size, as pooled ValueTasks and the bump allocators of JavaScript engines avoid malloc; the list
 * is given back to malloc when the task completes or is cancelled, inside the timed region. */
#ifndef CB_CLOSURE_H
#define CB_CLOSURE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime.h"

typedef enum cb_cl_status { CB_CL_DONE = 0, CB_CL_SUSPENDED = 1 } cb_cl_status;

typedef struct cb_cl_frame cb_cl_frame;
typedef struct cb_cl_task cb_cl_task;
typedef cb_cl_status (*cb_cl_fn)(cb_cl_frame *f);

/* Header of every frame; the function's locals follow it in the same allocation. task comes after
 * the flags word, not beside parent: GCC packed the two adjacent pointers into one 16-byte vector
 * store, at a few instructions more per frame. */
struct cb_cl_frame {
    cb_cl_fn resume;     /* continuation: where this frame goes on */
    cb_cl_frame *parent; /* who awaits this frame's result */
    uint8_t state;       /* resume point */
    uint8_t shift;       /* the frame starts shift * 64 bytes into its allocation (layout=offset) */
    uint8_t suspended;   /* it has suspended: its parent waits for it asynchronously */
    uint8_t pooled;      /* its task pools frames (alloc=pool): completed, it goes on its list */
    uint32_t size;       /* bytes of the whole allocation, for the free and the pool */
    cb_cl_task *task;
    uint64_t result;     /* set by the frame when it completes */
    uint64_t awaited;    /* result of the last child this frame awaited */
};

/* A top-level coroutine: the chain of frames from root to the innermost suspended one. */
struct cb_cl_task {
    cb_cl_frame *innermost;
    cb_cl_frame *pool; /* alloc=pool: completed frames kept for reuse (linked through parent) */
    int use_pool;      /* alloc=pool (the cell's, cb_impl_cl_pool), set before the task starts */
    int done;
    uint64_t result;
};

/* Bytes of the last frame taken from malloc (the harness measures a malloc/free pair of that
 * size beside the cell: malloc_free_ns, docs/measurement.md). */
extern size_t cb_cl_frame_bytes_;

/* A frame of `size` bytes (header included) running fn, `offset` bytes (a multiple of 64, below
 * 4096) into its allocation. Only the header is initialised (each field once): the caller sets
 * every field of its own before the frame first runs. Inline, as a compiler inlines its
 * allocation of an async call's frame: what a frame costs is malloc's pair and these stores
 * (docs/measurement.md). */
static inline __attribute__((always_inline)) void *cb_cl_new_in_(cb_cl_task *t,
                                                                 cb_cl_frame *parent, cb_cl_fn fn,
                                                                 size_t size, size_t offset)
{
    size_t total = size + offset;
    cb_cl_frame *f = t->pool;
    if (f && f->size == total && f->shift == offset / 64) {
        t->pool = f->parent; /* LIFO: the most recently used, still warm */
    } else {
        f = (cb_cl_frame *)((char *)cb_rt_alloc(total) + offset);
        cb_cl_frame_bytes_ = total;
    }
    f->resume = fn;
    f->parent = parent;
    f->task = t;
    f->state = 0;
    f->shift = (uint8_t)(offset / 64); /* a pooled frame's shift and size are the same already */
    f->suspended = 0;
    f->pooled = (uint8_t)t->use_pool;
    f->size = (uint32_t)total;
    return f;
}

static inline __attribute__((always_inline)) void *cb_cl_new(cb_cl_task *t, cb_cl_frame *parent,
                                                             cb_cl_fn fn, size_t size)
{
    return cb_cl_new_in_(t, parent, fn, size, 0);
}

/* The same, placed `offset` bytes into a larger allocation (spawn's layout=offset: frames at
 * pseudo-random cache-line offsets). */
void *cb_cl_new_at(cb_cl_task *t, cb_cl_frame *parent, cb_cl_fn fn, size_t size, size_t offset);

/* A completed frame: back to malloc, or onto its task's free list (alloc=pool). */
static inline __attribute__((always_inline)) void cb_cl_free_(cb_cl_frame *f)
{
    if (f->pooled) {
        f->parent = f->task->pool;
        f->task->pool = f;
    } else {
        cb_rt_free((char *)f - (size_t)f->shift * 64, f->size);
    }
}

/* Starts a task at its root frame; returns DONE or SUSPENDED. */
cb_cl_status cb_cl_start(cb_cl_task *t, cb_cl_frame *root);
/* Resumes a suspended task at its innermost frame; completed frames resume their parents. */
cb_cl_status cb_cl_resume(cb_cl_task *t);
/* Frees the frames of a task that is still suspended. */
void cb_cl_cancel(cb_cl_task *t);

/* Inside a frame's resume function: await a child created with cb_cl_new(..., self, ...).
 * DONE: the child completed synchronously, its result is in self->awaited, it was freed.
 * SUSPENDED: return CB_CL_SUSPENDED; the frame is resumed at its current state later with
 * the child's result in self->awaited. The child starts with a call through its continuation,
 * inside its caller, as an async method starts synchronously. */
static inline __attribute__((always_inline)) cb_cl_status cb_cl_await(cb_cl_frame *self,
                                                                      cb_cl_frame *child)
{
    if (child->resume(child) == CB_CL_SUSPENDED) {
        self->suspended = 1;
        return CB_CL_SUSPENDED;
    }
    self->awaited = child->result;
    cb_cl_free_(child);
    return CB_CL_DONE;
}

/* In a frame's code after it allocated a child: its locals are read back from its frame, where a
 * coroutine's lowering keeps them, instead of being held in callee-saved registers across the
 * allocation (the empty asm tells the compiler that the pointer f may have changed; it emits no
 * instruction). */
#define CB_CL_RELOAD(f) __asm__("" : "+r"(f))

/* The same with the child's code in two functions, as LLVM splits a C++20 coroutine into its ramp
 * and its resume function: the child is started by a direct call of `start` (its code up to its
 * first suspension), and its frame's resume function is its continuation after that. Each has
 * only its own path's prologue: one function for both saved every register the descent needs on
 * the resumption path too (docs/measurement.md). */
static inline __attribute__((always_inline)) cb_cl_status
cb_cl_await_start(cb_cl_frame *self, cb_cl_frame *child, cb_cl_fn start)
{
    if (start(child) == CB_CL_SUSPENDED) {
        self->suspended = 1;
        return CB_CL_SUSPENDED;
    }
    self->awaited = child->result;
    cb_cl_free_(child);
    return CB_CL_DONE;
}

/* Inside a frame's resume function: a leaf suspension point. */
static inline cb_cl_status cb_cl_suspend(cb_cl_frame *self)
{
    self->suspended = 1;
    self->task->innermost = self;
    cb_rt_count_suspension();
    return CB_CL_SUSPENDED;
}

/* The task's root completed after it had suspended (closure.c). */
cb_cl_status cb_cl_finish_(cb_cl_frame *root);

/* In a frame's continuation (it has suspended), its result `value`: complete. The result goes
 * straight to the parent's awaited (the root's: the task's result), the frame is freed, and the
 * parent is resumed by a tail call from this function's own code (so each function's resumption
 * site has its own predictable target), as a completed C# Task runs its awaiter's continuation. */
static inline __attribute__((always_inline)) cb_cl_status cb_cl_return_resumed(cb_cl_frame *f,
                                                                               uint64_t value)
{
    cb_cl_frame *p = f->parent;
    if (!p) {
        f->result = value;
        return cb_cl_finish_(f);
    }
    p->awaited = value;
    cb_cl_free_(f);
    return p->resume(p);
}

/* Inside a frame's resume function, its result set: complete. A frame that never suspended
 * returns to its awaiter, which takes the result; one that suspended completes as above. */
static inline __attribute__((always_inline)) cb_cl_status cb_cl_done(cb_cl_frame *f)
{
    if (!f->suspended)
        return CB_CL_DONE;
    return cb_cl_return_resumed(f, f->result);
}

#endif
