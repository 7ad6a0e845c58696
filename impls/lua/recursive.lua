-- recursive (workloads/recursive.c): a generator coroutine walks a complete binary tree of
-- `height` levels in order by plain recursion on its own Lua stack, yielding each node's value;
-- the driver folds what it receives. One op = one node (one suspension).
local mix = require("common").mix
local consume = require("drive").consume
local create, yield = coroutine.create, coroutine.yield
local at_rest = corobench.at_rest

local M = {}

function M.setup(p)
    local height, sum = p.height, 0
    local function walk(id, level)
        if level + 1 < height then walk(2 * id, level + 1) end
        yield(id * 0x9e3779b97f4a7c15 ~ (id >> 3))
        if level + 1 < height then walk(2 * id + 1, level + 1) end
    end
    local gen = create(function() walk(1, 0) end) -- before the clock starts, as C's
    local inst = {}
    function inst.run()
        sum = consume(gen, sum, mix, at_rest)
    end
    function inst.finish()
        return (1 << height) - 1, sum
    end
    return inst
end

return M
