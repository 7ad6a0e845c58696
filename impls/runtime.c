/* Runtime-owned heap accounting shared by the stackful layer and the stackless runtimes. */
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>

cb_rt_stats cb_rt;

void *cb_rt_alloc(size_t size)
{
    void *p = malloc(size);
    if (!p) {
        fprintf(stderr, "corobench: runtime: malloc(%zu) failed\n", size);
        abort();
    }
    cb_rt.heap_allocs++;
    cb_rt.heap_live_bytes += size;
    if (cb_rt.heap_live_bytes > cb_rt.heap_peak_bytes)
        cb_rt.heap_peak_bytes = cb_rt.heap_live_bytes;
    return p;
}

void cb_rt_free(void *p, size_t size)
{
    if (!p)
        return;
    cb_rt.heap_live_bytes -= size;
    free(p);
}
