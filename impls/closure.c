/* Heap closure frames and their trampoline. Allocation and free happen per async call, inside
 * the timed region: that is the cost of this model. */
#include "closure.h"

void *cb_cl_new_at(cb_cl_task *t, cb_cl_frame *parent, cb_cl_fn fn, size_t size, size_t offset)
{
    size_t total = size + offset;
    cb_cl_frame *f = t->pool;
    if (f && f->size == total && f->shift == offset / 64) {
        t->pool = f->parent; /* LIFO: the most recently used, still warm */
    } else {
        f = (cb_cl_frame *)((char *)cb_rt_alloc(total) + offset);
        f->shift = (uint16_t)(offset / 64);
        f->size = (uint32_t)total;
    }
    f->resume = fn;
    f->parent = parent;
    f->task = t;
    f->state = 0;
    return f;
}

void *cb_cl_new(cb_cl_task *t, cb_cl_frame *parent, cb_cl_fn fn, size_t size)
{
    return cb_cl_new_at(t, parent, fn, size, 0);
}

static void frame_release(cb_cl_frame *f) { cb_rt_free((char *)f - f->shift * 64, f->size); }

static void frame_free(cb_cl_frame *f)
{
    if (f->task->use_pool) {
        f->parent = f->task->pool;
        f->task->pool = f;
    } else {
        frame_release(f);
    }
}

/* Gives a task's pooled frames back to malloc. */
static void pool_drain(cb_cl_task *t)
{
    while (t->pool) {
        cb_cl_frame *f = t->pool;
        t->pool = f->parent;
        frame_release(f);
    }
}

cb_cl_status cb_cl_await(cb_cl_frame *self, cb_cl_frame *child)
{
    if (child->resume(child) == CB_CL_SUSPENDED)
        return CB_CL_SUSPENDED;
    self->awaited = child->result;
    frame_free(child);
    return CB_CL_DONE;
}

/* Runs f's continuation, and on completion each parent's in turn (a trampoline: the native
 * stack does not grow with the number of completed frames). */
static cb_cl_status run_from(cb_cl_task *t, cb_cl_frame *f)
{
    while (f->resume(f) == CB_CL_DONE) {
        cb_cl_frame *p = f->parent;
        uint64_t r = f->result;
        frame_free(f);
        if (!p) {
            pool_drain(t);
            t->done = 1;
            t->result = r;
            t->innermost = NULL;
            return CB_CL_DONE;
        }
        p->awaited = r;
        f = p;
    }
    return CB_CL_SUSPENDED;
}

cb_cl_status cb_cl_start(cb_cl_task *t, cb_cl_frame *root)
{
    t->done = 0;
    t->innermost = root;
    return run_from(t, root);
}

cb_cl_status cb_cl_resume(cb_cl_task *t) { return run_from(t, t->innermost); }

void cb_cl_cancel(cb_cl_task *t)
{
    cb_cl_frame *f = t->done ? NULL : t->innermost;
    while (f) {
        cb_cl_frame *p = f->parent;
        frame_release(f);
        f = p;
    }
    pool_drain(t);
    t->innermost = NULL;
}
