/* The per-worker work-stealing deque of the scheduler layer (issue 31; docs/sched.md): Chase and
 * Lev's growable circular deque ("Dynamic Circular Work-Stealing Deque", SPAA 2005) in the C11
 * formulation of Lê, Pop, Cohen and Zappa Nardelli ("Correct and Efficient Work-Stealing for Weak
 * Memory Models", PPoPP 2013), written from the paper.
 *
 * One owner thread pushes and pops at the bottom (LIFO, no atomic read-modify-write unless one
 * task is left); any number of thieves steal at the top (FIFO, one CAS). A task is a non-NULL
 * pointer the deque never dereferences. The array doubles when full; the arrays it outgrew stay
 * allocated until cb_deque_destroy, because a thief may still be reading one (the paper leaves
 * reclamation aside; at most as many bytes again as the largest array). */
#ifndef CB_SCHED_DEQUE_H
#define CB_SCHED_DEQUE_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct cb_deque_array cb_deque_array;

typedef struct cb_deque {
    /* top is the thieves' (and the last pop's) CAS target, bottom the owner's: each on a cache
     * line of its own, so a steal does not bounce the line the owner writes on every push. */
    _Alignas(64) _Atomic int64_t top;
    _Alignas(64) _Atomic int64_t bottom;
    _Atomic(cb_deque_array *) array;
    _Alignas(64) char pad_;
} cb_deque;

/* What cb_deque_steal found. */
typedef enum cb_steal_result {
    CB_STEAL_OK = 0, /* *task is the oldest task, now the thief's */
    CB_STEAL_EMPTY,  /* nothing to steal */
    CB_STEAL_LOST,   /* another thief or the owner's last pop took the top first: try again */
} cb_steal_result;

/* An empty deque of room for 2^log2_size tasks before it first grows (log2_size 1..30).
 * 0, or -1 with errno (EINVAL, ENOMEM). */
int cb_deque_init(cb_deque *d, unsigned log2_size);
/* Frees the array and every array it outgrew. No thread may use the deque any more. */
void cb_deque_destroy(cb_deque *d);
/* Owner only. Pushes task (non-NULL) at the bottom, growing the array when full.
 * 0, or -1 with errno ENOMEM (the deque is unchanged). */
int cb_deque_push(cb_deque *d, void *task);
/* Owner only. The newest task, or NULL when the deque is empty (or a thief took the last one). */
void *cb_deque_pop(cb_deque *d);
/* Any thread. The oldest task in *task, or why there is none. */
cb_steal_result cb_deque_steal(cb_deque *d, void **task);
/* Tasks in the deque now (a snapshot, exact only while no other thread uses it). */
int64_t cb_deque_size(cb_deque *d);

#endif
