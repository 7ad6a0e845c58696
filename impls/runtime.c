/* Runtime-owned heap accounting shared by the stackful layer and the stackless runtimes. */
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>

cb_rt_stats cb_rt;

void cb_rt_alloc_failed_(size_t size)
{
    fprintf(stderr, "corobench: runtime: malloc(%zu) failed\n", size);
    abort();
}
