-- spawn (workloads/spawn.c): n coroutines are created; each calls `depth` levels down, every
-- level holding frame/8 live integers (a Lua table per level: Lua functions cannot have a
-- run-time number of locals), and yields at the bottom. With all n suspended the driver is at
-- the rest point; then it resumes each to completion. One op = one coroutine's whole life.
local mix = require("common").mix
local spawn = require("drive").spawn
local yield = coroutine.yield
local at_rest = corobench.at_rest

local M = {}

-- splitmix64's finaliser, as spawn.c's sp_hash.
local function hash(x)
    x = x + 0x9e3779b97f4a7c15
    x = (x ~ (x >> 30)) * 0xbf58476d1ce4e5b9
    x = (x ~ (x >> 27)) * 0x94d049bb133111eb
    return x ~ (x >> 31)
end

-- x mod d for x read as unsigned 64-bit (Lua's % is signed), 0 < d < 2^62.
local function umod(x, d)
    local r = ((x >> 1) % d * 2 + (x & 1)) % d
    return r
end

-- spawn.c's order=random: a Fisher-Yates shuffle of 0..n-1 driven by hash; nil for fifo.
local function shuffle(n, seed)
    local order = {}
    for i = 1, n do order[i] = i - 1 end
    local x = seed
    for i = n - 1, 1, -1 do
        x = hash(x)
        local j = umod(x, i + 1)
        order[i + 1], order[j + 1] = order[j + 1], order[i + 1]
    end
    return order
end

function M.setup(p)
    local n, depth, words = p.n, p.depth, p.frame // 8
    if p.frame % 8 ~= 0 then
        error(("spawn: frame=%d is not a multiple of 8 (valid: 8, 16, ..., 65536)"):format(p.frame), 0)
    end
    local sum = 0
    local order = p.order == "random" and shuffle(n, p.seed) or nil

    local function level(id, lvl)
        local loc = {}
        for k = 1, words do
            loc[k] = (id << 24 ~ lvl << 12 ~ (k - 1)) * 0x9e3779b97f4a7c15
        end
        local v
        if lvl == depth then
            v = yield(id * 0xd6e8feb86659fd93 + 1)
        else
            v = level(id, lvl + 1)
        end
        local acc = v + lvl
        for k = 1, words do
            acc = (acc ~ loc[k]) * 0x100000001b3
        end
        return acc
    end
    local function body(id) return level(id, 0) end
    local function resume_value(i) return i ~ 0x5bd1e9955bd1e995 end

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
