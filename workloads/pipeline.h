/* pipeline's data shared by its family bodies (workloads/pipeline.c): the buffers, their free
 * list, each stage's work on an item and the hand-over protocol's inboxes. */
#ifndef CB_PIPELINE_H
#define CB_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "workload.h"

/* One stage's mailbox and flags, in every family: an inbox of one item (a buffer's slot, or -1),
 * and whether the stage waits for an item (recv) or for its consumer's inbox to empty (send). */
typedef struct pl_box {
    int64_t inbox;
    int wait_recv, wait_send, queued;
} pl_box;

typedef struct pl_shared {
    int64_t stages;
    uint64_t items;
    size_t words;     /* 64-bit words per item buffer */
    int direct;       /* sched=direct */
    uint64_t *bufs;   /* nslots buffers of `words` words */
    int64_t *free;    /* free slots, used as a stack: the last freed is reused first */
    size_t nfree;
    pl_box *box;      /* one per stage */
    int64_t *queue;   /* sched=fifo: the run queue, a ring of stage numbers */
    size_t qhead, qlen, qcap;
    uint64_t checksum;
} pl_shared;

int pl_shared_init(pl_shared *sh, const cb_params *p);
void pl_shared_free(pl_shared *sh);
void pl_result(const pl_shared *sh, cb_wl_result *out);

static inline void pl_enqueue(pl_shared *sh, int64_t s)
{
    sh->queue[(sh->qhead + sh->qlen++) % sh->qcap] = s;
}
static inline int64_t pl_dequeue(pl_shared *sh)
{
    int64_t s = sh->queue[sh->qhead];
    sh->qhead = (sh->qhead + 1) % sh->qcap;
    sh->qlen--;
    return s;
}

/* The source: item k gets a free buffer, filled from k. */
static inline int64_t pl_source(pl_shared *sh, uint64_t k)
{
    int64_t slot = sh->free[--sh->nfree];
    uint64_t *b = sh->bufs + (size_t)slot * sh->words;
    for (size_t j = 0; j < sh->words; j++)
        b[j] = (k * 0x2545f4914f6cdd1dULL + j) ^ 0x5bd1e995ULL;
    return slot;
}
/* Stage s's work: every word of the item's buffer, read and written. */
static inline void pl_work(pl_shared *sh, int64_t slot, int64_t s)
{
    uint64_t *b = sh->bufs + (size_t)slot * sh->words;
    for (size_t j = 0; j < sh->words; j++)
        b[j] = b[j] * 0x100000001b3ULL + (uint64_t)s + 1;
}
/* The sink: the buffer folded into the checksum, in item order, and given back. */
static inline void pl_sink(pl_shared *sh, int64_t slot)
{
    uint64_t *b = sh->bufs + (size_t)slot * sh->words, h = 0;
    for (size_t j = 0; j < sh->words; j++)
        h = (h << 5 | h >> 59) ^ b[j];
    sh->checksum = cb_mix(sh->checksum, h);
    sh->free[sh->nfree++] = slot;
}

#endif
