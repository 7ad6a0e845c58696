/* The fault self-test's two calls a family body needs (workloads/fault.c; the C++20 body in
 * workloads/fault_cxx20.cc includes this inside extern "C"). */
#ifndef CB_FAULT_H
#define CB_FAULT_H

#include "workload.h"

/* The `kind` parameter as an index; the fault itself, committed by the running code. */
int fl_kind(const cb_params *p);
void fl_commit(int kind);

#endif
