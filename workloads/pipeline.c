/* pipeline: `stages` coroutines pass `items` items along, each stage reading and writing every
 * word of the item's buffer (`size` bytes): stage 0 fills a free buffer, the last folds it into
 * the checksum and frees it. Between neighbours an inbox of one item. One op = one item through
 * every stage. The schedule is the parameter (the depth-first scheduling claim):
 * sched=fifo: a central run queue. A stage whose inbox is empty, or whose consumer's inbox is
 * still full, waits off the queue until its neighbour wakes it; after each hand-over the sender
 * goes to the back of the queue (round robin), so about one item per stage is in flight and a
 * buffer is touched again only after every other stage has worked on its own.
 * sched=direct: no queue. A stage that hands an item over switches straight to its consumer, one
 * whose inbox is empty switches straight to its producer, so each item runs down the stages while
 * its buffer is hot, and one buffer is in use. Stackful: cb_co_transfer. sm: the stackless model
 * has no switch to another coroutine; a suspension returns to the driver loop naming the one to
 * run next, which the driver runs at once (a trampoline, as C++20's symmetric transfer and a
 * scheduler's "run next" slot do): the same order, one return and one call per hand-over.
 * Both families count one suspension per switch (fifo: each yield to the queue; direct: each
 * transfer), so a point's suspensions are the same in both. direct (the baseline): each item
 * through every stage's work by plain calls.
 * Setup (buffers, coroutines) and finish are untimed; run is all the items. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impls/coro.h"
#include "impls/runtime.h"
#include "impls/sm.h"
#include "pipeline.h"
#include "workload.h"

static const char *const pl_scheds[] = {"fifo", "direct", NULL};

static const cb_param_def pl_params[] = {
    {"stages", CB_PARAM_INT, "8", 2, 4096, NULL, "coroutines in the pipeline", NULL},
    {"items", CB_PARAM_INT, "20000", 1, (int64_t)1 << 40, NULL, "items through it per run",
     "2000"},
    {"size", CB_PARAM_INT, "4096", 8, 1 << 20, NULL,
     "bytes of each item's buffer (a multiple of 8), every word worked on by every stage", NULL},
    {"sched", CB_PARAM_ENUM, "fifo", 0, 0, pl_scheds,
     "fifo: stages wait for each other through a central run queue, round robin; direct: a stage "
     "switches straight to its consumer after a hand-over and to its producer when its inbox is "
     "empty (stackful: a transfer; sm: a return naming the next to its driver)",
     NULL},
    {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
};

static int pl_check(const cb_params *p, char *err, size_t errlen)
{
    int64_t size = cb_params_int(p, "size");
    if (size % 8) {
        snprintf(err, errlen, "pipeline: size=%lld is not a whole number of 64-bit words (valid: "
                 "a multiple of 8)", (long long)size);
        return -1;
    }
    return 0;
}

int pl_shared_init(pl_shared *sh, const cb_params *p)
{
    memset(sh, 0, sizeof *sh);
    sh->stages = cb_params_int(p, "stages");
    sh->items = (uint64_t)cb_params_int(p, "items");
    sh->words = (size_t)cb_params_int(p, "size") / 8;
    sh->direct = strcmp(cb_params_str(p, "sched"), "direct") == 0;
    /* At most one item in each inbox and one in each stage's hands. */
    size_t nslots = 2 * (size_t)sh->stages + 1, n = (size_t)sh->stages;
    sh->bufs = calloc(nslots * sh->words, sizeof *sh->bufs);
    sh->free = calloc(nslots, sizeof *sh->free);
    sh->box = calloc(n, sizeof *sh->box);
    sh->queue = calloc(n, sizeof *sh->queue);
    if (!sh->bufs || !sh->free || !sh->box || !sh->queue)
        return -1;
    for (size_t i = 0; i < nslots; i++)
        sh->free[sh->nfree++] = (int64_t)(nslots - 1 - i);
    for (size_t i = 0; i < n; i++)
        sh->box[i].inbox = -1;
    sh->qcap = n;
    return 0;
}

void pl_shared_free(pl_shared *sh)
{
    free(sh->bufs);
    free(sh->free);
    free(sh->box);
    free(sh->queue);
}

void pl_result(const pl_shared *sh, cb_wl_result *out)
{
    out->ops = sh->items;
    out->checksum = sh->checksum;
}

/* Stage s takes the item in its inbox (1), or finds none (0: under fifo it then waits for its
 * producer to wake it). Taking one wakes a producer waiting for the inbox to empty. */
static inline int pl_try_recv(pl_shared *sh, int64_t s, int64_t *slot)
{
    pl_box *me = &sh->box[s];
    if (me->inbox < 0) {
        me->wait_recv = !sh->direct;
        return 0;
    }
    *slot = me->inbox;
    me->inbox = -1;
    pl_box *prod = &sh->box[s - 1];
    if (prod->wait_send) {
        prod->wait_send = 0;
        pl_enqueue(sh, s - 1);
    }
    return 1;
}

/* Stage s puts slot into its consumer's inbox (1), or finds it full (0: under fifo it then
 * waits for the consumer to take the item; under direct the consumer has always taken it).
 * Putting wakes a consumer waiting for an item. */
static inline int pl_try_send(pl_shared *sh, int64_t s, int64_t slot)
{
    pl_box *cons = &sh->box[s + 1];
    if (cons->inbox >= 0) {
        sh->box[s].wait_send = !sh->direct;
        return 0;
    }
    cons->inbox = slot;
    if (cons->wait_recv) {
        cons->wait_recv = 0;
        pl_enqueue(sh, s + 1);
    }
    return 1;
}

/* ---- stackful: each stage a coroutine looping over the items -------------------------------- */

typedef struct pl_sf_stage {
    struct pl_sf *w;
    int64_t s;
} pl_sf_stage;

typedef struct pl_sf {
    pl_shared sh;
    cb_co **co;
    pl_sf_stage *st;
} pl_sf;

static uintptr_t pl_sf_stage_fn(void *arg, uintptr_t first)
{
    (void)first;
    pl_sf_stage *me = arg;
    pl_sf *w = me->w;
    pl_shared *sh = &w->sh;
    int64_t s = me->s, last = sh->stages - 1, slot = -1;
    for (uint64_t k = 0; k < sh->items; k++) {
        if (s == 0)
            slot = pl_source(sh, k);
        else
            while (!pl_try_recv(sh, s, &slot)) /* wait: for the queue, or switch to the producer */
                sh->direct ? cb_co_transfer(w->co[s - 1], 0) : cb_co_yield(0);
        pl_work(sh, slot, s);
        if (s == last) {
            pl_sink(sh, slot);
            continue;
        }
        while (!pl_try_send(sh, s, slot))
            cb_co_yield(0); /* fifo only: the consumer's inbox is still full */
        if (sh->direct) {
            cb_co_transfer(w->co[s + 1], 0);
        } else {
            pl_enqueue(sh, s);
            cb_co_yield(0);
        }
    }
    return 0;
}

static void pl_sf_free(pl_sf *w)
{
    for (int64_t s = 0; w->co && s < w->sh.stages; s++)
        if (w->co[s])
            cb_co_destroy(w->co[s]);
    free(w->co);
    free(w->st);
    pl_shared_free(&w->sh);
    cb_rt_free(w, sizeof *w);
}

static void *pl_sf_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    pl_sf *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    cb_co_cfg cfg = cb_impl_co_cfg(impl, p);
    if (pl_shared_init(&w->sh, p) ||
        !(w->co = calloc((size_t)w->sh.stages, sizeof *w->co)) ||
        !(w->st = calloc((size_t)w->sh.stages, sizeof *w->st))) {
        snprintf(err, errlen, "pipeline: out of memory");
        pl_sf_free(w);
        return NULL;
    }
    for (int64_t s = 0; s < w->sh.stages; s++) {
        w->st[s] = (pl_sf_stage){w, s};
        if (!(w->co[s] = cb_co_create(&cfg, pl_sf_stage_fn, &w->st[s]))) {
            snprintf(err, errlen, "pipeline: cannot create coroutine %lld (stack=%zu): %s",
                     (long long)s, cfg.stack_size, cb_stack_strerror(errno));
            pl_sf_free(w);
            return NULL;
        }
    }
    return w;
}

static int pl_sf_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pl_sf *w = inst;
    pl_shared *sh = &w->sh;
    if (sh->direct) {
        cb_co_resume(w->co[0], 0); /* returns when the last stage has sunk the last item */
        return 0;
    }
    for (int64_t s = 0; s < sh->stages; s++)
        pl_enqueue(sh, s);
    while (sh->qlen)
        cb_co_resume(w->co[pl_dequeue(sh)], 0);
    return 0;
}

static int pl_sf_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pl_sf *w = inst;
    pl_result(&w->sh, out);
    pl_sf_free(w);
    return 0;
}

/* ---- sm: each stage a state machine; a suspension returns to the driver --------------------- */

enum { PL_START, PL_RECV, PL_SEND, PL_SENT };

typedef struct pl_sm_stage {
    uint32_t state;
    int64_t s, slot;
    uint64_t k;
} pl_sm_stage;

typedef struct pl_sm {
    pl_shared sh;
    pl_sm_stage *st;
    int64_t next; /* sched=direct: the stage a suspension names */
} pl_sm;

static cb_sm_status pl_sm_stage_run(pl_sm *w, pl_sm_stage *me)
{
    pl_shared *sh = &w->sh;
    int64_t s = me->s, last = sh->stages - 1;
    switch (me->state) {
    case PL_START:
        for (me->k = 0; me->k < sh->items; me->k++) {
            if (s == 0) {
                me->slot = pl_source(sh, me->k);
                goto work;
            }
            /* fall through */
        case PL_RECV:
            if (!pl_try_recv(sh, s, &me->slot)) {
                me->state = PL_RECV;
                w->next = s - 1;
                return cb_sm_suspend();
            }
        work:
            pl_work(sh, me->slot, s);
            if (s == last) {
                pl_sink(sh, me->slot);
                continue;
            }
            /* fall through */
        case PL_SEND:
            if (!pl_try_send(sh, s, me->slot)) {
                me->state = PL_SEND;
                return cb_sm_suspend();
            }
            me->state = PL_SENT;
            if (sh->direct)
                w->next = s + 1;
            else
                pl_enqueue(sh, s);
            return cb_sm_suspend();
        case PL_SENT:;
        }
        return CB_SM_DONE;
    }
    __builtin_unreachable();
}

static void pl_sm_free(pl_sm *w)
{
    if (w->st)
        cb_sm_free(w->st, (size_t)w->sh.stages * sizeof *w->st);
    pl_shared_free(&w->sh);
    cb_rt_free(w, sizeof *w);
}

static void *pl_sm_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl;
    pl_sm *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    if (pl_shared_init(&w->sh, p)) {
        snprintf(err, errlen, "pipeline: out of memory");
        pl_sm_free(w);
        return NULL;
    }
    /* The stages' frames: one allocation, as a task's frames would be set up at its creation. */
    w->st = cb_sm_alloc((size_t)w->sh.stages * sizeof *w->st);
    for (int64_t s = 0; s < w->sh.stages; s++)
        w->st[s] = (pl_sm_stage){PL_START, s, -1, 0};
    return w;
}

static int pl_sm_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pl_sm *w = inst;
    pl_shared *sh = &w->sh;
    if (sh->direct) {
        int64_t cur = 0; /* each suspension names the next; the last stage's end ends the run */
        while (pl_sm_stage_run(w, &w->st[cur]) == CB_SM_SUSPENDED)
            cur = w->next;
        return 0;
    }
    for (int64_t s = 0; s < sh->stages; s++)
        pl_enqueue(sh, s);
    while (sh->qlen) {
        int64_t s = pl_dequeue(sh);
        pl_sm_stage_run(w, &w->st[s]);
    }
    return 0;
}

static int pl_sm_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pl_sm *w = inst;
    pl_result(&w->sh, out);
    pl_sm_free(w);
    return 0;
}

/* ---- direct: each item through every stage by plain calls ----------------------------------- */

typedef struct pl_dr {
    pl_shared sh;
} pl_dr;

static void *pl_dr_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl;
    pl_dr *w = cb_rt_alloc(sizeof *w);
    if (pl_shared_init(&w->sh, p)) {
        snprintf(err, errlen, "pipeline: out of memory");
        pl_shared_free(&w->sh);
        cb_rt_free(w, sizeof *w);
        return NULL;
    }
    return w;
}

static int pl_dr_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pl_shared *sh = &((pl_dr *)inst)->sh;
    for (uint64_t k = 0; k < sh->items; k++) {
        int64_t slot = pl_source(sh, k);
        for (int64_t s = 0; s < sh->stages; s++)
            pl_work(sh, slot, s);
        pl_sink(sh, slot);
    }
    return 0;
}

static int pl_dr_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pl_dr *w = inst;
    pl_result(&w->sh, out);
    pl_shared_free(&w->sh);
    cb_rt_free(w, sizeof *w);
    return 0;
}

#define PL_SM_STANDS_FOR                                                                       \
    "a pipeline stage makes no nested async call, so this family's body would be sm's state "  \
    "machine with each stage's frame allocated once; sm stands for the stackless families here"

/* sched=direct transfers from stage to stage. */
static const cb_wl_need pl_needs[] = {
    {"sched", "direct", CB_CAP_TRANSFER},
    {NULL, NULL, 0},
};

/* One coroutine per stage. */
static uint64_t pl_alive(const cb_params *p) { return (uint64_t)cb_params_int(p, "stages"); }

/* Small points check-external runs an external program at (harness/run/checkext.c). */
static const char *const check_points[][CB_WL_CHECK_SET] = {
    {"stages", "3", "items", "50", "size", "64"},
    {NULL},
};

const cb_workload cb_wl_pipeline = {
    .check_points = check_points,
    .name = "pipeline",
    .description = "stages coroutines pass items along, each working on the item's buffer; "
                   "sched=fifo through a run queue or sched=direct switching straight to the "
                   "consumer: the depth-first scheduling and locality workload",
    .unit = "item",
    .params = pl_params,
    .check = pl_check,
    .alive = pl_alive,
    .needs = pl_needs,
    .family =
        {
            [CB_BODY_STACKFUL] = {pl_sf_setup, pl_sf_run, pl_sf_finish},
            [CB_BODY_SM] = {pl_sm_setup, pl_sm_run, pl_sm_finish},
            [CB_BODY_CLOSURE] = {.unsupported = PL_SM_STANDS_FOR},
            [CB_BODY_CXX20] = {.unsupported = PL_SM_STANDS_FOR},
            [CB_BODY_CXX20_CLANG] = {.unsupported = PL_SM_STANDS_FOR},
            [CB_BODY_DIRECT] = {pl_dr_setup, pl_dr_run, pl_dr_finish},
        },
};
