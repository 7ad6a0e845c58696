/* The `fiber` peer (docs/sched.md, "Peers"): forkjoin and yieldstorm on Boost.Fiber's
 * work_stealing scheduler (Debian's libboost-fiber-dev), the C entry points of
 * workloads/sched_fiber.cc for the two workloads' family tables. Built when the Makefile's probe links
 * a fiber with g++ (CB_HAVE_FIBER); otherwise CB_FIBER_OPS gives an empty body and the
 * implementation says why it is unavailable. */
#ifndef CB_SCHED_FIBER_H
#define CB_SCHED_FIBER_H

#include <stddef.h>

#include "impls/impls.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cb_wl_result;
#define CB_FIBER_DECLARE(wl)                                                                   \
    void *cb_fiber_##wl##_setup(const cb_impl *impl, const cb_params *p, char *err,           \
                                size_t errlen);                                                \
    int cb_fiber_##wl##_run(void *inst, char *err, size_t errlen);                            \
    int cb_fiber_##wl##_finish(void *inst, struct cb_wl_result *out, char *err, size_t errlen);
CB_FIBER_DECLARE(forkjoin)
CB_FIBER_DECLARE(yieldstorm)

#ifdef __cplusplus
}
#endif

#if CB_HAVE_FIBER
#define CB_FIBER_OPS(wl) {cb_fiber_##wl##_setup, cb_fiber_##wl##_run, cb_fiber_##wl##_finish}
#else
#define CB_FIBER_OPS(wl) {NULL, NULL, NULL}
#endif

#endif
