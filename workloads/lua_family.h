/* The lua family's bodies: each workload's table row names its Lua file through the lua runtime
 * (impls/lua/cb_lua.h), which gets the workload's name and rest point from here:
 *     CB_LUA_BODY(pingpong)                      at file scope, before the table
 *     [CB_BODY_LUA] = CB_LUA_OPS(pingpong),     in the table
 * Without Lua in the build (CB_HAVE_LUA 0) the body is empty and the cell unsupported. */
#ifndef CB_LUA_FAMILY_H
#define CB_LUA_FAMILY_H

#include "workload.h"

#if CB_HAVE_LUA
#include "impls/lua/cb_lua.h"

#define CB_LUA_BODY(wl)                                                                        \
    static void *wl##_lua_setup(const cb_impl *impl, const cb_params *p, char *err,           \
                                size_t errlen)                                                 \
    {                                                                                          \
        (void)impl;                                                                            \
        return cb_lua_setup(#wl, p, cb_wl_at_rest, err, errlen);                               \
    }                                                                                          \
    static int wl##_lua_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)        \
    {                                                                                          \
        return cb_lua_finish(inst, &out->ops, &out->checksum, err, errlen);                    \
    }
#define CB_LUA_OPS(wl) {wl##_lua_setup, cb_lua_run, wl##_lua_finish}
#else
#define CB_LUA_BODY(wl)
#define CB_LUA_OPS(wl) {NULL, NULL, NULL}
#endif

#endif
