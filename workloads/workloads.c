/* The workload table. */
#include <string.h>

#include "workload.h"

extern const cb_workload cb_wl_pingpong, cb_wl_recursive, cb_wl_io, cb_wl_spawn, cb_wl_await,
    cb_wl_pipeline, cb_wl_fault;

const cb_workload *const cb_workloads[] = {&cb_wl_pingpong, &cb_wl_recursive, &cb_wl_io,
                                           &cb_wl_spawn,    &cb_wl_await,     &cb_wl_pipeline,
                                           &cb_wl_fault};

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
