/* Heap closure frames and their trampoline. Allocation and free happen per async call, inside
 * the timed region: that is the cost of this model. */
#include "closure.h"

#include <string.h>

void *cb_cl_new(cb_cl_task *t, cb_cl_frame *parent, cb_cl_fn fn, size_t size)
{
    cb_cl_frame *f = cb_rt_alloc(size);
    memset(f, 0, size);
    f->resume = fn;
    f->parent = parent;
    f->task = t;
    f->size = (uint32_t)size;
    return f;
}

static void frame_free(cb_cl_frame *f) { cb_rt_free(f, f->size); }

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
        frame_free(f);
        f = p;
    }
    t->innermost = NULL;
}
