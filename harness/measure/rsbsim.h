/* The return-stack-buffer simulator: the state the rewritten code of bin/corobench-rsbsim updates
 * (through the hooks in harness/measure/rsbsim_x86_64.S, inserted by tools/asmrw.c) and the harness
 * API around a counting pass. This file and its .c/.S are never instrumented themselves.
 * Two models (docs/rsb.md): `circular N` and `underflow-btb N`. One pass over the call/return
 * trace evaluates several candidate (model, N) configurations side by side, each with its own
 * stack and counts, so a calibration sees every candidate from one run of the workload. */
#ifndef CB_RSBSIM_H
#define CB_RSBSIM_H

#include <stddef.h>
#include <stdint.h>

#define CB_RSBSIM_DEFAULT_ENTRIES 32 /* AMD Zen 1-4; Intel Skylake and later track 16 */
#define CB_RSBSIM_MAX_ENTRIES 4096
#define CB_RSBSIM_MAX_CANDIDATES 128
#define CB_RSBSIM_POOL_ENTRIES 65536 /* stack slots shared by the candidates of one pass */
#define CB_RSBSIM_SITES 8192         /* `ret` sites the underflow fallback remembers (2^k) */

typedef enum cb_rsb_model {
    CB_RSB_CIRCULAR,      /* N entries; a pop past the live ones reads the stale slot (AMD Zen) */
    CB_RSB_UNDERFLOW_BTB, /* N entries; a pop from an empty stack is predicted by the last
                           * target of the same `ret` (Intel since Skylake) */
} cb_rsb_model;

typedef struct cb_rsb_config {
    cb_rsb_model model;
    unsigned entries; /* 1..CB_RSBSIM_MAX_ENTRIES */
} cb_rsb_config;

/* Counts of one candidate over a counting pass. mispredicted = mispredicted_top +
 * mispredicted_underflow; a return is an underflow when every entry pushed since the pass began
 * has been popped or overwritten (no live entry is left). */
typedef struct cb_rsb_counts {
    uint64_t rets;                   /* returns executed while counting */
    uint64_t mispredicted;           /* of which the prediction was not the target */
    uint64_t mispredicted_top;       /* a live entry was on top and it was wrong */
    uint64_t mispredicted_underflow; /* no live entry; the stale slot (circular) or the
                                      * fallback (underflow-btb) was wrong */
    uint64_t underflow_predicted;    /* no live entry, and that prediction was right */
} cb_rsb_counts;

/* The candidates a calibration weighs (docs/rsb.md, "Calibration"): circular N, then
 * underflow-btb N, N = 8..64, each in order of N (so the fit's ties go to the smaller stack).
 * Fills out and returns how many. */
#define CB_RSBSIM_CALIBRATION_MIN 8
#define CB_RSBSIM_CALIBRATION_MAX 64
#define CB_RSBSIM_CALIBRATION_CANDIDATES                                                        \
    (2 * (CB_RSBSIM_CALIBRATION_MAX - CB_RSBSIM_CALIBRATION_MIN + 1))
size_t cb_rsbsim_calibration_candidates(cb_rsb_config out[CB_RSBSIM_CALIBRATION_CANDIDATES]);

/* "circular", "underflow-btb". */
const char *cb_rsb_model_name(cb_rsb_model m);
/* 0 and *m set, or -1 for a name that is neither. */
int cb_rsb_model_parse(const char *name, cb_rsb_model *m);

/* 1 in a binary whose code is instrumented (bin/corobench-rsbsim, -jmpret-rsbsim), else 0. */
int cb_rsbsim_instrumented(void);
/* Empties every candidate's stack (every slot 0) and the fallback's table, takes the candidates
 * (copied), zeroes the counts and starts counting. -1 (nothing changed) when n is 0 or above
 * CB_RSBSIM_MAX_CANDIDATES, an entries value is out of range, or their sum exceeds
 * CB_RSBSIM_POOL_ENTRIES. */
int cb_rsbsim_begin(const cb_rsb_config *cand, size_t n);
/* Stops counting; the counts stay readable. */
void cb_rsbsim_end(void);
/* begin and end as run-once hooks (workloads/run_once.h), ctx a cb_rsbsim_pass. Being here,
 * uninstrumented, they add no counted call or return to the pass. */
typedef struct cb_rsbsim_pass {
    const cb_rsb_config *cand;
    size_t n;
    int rc; /* what begin returned */
} cb_rsbsim_pass;
void cb_rsbsim_begin_hook(void *pass);
void cb_rsbsim_end_hook(void *pass);
/* Candidates of the last begin, and candidate i's counts. */
size_t cb_rsbsim_ncandidates(void);
const cb_rsb_counts *cb_rsbsim_counts(size_t i);

/* The trace, as the hooks report it; outside a counting pass both do nothing.
 * push: a call whose return address is ret. pop: the `ret` instruction at site returns to
 * target (every candidate predicts, then the fallback's table learns target for site). */
void cb_rsbsim_push(uint64_t ret);
void cb_rsbsim_pop(uint64_t site, uint64_t target);

#endif
