/* Heap closure frames and their trampoline. Allocation and free happen per async call, inside
 * the timed region: that is the cost of this model. */
#include "closure.h"

#include <stdio.h>
#include <stdlib.h>

size_t cb_cl_frame_bytes_;

void *cb_cl_new_at(cb_cl_task *t, cb_cl_frame *parent, cb_cl_fn fn, size_t size, size_t offset)
{
    return cb_cl_new_in_(t, parent, fn, size, offset);
}

static void frame_release(cb_cl_frame *f)
{
    cb_rt_free((char *)f - (size_t)f->shift * 64, f->size);
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

static void cb_cl_finish_task_(cb_cl_task *t, uint64_t r)
{
    pool_drain(t);
    t->done = 1;
    t->result = r;
    t->innermost = NULL;
}

cb_cl_status cb_cl_finish_(cb_cl_frame *root)
{
    cb_cl_task *t = root->task;
    uint64_t r = root->result;
    cb_cl_free_(root);
    cb_cl_finish_task_(t, r);
    return CB_CL_DONE;
}

/* Runs f: a frame that had suspended completes through cb_cl_done, which resumes its parents
 * itself, the root's completion finishing the task; a root that completes at its start, without
 * ever suspending, is finished here. */
static cb_cl_status run_from(cb_cl_task *t, cb_cl_frame *f)
{
    if (f->resume(f) == CB_CL_SUSPENDED)
        return CB_CL_SUSPENDED;
    if (t->done)
        return CB_CL_DONE;
    if (f->parent) {
        fprintf(stderr, "corobench: closure: a frame that had suspended returned CB_CL_DONE "
                        "instead of completing through cb_cl_done\n");
        abort();
    }
    uint64_t r = f->result; /* the root, completed at its start */
    cb_cl_free_(f);
    cb_cl_finish_task_(t, r);
    return CB_CL_DONE;
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
