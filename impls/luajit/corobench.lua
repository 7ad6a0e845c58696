-- corobench-luajit: the corobench Lua workloads on LuaJIT 2.1, driven by the external runtime
-- protocol (docs/external.md): one JSON request as the argument (or on stdin), one JSON reply
-- on stdout (lua-cjson both ways). Run as `luajit corobench.lua REQUEST`. Repetitions are timed
-- with clock_gettime(CLOCK_MONOTONIC) through the FFI; setup and finish stay outside. LuaJIT and
-- the embedded Lua 5.4 export the same C API names, so LuaJIT cannot be embedded beside it in
-- the cell's process: it runs as a program of its own, as go, node and csharp do.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
-- This directory's bodies first; impls/lua/ serves the ones the two languages write alike.
local lua_dir = dir:match("^(.*)/luajit$") and dir:match("^(.*)/luajit$") .. "/lua" or dir .. "/../lua"
package.path = dir .. "/?.lua;" .. lua_dir .. "/?.lua;" .. package.path

local ffi = require("ffi")
local bit = require("bit")
local cjson = require("cjson")
cjson.encode_number_precision(14) -- its most; every integer sent is below 10^14

ffi.cdef [[
struct cb_timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int clk, struct cb_timespec *ts);
struct cb_rusage { long f[18]; }; /* two struct timevals, then ru_maxrss (KiB) */
int getrusage(int who, struct cb_rusage *ru);
void abort(void);
]]

local PROTOCOL = "corobench-external/1"
local CLOCK_MONOTONIC = 1
local ts = ffi.new("struct cb_timespec")

local function now_ns()
    ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
    return tonumber(ts.tv_sec) * 1e9 + tonumber(ts.tv_nsec)
end

-- What the bodies share with the driver (the embedded lua's corobench table, in Lua): the rest
-- point and abort. Suspensions are counted by the yield every body calls (below).
local rt = { suspensions = 0, rest_hook = nil }
corobench = {
    at_rest = function(alive) if rt.rest_hook then rt.rest_hook(alive) end end,
    abort = function() ffi.C.abort() end,
}
local yield = coroutine.yield
coroutine.yield = function(...) -- one add per suspension, as the C runtimes charge it
    rt.suspensions = rt.suspensions + 1
    return yield(...)
end

local function answer(reply)
    local ru = ffi.new("struct cb_rusage")
    reply.protocol = PROTOCOL
    reply.runtime = jit.version
    if reply.error == nil then reply.error = cjson.null end
    if reply.coroutine_bytes == nil then reply.coroutine_bytes = cjson.null end
    reply.peak_rss_bytes = ffi.C.getrusage(0, ru) == 0 and tonumber(ru.f[4]) * 1024 or 0
    io.stdout:write(cjson.encode(reply), "\n")
    io.stdout:flush()
    os.exit(0)
end

local function fail(message, unsupported)
    answer({ error = message, unsupported = unsupported or false, suspensions = 0 })
end

local function hex(x) return "0x" .. bit.tohex(x, 16) end

local workloads = { pingpong = true, recursive = true, spawn = true, io = true, await = true,
                    fault = true }

-- A workload's body: this directory's file, else impls/lua/'s (loaded by path: `io` is also
-- the name of Lua's standard library, which require would return).
local function body(name)
    for _, d in ipairs({ dir, lua_dir }) do
        local chunk = loadfile(d .. "/" .. name .. ".lua")
        if chunk then return chunk() end
    end
    error(("luajit: %s.lua not found in %s or %s"):format(name, dir, lua_dir), 0)
end

-- The process's anonymous resident memory in bytes (RssAnon in /proc/self/status, statm's
-- resident - shared: the C cells' definition), or nil if unreadable.
local function rss_anon()
    local f = io.open("/proc/self/status", "r")
    if not f then return nil end
    local text = f:read("*a")
    f:close()
    local kb = text:match("\nRssAnon:%s+(%d+) kB")
    return kb and tonumber(kb) * 1024 or nil
end

-- One instance run before the timed repetitions: at the workload's rest point, LuaJIT's heap
-- grown since setup (each read after a full collection), per coroutine alive; and the
-- process's anonymous resident memory grown with the coroutines alive, for the harness to
-- divide (per, alive, rss).
local function memory_pass(wl, params)
    local inst = wl.setup(params)
    collectgarbage("collect")
    local base, rss0 = collectgarbage("count") * 1024, rss_anon()
    local per, n, rss = nil, nil, nil
    rt.rest_hook = function(alive)
        collectgarbage("collect")
        per = (collectgarbage("count") * 1024 - base) / alive
        local rss1 = rss_anon()
        n = alive
        if rss0 and rss1 then rss = rss1 - rss0 end
    end
    inst.run()
    rt.rest_hook = nil
    inst.finish()
    return per, n, rss
end

local function main()
    local text = arg[#arg] or io.read("*a")
    local okj, req = pcall(cjson.decode, text or "")
    if not okj or type(req) ~= "table" then fail("luajit: bad request: " .. tostring(req)) end
    if req.protocol ~= PROTOCOL then
        fail(("luajit: protocol '%s' (valid: %s)"):format(tostring(req.protocol), PROTOCOL))
    end
    local name = req.workload
    if type(name) ~= "string" or not workloads[name] then
        fail(("luajit: no body for workload '%s'"):format(tostring(name)), true)
    end
    local wl = body(name)
    local params = type(req.params) == "table" and req.params or {}
    if wl.unsupported then
        local why = wl.unsupported(params)
        if why then fail(why, true) end
    end
    local auto = req.batch == nil or req.batch == "auto"
    local batch = auto and 1 or req.batch
    if type(batch) ~= "number" or batch < 1 or batch % 1 ~= 0 then
        fail(("luajit: batch %s (valid: \"auto\" or an integer >= 1)"):format(tostring(req.batch)))
    end
    local max_batch = math.max(1, req.max_batch or 1)
    local reps, warmup = req.reps, req.warmup or 0
    if type(reps) ~= "number" or reps < 1 then fail(("luajit: reps %s (valid: 1 or more)"):format(tostring(reps))) end
    local reply = {}
    if req.memory == true then
        reply.coroutine_bytes, reply.rest_coroutines, reply.rest_rss_bytes = memory_pass(wl, params)
        reply.coroutine_bytes_source =
            'collectgarbage("count") (the LuaJIT heap after a full collection) grown by the rest point, per coroutine'
    end
    local first, samples, insts = nil, {}, {}
    -- Warm-up repetitions go on until `warmup` of them are done and warmup_ms has passed (the
    -- JIT records and compiles the hot paths meanwhile); each one re-chooses the batch.
    local warmup_end = now_ns() + (req.warmup_ms or 0) * 1e6
    local warmed, rep = 0, 0
    while rep < warmed + reps do
        local warming = rep == warmed and (warmed < warmup or now_ns() < warmup_end)
        if warming then warmed = warmed + 1 end
        for i = 1, batch do insts[i] = wl.setup(params) end
        for i = batch + 1, #insts do insts[i] = nil end
        collectgarbage("collect") -- the previous repetition's garbage is not this one's cost
        local s0 = rt.suspensions
        local t0 = now_ns()
        for i = 1, batch do insts[i].run() end
        local ns = now_ns() - t0
        local susp = rt.suspensions - s0
        for i = 1, batch do
            local ops, sum = insts[i].finish()
            if not first then
                first = { ops = ops, sum = sum, susp = 0 }
            elseif ops ~= first.ops or sum ~= first.sum then
                fail(("nondeterministic result: checksum %s then %s"):format(hex(first.sum), hex(sum)))
            end
        end
        if rep == 0 then first.susp = math.floor(susp / batch) end
        if susp ~= first.susp * batch then
            fail(("nondeterministic suspensions: %d per run, then %d over %d runs"):format(first.susp, susp, batch))
        end
        if warming then
            if auto then -- as the C cells: one repetition lasts at least min_rep_ms
                local per_run = math.max(1, ns / batch)
                local want = (req.min_rep_ms or 10) * 1e6 / per_run
                batch = want < 1 and 1 or math.min(max_batch, math.ceil(want))
            end
        else
            samples[#samples + 1] = ns / (first.ops * batch)
        end
        rep = rep + 1
    end
    reply.ops, reply.checksum, reply.suspensions = first.ops, hex(first.sum), first.susp
    reply.batch, reply.samples_ns_per_op = batch, samples
    answer(reply)
end

local ok, err = xpcall(main, function(e) return e end)
if not ok then fail(tostring(err)) end
