/* The registry of implementations: every runtime corobench can measure, available here or not
 * (an unavailable one still registers and says why, so results say "unsupported: reason"
 * instead of silently dropping a row). */
#ifndef CB_IMPLS_H
#define CB_IMPLS_H

#include "params/params.h"
#include "coro.h"

/* Which body of a workload an implementation runs. */
typedef enum cb_style {
    CB_STYLE_STACKFUL,
    CB_STYLE_SM,
    CB_STYLE_CLOSURE,
    CB_STYLE_DIRECT, /* no coroutine: the workload's data path with plain calls, the baseline */
    CB_STYLE_COUNT
} cb_style;

typedef struct cb_impl {
    const char *name;
    cb_style style;
    const char *description;
    const cb_co_backend *backend; /* stackful only */
    const cb_param_def *params;   /* implementation parameters, NULL-name-terminated */
} cb_impl;

extern const cb_impl cb_impls[];
extern const size_t cb_nimpls;

const cb_impl *cb_impl_find(const char *name);
/* "stackful", "stackless" or "baseline" (the JSON "family"). */
const char *cb_impl_family(const cb_impl *impl);
/* Which body of a workload it runs: "stackful", "state-machine", "closure" or "direct". */
const char *cb_impl_style_name(const cb_impl *impl);
/* NULL when the implementation runs here, else the reason. */
const char *cb_impl_unavailable(const cb_impl *impl);
/* Applies implementation parameters that are process state (the stack mode) and installs the
 * stack-overflow reporter (coro.h); called in the cell's child before setup. */
void cb_impl_configure(const cb_impl *impl, const cb_params *p);
/* Reserved stack bytes for a stackful cell (parameter "stack"). */
size_t cb_impl_stack_size(const cb_params *p);

#endif
