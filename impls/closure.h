/* The "closure" runtime: stackless coroutines the way C# Tasks and JavaScript async functions run.
 * Every async call allocates a heap frame with its live locals and a continuation (resume
 * function + parent frame). The callee starts synchronously inside its caller; when it suspends,
 * every frame on the way up returns CB_CL_SUSPENDED to the scheduler. Resumption calls the
 * innermost frame; when a frame completes, its parent is resumed through the continuation and
 * the frame is freed.
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

/* Header of every frame; the function's locals follow it in the same allocation. */
struct cb_cl_frame {
    cb_cl_fn resume;     /* continuation: where this frame goes on */
    cb_cl_frame *parent; /* who awaits this frame's result */
    cb_cl_task *task;
    uint16_t state;      /* resume point */
    uint16_t shift;      /* the frame starts shift * 64 bytes into its allocation (layout=offset) */
    uint32_t size;       /* bytes of the whole allocation, for the free and the pool */
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

/* A frame of `size` bytes (header included) running fn. Only the header is initialised (each
 * field once): the caller sets every field of its own before the frame first runs. */
void *cb_cl_new(cb_cl_task *t, cb_cl_frame *parent, cb_cl_fn fn, size_t size);
/* The same, placed `offset` bytes (a multiple of 64, below 4096) into a larger allocation
 * (spawn's layout=offset: frames at pseudo-random cache-line offsets). */
void *cb_cl_new_at(cb_cl_task *t, cb_cl_frame *parent, cb_cl_fn fn, size_t size, size_t offset);
/* Starts a task at its root frame; returns DONE or SUSPENDED. */
cb_cl_status cb_cl_start(cb_cl_task *t, cb_cl_frame *root);
/* Resumes a suspended task at its innermost frame; completed frames resume their parents. */
cb_cl_status cb_cl_resume(cb_cl_task *t);
/* Frees the frames of a task that is still suspended. */
void cb_cl_cancel(cb_cl_task *t);

/* Inside a frame's resume function: await a child created with cb_cl_new(..., self, ...).
 * DONE: the child completed synchronously, its result is in self->awaited, it was freed.
 * SUSPENDED: return CB_CL_SUSPENDED; the frame is resumed at its current state later with
 * the child's result in self->awaited. */
cb_cl_status cb_cl_await(cb_cl_frame *self, cb_cl_frame *child);

/* Inside a frame's resume function: a leaf suspension point. */
static inline cb_cl_status cb_cl_suspend(cb_cl_frame *self)
{
    self->task->innermost = self;
    cb_rt_count_suspension();
    return CB_CL_SUSPENDED;
}

#endif
