/* forkjoin's tree, shared by its bodies (workloads/forkjoin.c) and by any peer written in C: which
 * nodes exist, what each is worth, and the checksum (docs/sched.md, "Workloads": the definition
 * ports follow). */
#ifndef CB_FORKJOIN_H
#define CB_FORKJOIN_H

#include <stdint.h>
#include <string.h>

#include "sched_wl.h"

typedef struct fj_tree {
    uint64_t fanout;    /* children of an inner node */
    int64_t depth;      /* levels below the root: a node at level `depth` has no children */
    uint64_t leaf_work; /* mixing steps a leaf makes */
    int unbalanced;     /* shape=unbalanced */
    uint64_t q;         /* unbalanced: per mille of the non-root nodes that have children */
} fj_tree;

/* A point's tree, from its parameters. */
static inline void fj_tree_init(fj_tree *t, const cb_params *p)
{
    t->fanout = (uint64_t)cb_params_int(p, "fanout");
    t->depth = cb_params_int(p, "depth");
    t->leaf_work = (uint64_t)cb_params_int(p, "leaf_work");
    t->unbalanced = strcmp(cb_params_str(p, "shape"), "unbalanced") == 0;
    t->q = (uint64_t)cb_params_int(p, "q");
}

/* The i-th child (0-based) of node id: the heap numbering, wrapping. */
static inline uint64_t fj_child(const fj_tree *t, uint64_t id, uint64_t i)
{
    return id * t->fanout + i + 1;
}

/* How many children node id at `level` has: fanout or 0. */
static inline uint64_t fj_nchildren(const fj_tree *t, uint64_t id, int64_t level)
{
    if (level >= t->depth)
        return 0;
    if (!t->unbalanced || level == 0)
        return t->fanout;
    return cb_swl_mix(id) % 1000 < t->q ? t->fanout : 0;
}

/* What node id adds to its return besides its children's: mix(id), and for a leaf (no
 * children) leaf_work more mixing steps of it, each depending on the last. */
static inline uint64_t fj_value(const fj_tree *t, uint64_t id, uint64_t nchildren)
{
    uint64_t x = cb_swl_mix(id);
    if (nchildren == 0)
        for (uint64_t k = 0; k < t->leaf_work; k++)
            x = cb_swl_mix(x);
    return x;
}

#endif
