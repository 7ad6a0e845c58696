/* The contract between a workload and the harness (lmbench's setup / run / cleanup, with a cookie).
 * A workload is written once per family, in one file: the stackful body (shared by every stackful
 * backend through impls/coro.h), the state-machine body and the closure body. The bodies share the
 * data, the parameters and the checksum; they differ only in control flow.
 * Workloads never read a clock or a counter and never print: setup and finish are untimed,
 * run is the timed region. */
#ifndef CB_WORKLOAD_H
#define CB_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "../impls/impls.h"
#include "params/params.h"

typedef struct cb_wl_result {
    uint64_t ops;      /* operations done by one run, in the workload's unit */
    uint64_t checksum; /* depends on every value that passed through the coroutines */
} cb_wl_result;

typedef struct cb_family_ops {
    /* Untimed: allocate data, create coroutines, map stacks. Returns the instance, or NULL with
     * a one-line reason in err. */
    void *(*setup)(const cb_impl *impl, const cb_params *p, char *err, size_t errlen);
    /* Timed: all the work of one run. Returns 0, or -1 with a reason (an I/O error, say). */
    int (*run)(void *inst, char *err, size_t errlen);
    /* Untimed: report the result and free everything, whether it fails or not. Returns 0, or -1
     * with a reason (a language runtime's error, say): the cell then fails with it. */
    int (*finish)(void *inst, cb_wl_result *out, char *err, size_t errlen);
    /* Without a body: why the family cannot run this workload (shown in "unsupported: ..."). */
    const char *unsupported;
} cb_family_ops;

/* A parameter value that needs a capability of the runtime (impls.h, cb_cap): pingpong's
 * work=none needs a body of only the switches. An implementation that lacks it refuses the value,
 * and the cell is unsupported with its reason. value NULL: an integer parameter at any value but
 * its default (spawn's deep_once and deep_share). */
typedef struct cb_wl_need {
    const char *param, *value;
    cb_cap cap;
} cb_wl_need;

enum { CB_WL_CHECK_SET = 9 }; /* a check point: 4 NAME, VALUE pairs and NULL */

typedef struct cb_workload {
    const char *name;
    const char *description;
    const char *unit; /* what one op is: "switch", "node", "message" */
    /* Optional: what one op is at p where a parameter changes it (pingpong's mode=asymmetric: a
     * round trip through the root, two switches); NULL: unit at every point. Each cell records
     * its own (cb_wl_unit). */
    const char *(*unit_at)(const cb_params *p);
    const cb_param_def *params; /* NULL-name-terminated */
    /* Optional, in the parent before any cell runs: reject a parameter point this machine cannot
     * run (0, or -1 with a one-line reason). */
    int (*check)(const cb_params *p, char *err, size_t errlen);
    /* Optional: most instances that may be alive at once (batching for short runs). */
    uint64_t (*max_batch)(const cb_params *p);
    /* Coroutines one instance keeps alive at once at p (a thread per coroutine must fit). */
    uint64_t (*alive)(const cb_params *p);
    /* Optional, {NULL}-terminated: the values that need a capability of the runtime. */
    const cb_wl_need *needs;
    /* 1 for the harness's self-test (workloads/fault.c): listed, run when named, never selected
     * by `all` (docs/fault.md). */
    int selftest;
    /* Optional, {NULL}-terminated: small points (a few switches, nodes or coroutines each) that
     * check-external runs a program at, each its parameters' NAME, VALUE pairs, NULL-terminated
     * (harness/run/checkext.c). */
    const char *const (*check_points)[CB_WL_CHECK_SET];
    cb_family_ops family[CB_BODY_COUNT];
} cb_workload;

/* The rest point. A workload whose coroutines reach a state worth measuring (spawn: all n created
 * and suspended; recursive: the generator at its deepest level) calls cb_wl_at_rest(alive) there,
 * from its driver, never from inside a coroutine (the hook runs on the caller's stack), at most
 * once per run. The harness pauses the clock around it, takes the memory snapshot on the cell's
 * first run (docs/memory.md), and reports the time from the start of run() to this point as
 * create_ns_per_coro. Elsewhere (the tests) no hook is installed and the call costs one load. */
extern void (*cb_wl_rest_hook)(uint64_t alive);
static inline void cb_wl_at_rest(uint64_t alive)
{
    if (cb_wl_rest_hook)
        cb_wl_rest_hook(alive);
}

/* What one op of w is at p: the cell's unit. */
static inline const char *cb_wl_unit(const cb_workload *w, const cb_params *p)
{
    return w->unit_at ? w->unit_at(p) : w->unit;
}

extern const cb_workload *const cb_workloads[];
extern const size_t cb_nworkloads;
/* The workloads by name, for code that names one (the report's claims) without writing it. */
extern const cb_workload cb_wl_pingpong, cb_wl_recursive, cb_wl_io, cb_wl_spawn, cb_wl_await,
    cb_wl_pipeline, cb_wl_forkjoin, cb_wl_yieldstorm;
const cb_workload *cb_workload_find(const char *name);
/* wl compiled with the coroutine verbs inlined at their call sites, whose stackful body the inline
 * backend runs (workloads.c); NULL if the build has none. */
const cb_workload *cb_workload_inline_twin(const cb_workload *wl);

/* The checksum step every workload uses: order-sensitive, and for a fixed h a bijection in v,
 * so every bit of every value matters. It sits on the critical path of every op in every family
 * (each step depends on the previous), so it is kept to a rotate, a xor and a multiply. */
static inline uint64_t cb_mix(uint64_t h, uint64_t v)
{
    return ((h << 23 | h >> 41) ^ v) * 0x9e3779b97f4a7c15ULL;
}

#endif
