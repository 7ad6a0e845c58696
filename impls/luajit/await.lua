-- await (workloads/await.c) on LuaJIT: impls/lua/await.lua's control flow (a task coroutine of
-- plain calls whose innermost yields to the driver once in `suspend_every` calls), its arithmetic
-- on uint64_t cdata (common.lua). One op = one top-level call.
local common = require("common")
local mix, u64 = common.mix, common.u64
local bit = require("bit")
local rol, bxor = bit.rol, bit.bxor
local create, resume, yield, status = coroutine.create, coroutine.resume, coroutine.yield,
    coroutine.status

local M = {}

local function value(i) return bxor(u64(i), 0x5bd1e995) * 0x9e3779b97f4a7c15ULL end

function M.setup(p)
    local calls, depth = p.calls, p.depth
    local every = p.suspend_every == "never" and 0 or tonumber(p.suspend_every)
    local sum, i = u64(0), 0

    local function chain(level, v)
        if level < depth then
            -- down: (v ^ level) * 0x100000001b3 + 0x0c; up: (r rotl 7) + level
            local r = chain(level + 1, bxor(v, level) * 0x100000001b3ULL + 0x0c)
            return rol(r, 7) + level
        end
        local got
        if every ~= 0 and i % every == every - 1 then
            got = yield()
        else
            got = value(i)
        end
        return rol(v + got, 7) + level
    end

    local task = create(function() -- before the clock starts, as C's
        while i < calls do
            sum = mix(sum, chain(0, u64(i) * 0x2545f4914f6cdd1dULL + 0x1234567))
            i = i + 1
        end
    end)
    local inst = {}
    function inst.run()
        local ok, err = resume(task)
        while ok and status(task) == "suspended" do
            ok, err = resume(task, value(i)) -- the value arrives: resume the call
        end
        if not ok then error(err, 0) end
    end
    function inst.finish()
        return calls, sum
    end
    return inst
end

return M
