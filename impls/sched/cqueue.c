/* The two central queues behind cqueue.h's interface. Each library is compiled in when the
 * Makefile's probe found its header (CB_HAVE_URCU, CB_HAVE_CK), as backend_fcontext.c is; without
 * it the kind says which package is missing. */
#include "impls/sched/cqueue.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

struct cb_cq {
    cb_cq_kind kind;
};

static const char *const cq_names[CB_CQ_NKINDS] = {"wfcq", "ck"};

const char *cb_cq_name(cb_cq_kind kind)
{
    return kind < CB_CQ_NKINDS ? cq_names[kind] : "?";
}

/* ---- wfcq: liburcu's wait-free concurrent queue ----------------------------------------------
 * A node per enqueue, from malloc, freed by the dequeuer that took it: after
 * cds_wfcq_dequeue_blocking returns a node no enqueuer touches it again (the dequeue waits for
 * a concurrent enqueue's link out of it first), so freeing it at once is safe. */
#if CB_HAVE_URCU
#include <urcu/wfcqueue.h>

typedef struct cq_wfcq {
    cb_cq base;
    _Alignas(64) struct cds_wfcq_head head; /* the dequeuers' end, with its lock */
    _Alignas(64) struct cds_wfcq_tail tail; /* the enqueuers' end, one exchange each */
} cq_wfcq;

typedef struct wfcq_node {
    struct cds_wfcq_node node;
    void *task;
} wfcq_node;

static cb_cq *wfcq_create(void)
{
    cq_wfcq *q = aligned_alloc(64, sizeof *q);
    if (!q)
        return NULL;
    cds_wfcq_init(&q->head, &q->tail);
    return &q->base;
}

static void *wfcq_dequeue(cb_cq *cq)
{
    cq_wfcq *q = (cq_wfcq *)cq;
    struct cds_wfcq_node *n = cds_wfcq_dequeue_blocking(&q->head, &q->tail);
    if (!n)
        return NULL;
    wfcq_node *w = (wfcq_node *)((char *)n - offsetof(wfcq_node, node));
    void *task = w->task;
    free(w);
    return task;
}

static void wfcq_destroy(cb_cq *cq)
{
    cq_wfcq *q = (cq_wfcq *)cq;
    while (wfcq_dequeue(cq))
        ;
    cds_wfcq_destroy(&q->head, &q->tail);
    free(q);
}

static int wfcq_enqueue(cb_cq *cq, void *task)
{
    cq_wfcq *q = (cq_wfcq *)cq;
    wfcq_node *w = malloc(sizeof *w);
    if (!w)
        return -1;
    cds_wfcq_node_init(&w->node);
    w->task = task;
    cds_wfcq_enqueue(&q->head, &q->tail, &w->node);
    return 0;
}

static bool wfcq_empty(cb_cq *cq)
{
    cq_wfcq *q = (cq_wfcq *)cq;
    return cds_wfcq_empty(&q->head, &q->tail);
}
#define WFCQ_UNAVAILABLE NULL
#else
#define WFCQ_UNAVAILABLE "liburcu's <urcu/wfcqueue.h> was not found at build time (liburcu-dev)"
#endif

/* ---- ck: Concurrency Kit's lock-free MPMC FIFO -------------------------------------------------
 * ck_fifo_mpmc hands back the queue's old stub node as garbage on each dequeue, and a slower
 * thread may still read that node's fields, so it cannot go back to malloc while the queue lives.
 * As in Michael and Scott's paper, whose counted pointers make reuse safe, garbage nodes go on a
 * free list (ck_stack's MPMC pop, also generation-counted) that the next enqueue takes from; the
 * nodes are freed only by cb_cq_destroy. */
#if CB_HAVE_CK
#include <ck_fifo.h>
#include <ck_stack.h>

typedef struct ck_node {
    ck_fifo_mpmc_entry_t entry;
    ck_stack_entry_t spare;
} ck_node;

typedef struct cq_ck {
    cb_cq base;
    _Alignas(64) ck_fifo_mpmc_t fifo; /* head and tail a cache line apart (ck's own padding) */
    _Alignas(64) ck_stack_t spare;    /* nodes for the next enqueues */
} cq_ck;

static ck_node *ck_node_of_spare(ck_stack_entry_t *e)
{
    return (ck_node *)((char *)e - offsetof(ck_node, spare));
}

static ck_node *ck_node_new(cq_ck *q)
{
    ck_stack_entry_t *e = ck_stack_pop_mpmc(&q->spare);
    if (e)
        return ck_node_of_spare(e);
    return aligned_alloc(_Alignof(ck_node), sizeof(ck_node));
}

static cb_cq *ck_create(void)
{
    cq_ck *q = aligned_alloc(64, sizeof *q);
    if (!q)
        return NULL;
    ck_node *stub = aligned_alloc(_Alignof(ck_node), sizeof(ck_node));
    if (!stub) {
        free(q);
        return NULL;
    }
    ck_fifo_mpmc_init(&q->fifo, &stub->entry);
    ck_stack_init(&q->spare);
    return &q->base;
}

static void *ck_dequeue(cb_cq *cq)
{
    cq_ck *q = (cq_ck *)cq;
    void *task;
    ck_fifo_mpmc_entry_t *garbage;
    if (!ck_fifo_mpmc_dequeue(&q->fifo, &task, &garbage))
        return NULL;
    ck_stack_push_mpmc(&q->spare, &((ck_node *)garbage)->spare);
    return task;
}

static void ck_destroy(cb_cq *cq)
{
    cq_ck *q = (cq_ck *)cq;
    while (ck_dequeue(cq))
        ;
    ck_fifo_mpmc_entry_t *stub;
    ck_fifo_mpmc_deinit(&q->fifo, &stub);
    free(stub);
    for (ck_stack_entry_t *e; (e = ck_stack_pop_mpmc(&q->spare));)
        free(ck_node_of_spare(e));
    free(q);
}

static int ck_enqueue(cb_cq *cq, void *task)
{
    cq_ck *q = (cq_ck *)cq;
    ck_node *n = ck_node_new(q);
    if (!n)
        return -1;
    ck_fifo_mpmc_enqueue(&q->fifo, &n->entry, task);
    return 0;
}

static bool ck_empty(cb_cq *cq)
{
    cq_ck *q = (cq_ck *)cq;
    return CK_FIFO_MPMC_ISEMPTY(&q->fifo);
}
#define CK_UNAVAILABLE NULL
#else
#define CK_UNAVAILABLE "Concurrency Kit's <ck_fifo.h> was not found at build time (libck-dev)"
#endif

/* ---- the interface ------------------------------------------------------------------------- */

static const char *const cq_unavailable[CB_CQ_NKINDS] = {WFCQ_UNAVAILABLE, CK_UNAVAILABLE};

const char *cb_cq_unavailable(cb_cq_kind kind)
{
    return kind < CB_CQ_NKINDS ? cq_unavailable[kind] : "no such central queue";
}

cb_cq *cb_cq_create(cb_cq_kind kind)
{
    cb_cq *q = NULL;
    switch (kind) {
#if CB_HAVE_URCU
    case CB_CQ_WFCQ: q = wfcq_create(); break;
#endif
#if CB_HAVE_CK
    case CB_CQ_CK: q = ck_create(); break;
#endif
    default: errno = ENOSYS; return NULL;
    }
    if (q)
        q->kind = kind;
    return q;
}

/* The calls below reach only a queue cb_cq_create made, so only a kind compiled in. */
#if CB_HAVE_URCU
#define WFCQ_CASE(call) case CB_CQ_WFCQ: return wfcq_##call;
#else
#define WFCQ_CASE(call)
#endif
#if CB_HAVE_CK
#define CK_CASE(call) case CB_CQ_CK: return ck_##call;
#else
#define CK_CASE(call)
#endif
#define CQ_DISPATCH(q, call, none)                                                             \
    switch ((q)->kind) {                                                                       \
        WFCQ_CASE(call)                                                                        \
        CK_CASE(call)                                                                          \
    default: return none;                                                                      \
    }

void cb_cq_destroy(cb_cq *q)
{
    if (!q)
        return;
    switch (q->kind) {
#if CB_HAVE_URCU
    case CB_CQ_WFCQ: wfcq_destroy(q); break;
#endif
#if CB_HAVE_CK
    case CB_CQ_CK: ck_destroy(q); break;
#endif
    default: break;
    }
}

int cb_cq_enqueue(cb_cq *q, void *task)
{
    (void)task; /* unused in a build with neither library */
    CQ_DISPATCH(q, enqueue(q, task), (errno = ENOSYS, -1))
}

void *cb_cq_dequeue(cb_cq *q)
{
    CQ_DISPATCH(q, dequeue(q), NULL)
}

bool cb_cq_empty(cb_cq *q)
{
    CQ_DISPATCH(q, empty(q), true)
}
