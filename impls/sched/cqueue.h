/* The central run queues of the scheduler layer's queue=central variants (issue 31;
 * docs/sched.md): every worker enqueues and dequeues tasks on one shared FIFO, one small
 * interface over two libraries, so that "a wait-free queue beats a CAS-based one" has cells.
 *   wfcq  liburcu's wfcqueue: enqueue is wait-free (one exchange of the tail); dequeuers take the
 *         queue's head lock, as liburcu's blocking dequeue does (docs/sched.md says what that
 *         means for the claim).
 *   ck    Concurrency Kit's ck_fifo_mpmc: Michael and Scott's lock-free queue, a CAS loop on
 *         generation-counted pointers (cmpxchg16b) at both ends.
 * A task is a non-NULL pointer the queue never dereferences. Each enqueue takes a node of the
 * queue's own; docs/sched.md says where they come from and go. A library the build did not find
 * leaves its kind unavailable, with the reason (cb_cq_unavailable). */
#ifndef CB_SCHED_CQUEUE_H
#define CB_SCHED_CQUEUE_H

#include <stdbool.h>

typedef enum cb_cq_kind {
    CB_CQ_WFCQ = 0,
    CB_CQ_CK,
    CB_CQ_NKINDS,
} cb_cq_kind;

typedef struct cb_cq cb_cq;

/* "wfcq", "ck". */
const char *cb_cq_name(cb_cq_kind kind);
/* NULL when kind can be created in this build, else why not (the missing package). */
const char *cb_cq_unavailable(cb_cq_kind kind);
/* An empty queue, or NULL with errno (ENOSYS: unavailable; ENOMEM). */
cb_cq *cb_cq_create(cb_cq_kind kind);
/* Frees the queue and its nodes; tasks still in it are dropped (never dereferenced). No thread
 * may use the queue any more. */
void cb_cq_destroy(cb_cq *q);
/* Any thread. Appends task (non-NULL). 0, or -1 with errno ENOMEM (the queue is unchanged). */
int cb_cq_enqueue(cb_cq *q, void *task);
/* Any thread. The oldest task, or NULL when the queue is empty. */
void *cb_cq_dequeue(cb_cq *q);
/* Any thread. Whether the queue was empty when looked at. */
bool cb_cq_empty(cb_cq *q);

#endif
