/* recursive's data shared by its family bodies: the C ones in recursive.c and the C++20 one in
 * workloads/recursive_cxx20.cc (which includes this inside extern "C"). */
#ifndef CB_RECURSIVE_H
#define CB_RECURSIVE_H

#include <stdint.h>

#include "workload.h"

typedef struct rc_shared {
    int64_t height;
    uint64_t checksum;
    uint64_t out; /* the value in flight from generator to consumer */
} rc_shared;

static inline uint64_t rc_value(uint64_t id) { return id * 0x9e3779b97f4a7c15ULL ^ (id >> 3); }

static inline void rc_consume(rc_shared *sh, uint64_t v) { sh->checksum = cb_mix(sh->checksum, v); }


void rc_result(const rc_shared *sh, cb_wl_result *out);

#endif
