/* The workload table. */
#include <string.h>

#include "workload.h"

extern const cb_workload cb_wl_fault; /* the others: workload.h */

const cb_workload *const cb_workloads[] = {
    &cb_wl_pingpong, &cb_wl_recursive, &cb_wl_io,       &cb_wl_spawn,
    &cb_wl_await,    &cb_wl_pipeline,  &cb_wl_forkjoin, &cb_wl_yieldstorm,
    &cb_wl_fault};

/* The same workloads compiled again with CB_CO_INLINE (the Makefile's INLINE_WL, each object
 * keeping only this symbol global): their stackful bodies take the inline backend's switch at
 * every call site of the coroutine verbs (impls/coro_inline.h). Only their stackful body runs. */
extern const cb_workload cb_wl_pingpong_inline, cb_wl_recursive_inline, cb_wl_io_inline,
    cb_wl_spawn_inline, cb_wl_await_inline, cb_wl_pipeline_inline, cb_wl_fault_inline,
    cb_wl_forkjoin_inline, cb_wl_yieldstorm_inline;
static const cb_workload *const inline_twins[] = {
    &cb_wl_pingpong_inline, &cb_wl_recursive_inline, &cb_wl_io_inline,   &cb_wl_spawn_inline,
    &cb_wl_await_inline,    &cb_wl_pipeline_inline,  &cb_wl_fault_inline,
    &cb_wl_forkjoin_inline, &cb_wl_yieldstorm_inline};

const cb_workload *cb_workload_inline_twin(const cb_workload *wl)
{
    for (size_t i = 0; i < sizeof inline_twins / sizeof inline_twins[0]; i++)
        if (strcmp(inline_twins[i]->name, wl->name) == 0)
            return inline_twins[i];
    return NULL;
}

/* Installed by the harness in a cell's child (harness/measure/cell.c); NULL in the tests. */
void (*cb_wl_rest_hook)(uint64_t alive);
const size_t cb_nworkloads = sizeof cb_workloads / sizeof cb_workloads[0];

const cb_workload *cb_workload_find(const char *name)
{
    for (size_t i = 0; i < cb_nworkloads; i++)
        if (strcmp(cb_workloads[i]->name, name) == 0)
            return cb_workloads[i];
    return NULL;
}
