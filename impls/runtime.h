/* Counters every runtime keeps for itself: suspensions and heap bytes.
 * The harness reads them outside the timed region to prove that two implementations did the same
 * work (equal suspensions) and to report memory; workloads never touch them directly.
 * Incrementing a global in the runtime is part of what each model costs and is charged equally:
 * one add per suspension in every family. */
#ifndef CB_RUNTIME_H
#define CB_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

typedef struct cb_rt_stats {
    uint64_t suspensions;     /* coroutine gave up control while not finished */
    uint64_t heap_allocs;     /* runtime-owned allocations (frames, control blocks) */
    uint64_t heap_live_bytes; /* bytes currently allocated by the runtime */
    uint64_t heap_peak_bytes; /* high-water mark of heap_live_bytes */
    uint64_t stack_copy_bytes; /* stack bytes copied by switches (copystack: out plus in) */
    uint64_t hooked_calls;     /* calls that went through the interposition layer (hook.h) */
} cb_rt_stats;

extern cb_rt_stats cb_rt;

/* Allocation that the runtime accounts for; the size must be passed back to free. */
void *cb_rt_alloc(size_t size);
void cb_rt_free(void *p, size_t size);

static inline void cb_rt_count_suspension(void) { cb_rt.suspensions++; }

#endif
