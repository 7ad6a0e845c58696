/* pingpong's data shared by its family bodies: the C ones in pingpong.c and the C++20 one in
 * workloads/pingpong_cxx20.cc (which includes this inside extern "C"). */
#ifndef CB_PINGPONG_H
#define CB_PINGPONG_H

#include <stdint.h>

#include "workload.h"

enum { PP_SALT_A = 0x0a, PP_SALT_B = 0x0b };

/* Shared by every family. */
typedef struct pp_shared {
    uint64_t remaining; /* switches still to make */
    uint64_t msg;       /* the value in flight */
    uint64_t checksum;  /* every received value, in order */
    uint64_t final;     /* value of the side that finished */
    int64_t depth;
    int same_sites;
    int none; /* work=none: only the switches */
    int asym; /* mode=asymmetric: each side yields to the root, which resumes the other */
} pp_shared;

void pp_shared_init(pp_shared *sh, const cb_params *p);
void pp_result(const pp_shared *sh, const cb_params *p, cb_wl_result *out);

/* The data path, identical in every family: transform on the way down, on receipt, on the way up. */
static inline __attribute__((always_inline)) uint64_t pp_down(uint64_t v, int64_t level, uint64_t salt)
{
    return (v ^ (uint64_t)level) * 0x100000001b3ULL + salt;
}
static inline __attribute__((always_inline)) uint64_t pp_up(uint64_t v, int64_t level) { return (v << 7 | v >> 57) + (uint64_t)level; }
static inline __attribute__((always_inline)) uint64_t pp_receive(pp_shared *sh, uint64_t got)
{
    sh->checksum = cb_mix(sh->checksum, got);
    return got;
}

#endif
