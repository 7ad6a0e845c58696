/* The return-stack-buffer simulator: the state the rewritten code of bin/corobench-rsbsim updates
 * (through the hooks in harness/rsbsim_x86_64.S, inserted by tools/asmrw.c) and the harness API
 * around a counting pass. This file and its .c/.S are never instrumented themselves.
 * Model (docs/rsb.md): a circular stack of `entries` return addresses; a call pushes, a return
 * pops and compares the popped address with the real target. */
#ifndef CB_RSBSIM_H
#define CB_RSBSIM_H

/* Field offsets are fixed: the hooks address them from assembly. */
#define CB_RSBSIM_OFF_TOS 0
#define CB_RSBSIM_OFF_ENTRIES 8
#define CB_RSBSIM_OFF_COUNTING 16
#define CB_RSBSIM_OFF_RETS 24
#define CB_RSBSIM_OFF_MISPREDICTED 32
#define CB_RSBSIM_OFF_RING 40
#define CB_RSBSIM_DEFAULT_ENTRIES 32 /* AMD Zen 1-4; Intel Skylake has 16 */
#define CB_RSBSIM_MAX_ENTRIES 4096

#ifndef __ASSEMBLER__
#include <stdint.h>

typedef struct cb_rsbsim_state {
    uint64_t tos;          /* index of the top entry in ring[0, entries) */
    uint64_t entries;      /* size of the circular stack */
    uint64_t counting;     /* nonzero: returns are counted */
    uint64_t rets;         /* returns executed while counting */
    uint64_t mispredicted; /* of which the popped entry was not the target */
    uint64_t ring[CB_RSBSIM_MAX_ENTRIES];
} cb_rsbsim_state;

extern cb_rsbsim_state cb_rsbsim;

/* 1 in a binary whose code is instrumented (bin/corobench-rsbsim, -jmpret-rsbsim), else 0. */
int cb_rsbsim_instrumented(void);
/* Empties the stack (every entry 0, top at 0), sets its size (1..CB_RSBSIM_MAX_ENTRIES), zeroes
 * the counts and starts counting. */
void cb_rsbsim_begin(unsigned entries);
/* Stops counting; the counts stay readable in cb_rsbsim. */
void cb_rsbsim_end(void);
#endif

#endif
