/* Stack allocator for the stackful backends: mmap'd stacks, committed only when touched.
 *
 * Two modes (docs/stacks.md):
 *  - guarded: one mapping per stack with a PROT_NONE guard page below it (two kernel VMAs each);
 *    an overflow faults in the guard and the SIGSEGV handler names the coroutine's impl and size.
 *  - chunked: stacks carved from large mappings without guards, a canary word at the low end that
 *    cb_stack_free() checks. Used once guarded stacks would exhaust vm.max_map_count (mode "auto"),
 *    or on request. The stacks sit 16 bytes below page alignment, so each canary shares a page
 *    with the top of the stack below it, a page that is resident anyway (see map_chunk).
 * Freed stacks are kept in a per-size pool and reused, so only the first use of a stack faults its
 * pages in; the harness keeps that first use out of the timed repetitions (warm-up). */
#ifndef CB_STACK_H
#define CB_STACK_H

#include <stddef.h>
#include <stdint.h>

typedef enum cb_stack_mode {
    CB_STACK_AUTO = 0, /* guarded while the map-count budget allows, then chunked */
    CB_STACK_GUARDED,
    CB_STACK_CHUNKED,
} cb_stack_mode;

typedef struct cb_stack {
    void *lo;        /* lowest usable byte (just above the guard, or the canary word) */
    size_t size;     /* usable bytes, lo .. lo + size */
    cb_stack_mode mode;
} cb_stack;

typedef struct cb_stack_stats {
    uint64_t guarded_live, chunked_live; /* stacks handed out and not yet freed */
    uint64_t guarded_total, chunked_total; /* stacks handed out over the process */
    uint64_t reserved_bytes;             /* virtual bytes mapped for stacks, guards included */
    uint64_t live_reserved_bytes;        /* the same, for the stacks handed out and not freed */
    uint64_t map_budget;                 /* guarded stacks allowed under vm.max_map_count */
} cb_stack_stats;

extern cb_stack_stats cb_stack_stat;

/* A stack of `size` bytes in `mode` (the cell's "stack_mode"; AUTO: guarded while the map budget
 * allows, then chunked). Returns 0, or -1 with errno set (ENOMEM when the mapping or the map
 * budget fails). */
int cb_stack_alloc(cb_stack *s, size_t size, cb_stack_mode mode);
/* Why the last cb_stack_alloc (or cb_co_create) failed with errno err: strerror(err), naming
 * the vm.max_map_count budget when that is what refused a guarded stack. Static buffer. */
const char *cb_stack_strerror(int err);
/* Returns the stack to the pool. A chunked stack whose canary was overwritten makes this return -1. */
int cb_stack_free(cb_stack *s);
/* "guarded", "chunked", "guarded+chunked", or NULL when no stack was ever handed out. */
const char *cb_stack_modes_used(void);
/* The word a chunked stack keeps at its low end while it has not overflowed. */
uint64_t cb_stack_canary(void);
/* Bytes below s->lo that are guard (0 for chunked stacks). */
size_t cb_stack_guard_bytes(const cb_stack *s);
size_t cb_stack_page_size(void);
/* Over every stack the process has mapped, live or pooled, by mincore(2) (nothing is faulted in):
 * *resident = bytes of the stack mappings resident now (guards never are), page-granular;
 * *used = sum of the stacks' high-water marks, byte-precise (the deepest nonzero word).
 * 0, or -1 with errno. Slow (it reads resident stack pages): never inside a timed region. */
int cb_stack_usage(uint64_t *resident, uint64_t *used);
/* Resident bytes of the allocator's own bookkeeping (the list of mappings that cb_stack_usage
 * walks, 48 bytes per guarded stack, and the pools' free lists), by mincore: memory the harness
 * holds, not the coroutines, which the memory snapshot subtracts from RSS. */
uint64_t cb_stack_bookkeeping_bytes(void);

#endif
