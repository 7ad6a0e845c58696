/* The lua family's body (workloads/lua_family.c): Lua 5.4 coroutines embedded in the cell's
 * process, running each workload's impls/lua/<workload>.lua. */
#ifndef CB_LUA_FAMILY_H
#define CB_LUA_FAMILY_H

#include "workload.h"

/* The lua body of wl, or NULL when impls/lua/ has no file for it or Lua was not built in. */
const cb_family_ops *cb_lua_family(const cb_workload *wl);

#endif
