-- pingpong (workloads/pingpong.c): coroutines A and B hand a value back and forth `switches`
-- times, each at the bottom of a chain of `depth` Lua calls. Lua coroutines are asymmetric, so
-- a side cannot transfer to the other: it yields its value to the driver, which resumes the
-- other side with it (the trampoline the sm family's driver loop also is). One op = one yield
-- (one suspension) and one resume. `sites` only picks the salt (B uses A's with sites=same).
local mix = require("common").mix
local trampoline = require("drive").trampoline
local create, yield = coroutine.create, coroutine.yield

local M = {}

function M.setup(p)
    local remaining, depth = p.switches, p.depth
    local sum, final = 0, 0

    local function side(salt)
        local function step(level, v)
            if level == depth then
                local got = yield(v)
                sum = mix(sum, got)
                return got
            end
            -- down: (v ^ level) * 0x100000001b3 + salt; up: (r rotl 7) + level
            local r = step(level + 1, (v ~ level) * 0x100000001b3 + salt)
            return (r << 7 | r >> 57) + level
        end
        return function(first)
            local v = first
            while remaining > 0 do
                remaining = remaining - 1
                if depth == 0 then -- level 0 is the loop itself
                    v = yield(v)
                    sum = mix(sum, v)
                else
                    local r = step(1, v * 0x100000001b3 + salt)
                    v = r << 7 | r >> 57
                end
            end
            final = v -- returns nothing: the driver sees the end
        end
    end

    -- Both coroutines exist before the clock starts, as C's do.
    local co = { create(side(0x0a)), create(side(p.sites == "same" and 0x0a or 0x0b)) }
    local inst = {}
    function inst.run()
        trampoline(co, 0x1234567890abcdef)
    end
    function inst.finish()
        return p.switches, mix(sum, final)
    end
    return inst
end

return M
