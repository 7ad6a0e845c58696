/* await's data shared by its family bodies: the C ones in await.c and the C++20 one in
 * await_cxx20.cc (which includes this inside extern "C"). */
#ifndef CB_AWAIT_H
#define CB_AWAIT_H

#include <stdint.h>

#include "workload.h"

/* Shared by every family. */
typedef struct aw_shared {
    uint64_t calls;    /* top-level async calls per run (ops) */
    uint64_t every;    /* suspend_every: one call in `every` suspends; 0: never */
    int64_t depth;     /* nested async calls below the top-level one */
    uint64_t i;        /* the call in progress */
    uint64_t ready;    /* the value the driver delivers when it resumes a suspended call */
    uint64_t checksum; /* every call's result, in order */
} aw_shared;

void aw_shared_init(aw_shared *sh, const cb_params *p);
void aw_result(const aw_shared *sh, cb_wl_result *out);

/* The data path, identical in every family: the argument of call i, the transform on the way
 * down, the awaited value (what an I/O would deliver), the leaf and the transform on the way up. */
static inline __attribute__((always_inline)) uint64_t aw_arg(uint64_t i)
{
    return i * 0x2545f4914f6cdd1dULL + 0x1234567;
}
static inline __attribute__((always_inline)) uint64_t aw_down(uint64_t v, int64_t level)
{
    return (v ^ (uint64_t)level) * 0x100000001b3ULL + 0x0c;
}
static inline __attribute__((always_inline)) uint64_t aw_value(uint64_t i)
{
    return (i ^ 0x5bd1e995ULL) * 0x9e3779b97f4a7c15ULL;
}
static inline __attribute__((always_inline)) uint64_t aw_up(uint64_t v, int64_t level)
{
    return (v << 7 | v >> 57) + (uint64_t)level;
}
/* Whether call i's innermost await finds its value missing and suspends. */
static inline __attribute__((always_inline)) int aw_suspends(const aw_shared *sh, uint64_t i)
{
    return sh->every && i % sh->every == sh->every - 1;
}
/* The driver's side of a suspension: the value arrives, then the call is resumed. */
static inline __attribute__((always_inline)) void aw_deliver(aw_shared *sh)
{
    sh->ready = aw_value(sh->i);
}

#endif
