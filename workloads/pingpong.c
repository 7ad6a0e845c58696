/* pingpong: two coroutines A and B hand a value back and forth `switches` times. Each calls down a
 * chain of `depth` non-inlined functions and switches to the other at the bottom (at depth 0 the
 * loop itself switches); when resumed it returns up the chain and calls down again. One op = one
 * switch (one suspension). Level 0 of the chain is inlined into the loop; levels 1..depth are the
 * non-inlined functions.
 * sites=distinct gives A and B their own copies of the loop and chain code (their return
 * addresses never coincide); sites=same runs both on copy A. Each copy is a one-line wrapper
 * around a shared always-inline body, made distinct by a per-copy salt (which also stops GCC's
 * identical-code folding from merging them).
 * work=none makes only the switches, as Boost.Context's and libaco's own benchmarks loop: no call
 * chain and no data path, the value handed over is incremented on receipt (so the checksum still
 * counts the switches); it needs depth=0.
 * mode=asymmetric (stackful families): neither side knows the other; each yields its value to the
 * root (the driver in run(), the scheduler of an asymmetric library such as Boost's coroutine2)
 * and the root resumes the other side with it. One op is then two switches, side to root and root
 * to side, where symmetric transfer makes one; the work and the checksum are the same, and the
 * cell's unit is "round trip" (pp_unit), not "switch".
 * Setup (coroutine creation, stack mapping) and finish are untimed; run is all switches. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "impls/closure.h"
#include "cxx20.h"
#include "lua_family.h"
#include "impls/coro.h"
#include "impls/sm.h"
#include "pingpong.h"
#include "workload.h"

#define PP_INLINE static inline __attribute__((always_inline))
#define PP_NOINLINE __attribute__((noinline, noclone))
#define PP_NOFOLD __attribute__((noinline, noclone, no_icf))

static const char *const pp_sites[] = {"distinct", "same", NULL};
static const char *const pp_works[] = {"chain", "none", NULL};
static const char *const pp_modes[] = {"symmetric", "asymmetric", NULL};

static const cb_param_def pp_params[] = {
    {"depth", CB_PARAM_INT, "0", 0, 1000000, NULL,
     "non-inlined call levels between a coroutine's loop and its switch", NULL},
    {"switches", CB_PARAM_INT, "1000000", 1, (int64_t)1 << 40, NULL,
     "ops per run: switches (mode=symmetric) or round trips through the root (asymmetric)",
     "20000"},
    {"sites", CB_PARAM_ENUM, "distinct", 0, 0, pp_sites,
     "distinct: A and B run separate copies of their code; same: both run one copy", NULL},
    {"work", CB_PARAM_ENUM, "chain", 0, 0, pp_works,
     "chain: the data path down and up the call chain around every switch; none: only the "
     "switches (depth=0), as Boost.Context's and libaco's benchmarks loop", NULL},
    {"mode", CB_PARAM_ENUM, "symmetric", 0, 0, pp_modes,
     "symmetric: a side transfers straight to the other (1 switch per op); asymmetric (stackful "
     "families): a side yields to the root, which resumes the other (one op = one round trip, "
     "2 switches)",
     NULL},
    {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
};

static int pp_check(const cb_params *p, char *err, size_t errlen)
{
    if (strcmp(cb_params_str(p, "work"), "none") == 0 && cb_params_int(p, "depth") != 0) {
        snprintf(err, errlen,
                 "pingpong: work=none runs only the switches, without a call chain, but depth=%lld "
                 "(valid: depth=0 with work=none, any depth with work=chain)",
                 (long long)cb_params_int(p, "depth"));
        return -1;
    }
    return 0;
}

void pp_shared_init(pp_shared *sh, const cb_params *p)
{
    memset(sh, 0, sizeof *sh);
    sh->remaining = (uint64_t)cb_params_int(p, "switches");
    sh->depth = cb_params_int(p, "depth");
    sh->same_sites = strcmp(cb_params_str(p, "sites"), "same") == 0;
    sh->none = strcmp(cb_params_str(p, "work"), "none") == 0;
    sh->asym = strcmp(cb_params_str(p, "mode"), "asymmetric") == 0;
    sh->msg = 0x1234567890abcdefULL; /* A's first value */
}

void pp_result(const pp_shared *sh, const cb_params *p, cb_wl_result *out)
{
    out->ops = (uint64_t)cb_params_int(p, "switches");
    out->checksum = cb_mix(sh->checksum, sh->final);
}

/* ---- stackful: plain recursion, cb_co_transfer at the bottom ------------------------------ */

typedef struct pp_sf_side {
    pp_shared *sh;
    cb_co *other;
} pp_sf_side;

typedef struct pp_sf {
    pp_shared sh;
    pp_sf_side side[2];
    cb_co *co[2];
    const cb_params *p;
} pp_sf;

typedef uint64_t (*pp_sf_chain_fn)(pp_sf_side *me, int64_t level, uint64_t v);

/* The switch at the bottom: straight to the other side, or (asym, a constant in each copy) back
 * to the root, which resumes the other side with v. */
PP_INLINE uint64_t pp_sf_switch(pp_sf_side *me, uint64_t v, int asym)
{
    return asym ? cb_co_yield(v) : cb_co_transfer(me->other, v);
}

/* One chain level: at the bottom switch, else call the next level (a non-inlined function). */
PP_INLINE uint64_t pp_sf_step(pp_sf_side *me, int64_t level, uint64_t v, uint64_t salt,
                              pp_sf_chain_fn chain, int asym)
{
    if (level == me->sh->depth)
        return pp_receive(me->sh, pp_sf_switch(me, v, asym));
    return pp_up(chain(me, level + 1, pp_down(v, level, salt)), level);
}

PP_INLINE uintptr_t pp_sf_loop_body(void *arg, uintptr_t first, uint64_t salt,
                                    pp_sf_chain_fn chain, int asym)
{
    pp_sf_side *me = arg;
    uint64_t v = first;
    while (me->sh->remaining) {
        me->sh->remaining--;
        v = pp_sf_step(me, 0, v, salt, chain, asym);
    }
    me->sh->final = v;
    return v;
}

/* work=none: the switch and the loop, nothing else. The two copies are kept apart by no_icf
 * (identical code GCC would otherwise fold into one). */
PP_INLINE uintptr_t pp_sf_none_body(void *arg, uintptr_t first, int asym)
{
    pp_sf_side *me = arg;
    uint64_t v = first;
    while (me->sh->remaining) {
        me->sh->remaining--;
        v = pp_sf_switch(me, v, asym) + 1;
    }
    me->sh->final = v;
    return v;
}

/* Per side (salt) and mode (asym): its own copy of the chain, the loop and the none loop. */
#define PP_SF_COPIES(SIDE, SALT, ASYM)                                                         \
    static PP_NOINLINE uint64_t pp_sf_chain_##SIDE(pp_sf_side *me, int64_t level, uint64_t v)  \
    {                                                                                          \
        return pp_sf_step(me, level, v, SALT, pp_sf_chain_##SIDE, ASYM);                       \
    }                                                                                          \
    static PP_NOINLINE uintptr_t pp_sf_loop_##SIDE(void *arg, uintptr_t first)                 \
    {                                                                                          \
        return pp_sf_loop_body(arg, first, SALT, pp_sf_chain_##SIDE, ASYM);                    \
    }                                                                                          \
    static PP_NOFOLD uintptr_t pp_sf_none_##SIDE(void *arg, uintptr_t first)                   \
    {                                                                                          \
        return pp_sf_none_body(arg, first, ASYM);                                              \
    }
PP_SF_COPIES(a, PP_SALT_A, 0)
PP_SF_COPIES(b, PP_SALT_B, 0)
PP_SF_COPIES(a_asym, PP_SALT_A, 1)
PP_SF_COPIES(b_asym, PP_SALT_B, 1)

static void pp_sf_free(pp_sf *w)
{
    cb_co_destroy(w->co[0]);
    cb_co_destroy(w->co[1]);
    cb_rt_free(w, sizeof *w);
}

static void *pp_sf_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    pp_sf *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    pp_shared_init(&w->sh, p);
    w->p = p;
    cb_co_cfg cfg = cb_impl_co_cfg(impl, p);
    cb_co_fn a, b;
    if (w->sh.asym) {
        a = w->sh.none ? pp_sf_none_a_asym : pp_sf_loop_a_asym;
        b = w->sh.none ? pp_sf_none_b_asym : pp_sf_loop_b_asym;
    } else {
        a = w->sh.none ? pp_sf_none_a : pp_sf_loop_a;
        b = w->sh.none ? pp_sf_none_b : pp_sf_loop_b;
    }
    w->co[0] = cb_co_create(&cfg, a, &w->side[0]);
    w->co[1] = cb_co_create(&cfg, w->sh.same_sites ? a : b, &w->side[1]);
    if (!w->co[0] || !w->co[1]) {
        snprintf(err, errlen, "pingpong: cannot create coroutine (stack=%zu): %s", cfg.stack_size,
                 cb_stack_strerror(errno));
        pp_sf_free(w);
        return NULL;
    }
    for (int i = 0; i < 2; i++)
        w->side[i] = (pp_sf_side){&w->sh, w->co[!i]};
    return w;
}

static int pp_sf_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pp_sf *w = inst;
    if (!w->sh.asym) {
        cb_co_resume(w->co[0], w->sh.msg); /* returns when one side has finished */
        return 0;
    }
    /* The root: each side's yield comes back here with its value for the other side. */
    uintptr_t v = w->sh.msg;
    for (int cur = 0;; cur = !cur) {
        v = cb_co_resume(w->co[cur], v);
        if (cb_co_done(w->co[cur]))
            return 0;
    }
}

static int pp_sf_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pp_sf *w = inst;
    pp_result(&w->sh, w->p, out);
    pp_sf_free(w);
    return 0;
}

/* ---- sm: one frame per side, the chain's frames embedded in it ------------------------------ */

typedef struct pp_sm_level {
    uint32_t state;
    uint64_t v;   /* argument */
    uint64_t ret; /* result once done */
} pp_sm_level;

typedef struct pp_sm_side {
    uint32_t state;
    uint64_t v;
    pp_shared *sh;
    pp_sm_level chain[]; /* level 0: the loop's own step; 1..depth: embedded callee frames */
} pp_sm_side;

typedef struct pp_sm {
    pp_shared sh;
    pp_sm_side *side[2];
    size_t side_bytes;
    const cb_params *p;
} pp_sm;

typedef cb_sm_status (*pp_sm_chain_fn)(pp_sm_side *me, int64_t level);
typedef cb_sm_status (*pp_sm_loop_fn)(pp_sm_side *me);

PP_INLINE cb_sm_status pp_sm_step(pp_sm_side *me, int64_t level, uint64_t salt,
                                  pp_sm_chain_fn chain)
{
    pp_sm_level *f = &me->chain[level];
    switch (f->state) {
    case 0:
        if (level == me->sh->depth) {
            me->sh->msg = f->v;
            f->state = 1;
            return cb_sm_suspend();
        }
        me->chain[level + 1] = (pp_sm_level){0, pp_down(f->v, level, salt), 0};
        f->state = 2;
        /* fall through */
    case 2:
        if (chain(me, level + 1) == CB_SM_SUSPENDED)
            return CB_SM_SUSPENDED;
        f->ret = pp_up(me->chain[level + 1].ret, level);
        return CB_SM_DONE;
    case 1:
        f->ret = pp_receive(me->sh, me->sh->msg);
        return CB_SM_DONE;
    }
    __builtin_unreachable();
}

PP_INLINE cb_sm_status pp_sm_loop_body(pp_sm_side *me, uint64_t salt, pp_sm_chain_fn chain)
{
    switch (me->state) {
    case 0:
        me->v = me->sh->msg; /* the value this side was started with */
        for (;;) {
            if (!me->sh->remaining) {
                me->sh->final = me->v;
                return CB_SM_DONE;
            }
            me->sh->remaining--;
            me->chain[0] = (pp_sm_level){0, me->v, 0};
            me->state = 1;
            /* fall through */
        case 1:
            if (pp_sm_step(me, 0, salt, chain) == CB_SM_SUSPENDED)
                return CB_SM_SUSPENDED;
            me->v = me->chain[0].ret;
        }
    }
    __builtin_unreachable();
}

/* work=none: the loop suspends itself and adds one to what it receives. */
PP_INLINE cb_sm_status pp_sm_none_body(pp_sm_side *me)
{
    switch (me->state) {
    case 0:
        me->v = me->sh->msg;
        for (;;) {
            if (!me->sh->remaining) {
                me->sh->final = me->v;
                return CB_SM_DONE;
            }
            me->sh->remaining--;
            me->sh->msg = me->v;
            me->state = 1;
            return cb_sm_suspend();
        case 1:
            me->v = me->sh->msg + 1;
        }
    }
    __builtin_unreachable();
}

static PP_NOFOLD cb_sm_status pp_sm_none_a(pp_sm_side *me)
{
    return pp_sm_none_body(me);
}
static PP_NOFOLD cb_sm_status pp_sm_none_b(pp_sm_side *me)
{
    return pp_sm_none_body(me);
}

static PP_NOINLINE cb_sm_status pp_sm_chain_a(pp_sm_side *me, int64_t level)
{
    return pp_sm_step(me, level, PP_SALT_A, pp_sm_chain_a);
}
static PP_NOINLINE cb_sm_status pp_sm_chain_b(pp_sm_side *me, int64_t level)
{
    return pp_sm_step(me, level, PP_SALT_B, pp_sm_chain_b);
}
static PP_NOINLINE cb_sm_status pp_sm_loop_a(pp_sm_side *me)
{
    return pp_sm_loop_body(me, PP_SALT_A, pp_sm_chain_a);
}
static PP_NOINLINE cb_sm_status pp_sm_loop_b(pp_sm_side *me)
{
    return pp_sm_loop_body(me, PP_SALT_B, pp_sm_chain_b);
}

static void *pp_sm_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    pp_sm *w = cb_rt_alloc(sizeof *w);
    pp_shared_init(&w->sh, p);
    w->p = p;
    w->side_bytes = sizeof(pp_sm_side) + (size_t)(w->sh.depth + 1) * sizeof(pp_sm_level);
    for (int i = 0; i < 2; i++) {
        w->side[i] = cb_sm_alloc(w->side_bytes);
        memset(w->side[i], 0, w->side_bytes);
        w->side[i]->sh = &w->sh;
    }
    return w;
}

static int pp_sm_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pp_sm *w = inst;
    pp_sm_loop_fn a = w->sh.none ? pp_sm_none_a : pp_sm_loop_a;
    pp_sm_loop_fn b = w->sh.none ? pp_sm_none_b : pp_sm_loop_b;
    pp_sm_loop_fn loop[2] = {a, w->sh.same_sites ? a : b};
    int cur = 0;
    while (loop[cur](w->side[cur]) == CB_SM_SUSPENDED)
        cur = !cur;
    return 0;
}

static int pp_sm_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pp_sm *w = inst;
    pp_result(&w->sh, w->p, out);
    cb_sm_free(w->side[0], w->side_bytes);
    cb_sm_free(w->side[1], w->side_bytes);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- closure: a heap frame per call of the loop and of every chain level --------------------- */
/* A chain level is two functions (cb_cl_await_start): its start, called by its caller's await,
 * which goes down or suspends, and its continuation, the frame's resume function, which takes
 * the received value or the level below's result up and completes. */

typedef struct pp_cl_chain {
    cb_cl_frame h;
    pp_shared *sh;
    int64_t level;
    uint64_t v;
} pp_cl_chain;

/* The loop is level 0 of the chain, with the same locals. */
typedef pp_cl_chain pp_cl_loop;

typedef struct pp_cl {
    pp_shared sh;
    cb_cl_task task[2];
    const cb_params *p;
} pp_cl;

/* An async call of the chain level below frame f's (level 1 from the loop, level 0): the callee's
 * frame, its arguments computed from f's locals read back from f once the frame is allocated
 * (CB_CL_RELOAD). */
PP_INLINE pp_cl_chain *pp_cl_call(pp_cl_chain *f, cb_cl_fn cont, uint64_t salt)
{
    pp_cl_chain *c = cb_cl_new(f->h.task, &f->h, cont, sizeof *c);
    CB_CL_RELOAD(f);
    c->sh = f->sh;
    c->level = f->level + 1;
    c->v = pp_down(f->v, f->level, salt);
    return c;
}

/* A chain level's continuation: its code after it suspended (the bottom's receipt, or the
 * result of the level below), then its completion. */
PP_INLINE cb_cl_status pp_cl_chain_cont(cb_cl_frame *fh)
{
    pp_cl_chain *f = (pp_cl_chain *)fh;
    if (f->h.state == 2)
        return cb_cl_return_resumed(&f->h, pp_up(f->h.awaited, f->level));
    return cb_cl_return_resumed(&f->h, pp_receive(f->sh, f->sh->msg));
}

/* A chain level's start, run by its caller's await: down to the next level or suspend. */
PP_INLINE cb_cl_status pp_cl_chain_body(cb_cl_frame *fh, uint64_t salt, cb_cl_fn self,
                                        cb_cl_fn cont)
{
    pp_cl_chain *f = (pp_cl_chain *)fh;
    if (f->level == f->sh->depth) {
        f->sh->msg = f->v;
        f->h.state = 1;
        return cb_cl_suspend(&f->h);
    }
    f->h.state = 2;
    if (cb_cl_await_start(&f->h, &pp_cl_call(f, cont, salt)->h, self) == CB_CL_SUSPENDED)
        return CB_CL_SUSPENDED;
    f->h.result = pp_up(f->h.awaited, f->level);
    return cb_cl_done(&f->h);
}

/* The loop is chain level 0: at depth 0 it switches itself, else it awaits level 1. */
PP_INLINE cb_cl_status pp_cl_loop_body(cb_cl_frame *fh, uint64_t salt, cb_cl_fn chain,
                                       cb_cl_fn cont)
{
    pp_cl_loop *f = (pp_cl_loop *)fh;
    switch (f->h.state) {
    case 0:
        f->v = f->sh->msg;
        for (;;) {
            if (!f->sh->remaining) {
                f->sh->final = f->v;
                f->h.result = f->v;
                return cb_cl_done(&f->h);
            }
            f->sh->remaining--;
            if (f->sh->depth == 0) {
                f->sh->msg = f->v;
                f->h.state = 1;
                return cb_cl_suspend(&f->h);
            case 1:
                f->v = pp_receive(f->sh, f->sh->msg);
                continue;
            }
            f->h.state = 2;
            if (cb_cl_await_start(&f->h, &pp_cl_call(f, cont, salt)->h, chain) == CB_CL_SUSPENDED)
                return CB_CL_SUSPENDED;
            /* fall through */
        case 2:
            f->v = pp_up(f->h.awaited, 0);
        }
    }
    __builtin_unreachable();
}

/* work=none: the loop frame suspends itself and adds one to what it receives. */
PP_INLINE cb_cl_status pp_cl_none_body(cb_cl_frame *fh)
{
    pp_cl_loop *f = (pp_cl_loop *)fh;
    switch (f->h.state) {
    case 0:
        f->v = f->sh->msg;
        for (;;) {
            if (!f->sh->remaining) {
                f->sh->final = f->v;
                f->h.result = f->v;
                return cb_cl_done(&f->h);
            }
            f->sh->remaining--;
            f->sh->msg = f->v;
            f->h.state = 1;
            return cb_cl_suspend(&f->h);
        case 1:
            f->v = f->sh->msg + 1;
        }
    }
    __builtin_unreachable();
}

static PP_NOFOLD cb_cl_status pp_cl_none_a(cb_cl_frame *f)
{
    return pp_cl_none_body(f);
}
static PP_NOFOLD cb_cl_status pp_cl_none_b(cb_cl_frame *f)
{
    return pp_cl_none_body(f);
}

/* The continuations have no salt: no_icf keeps the two sides' copies apart. */
static PP_NOFOLD cb_cl_status pp_cl_cont_a(cb_cl_frame *f)
{
    return pp_cl_chain_cont(f);
}
static PP_NOFOLD cb_cl_status pp_cl_cont_b(cb_cl_frame *f)
{
    return pp_cl_chain_cont(f);
}
static PP_NOINLINE cb_cl_status pp_cl_chain_a(cb_cl_frame *f)
{
    return pp_cl_chain_body(f, PP_SALT_A, pp_cl_chain_a, pp_cl_cont_a);
}
static PP_NOINLINE cb_cl_status pp_cl_chain_b(cb_cl_frame *f)
{
    return pp_cl_chain_body(f, PP_SALT_B, pp_cl_chain_b, pp_cl_cont_b);
}
static PP_NOINLINE cb_cl_status pp_cl_loop_a(cb_cl_frame *f)
{
    return pp_cl_loop_body(f, PP_SALT_A, pp_cl_chain_a, pp_cl_cont_a);
}
static PP_NOINLINE cb_cl_status pp_cl_loop_b(cb_cl_frame *f)
{
    return pp_cl_loop_body(f, PP_SALT_B, pp_cl_chain_b, pp_cl_cont_b);
}

static void *pp_cl_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    pp_cl *w = cb_rt_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    pp_shared_init(&w->sh, p);
    w->p = p;
    w->task[0].use_pool = w->task[1].use_pool = cb_impl_cl_pool(p);
    return w;
}

static int pp_cl_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pp_cl *w = inst;
    cb_cl_fn a = w->sh.none ? pp_cl_none_a : pp_cl_loop_a;
    cb_cl_fn b = w->sh.none ? pp_cl_none_b : pp_cl_loop_b;
    cb_cl_fn loop[2] = {a, w->sh.same_sites ? a : b};
    /* Each side's root frame is created when it first runs, as an async call would be. */
    int cur = 0, started[2] = {0, 0};
    for (;;) {
        cb_cl_status st;
        if (!started[cur]) {
            pp_cl_loop *root = cb_cl_new(&w->task[cur], NULL, loop[cur], sizeof *root);
            root->sh = &w->sh;
            root->level = 0;
            started[cur] = 1;
            st = cb_cl_start(&w->task[cur], &root->h);
        } else {
            st = cb_cl_resume(&w->task[cur]);
        }
        if (st == CB_CL_DONE)
            return 0;
        cur = !cur;
    }
}

static int pp_cl_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pp_cl *w = inst;
    pp_result(&w->sh, w->p, out);
    cb_cl_cancel(&w->task[0]);
    cb_cl_cancel(&w->task[1]);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- direct: no coroutine, both sides' chains as plain calls, alternately ------------------- */

/* The same data path with the switch replaced by a return. A coroutine goes down its chain
 * (pp_down per level), switches, and when the other side has answered returns up (pp_up per
 * level) with the answer. Here one plain call of side X's chain goes down with X's value and at
 * the bottom the message is received at once (pp_receive, as the other side does on resumption);
 * the returns apply pp_up to it, which is what the other side's returns would compute (pp_up
 * has no per-side salt), and the next call is the other side's chain with the result. So every
 * switch costs one chain of `depth` calls and returns and no switch, and the checksum is the
 * coroutines'. The first message starts side B (it takes it without receiving it, and has no
 * chain to return up): that call's bottom and returns pass the value through unchanged. No
 * suspension happens: the baseline other families are compared with. */

typedef uint64_t (*pp_dr_chain_fn)(pp_shared *sh, int64_t level, uint64_t v, int up);

typedef struct pp_dr {
    pp_shared sh;
    const cb_params *p;
} pp_dr;

PP_INLINE uint64_t pp_dr_step(pp_shared *sh, int64_t level, uint64_t v, int up, uint64_t salt,
                              pp_dr_chain_fn chain)
{
    if (level == sh->depth)
        return up ? pp_receive(sh, v) : v;
    uint64_t r = chain(sh, level + 1, pp_down(v, level, salt), up);
    return up ? pp_up(r, level) : r;
}

static PP_NOINLINE uint64_t pp_dr_chain_a(pp_shared *sh, int64_t level, uint64_t v, int up)
{
    return pp_dr_step(sh, level, v, up, PP_SALT_A, pp_dr_chain_a);
}
static PP_NOINLINE uint64_t pp_dr_chain_b(pp_shared *sh, int64_t level, uint64_t v, int up)
{
    return pp_dr_step(sh, level, v, up, PP_SALT_B, pp_dr_chain_b);
}

/* One side's turn, level 0 inlined in the loop (as the coroutines' loops inline it). */
PP_INLINE uint64_t pp_dr_turn(pp_shared *sh, uint64_t v, int up, int b)
{
    return b ? pp_dr_step(sh, 0, v, up, PP_SALT_B, pp_dr_chain_b)
             : pp_dr_step(sh, 0, v, up, PP_SALT_A, pp_dr_chain_a);
}

static void *pp_dr_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    pp_dr *w = cb_rt_alloc(sizeof *w);
    pp_shared_init(&w->sh, p);
    w->p = p;
    return w;
}

static int pp_dr_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pp_shared *sh = &((pp_dr *)inst)->sh;
    uint64_t v = sh->msg;
    int b = 0, up = 0; /* whose chain runs; the first message is not received */
    if (sh->none) { /* work=none: what is left without the switches is the receipt's +1 */
        for (; sh->remaining; sh->remaining--, up = 1)
            v += (uint64_t)up;
        sh->final = v;
        return 0;
    }
    while (sh->remaining) {
        sh->remaining--;
        v = pp_dr_turn(sh, v, up, b && !sh->same_sites);
        b = !b;
        up = 1;
    }
    sh->final = v;
    return 0;
}

static int pp_dr_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pp_dr *w = inst;
    pp_result(&w->sh, w->p, out);
    cb_rt_free(w, sizeof *w);
    return 0;
}


/* One op is one hand-over of the value: symmetric, one switch; asymmetric, a round trip through
 * the root (side to root, root to the other side: two switches). */
static const char *pp_unit(const cb_params *p)
{
    return strcmp(cb_params_str(p, "mode"), "asymmetric") ? "switch" : "round trip";
}

/* The two sides. */
static uint64_t pp_alive(const cb_params *p)
{
    (void)p;
    return 2;
}

/* work=none is a body of only the switches; mode=symmetric's stackful body transfers. */
static const cb_wl_need pp_needs[] = {
    {"work", "none", CB_CAP_BARE_SWITCH},
    {"mode", "asymmetric", CB_CAP_ROOT_YIELD},
    {"mode", "symmetric", CB_CAP_TRANSFER},
    {NULL, NULL, 0},
};

CB_LUA_BODY(pingpong)

/* Small points check-external runs an external program at (harness/run/checkext.c). */
static const char *const check_points[][CB_WL_CHECK_SET] = {
    {"switches", "1000", "depth", "0"},
    {"switches", "1001", "depth", "4", "sites", "same"},
    {NULL},
};

const cb_workload cb_wl_pingpong = {
    .check_points = check_points,
    .name = "pingpong",
    .description = "two coroutines switch to each other at the bottom of a call chain of `depth` "
                   "levels; the switch-latency and return-stack-buffer workload",
    .unit = "switch",
    .unit_at = pp_unit,
    .params = pp_params,
    .check = pp_check,
    .alive = pp_alive,
    .needs = pp_needs,
    .family =
        {
            [CB_BODY_STACKFUL] = {pp_sf_setup, pp_sf_run, pp_sf_finish},
            [CB_BODY_SM] = {pp_sm_setup, pp_sm_run, pp_sm_finish},
            [CB_BODY_CLOSURE] = {pp_cl_setup, pp_cl_run, pp_cl_finish},
            [CB_BODY_DIRECT] = {pp_dr_setup, pp_dr_run, pp_dr_finish},
            [CB_BODY_CXX20] = CB_CXX20_OPS(pingpong),
            [CB_BODY_LUA] = CB_LUA_OPS(pingpong),
            [CB_BODY_CXX20_CLANG] = CB_CXX20_CLANG_OPS(pingpong),
        },
};
