/* One run of one instance, the way every caller outside the timed loop needs it: configure the
 * implementation, setup, run (between two optional hooks), finish, and the suspensions run()
 * made. The return-stack simulator's counting pass (harness/measure/cell.c) and the tests run a
 * workload through it; the timed cell (harness/measure/cell.c) runs the same family body, found
 * by cb_wl_family, in batches between its clock reads. */
#ifndef CB_RUN_ONCE_H
#define CB_RUN_ONCE_H

#include <stddef.h>
#include <stdint.h>

#include "workload.h"

/* The body of wl that impl runs, or NULL when wl has none for impl's family (go and node never
 * have one: their own programs run the workloads, harness/measure/external.c). */
const cb_family_ops *cb_wl_family(const cb_workload *wl, const cb_impl *impl);

/* NULL when impl runs here and can run wl at p, else the reason, in buf or static: impl
 * unavailable, a value of p that needs a capability impl lacks (wl->needs), or impl's own check
 * of the point (the coroutines it keeps alive, wl->alive). Whether wl has a body for impl's
 * family is cb_wl_family. */
const char *cb_wl_unsupported(const cb_workload *wl, const cb_impl *impl, const cb_params *p,
                              char *buf, size_t len);

/* "WORKLOAD has no FAMILY body", and the family's reason when the workload gives one. */
void cb_wl_no_body(const cb_workload *wl, const cb_impl *impl, char *buf, size_t len);

/* Called right before and right after run(), never around setup or finish. */
typedef struct cb_wl_around {
    void (*before)(void *ctx);
    void (*after)(void *ctx);
    void *ctx;
} cb_wl_around;

typedef struct cb_wl_once {
    cb_wl_result res;
    uint64_t suspensions; /* made by run() */
} cb_wl_once;

/* 0, or -1 with a one-line reason in err (no body for the family, setup or run failed). around
 * may be NULL. */
int cb_wl_run_once(const cb_workload *wl, const cb_impl *impl, const cb_params *p,
                   const cb_wl_around *around, cb_wl_once *out, char *err, size_t errlen);

#endif
