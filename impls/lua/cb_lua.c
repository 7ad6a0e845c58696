/* The lua runtime (cb_lua.h, docs/external.md): the Lua VM embedded through the C API in the
 * cell's own process, with a counted allocator, a counted coroutine.yield and a socket module.
 * A workload's Lua body is impls/lua/<workload>.lua, a chunk returning setup(params) ->
 * instance, instance.run() and instance.finish() -> ops, checksum; it runs under the harness's
 * own clock exactly like a C body. The live instances share one lua_State, opened by the first
 * setup and closed by the last finish (both untimed). Lua's coroutine.yield is replaced by one
 * that counts the suspension in cb_rt, and Lua allocates through cb_rt's accounting, so
 * suspensions and runtime heap bytes are counted by the runtime as in every C family. The Lua
 * headers and library are the Makefile's (LUA_PC); without them (CB_HAVE_LUA 0) nothing here is
 * built, the workloads name no lua body, and impls/languages.c reports the implementation
 * unavailable. */
#include "cb_lua.h"

#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "impls/net.h"
#include "impls/root.h"
#include "impls/runtime.h"

static char lua_dir[PATH_MAX];

/* An instance: the shared state and the table its workload's setup returned, in the state's
 * registry. */
typedef struct cb_lua_inst {
    lua_State *L;
    int ref;
} cb_lua_inst;

/* coroutine.yield, counted: the same lua_yield the standard one returns, after one add. */
static int counted_yield(lua_State *co)
{
    cb_rt_count_suspension();
    return lua_yield(co, lua_gettop(co));
}

/* corobench.abort(): Lua has no abort of its own; the fault self-test's abort kind
 * (impls/lua/fault.lua) stops the process as a C library embedding Lua would. */
static int lua_abort(lua_State *s)
{
    (void)s;
    abort();
}

/* corobench.at_rest(alive): the rest point of the workload's driver, as its setup gave it. */
static void (*rest_point)(uint64_t alive);

static int at_rest(lua_State *s)
{
    uint64_t alive = (uint64_t)luaL_checkinteger(s, 1);
    if (rest_point)
        rest_point(alive);
    return 0;
}

/* Lua's allocator, counted as runtime heap (impls/runtime.h) like the C runtimes' frames and
 * control blocks: one add per allocation, and the live and peak bytes. */
static void *counted_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        cb_rt.heap_live_bytes -= old;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p)
        return NULL;
    if (!ptr)
        cb_rt.heap_allocs++;
    cb_rt.heap_live_bytes += nsize - old;
    return p;
}

/* ---- corobench.net: the few socket calls the io body needs (Lua has no sockets) ----------- */

enum { NET_MAXEVENTS = 256, NET_STALL_MS = 10000 }; /* as io.c's loop */

/* The io workload's connections: fd[2c] is connection c's server end, fd[2c + 1] its client's;
 * Lua names endpoint i (1-based) and epoll reports it as data.u64 = i. */
typedef struct lua_net {
    int epfd;
    size_t n;
    int fd[];
} lua_net;

static int net_close(lua_State *s)
{
    lua_net *net = luaL_checkudata(s, 1, "corobench.net");
    for (size_t i = 0; i < net->n; i++)
        if (net->fd[i] >= 0)
            close(net->fd[i]);
    if (net->epfd >= 0)
        close(net->epfd);
    net->epfd = -1;
    net->n = 0;
    return 0;
}

/* net.open(conns, transport): the C families' connections (impls/net.h), registered
 * edge-triggered. */
static int net_open(lua_State *s)
{
    lua_Integer conns = luaL_checkinteger(s, 1);
    int tcp = strcmp(luaL_checkstring(s, 2), "tcp") == 0;
    luaL_argcheck(s, conns >= 1 && conns <= 1000000, 1, "conns out of range");
    size_t n = 2 * (size_t)conns;
    lua_net *net = lua_newuserdatauv(s, sizeof *net + n * sizeof(int), 0);
    net->epfd = -1;
    net->n = n;
    for (size_t i = 0; i < n; i++)
        net->fd[i] = -1;
    luaL_setmetatable(s, "corobench.net");
    char err[256] = "";
    cb_net io;
    if (cb_net_open(&io, tcp, err, sizeof err) != 0)
        goto fail;
    if ((net->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        snprintf(err, sizeof err, "io: epoll_create1: %s", strerror(errno));
        goto fail;
    }
    for (size_t i = 0; i < n; i += 2) {
        int r = cb_net_pair(&io, &net->fd[i], err, sizeof err);
        for (size_t k = i; r == 0 && k < i + 2; k++) {
            struct epoll_event ee = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.u64 = k + 1};
            if ((r = epoll_ctl(net->epfd, EPOLL_CTL_ADD, net->fd[k], &ee)) != 0)
                snprintf(err, sizeof err, "io: epoll_ctl(EPOLL_CTL_ADD): %s", strerror(errno));
        }
        if (r != 0)
            goto fail;
    }
    cb_net_close(&io);
    if (cb_net_drain(net->epfd, err, sizeof err) != 0)
        goto fail;
    return 1;
fail:
    cb_net_close(&io);
    lua_pushcfunction(s, net_close);
    lua_pushvalue(s, -2);
    lua_call(s, 1, 0);
    return luaL_error(s, "%s", err);
}

static int net_fd(lua_State *s, lua_net **net, lua_Integer *ep)
{
    *net = luaL_checkudata(s, 1, "corobench.net");
    *ep = luaL_checkinteger(s, 2);
    luaL_argcheck(s, *ep >= 1 && (size_t)*ep <= (*net)->n, 2, "no such endpoint");
    return (*net)->fd[*ep - 1];
}

/* One non-blocking recv or send, retried on EINTR: the bytes moved, or 0 when the socket would
 * block. A failure or the peer closing raises a Lua error naming the connection. */
static ssize_t net_io(lua_State *s, int fd, lua_Integer ep, char *p, size_t len, int wr)
{
    for (;;) {
        ssize_t k = wr ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
        if (k > 0)
            return k;
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        return luaL_error(s, "io: conn %d: %s: %s", (int)(ep - 1) / 2, wr ? "send" : "recv",
                          k == 0 ? "peer closed the connection" : strerror(errno));
    }
}

/* net.recv(h, ep, n): up to n bytes as a string, or false when the socket would block. */
static int net_recv(lua_State *s)
{
    lua_net *net;
    lua_Integer ep, want = luaL_checkinteger(s, 3);
    int fd = net_fd(s, &net, &ep);
    luaL_Buffer b;
    ssize_t k = net_io(s, fd, ep, luaL_buffinitsize(s, &b, (size_t)want), (size_t)want, 0);
    if (k > 0)
        luaL_pushresultsize(&b, (size_t)k);
    else
        lua_pushboolean(s, 0);
    return 1;
}

/* net.send(h, ep, s, off): bytes of s sent from offset off, or false when it would block. */
static int net_send(lua_State *s)
{
    lua_net *net;
    lua_Integer ep, off = luaL_checkinteger(s, 4);
    int fd = net_fd(s, &net, &ep);
    size_t len;
    const char *p = luaL_checklstring(s, 3, &len);
    luaL_argcheck(s, off >= 0 && (size_t)off < len, 4, "offset out of range");
    ssize_t k = net_io(s, fd, ep, (char *)p + off, len - (size_t)off, 1);
    if (k > 0)
        lua_pushinteger(s, k);
    else
        lua_pushboolean(s, 0);
    return 1;
}

/* net.wait(h, t): one epoll_wait; t[2k-1], t[2k] = endpoint, events of the k-th; returns how
 * many. No readiness for NET_STALL_MS is a lost wakeup: an error, not a hang. */
static int net_wait(lua_State *s)
{
    lua_net *net = luaL_checkudata(s, 1, "corobench.net");
    luaL_checktype(s, 2, LUA_TTABLE);
    struct epoll_event ev[NET_MAXEVENTS];
    int n;
    while ((n = epoll_wait(net->epfd, ev, NET_MAXEVENTS, NET_STALL_MS)) < 0 && errno == EINTR)
        ;
    if (n < 0)
        return luaL_error(s, "io: epoll_wait: %s", strerror(errno));
    if (n == 0)
        return luaL_error(s, "io: epoll_wait: no readiness for %d ms", NET_STALL_MS);
    for (int k = 0; k < n; k++) {
        lua_pushinteger(s, (lua_Integer)ev[k].data.u64);
        lua_rawseti(s, 2, 2 * k + 1);
        lua_pushinteger(s, ev[k].events);
        lua_rawseti(s, 2, 2 * k + 2);
    }
    lua_pushinteger(s, n);
    return 1;
}

static void open_net(lua_State *s)
{
    static const luaL_Reg fns[] = {{"open", net_open}, {"recv", net_recv}, {"send", net_send},
                                   {"wait", net_wait}, {"close", net_close}, {NULL, NULL}};
    luaL_newmetatable(s, "corobench.net");
    lua_pushcfunction(s, net_close);
    lua_setfield(s, -2, "__gc");
    lua_pop(s, 1);
    luaL_newlib(s, fns);
    lua_pushinteger(s, EPOLLIN);
    lua_setfield(s, -2, "IN");
    lua_pushinteger(s, EPOLLOUT);
    lua_setfield(s, -2, "OUT");
    lua_pushinteger(s, EPOLLERR | EPOLLHUP);
    lua_setfield(s, -2, "ERRHUP");
}

static const char *find_dir(void)
{
    if (lua_dir[0])
        return lua_dir;
    const char *root = cb_root_dir();
    if (!root)
        return NULL;
    snprintf(lua_dir, sizeof lua_dir, "%s/impls/lua", root);
    return lua_dir;
}

/* A fresh Lua state with corobench's counted yield, the rest hook and corobench.net. */
static lua_State *open_state(void)
{
    lua_State *L = lua_newstate(counted_alloc, NULL);
    if (!L)
        return NULL;
    luaL_openlibs(L);
    lua_getglobal(L, "coroutine");
    lua_pushcfunction(L, counted_yield);
    lua_setfield(L, -2, "yield");
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushcfunction(L, at_rest);
    lua_setfield(L, -2, "at_rest");
    lua_pushcfunction(L, lua_abort);
    lua_setfield(L, -2, "abort");
    open_net(L);
    lua_setfield(L, -2, "net");
    lua_setglobal(L, "corobench");
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "corobench.workloads");
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/?.lua", lua_dir);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
    return L;
}

/* A Lua error as the body's error; the instance's state is closed. */
static int lua_failed(lua_State *L, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "lua: %s: %s", what, lua_tostring(L, -1));
    lua_settop(L, 0);
    return -1;
}

/* The state the live instances share: opened by the first setup, closed by the last finish, so
 * everything Lua allocated goes back between runs without a state per instance (a batch can
 * hold thousands of instances, and a state with its libraries is tens of kilobytes). */
static lua_State *shared;
static size_t live;

void *cb_lua_setup(const char *workload, const cb_params *p, void (*at_rest_fn)(uint64_t),
                   char *err, size_t errlen)
{
    rest_point = at_rest_fn;
    char path[PATH_MAX + 64];
    if (!find_dir()) {
        snprintf(err, errlen, "lua: impls/lua/ not found above the executable");
        return NULL;
    }
    if (!shared && !(shared = open_state())) {
        snprintf(err, errlen, "lua: lua_newstate: out of memory");
        return NULL;
    }
    lua_State *L = shared;
    live++;
    /* The workload's file, loaded once per state (not through require: the name "io" is the
     * standard library's). */
    int rc = 0;
    lua_getfield(L, LUA_REGISTRYINDEX, "corobench.workloads");
    if (lua_getfield(L, -1, workload) == LUA_TNIL) {
        lua_pop(L, 1);
        snprintf(path, sizeof path, "%s/%s.lua", lua_dir, workload);
        if (!(rc = luaL_loadfile(L, path) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK)) {
            lua_pushvalue(L, -1);
            lua_setfield(L, -3, workload);
        }
    }
    if (rc) {
        lua_failed(L, workload, err, errlen);
    } else {
        lua_getfield(L, -1, "setup");
        lua_newtable(L);
        for (size_t i = 0; i < p->n; i++) {
            const cb_param_val *v = &p->v[i];
            if (v->def->kind == CB_PARAM_INT)
                lua_pushinteger(L, (lua_Integer)v->i);
            else
                lua_pushstring(L, v->s);
            lua_setfield(L, -2, v->def->name);
        }
        if ((rc = lua_pcall(L, 1, 1, 0) != LUA_OK))
            lua_failed(L, "setup", err, errlen);
    }
    if (rc) {
        if (--live == 0) {
            lua_close(shared);
            shared = NULL;
        }
        return NULL;
    }
    cb_lua_inst *in = cb_rt_alloc(sizeof *in);
    in->L = L;
    in->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_settop(L, 0);
    return in;
}

int cb_lua_run(void *inst, char *err, size_t errlen)
{
    cb_lua_inst *in = inst;
    lua_rawgeti(in->L, LUA_REGISTRYINDEX, in->ref);
    lua_getfield(in->L, -1, "run");
    if (lua_pcall(in->L, 0, 0, 0) != LUA_OK)
        return lua_failed(in->L, "run", err, errlen);
    lua_settop(in->L, 0);
    return 0;
}

/* The result, then the instance dropped whether finish failed or not; the last live one closes
 * the state (untimed). */
int cb_lua_finish(void *inst, uint64_t *ops, uint64_t *checksum, char *err, size_t errlen)
{
    cb_lua_inst *in = inst;
    lua_State *L = in->L;
    int rc = 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, in->ref);
    lua_getfield(L, -1, "finish");
    *ops = *checksum = 0;
    if (lua_pcall(L, 0, 2, 0) != LUA_OK) {
        rc = lua_failed(L, "finish", err, errlen);
    } else if (lua_type(L, -2) != LUA_TNUMBER || lua_type(L, -1) != LUA_TNUMBER) {
        snprintf(err, errlen, "lua: finish: returned %s and %s, not the ops and the checksum "
                 "(two numbers)", luaL_typename(L, -2), luaL_typename(L, -1));
        rc = -1;
    } else {
        *ops = (uint64_t)lua_tointeger(L, -2);
        *checksum = (uint64_t)lua_tointeger(L, -1);
    }
    lua_settop(L, 0);
    luaL_unref(L, LUA_REGISTRYINDEX, in->ref);
    cb_rt_free(in, sizeof *in);
    if (--live == 0) {
        lua_close(L);
        shared = NULL;
    }
    return rc;
}
