/* The C entry points of the workloads' cxx20 bodies (workloads/<workload>_cxx20.cc, written on
 * the runtime's task type, impls/cxx20/task.hh): one setup/run/finish triple per workload that
 * has one, for the workloads' family tables. Built when the Makefile's probe finds a C++20
 * compiler (CB_HAVE_CXX20); otherwise CB_CXX20_OPS gives an empty body and the impl reports why
 * it is unavailable. */
#ifndef CB_WL_CXX20_H
#define CB_WL_CXX20_H

#include <stddef.h>

#include "impls/impls.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_CXX20_DECLARE(wl)                                                                   \
    void *cb_cxx20_##wl##_setup(const cb_impl *impl, const cb_params *p, char *err,           \
                                size_t errlen);                                                \
    int cb_cxx20_##wl##_run(void *inst, char *err, size_t errlen);                            \
    int cb_cxx20_##wl##_finish(void *inst, cb_wl_result *out, char *err, size_t errlen);

struct cb_wl_result;
typedef struct cb_wl_result cb_wl_result;
CB_CXX20_DECLARE(pingpong)
CB_CXX20_DECLARE(recursive)
CB_CXX20_DECLARE(spawn)
CB_CXX20_DECLARE(io)
CB_CXX20_DECLARE(fault)
CB_CXX20_DECLARE(await)
/* The same bodies compiled by clang++ (cxx20-clang): the Makefile renames cb_cxx20_* to
 * cb_cxx20_clang_* in those objects. */
#define CB_CXX20_CLANG_DECLARE(wl) CB_CXX20_DECLARE(clang_##wl)
CB_CXX20_CLANG_DECLARE(pingpong)
CB_CXX20_CLANG_DECLARE(recursive)
CB_CXX20_CLANG_DECLARE(spawn)
CB_CXX20_CLANG_DECLARE(io)
CB_CXX20_CLANG_DECLARE(fault)
CB_CXX20_CLANG_DECLARE(await)

#if CB_HAVE_CXX20
#define CB_CXX20_OPS(wl) {cb_cxx20_##wl##_setup, cb_cxx20_##wl##_run, cb_cxx20_##wl##_finish}
#else
#define CB_CXX20_OPS(wl) {NULL, NULL, NULL}
#endif
#if CB_HAVE_CXX20_CLANG
#define CB_CXX20_CLANG_OPS(wl)                                                                 \
    {cb_cxx20_clang_##wl##_setup, cb_cxx20_clang_##wl##_run, cb_cxx20_clang_##wl##_finish}
#else
#define CB_CXX20_CLANG_OPS(wl) {NULL, NULL, NULL}
#endif

#ifdef __cplusplus
}
#endif

#endif
