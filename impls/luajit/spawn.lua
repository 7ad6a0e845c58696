-- spawn (workloads/spawn.c) on LuaJIT: impls/lua/spawn.lua's coroutines and order, each level's
-- frame/8 live words in a uint64_t[frame/8] FFI array (LuaJIT's unboxed counterpart of Lua
-- 5.4's table of integers). One op = one coroutine's whole life.
local ffi = require("ffi")
local common = require("common")
local mix, u64 = common.mix, common.u64
local bit = require("bit")
local bxor, lshift, rshift = bit.bxor, bit.lshift, bit.rshift
local spawn = require("drive").spawn
local yield = coroutine.yield
local at_rest = corobench.at_rest

local M = {}

local Words = ffi.typeof("uint64_t[?]")

-- splitmix64's finaliser, as spawn.c's sp_hash.
local function hash(x)
    x = x + 0x9e3779b97f4a7c15ULL
    x = bxor(x, rshift(x, 30)) * 0xbf58476d1ce4e5b9ULL
    x = bxor(x, rshift(x, 27)) * 0x94d049bb133111ebULL
    return bxor(x, rshift(x, 31))
end

-- spawn.c's order=random: a Fisher-Yates shuffle of 0..n-1 driven by hash; nil for fifo.
local function shuffle(n, seed)
    local order = {}
    for i = 1, n do order[i] = i - 1 end
    local x = u64(seed)
    for i = n - 1, 1, -1 do
        x = hash(x)
        local j = tonumber(x % (i + 1)) -- unsigned, as uint64_t
        order[i + 1], order[j + 1] = order[j + 1], order[i + 1]
    end
    return order
end

-- Why this point cannot run here, or nil.
function M.unsupported(p)
    if p.layout ~= "aligned" then -- refused, as docs/memory.md asks of what cannot honour it
        return "spawn: layout=offset moves C stacks and frames; LuaJIT places its objects " ..
               "itself (valid here: layout=aligned)"
    end
    if p.order == "random" and p.seed >= 2 ^ 53 then
        return ("spawn: seed=%.0f is above 2^53, which the request's JSON numbers (doubles, " ..
                "lua-cjson) cannot hold exactly"):format(p.seed)
    end
    return nil
end

function M.setup(p)
    local n, depth, words = p.n, p.depth, math.floor(p.frame / 8)
    if p.frame % 8 ~= 0 then
        error(("spawn: frame=%d is not a multiple of 8 (valid: 8, 16, ..., 65536)"):format(p.frame), 0)
    end
    local sum = u64(0)
    local order = p.order == "random" and shuffle(n, p.seed) or nil

    local function level(id, lvl)
        local loc = Words(words)
        local hi = bxor(lshift(id, 24), lshift(u64(lvl), 12))
        for k = 0, words - 1 do
            loc[k] = bxor(hi, k) * 0x9e3779b97f4a7c15ULL
        end
        local v
        if lvl == depth then
            v = yield(id * 0xd6e8feb86659fd93ULL + 1)
        else
            v = level(id, lvl + 1)
        end
        local acc = v + lvl
        for k = 0, words - 1 do
            acc = bxor(acc, loc[k]) * 0x100000001b3ULL
        end
        return acc
    end
    local function body(id) return level(u64(id), 0) end
    local function resume_value(i) return bxor(u64(i), 0x5bd1e9955bd1e995ULL) end

    local inst = {}
    function inst.run()
        sum = spawn(n, body, order, sum, mix, resume_value, at_rest)
    end
    function inst.finish()
        return n, sum
    end
    return inst
end

return M
