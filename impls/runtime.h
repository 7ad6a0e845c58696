/* Counters every runtime keeps for itself: suspensions and heap bytes.
 * The harness reads them outside the timed region to prove that two implementations did the same
 * work (equal suspensions) and to report memory; workloads never touch them directly.
 * Incrementing a global in the runtime is part of what each model costs and is charged equally:
 * one add per suspension in every family. */
#ifndef CB_RUNTIME_H
#define CB_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* heap_allocs and heap_live_bytes are not adjacent: GCC updated the pair as one 16-byte vector
 * (load, add, store) per allocation, where two adds do (closure's frames, docs/measurement.md). */
typedef struct cb_rt_stats {
    uint64_t suspensions;     /* coroutine gave up control while not finished */
    uint64_t heap_allocs;     /* runtime-owned allocations (frames, control blocks) */
    uint64_t stack_copy_bytes; /* stack bytes copied by switches (copystack: out plus in) */
    uint64_t heap_live_bytes; /* bytes currently allocated by the runtime */
    uint64_t hooked_calls;     /* calls that went through the interposition layer (hook.h) */
} cb_rt_stats;

extern cb_rt_stats cb_rt;

/* Reports a failed allocation of size bytes and aborts. */
void cb_rt_alloc_failed_(size_t size) __attribute__((noreturn, cold));

/* Allocation that the runtime accounts for; the size must be passed back to free. Inline: a heap
 * frame per async call (closure) costs malloc, free and these few counts, not two more calls. */
static inline void *cb_rt_alloc(size_t size)
{
    void *p = malloc(size);
    if (__builtin_expect(!p, 0))
        cb_rt_alloc_failed_(size);
    cb_rt.heap_allocs++;
    cb_rt.heap_live_bytes += size;
    return p;
}

static inline void cb_rt_free(void *p, size_t size)
{
    if (!p)
        return;
    cb_rt.heap_live_bytes -= size;
    free(p);
}

static inline void cb_rt_count_suspension(void) { cb_rt.suspensions++; }

#endif
