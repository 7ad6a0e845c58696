/* The `omp` implementation (docs/sched.md, "Peers"): the scheduler's workloads with no coroutine
 * on W threads of OpenMP (gcc's libgomp), the many-threads counterpart of direct: the C entry
 * points of workloads/omp/sched_omp.c for the family tables. Built when the Makefile's probe
 * compiles an OpenMP task (CB_HAVE_OMP); otherwise CB_OMP_OPS gives an empty body and the
 * implementation says why it is unavailable. */
#ifndef CB_SCHED_OMP_H
#define CB_SCHED_OMP_H

#include <stddef.h>

#include "impls/impls.h"

struct cb_wl_result;
#define CB_OMP_DECLARE(wl)                                                                     \
    void *cb_omp_##wl##_setup(const cb_impl *impl, const cb_params *p, char *err, size_t errlen); \
    int cb_omp_##wl##_run(void *inst, char *err, size_t errlen);                              \
    int cb_omp_##wl##_finish(void *inst, struct cb_wl_result *out, char *err, size_t errlen);
CB_OMP_DECLARE(forkjoin)
CB_OMP_DECLARE(yieldstorm)

#if CB_HAVE_OMP
#define CB_OMP_OPS(wl) {cb_omp_##wl##_setup, cb_omp_##wl##_run, cb_omp_##wl##_finish}
#else
#define CB_OMP_OPS(wl) {NULL, NULL, NULL}
#endif

#endif
