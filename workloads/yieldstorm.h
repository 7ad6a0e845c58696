/* yieldstorm's data path, shared by its bodies (workloads/yieldstorm.c) and by any peer written
 * in C (docs/sched.md, "Workloads"). */
#ifndef CB_YIELDSTORM_H
#define CB_YIELDSTORM_H

#include <stdint.h>

#include "sched_wl.h"

/* Coroutine id's state before its first yield. */
static inline uint64_t ys_start(uint64_t id) { return cb_swl_mix(id); }
/* Its state after its k-th yield (k from 0) returned. */
static inline uint64_t ys_step(uint64_t state, uint64_t k) { return cb_swl_mix(state ^ k); }

#endif
