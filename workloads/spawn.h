/* spawn's data shared by its family bodies: the C ones in spawn.c and the C++20 one in
 * workloads/spawn_cxx20.cc (which includes this inside extern "C"). */
#ifndef CB_SPAWN_H
#define CB_SPAWN_H

#include <stddef.h>
#include <stdint.h>

#include "workload.h"

/* The frame sizes compiled in. Every family's level keeps its `frame` bytes of locals in an array
 * of a size fixed at compile time (stackful: on the coroutine's stack; sm and closure: in the heap
 * frame; direct: in a plain struct), so the loops over them have the same constant bound in every
 * family and none pays for a variable-length array (a stack-clash probe and a dynamic frame). */
#define SP_FRAMES(X)                                                                              \
    X(8) X(16) X(24) X(32) X(48) X(64) X(96) X(128) X(256) X(512) X(1024) X(2048) X(4096)

typedef struct sp_shared {
    uint64_t n;
    int64_t depth;
    size_t frame;      /* bytes of locals per level, one of sp_frame_sizes */
    int fi;            /* its index there: which compiled level functions run */
    int offset;        /* layout=offset */
    int dead;          /* locals=dead: a level keeps one word of its locals across the suspension */
    int share;         /* deep_share: percent of the coroutines that go down `depth` levels */
    int64_t deep_once; /* levels of the plain recursion each coroutine makes once before it */
    uint64_t deep;     /* what those recursions returned, in creation order */
    uint64_t seed;
    uint64_t *order;   /* order=random: the coroutines in resume order; NULL: creation order */
    uint64_t in, out;  /* the value passed in at resumption, and out at the suspension */
    uint64_t checksum; /* every suspended and returned value, in order */
} sp_shared;

/* Untimed (setup and finish): the parameters and the resume order; the result. */
void sp_shared_init(sp_shared *sh, const cb_params *p);
void sp_shared_free(sp_shared *sh);
void sp_result(const sp_shared *sh, cb_wl_result *out);
/* deep_once: coroutine id's plain recursion of deep_once levels of `frame` bytes of locals each,
 * made at the start of its body (level 0) and returned from before it goes down to its
 * suspension; its value is folded into sh->deep. Nothing when deep_once is 0. */
void sp_deep_once(sp_shared *sh, uint64_t id);

/* deep_share: whether coroutine id goes down `depth` levels, spread evenly over creation order
 * (id is one of the share percent when (id + 1) * share / 100 passes a whole number: 1 in 100 at
 * 1, every one at 100); the others suspend in their body, at level 0. */
static inline int sp_goes_deep(const sp_shared *sh, uint64_t id)
{
    uint64_t s = (uint64_t)sh->share;
    return s == 100 || (id + 1) * s / 100 != id * s / 100;
}
/* The level coroutine id suspends at. */
static inline int64_t sp_depth_of(const sp_shared *sh, uint64_t id)
{
    return sp_goes_deep(sh, id) ? sh->depth : 0;
}
/* Whether `level` of coroutine id is the one it suspends at (sp_depth_of, asked at level 0 only:
 * the deep ones go on to `depth`, as every coroutine does at deep_share=100). */
static inline int sp_at_bottom(const sp_shared *sh, uint64_t id, int64_t level)
{
    return level == sh->depth || (level == 0 && !sp_goes_deep(sh, id));
}

/* The j-th coroutine to resume. */
static inline uint64_t sp_nth(const sp_shared *sh, uint64_t j)
{
    return sh->order ? sh->order[j] : j;
}

/* The data path, identical in every family. */
static inline uint64_t sp_word(uint64_t id, int64_t level, size_t k)
{
    return (id << 24 ^ (uint64_t)level << 12 ^ k) * 0x9e3779b97f4a7c15ULL;
}
static inline uint64_t sp_bottom(uint64_t id) { return id * 0xd6e8feb86659fd93ULL + 1; }
static inline uint64_t sp_resume_value(uint64_t id) { return id ^ 0x5bd1e9955bd1e995ULL; }
/* A level's result: what came up from below folded with every one of its locals. */
static inline uint64_t sp_unwind(uint64_t v, int64_t level, const uint64_t *w, size_t words)
{
    uint64_t acc = v + (uint64_t)level;
    for (size_t k = 0; k < words; k++)
        acc = (acc ^ w[k]) * 0x100000001b3ULL;
    return acc;
}

/* locals=dead: a level's locals folded into the one word it keeps across the suspension (and its
 * result then sp_unwind(v, level, &fold, 1)), identical in every family. */
static inline uint64_t sp_fold(int64_t level, const uint64_t *w, size_t words)
{
    return sp_unwind(0, level, w, words);
}

#endif
