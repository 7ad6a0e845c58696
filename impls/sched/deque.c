/* The Chase-Lev work-stealing deque with the memory orders of Lê et al. (PPoPP 2013, Figure 1);
 * deque.h says what it is, docs/sched.md why each order is what it is. The comments name the
 * paper's steps. Indices are signed and only grow (top) or move by one (bottom), so bottom - 1
 * below top is a plain comparison and never wraps in the life of a process. */
#include "impls/sched/deque.h"

#include <errno.h>
#include <stdlib.h>

struct cb_deque_array {
    int64_t size;          /* a power of two */
    cb_deque_array *prev;  /* the array this one replaced, kept for a thief still reading it */
    _Atomic(void *) slot[];
};

static cb_deque_array *array_new(int64_t size, cb_deque_array *prev)
{
    cb_deque_array *a = malloc(sizeof *a + (size_t)size * sizeof a->slot[0]);
    if (!a)
        return NULL;
    a->size = size;
    a->prev = prev;
    return a;
}

/* The slots are atomics because a thief reads a slot the owner may be overwriting after the
 * thief's CAS is bound to fail (the paper's relaxed accesses: no data race, no ordering). */
static void *slot_get(cb_deque_array *a, int64_t i)
{
    return atomic_load_explicit(&a->slot[i & (a->size - 1)], memory_order_relaxed);
}

static void slot_put(cb_deque_array *a, int64_t i, void *task)
{
    atomic_store_explicit(&a->slot[i & (a->size - 1)], task, memory_order_relaxed);
}

int cb_deque_init(cb_deque *d, unsigned log2_size)
{
    if (log2_size < 1 || log2_size > 30) {
        errno = EINVAL;
        return -1;
    }
    cb_deque_array *a = array_new((int64_t)1 << log2_size, NULL);
    if (!a)
        return -1;
    atomic_init(&d->top, 0);
    atomic_init(&d->bottom, 0);
    atomic_init(&d->array, a);
    return 0;
}

void cb_deque_destroy(cb_deque *d)
{
    cb_deque_array *a = atomic_load_explicit(&d->array, memory_order_relaxed);
    while (a) {
        cb_deque_array *prev = a->prev;
        free(a);
        a = prev;
    }
    atomic_store_explicit(&d->array, NULL, memory_order_relaxed);
}

/* The paper's resize: the owner copies top..bottom into an array twice the size and publishes it
 * with a release store, which a thief's acquire load of the array pairs with (the paper writes
 * consume there; compilers implement consume as acquire). The slots a thief may still read in the
 * old array keep their tasks: the owner never writes an outgrown array again. */
static cb_deque_array *grow(cb_deque *d, cb_deque_array *a, int64_t t, int64_t b)
{
    cb_deque_array *n = array_new(a->size * 2, a);
    if (!n)
        return NULL;
    for (int64_t i = t; i < b; i++)
        slot_put(n, i, slot_get(a, i));
    atomic_store_explicit(&d->array, n, memory_order_release);
    return n;
}

int cb_deque_push(cb_deque *d, void *task)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    /* acquire: pairs with a thief's successful CAS of top, so the slot it read is not reused
     * under it before its read (the paper's acquire load of top in push). */
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    cb_deque_array *a = atomic_load_explicit(&d->array, memory_order_relaxed);
    if (b - t > a->size - 1) {
        a = grow(d, a, t, b);
        if (!a)
            return -1;
    }
    slot_put(a, b, task);
    /* The paper's release fence before the relaxed store of bottom, written as a release store
     * of bottom: the same ordering for this one store (the task's slot, and everything the owner
     * wrote into the task, before the thief that reads the new bottom with acquire), one
     * instruction cheaper on AArch64 (stlr, no dmb), and ThreadSanitizer, which does not model
     * fences, sees it. */
    atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
    return 0;
}

void *cb_deque_pop(cb_deque *d)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
    cb_deque_array *a = atomic_load_explicit(&d->array, memory_order_relaxed);
    atomic_store_explicit(&d->bottom, b, memory_order_relaxed);
    /* seq_cst fence: the store of bottom above and the load of top below must not be reordered
     * (a store-load pair, the one order x86 does not keep by itself), and this fence and the
     * thief's, with both CASes seq_cst, order the two sides so that at most one of a thief and
     * the owner takes the last task. */
    atomic_thread_fence(memory_order_seq_cst);
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    void *task = NULL;
    if (t <= b) {
        task = slot_get(a, b);
        if (t == b) {
            /* The last task: race the thieves for it on top. */
            if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                         memory_order_relaxed))
                task = NULL;
            atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
        }
    } else {
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
    }
    return task;
}

cb_steal_result cb_deque_steal(cb_deque *d, void **task)
{
    /* acquire on top: a task taken by an earlier steal is not seen again. */
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    /* seq_cst fence: the load of top before the load of bottom, paired with pop's fence. */
    atomic_thread_fence(memory_order_seq_cst);
    /* acquire on bottom: pairs with push's release store, so the slot and the task's contents
     * are visible once bottom says the task is there. */
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_acquire);
    if (t >= b)
        return CB_STEAL_EMPTY;
    cb_deque_array *a = atomic_load_explicit(&d->array, memory_order_acquire);
    void *x = slot_get(a, t);
    /* The CAS decides: only the thread that moves top from t owns slot t's task. */
    if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                 memory_order_relaxed))
        return CB_STEAL_LOST;
    *task = x;
    return CB_STEAL_OK;
}

int64_t cb_deque_size(cb_deque *d)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    return b > t ? b - t : 0;
}
