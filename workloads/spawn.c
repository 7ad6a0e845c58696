/* spawn: `n` coroutines are created; each runs `depth` + 1 nested levels (its body is level 0),
 * every level holding `frame` bytes of live locals, and suspends at the bottom. With all n alive
 * and suspended the driver calls cb_wl_at_rest(n) (the harness measures memory there); then it
 * resumes each to completion (in creation order, or a seeded shuffle of it: `order`) and destroys
 * it. One op = one coroutine's whole life. `layout=offset` moves every stack top and every
 * stackless frame by a seeded pseudo-random multiple of 64 bytes, so no model gets the cache-set
 * aliasing (or the lack of it) of a perfectly regular layout for free. docs/memory.md.
 * Setup allocates only the driver's handle array (one handle per coroutine, as a run queue holds)
 * and the resume order; run is creation, suspension, resumption and destruction; finish reports
 * and frees. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "impls/closure.h"
#include "impls/coro.h"
#include "impls/sm.h"
#include "cxx20.h"
#include "lua_family.h"
#include "spawn.h"
#include "workload.h"

#define SP_INLINE static inline __attribute__((always_inline))

#define SP_SIZE(B) B,
static const int64_t sp_frame_sizes[] = {SP_FRAMES(SP_SIZE)};
enum { SP_NFRAMES = sizeof sp_frame_sizes / sizeof sp_frame_sizes[0] };

/* layout=offset: offsets are multiples of 64 below this (every cache-line slot of a page). */
enum { SP_OFFSET_SPAN = 4096 };

static const char *const sp_layouts[] = {"aligned", "offset", NULL};
static const char *const sp_orders[] = {"fifo", "random", NULL};
static const char *const sp_locals[] = {"live", "dead", NULL};

static const cb_param_def sp_params[] = {
    /* --quick: 1,000, since thread's 10,000 OS threads took 20 s of each of its invocations
     * (three quarters of a 116 s `run --quick`) */
    {"n", CB_PARAM_INT, "10000", 1, 10000000, NULL, "coroutines alive at once at the rest point",
     "1000"},
    {"depth", CB_PARAM_INT, "0", 0, 100000, NULL,
     "nested call levels below each coroutine's body before it suspends", NULL},
    {"frame", CB_PARAM_INT, "64", 8, 4096, NULL,
     "bytes of live locals per level, kept across the suspension (8, 16, 24, 32, 48, 64, 96, "
     "128, 256, 512, 1024, 2048 or 4096)", NULL},
    {"layout", CB_PARAM_ENUM, "aligned", 0, 0, sp_layouts,
     "aligned: stacks and frames where their allocator puts them; offset: each stack top and "
     "each stackless frame moved by a seeded pseudo-random multiple of 64 bytes below 4096 "
     "(reserved stack size unchanged)", NULL},
    {"order", CB_PARAM_ENUM, "fifo", 0, 0, sp_orders,
     "fifo: resumed in creation order; random: in a seeded shuffle of it", NULL},
    {"seed", CB_PARAM_INT, "1", 0, (int64_t)1 << 62, NULL,
     "seed of layout=offset and order=random; equal seeds give equal checksums in every family", NULL},
    {"deep_once", CB_PARAM_INT, "0", 0, 100000, NULL,
     "levels of a plain recursion (frame bytes of locals each) every coroutine makes once and "
     "returns from before it goes down to its suspension: the stack a stackful coroutine keeps "
     "for the deepest it has been (docs/memory.md)", NULL},
    {"deep_share", CB_PARAM_INT, "100", 0, 100, NULL,
     "percent of the coroutines that go down `depth` levels (spread evenly over creation "
     "order); the others suspend in their body, at level 0: a few coroutines deep, the rest "
     "shallow (docs/memory.md)", NULL},
    {"locals", CB_PARAM_ENUM, "live", 0, 0, sp_locals,
     "live: a level's `frame` bytes of locals are read after the suspension; dead: they are "
     "filled and folded into one word before it, and only that word is read after it (what a "
     "compiler's coroutine frame keeps of dead locals, docs/memory.md)", NULL},
    {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
};

/* Bound the handle arrays of a batch (set up before the clock starts) to about 2^20 handles. */
enum { SP_BATCH_HANDLES = 1 << 20 };

static int sp_frame_index(int64_t frame)
{
    for (int i = 0; i < SP_NFRAMES; i++)
        if (sp_frame_sizes[i] == frame)
            return i;
    return -1;
}

static int sp_check(const cb_params *p, char *err, size_t errlen)
{
    int64_t frame = cb_params_int(p, "frame");
    if (sp_frame_index(frame) < 0) {
        snprintf(err, errlen,
                 "spawn: frame=%lld is not a compiled frame size (valid: 8, 16, 24, 32, 48, 64, "
                 "96, 128, 256, 512, 1024, 2048, 4096)",
                 (long long)frame);
        return -1;
    }
    int64_t share = cb_params_int(p, "deep_share");
    if (share < 100 && cb_params_int(p, "depth") == 0) {
        snprintf(err, errlen,
                 "spawn: deep_share=%lld with depth=0 sends no coroutine deep (valid: depth above "
                 "0 with deep_share below 100)",
                 (long long)share);
        return -1;
    }
    return 0;
}

static uint64_t sp_max_batch(const cb_params *p)
{
    uint64_t n = (uint64_t)cb_params_int(p, "n");
    return n >= SP_BATCH_HANDLES ? 1 : SP_BATCH_HANDLES / n;
}

/* splitmix64's finaliser: the seeded layout and order, identical in every family. */
static inline uint64_t sp_hash(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ x >> 27) * 0x94d049bb133111ebULL;
    return x ^ x >> 31;
}

/* Where coroutine id's level `level` starts: 0 (aligned), or a pseudo-random multiple of 64
 * bytes below SP_OFFSET_SPAN (stackful: below the stack top; stackless: into its allocation). */
static inline size_t sp_offset(const sp_shared *sh, uint64_t id, int64_t level)
{
    if (!sh->offset)
        return 0;
    uint64_t h = sp_hash(sh->seed ^ sp_hash(id * 0x10001ULL + (uint64_t)level));
    return 64 * (size_t)(h % (SP_OFFSET_SPAN / 64));
}

/* Untimed (setup): the parameters, and for order=random a Fisher-Yates shuffle of 0..n-1. */
void sp_shared_init(sp_shared *sh, const cb_params *p)
{
    memset(sh, 0, sizeof *sh);
    sh->n = (uint64_t)cb_params_int(p, "n");
    sh->depth = cb_params_int(p, "depth");
    sh->frame = (size_t)cb_params_int(p, "frame");
    sh->fi = sp_frame_index((int64_t)sh->frame);
    sh->offset = strcmp(cb_params_str(p, "layout"), "offset") == 0;
    sh->seed = (uint64_t)cb_params_int(p, "seed");
    sh->dead = strcmp(cb_params_str(p, "locals"), "dead") == 0;
    sh->deep_once = cb_params_int(p, "deep_once");
    sh->share = (int)cb_params_int(p, "deep_share");
    if (strcmp(cb_params_str(p, "order"), "random") == 0) {
        sh->order = cb_rt_alloc(sh->n * sizeof *sh->order);
        for (uint64_t i = 0; i < sh->n; i++)
            sh->order[i] = i;
        uint64_t x = sh->seed;
        for (uint64_t i = sh->n; i-- > 1;) {
            x = sp_hash(x);
            uint64_t j = x % (i + 1), t = sh->order[i];
            sh->order[i] = sh->order[j];
            sh->order[j] = t;
        }
    }
}

void sp_shared_free(sp_shared *sh)
{
    if (sh->order)
        cb_rt_free(sh->order, sh->n * sizeof *sh->order);
}

void sp_result(const sp_shared *sh, cb_wl_result *out)
{
    out->ops = sh->n;
    out->checksum = sh->deep_once ? cb_mix(sh->checksum, sh->deep) : sh->checksum;
}

/* deep_once's recursion, one per frame size: a level fills its locals (the empty asm reads them,
 * so they are stored), calls the next and folds them with what it returned. */
typedef uint64_t (*sp_deep_fn)(uint64_t id, int64_t left);
#define SP_DEEP(B)                                                                                \
    static __attribute__((noinline)) uint64_t sp_deep_##B(uint64_t id, int64_t left)             \
    {                                                                                             \
        uint64_t loc[B / 8];                                                                      \
        for (size_t k = 0; k < B / 8; k++)                                                        \
            loc[k] = sp_word(id, -left, k);                                                       \
        __asm__ volatile("" : : "r"(loc) : "memory");                                             \
        uint64_t v = left > 1 ? sp_deep_##B(id, left - 1) : 0;                                    \
        return sp_unwind(v, left, loc, B / 8);                                                    \
    }
SP_FRAMES(SP_DEEP)
#define SP_DEEP_ENTRY(B) sp_deep_##B,
static const sp_deep_fn sp_deeps[] = {SP_FRAMES(SP_DEEP_ENTRY)};

void sp_deep_once(sp_shared *sh, uint64_t id)
{
    if (sh->deep_once > 0)
        sh->deep = cb_mix(sh->deep, sp_deeps[sh->fi](id, sh->deep_once));
}

/* ---- stackful: plain recursion with a local array per level, cb_co_yield at the bottom ------- */

typedef uint64_t (*sp_sf_fn)(const sp_shared *sh, uint64_t id, int64_t level);

typedef struct sp_sf {
    sp_shared sh;
    cb_co_cfg cfg; /* the cell's: backend, stack bytes and mode */
    cb_co **co;    /* n handles */
} sp_sf;

SP_INLINE uint64_t sp_sf_body(const sp_shared *sh, uint64_t id, int64_t level, uint64_t *loc,
                              size_t words, sp_sf_fn self)
{
    for (size_t k = 0; k < words; k++)
        loc[k] = sp_word(id, level, k);
    /* The locals live in this stack frame across the suspension, as compiled code keeps them;
     * the empty asm says memory is read through loc, so no store is elided. locals=dead: they
     * are folded before it, and the frame that holds them stays as the compiler sized it. */
    __asm__ volatile("" : : "r"(loc) : "memory");
    uint64_t fold = sh->dead ? sp_fold(level, loc, words) : 0;
    uint64_t v =
        sp_at_bottom(sh, id, level) ? cb_co_yield(sp_bottom(id)) : self(sh, id, level + 1);
    return sh->dead ? sp_unwind(v, level, &fold, 1) : sp_unwind(v, level, loc, words);
}

#define SP_SF_LEVEL(B)                                                                            \
    static __attribute__((noinline)) uint64_t sp_sf_level_##B(const sp_shared *sh, uint64_t id,   \
                                                              int64_t level)                      \
    {                                                                                             \
        uint64_t loc[B / 8];                                                                      \
        return sp_sf_body(sh, id, level, loc, B / 8, sp_sf_level_##B);                            \
    }
SP_FRAMES(SP_SF_LEVEL)
#define SP_SF_ENTRY(B) sp_sf_level_##B,
static const sp_sf_fn sp_sf_levels[] = {SP_FRAMES(SP_SF_ENTRY)};

static uintptr_t sp_sf_main(void *arg, uintptr_t id)
{
    sp_sf *w = arg;
    sp_deep_once(&w->sh, id); /* on this coroutine's stack */
    return sp_sf_levels[w->sh.fi](&w->sh, id, 0); /* level 0 for this frame size */
}

static void *sp_sf_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    sp_sf *w = cb_rt_alloc(sizeof *w);
    sp_shared_init(&w->sh, p);
    w->cfg = cb_impl_co_cfg(impl, p);
    w->co = cb_rt_alloc(w->sh.n * sizeof *w->co);
    memset(w->co, 0, w->sh.n * sizeof *w->co);
    return w;
}

static int sp_sf_run(void *inst, char *err, size_t errlen)
{
    sp_sf *w = inst;
    sp_shared *sh = &w->sh;
    for (uint64_t i = 0; i < sh->n; i++) {
        cb_co *co = cb_co_create_at(&w->cfg, sp_sf_main, w, sp_offset(sh, i, 0));
        if (!co) {
            snprintf(err, errlen,
                     "spawn: cannot create coroutine %llu of %llu (stack=%zu, stack modes so "
                     "far: %s): %s",
                     (unsigned long long)i + 1, (unsigned long long)sh->n, w->cfg.stack_size,
                     cb_stack_modes_used() ? cb_stack_modes_used() : "none", cb_stack_strerror(errno));
            return -1;
        }
        w->co[i] = co;
        sh->checksum = cb_mix(sh->checksum, cb_co_resume(co, i));
    }
    cb_wl_at_rest(sh->n);
    for (uint64_t j = 0; j < sh->n; j++) {
        uint64_t i = sp_nth(sh, j);
        uint64_t r = cb_co_resume(w->co[i], sp_resume_value(i));
        sh->checksum = cb_mix(sh->checksum, r);
        cb_co_destroy(w->co[i]);
        w->co[i] = NULL;
    }
    return 0;
}

static int sp_sf_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    sp_sf *w = inst;
    sp_result(&w->sh, out);
    for (uint64_t i = 0; i < w->sh.n; i++)
        cb_co_destroy(w->co[i]); /* only after a failed run */
    cb_rt_free(w->co, w->sh.n * sizeof *w->co);
    sp_shared_free(&w->sh);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* locals=dead in the stackless families and direct: the level's locals in a transient frame of
 * the C stack (as a person writing the state machine keeps only what lives across the
 * suspension), filled, seen by the empty asm as the stackful body's are, and folded. */
typedef uint64_t (*sp_fold_fn)(uint64_t id, int64_t level);
#define SP_FOLD(B)                                                                                \
    static __attribute__((noinline)) uint64_t sp_fold_##B(uint64_t id, int64_t level)             \
    {                                                                                             \
        uint64_t loc[B / 8];                                                                      \
        for (size_t k = 0; k < B / 8; k++)                                                        \
            loc[k] = sp_word(id, level, k);                                                       \
        __asm__ volatile("" : : "r"(loc) : "memory");                                             \
        return sp_fold(level, loc, B / 8);                                                        \
    }
SP_FRAMES(SP_FOLD)
#define SP_FOLD_ENTRY(B) sp_fold_##B,
static const sp_fold_fn sp_folds[] = {SP_FRAMES(SP_FOLD_ENTRY)};

/* The words of locals a level keeps across the suspension. */
static inline size_t sp_kept_words(const sp_shared *sh, size_t words)
{
    return sh->dead ? 1 : words;
}

/* ---- sm: one frame per coroutine, the levels' frames embedded in it ------------------------- */

typedef struct sp_sm_level {
    uint32_t state;
    uint64_t ret;
    uint64_t w[]; /* the level's live locals: a fixed count per compiled frame size */
} sp_sm_level;

typedef struct sp_sm_co {
    uint64_t id;
    unsigned char levels[]; /* depth + 1 levels, each sizeof(sp_sm_level) + frame bytes */
} sp_sm_co;

typedef struct sp_sm sp_sm;
typedef cb_sm_status (*sp_sm_fn)(sp_sm *w, sp_sm_co *c, int64_t level);

struct sp_sm {
    sp_shared sh;
    sp_sm_fn level;     /* for this frame size */
    size_t frame_bytes; /* of a coroutine that goes `depth` levels down */
    sp_sm_co **co;
};

/* Coroutine i's frame: the levels it goes down (deep_share: `depth` + 1, or its body's alone),
 * as a nested future allocated for the path taken (a compiler that embeds the deep path's
 * future in every coroutine's sizes each one as deep_share=100 does). */
static size_t sp_sm_bytes(const sp_sm *w, uint64_t i)
{
    const sp_shared *sh = &w->sh;
    if (sp_goes_deep(sh, i))
        return w->frame_bytes;
    return sizeof(sp_sm_co) + (w->frame_bytes - sizeof(sp_sm_co)) / (size_t)(sh->depth + 1);
}

SP_INLINE cb_sm_status sp_sm_body(sp_sm *w, sp_sm_co *c, int64_t level, size_t words,
                                  sp_sm_fn self)
{
    sp_shared *sh = &w->sh;
    const size_t kept = sp_kept_words(sh, words);
    const size_t stride = sizeof(sp_sm_level) + kept * sizeof(uint64_t);
    sp_sm_level *f = (sp_sm_level *)(c->levels + (size_t)level * stride);
    sp_sm_level *callee = (sp_sm_level *)((unsigned char *)f + stride);
    uint64_t v;
    switch (f->state) {
    case 0:
        if (level == 0)
            sp_deep_once(sh, c->id); /* a plain call: on the driver's stack, returned from */
        if (sh->dead)
            f->w[0] = sp_folds[sh->fi](c->id, level);
        else
            for (size_t k = 0; k < words; k++)
                f->w[k] = sp_word(c->id, level, k);
        if (sp_at_bottom(sh, c->id, level)) {
            sh->out = sp_bottom(c->id);
            f->state = 1;
            return cb_sm_suspend();
        }
        callee->state = 0;
        f->state = 2;
        /* fall through */
    case 2:
        if (self(w, c, level + 1) == CB_SM_SUSPENDED)
            return CB_SM_SUSPENDED;
        v = callee->ret;
        break;
    default: /* 1: resumed at the bottom */
        v = sh->in;
        break;
    }
    f->ret = sp_unwind(v, level, f->w, kept);
    return CB_SM_DONE;
}

#define SP_SM_LEVEL(B)                                                                            \
    static cb_sm_status sp_sm_level_##B(sp_sm *w, sp_sm_co *c, int64_t level)                     \
    {                                                                                             \
        return sp_sm_body(w, c, level, B / 8, sp_sm_level_##B);                                   \
    }
SP_FRAMES(SP_SM_LEVEL)
#define SP_SM_ENTRY(B) sp_sm_level_##B,
static const sp_sm_fn sp_sm_levels[] = {SP_FRAMES(SP_SM_ENTRY)};

static void *sp_sm_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    sp_sm *w = cb_rt_alloc(sizeof *w);
    sp_shared_init(&w->sh, p);
    w->level = sp_sm_levels[w->sh.fi];
    size_t kept = sp_kept_words(&w->sh, w->sh.frame / 8) * sizeof(uint64_t);
    w->frame_bytes = sizeof(sp_sm_co) + (size_t)(w->sh.depth + 1) * (sizeof(sp_sm_level) + kept);
    w->co = cb_rt_alloc(w->sh.n * sizeof *w->co);
    memset(w->co, 0, w->sh.n * sizeof *w->co);
    return w;
}

/* layout=offset: the frame starts `off` bytes into an allocation that much larger. */
static void sp_sm_free(sp_sm *w, uint64_t i)
{
    size_t off = sp_offset(&w->sh, i, 0);
    cb_sm_free((unsigned char *)w->co[i] - off, sp_sm_bytes(w, i) + off);
    w->co[i] = NULL;
}

static int sp_sm_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    sp_sm *w = inst;
    sp_shared *sh = &w->sh;
    for (uint64_t i = 0; i < sh->n; i++) {
        size_t off = sp_offset(sh, i, 0);
        sp_sm_co *c = (sp_sm_co *)((unsigned char *)cb_sm_alloc(sp_sm_bytes(w, i) + off) + off);
        c->id = i;
        ((sp_sm_level *)c->levels)->state = 0;
        w->co[i] = c;
        w->level(w, c, 0); /* runs to its suspension */
        sh->checksum = cb_mix(sh->checksum, sh->out);
    }
    cb_wl_at_rest(sh->n);
    for (uint64_t j = 0; j < sh->n; j++) {
        uint64_t i = sp_nth(sh, j);
        sp_sm_co *c = w->co[i];
        sh->in = sp_resume_value(i);
        w->level(w, c, 0); /* runs to completion */
        sh->checksum = cb_mix(sh->checksum, ((sp_sm_level *)c->levels)->ret);
        sp_sm_free(w, i);
    }
    return 0;
}

static int sp_sm_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    sp_sm *w = inst;
    sp_result(&w->sh, out);
    for (uint64_t i = 0; i < w->sh.n; i++)
        if (w->co[i])
            sp_sm_free(w, i);
    cb_rt_free(w->co, w->sh.n * sizeof *w->co);
    sp_shared_free(&w->sh);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- closure: one heap frame per level, a task per coroutine ------------------------------ */

typedef struct sp_cl_level {
    cb_cl_frame h;
    sp_shared *sh;
    uint64_t id;
    int64_t level;
    uint64_t w[]; /* the level's live locals: a fixed count per compiled frame size */
} sp_cl_level;

typedef struct sp_cl {
    sp_shared sh;
    cb_cl_fn level; /* for this frame size */
    size_t frame_bytes;
    cb_cl_task *task; /* n tasks: the handle of each coroutine */
} sp_cl;

SP_INLINE cb_cl_status sp_cl_body(cb_cl_frame *fh, size_t words, cb_cl_fn self)
{
    sp_cl_level *f = (sp_cl_level *)fh;
    sp_shared *sh = f->sh;
    const size_t kept = sp_kept_words(sh, words);
    uint64_t v;
    switch (f->h.state) {
    case 0:
        if (f->level == 0)
            sp_deep_once(sh, f->id); /* a plain call: on the driver's stack, returned from */
        if (sh->dead)
            f->w[0] = sp_folds[sh->fi](f->id, f->level);
        else
            for (size_t k = 0; k < words; k++)
                f->w[k] = sp_word(f->id, f->level, k);
        if (sp_at_bottom(sh, f->id, f->level)) {
            sh->out = sp_bottom(f->id);
            f->h.state = 1;
            return cb_cl_suspend(&f->h);
        } else {
            sp_cl_level *c = cb_cl_new_at(f->h.task, &f->h, self,
                                          sizeof(sp_cl_level) + kept * sizeof(uint64_t),
                                          sp_offset(sh, f->id, f->level + 1));
            c->sh = sh;
            c->id = f->id;
            c->level = f->level + 1;
            f->h.state = 2;
            if (cb_cl_await(&f->h, &c->h) == CB_CL_SUSPENDED)
                return CB_CL_SUSPENDED;
        }
        /* fall through */
    case 2:
        v = f->h.awaited;
        break;
    default: /* 1: resumed at the bottom */
        v = sh->in;
        break;
    }
    f->h.result = sp_unwind(v, f->level, f->w, kept);
    return cb_cl_done(&f->h);
}

#define SP_CL_LEVEL(B)                                                                            \
    static cb_cl_status sp_cl_level_##B(cb_cl_frame *fh)                                          \
    {                                                                                             \
        return sp_cl_body(fh, B / 8, sp_cl_level_##B);                                            \
    }
SP_FRAMES(SP_CL_LEVEL)
#define SP_CL_ENTRY(B) sp_cl_level_##B,
static const cb_cl_fn sp_cl_levels[] = {SP_FRAMES(SP_CL_ENTRY)};

static void *sp_cl_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl, (void)err, (void)errlen;
    sp_cl *w = cb_rt_alloc(sizeof *w);
    sp_shared_init(&w->sh, p);
    w->level = sp_cl_levels[w->sh.fi];
    w->frame_bytes =
        sizeof(sp_cl_level) + sp_kept_words(&w->sh, w->sh.frame / 8) * sizeof(uint64_t);
    w->task = cb_rt_alloc(w->sh.n * sizeof *w->task);
    memset(w->task, 0, w->sh.n * sizeof *w->task);
    for (uint64_t i = 0; i < w->sh.n; i++)
        w->task[i].use_pool = cb_impl_cl_pool(p);
    return w;
}

static int sp_cl_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    sp_cl *w = inst;
    sp_shared *sh = &w->sh;
    for (uint64_t i = 0; i < sh->n; i++) {
        sp_cl_level *root =
            cb_cl_new_at(&w->task[i], NULL, w->level, w->frame_bytes, sp_offset(sh, i, 0));
        root->sh = sh;
        root->id = i;
        root->level = 0;
        cb_cl_start(&w->task[i], &root->h); /* runs to its suspension */
        sh->checksum = cb_mix(sh->checksum, sh->out);
    }
    cb_wl_at_rest(sh->n);
    for (uint64_t j = 0; j < sh->n; j++) {
        uint64_t i = sp_nth(sh, j);
        sh->in = sp_resume_value(i);
        cb_cl_resume(&w->task[i]); /* runs to completion and frees the frames */
        sh->checksum = cb_mix(sh->checksum, w->task[i].result);
    }
    return 0;
}

static int sp_cl_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    sp_cl *w = inst;
    sp_result(&w->sh, out);
    for (uint64_t i = 0; i < w->sh.n; i++)
        cb_cl_cancel(&w->task[i]); /* frees nothing after a completed run */
    cb_rt_free(w->task, w->sh.n * sizeof *w->task);
    sp_shared_free(&w->sh);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* ---- direct: no coroutine, the same data path over plain structs -------------------------- */

/* Each coroutine's levels become one plain struct of (depth + 1) * frame bytes, packed in
 * creation order in an arena (with layout=offset each starts `off` bytes past the previous one's
 * end, as consecutive padded allocations would): run fills them in creation order (the checksum
 * takes each bottom value, as the suspension does), then consumes them in resume order,
 * unwinding every level as the coroutines' returns do. No allocation, no resume function, no
 * state, no suspension: the data path alone, the baseline other families are compared with (ns
 * per op minus direct's is the price of the model, its storage included).
 * The arena is mapped once per process and kept, as the stack pool keeps stacks: the memory pass
 * takes its first-touch faults, and the instances of a batch, which run one after the other,
 * share it. It is mmap'd, so it shows in RSS, not in the heap figures. */
typedef struct sp_dr sp_dr;
typedef void (*sp_dr_fn)(sp_dr *w);

struct sp_dr {
    sp_shared sh;
    sp_dr_fn run;
    size_t bytes;      /* of one struct that goes `depth` levels down (deep_share: sp_dr_bytes) */
    unsigned char *arena;
    uint64_t **s;      /* n handles, as the other families' drivers hold */
};

static unsigned char *sp_dr_arena;
static size_t sp_dr_arena_len;

static unsigned char *sp_dr_arena_get(size_t need)
{
    if (need > sp_dr_arena_len) {
        if (sp_dr_arena)
            munmap(sp_dr_arena, sp_dr_arena_len);
        sp_dr_arena_len = 0;
        sp_dr_arena = mmap(NULL, need, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (sp_dr_arena == MAP_FAILED) {
            sp_dr_arena = NULL;
            return NULL;
        }
        sp_dr_arena_len = need;
    }
    return sp_dr_arena;
}

/* Coroutine i's struct: the levels it goes down (deep_share). */
static inline size_t sp_dr_bytes(const sp_dr *w, uint64_t i)
{
    return sp_goes_deep(&w->sh, i) ? w->bytes : w->bytes / (size_t)(w->sh.depth + 1);
}

SP_INLINE void sp_dr_body(sp_dr *w, size_t words)
{
    sp_shared *sh = &w->sh;
    const size_t kept = sp_kept_words(sh, words);
    unsigned char *at = w->arena;
    for (uint64_t i = 0; i < sh->n; i++) {
        uint64_t *s = (uint64_t *)(at + sp_offset(sh, i, 0));
        at = (unsigned char *)s + sp_dr_bytes(w, i);
        w->s[i] = s;
        sp_deep_once(sh, i);
        for (int64_t level = 0, last = sp_depth_of(sh, i); level <= last; level++)
            if (sh->dead)
                s[level] = sp_folds[sh->fi](i, level);
            else
                for (size_t k = 0; k < words; k++)
                    s[(size_t)level * words + k] = sp_word(i, level, k);
        sh->checksum = cb_mix(sh->checksum, sp_bottom(i));
    }
    cb_wl_at_rest(sh->n);
    for (uint64_t j = 0; j < sh->n; j++) {
        uint64_t i = sp_nth(sh, j);
        const uint64_t *s = w->s[i];
        uint64_t v = sp_resume_value(i);
        for (int64_t level = sp_depth_of(sh, i); level >= 0; level--)
            v = sp_unwind(v, level, s + (size_t)level * kept, kept);
        sh->checksum = cb_mix(sh->checksum, v);
    }
}

#define SP_DR_RUN(B)                                                                              \
    static void sp_dr_run_##B(sp_dr *w) { sp_dr_body(w, B / 8); }
SP_FRAMES(SP_DR_RUN)
#define SP_DR_ENTRY(B) sp_dr_run_##B,
static const sp_dr_fn sp_dr_runs[] = {SP_FRAMES(SP_DR_ENTRY)};

static void *sp_dr_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen)
{
    (void)impl;
    sp_dr *w = cb_rt_alloc(sizeof *w);
    sp_shared_init(&w->sh, p);
    w->run = sp_dr_runs[w->sh.fi];
    w->bytes =
        (size_t)(w->sh.depth + 1) * sp_kept_words(&w->sh, w->sh.frame / 8) * sizeof(uint64_t);
    size_t need = 0;
    for (uint64_t i = 0; i < w->sh.n; i++)
        need += sp_offset(&w->sh, i, 0) + sp_dr_bytes(w, i);
    w->arena = sp_dr_arena_get(need);
    if (!w->arena) {
        snprintf(err, errlen, "spawn: cannot map %zu bytes for the direct structs: %s", need,
                 strerror(errno));
        sp_shared_free(&w->sh);
        cb_rt_free(w, sizeof *w);
        return NULL;
    }
    w->s = cb_rt_alloc(w->sh.n * sizeof *w->s);
    return w;
}

static int sp_dr_run(void *inst, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    sp_dr *w = inst;
    w->run(w);
    return 0;
}

static int sp_dr_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    sp_dr *w = inst;
    sp_result(&w->sh, out);
    cb_rt_free(w->s, w->sh.n * sizeof *w->s);
    sp_shared_free(&w->sh);
    cb_rt_free(w, sizeof *w);
    return 0;
}

/* All n at the rest point. */
static uint64_t sp_alive(const cb_params *p) { return (uint64_t)cb_params_int(p, "n"); }

/* layout=offset moves every stack top and stackless frame: the body places them. */
static const cb_wl_need sp_needs[] = {
    {"layout", "offset", CB_CAP_PLACED_FRAMES},
    {"locals", "dead", CB_CAP_DEAD_LOCALS},
    {"deep_once", NULL, CB_CAP_DEEP_ONCE},
    {"deep_share", NULL, CB_CAP_DEEP_SHARE},
    {NULL, NULL, 0},
};

CB_LUA_BODY(spawn)

/* Small points check-external runs an external program at (harness/run/checkext.c). */
static const char *const check_points[][CB_WL_CHECK_SET] = {
    {"n", "100", "depth", "2", "frame", "64"},
    {"n", "64", "depth", "1", "order", "random", "seed", "7"},
    {NULL},
};

const cb_workload cb_wl_spawn = {
    .check_points = check_points,
    .name = "spawn",
    .description = "n coroutines each call `depth` levels down with `frame` bytes of live locals "
                   "per level and suspend; all n alive at once (the memory rest point), then each "
                   "is resumed to completion and destroyed",
    .unit = "coroutine",
    .params = sp_params,
    .check = sp_check,
    .max_batch = sp_max_batch,
    .alive = sp_alive,
    .needs = sp_needs,
    .family =
        {
            [CB_BODY_STACKFUL] = {sp_sf_setup, sp_sf_run, sp_sf_finish},
            [CB_BODY_SM] = {sp_sm_setup, sp_sm_run, sp_sm_finish},
            [CB_BODY_CLOSURE] = {sp_cl_setup, sp_cl_run, sp_cl_finish},
            [CB_BODY_DIRECT] = {sp_dr_setup, sp_dr_run, sp_dr_finish},
            [CB_BODY_CXX20] = CB_CXX20_OPS(spawn),
            [CB_BODY_LUA] = CB_LUA_OPS(spawn),
            [CB_BODY_CXX20_CLANG] = CB_CXX20_CLANG_OPS(spawn),
        },
};
