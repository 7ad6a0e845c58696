/* The lua runtime (impls/lua/cb_lua.c): a Lua VM embedded in the cell's process, running a
 * workload's impls/lua/<workload>.lua with corobench's counted yield, counted allocator and
 * socket module. The workloads' table rows reach it through workloads/lua_family.h. Built only
 * when the Makefile found a Lua (CB_HAVE_LUA); its headers and library are the Makefile's
 * LUA_PC, so another Lua of the same C API builds the same runtime. */
#ifndef CB_LUA_H
#define CB_LUA_H

#include <stddef.h>
#include <stdint.h>

#include "params/params.h"

/* Untimed: the instance of `workload` (its file impls/lua/<workload>.lua) at p, or NULL with
 * "lua: ..." in err. at_rest is what corobench.at_rest(alive) calls: the workload's rest point. */
void *cb_lua_setup(const char *workload, const cb_params *p, void (*at_rest)(uint64_t alive),
                   char *err, size_t errlen);
/* Timed: instance.run(). 0, or -1 with the Lua error in err. */
int cb_lua_run(void *inst, char *err, size_t errlen);
/* Untimed: instance.finish()'s ops and checksum, then the instance freed either way. 0, or -1
 * with the Lua error in err (ops and checksum 0). */
int cb_lua_finish(void *inst, uint64_t *ops, uint64_t *checksum, char *err, size_t errlen);

#endif
