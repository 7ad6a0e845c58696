-- recursive (workloads/recursive.c) on LuaJIT: impls/lua/recursive.lua's generator coroutine
-- recursing on its own Lua stack, the node values on uint64_t cdata. One op = one node (one
-- suspension).
local common = require("common")
local mix, u64 = common.mix, common.u64
local bit = require("bit")
local bxor, rshift = bit.bxor, bit.rshift
local consume = require("drive").consume
local create, yield = coroutine.create, coroutine.yield
local at_rest = corobench.at_rest

local M = {}

function M.setup(p)
    local height, sum = p.height, u64(0)
    local function walk(id, level)
        if level + 1 < height then walk(2 * id, level + 1) end
        yield(bxor(id * 0x9e3779b97f4a7c15ULL, rshift(id, 3)))
        if level + 1 < height then walk(2 * id + 1, level + 1) end
    end
    local gen = create(function() walk(u64(1), 0) end) -- before the clock starts, as C's
    local inst = {}
    function inst.run()
        sum = consume(gen, sum, mix, at_rest)
    end
    function inst.finish()
        return 2 ^ height - 1, sum
    end
    return inst
end

return M
