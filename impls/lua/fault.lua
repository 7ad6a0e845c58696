-- fault (workloads/fault.c, docs/fault.md): the harness's self-test, not a benchmark. A coroutine
-- yields once (the suspension) and, resumed, commits the fault `kind` names inside itself, in
-- Lua's terms. Lua runs in the cell's own process, so what Lua cannot do by itself goes through
-- C as an embedding program's would:
--   segv      a store through nil: Lua has no wild store, it raises "attempt to index a nil
--             value"; resume hands the error back, run rethrows it, and the cell fails with
--             Lua's message (the process lives on)
--   overflow  unbounded recursion on the coroutine's own Lua stack, until Lua's limit
--             (LUAI_MAXSTACK slots): "stack overflow"
--   hang      spins forever (the harness's timeout must end it)
--   abort     Lua has no abort: corobench.abort() calls C's abort() (SIGABRT), as a C library
--             embedding Lua stops on a broken invariant
--   exit      os.exit(0): C's exit(0), the cell's process ends without its result
local mix = require("common").mix
local create, resume, yield = coroutine.create, coroutine.resume, coroutine.yield

local M = {}

local hole = {} -- hole.target stays nil: the store below is through nil

-- A frame of live locals per level and work after the call: neither a loop nor a tail call.
local function recurse(n)
    local a, b, c, d = n, n + 1, n + 2, n + 3
    return recurse(n + 1) + a + b + c + d
end

-- Never returns.
local function commit(kind)
    if kind == "segv" then
        hole.target.value = 1
    elseif kind == "overflow" then
        recurse(0)
    elseif kind == "hang" then
        while true do end
    elseif kind == "abort" then
        corobench.abort()
    elseif kind == "exit" then
        os.exit(0)
    end
    error("fault: kind " .. tostring(kind) .. " did not fault", 0) -- a bug of this file
end

function M.setup(p)
    local kind = p.kind
    local co = create(function()
        yield(1) -- the one real suspension
        commit(kind)
    end)
    local inst = {}
    function inst.run()
        local ok, v = resume(co)
        if not ok then error(v, 0) end
        ok, v = resume(co) -- the second resume: the coroutine faults
        if not ok then error(v, 0) end
    end
    function inst.finish()
        return 1, mix(0, 1)
    end
    return inst
end

return M
