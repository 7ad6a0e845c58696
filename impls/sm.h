/* The "sm" runtime: stackless coroutines written the way a compiler lowers async/await.
 * A coroutine is a frame struct (its live locals hoisted) and a resume function that is a
 * `switch` over resume points. A nested async call embeds the callee's frame in the caller's
 * frame, so a coroutine is one allocation however deep it calls; resuming a coroutine suspended
 * d calls deep re-enters through all d frames (as Rust's nested poll() does).
 * There is no scheduler object: the workload's driver loop plays that role. */
#ifndef CB_SM_H
#define CB_SM_H

#include <stddef.h>

#include "runtime.h"

typedef enum cb_sm_status { CB_SM_DONE = 0, CB_SM_SUSPENDED = 1 } cb_sm_status;

/* Every suspension point returns through this, so suspensions are counted by the runtime. */
static inline cb_sm_status cb_sm_suspend(void)
{
    cb_rt_count_suspension();
    return CB_SM_SUSPENDED;
}

/* The one heap allocation of a coroutine: its outermost frame (nested frames live inside it). */
static inline void *cb_sm_alloc(size_t frame_bytes) { return cb_rt_alloc(frame_bytes); }
static inline void cb_sm_free(void *frame, size_t frame_bytes) { cb_rt_free(frame, frame_bytes); }

#endif
