-- pingpong (workloads/pingpong.c) on LuaJIT: impls/lua/pingpong.lua's control flow (a side yields
-- its value to the driver's trampoline, impls/lua/drive.lua, which resumes the other side with
-- it), its arithmetic on uint64_t cdata (common.lua). One op = one yield (one suspension) and one resume.
local common = require("common")
local mix, u64 = common.mix, common.u64
local bit = require("bit")
local rol, bxor = bit.rol, bit.bxor
local trampoline = require("drive").trampoline
local create, yield = coroutine.create, coroutine.yield

local M = {}

function M.setup(p)
    local remaining, depth = p.switches, p.depth
    local sum, final = u64(0), u64(0)

    local function side(salt)
        local function step(level, v)
            if level == depth then
                local got = yield(v)
                sum = mix(sum, got)
                return got
            end
            -- down: (v ^ level) * 0x100000001b3 + salt; up: (r rotl 7) + level
            local r = step(level + 1, bxor(v, level) * 0x100000001b3ULL + salt)
            return rol(r, 7) + level
        end
        return function(first)
            local v = first
            while remaining > 0 do
                remaining = remaining - 1
                if depth == 0 then -- level 0 is the loop itself
                    v = yield(v)
                    sum = mix(sum, v)
                else
                    local r = step(1, v * 0x100000001b3ULL + salt)
                    v = rol(r, 7)
                end
            end
            final = v -- returns nothing: the driver sees the end
        end
    end

    -- Both coroutines exist before the clock starts, as C's do.
    local co = { create(side(u64(0x0a))), create(side(u64(p.sites == "same" and 0x0a or 0x0b))) }
    local inst = {}
    function inst.run()
        trampoline(co, 0x1234567890abcdefULL)
    end
    function inst.finish()
        return p.switches, mix(sum, final)
    end
    return inst
end

return M
