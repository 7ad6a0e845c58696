-- await (workloads/await.c): a task coroutine makes `calls` top-level calls in sequence, each a
-- chain of `depth` nested plain Lua calls whose innermost awaits a value. One call in
-- `suspend_every` finds it missing and yields to the driver, which delivers it with the resume;
-- the others take it at once. Lua has no async functions: a coroutine's plain calls are its
-- fast path, as for the stackful C family. One op = one top-level call.
local mix = require("common").mix
local create, resume, yield = coroutine.create, coroutine.resume, coroutine.yield

local M = {}

local function value(i) return (i ~ 0x5bd1e995) * 0x9e3779b97f4a7c15 end

function M.setup(p)
    local calls, depth = p.calls, p.depth
    local every = p.suspend_every == "never" and 0 or math.tointeger(p.suspend_every)
    local sum, i = 0, 0

    local function chain(level, v)
        if level < depth then
            -- down: (v ^ level) * 0x100000001b3 + 0x0c; up: (r rotl 7) + level
            local r = chain(level + 1, (v ~ level) * 0x100000001b3 + 0x0c)
            return (r << 7 | r >> 57) + level
        end
        local got
        if every ~= 0 and i % every == every - 1 then
            got = yield()
        else
            got = value(i)
        end
        local r = v + got
        return (r << 7 | r >> 57) + level
    end

    local task = create(function() -- before the clock starts, as C's
        while i < calls do
            sum = mix(sum, chain(0, i * 0x2545f4914f6cdd1d + 0x1234567))
            i = i + 1
        end
    end)
    local inst = {}
    function inst.run()
        local ok, err = resume(task)
        while ok and coroutine.status(task) == "suspended" do
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
