/* What forkjoin and yieldstorm share (sched_wl.h). */
#include "sched_wl.h"

const char *const cb_swl_queues[] = {"steal", "wfcq", "ck", NULL};
