-- What every corobench LuaJIT workload shares. LuaJIT is Lua 5.1 with extensions: its numbers are
-- doubles and it has no 64-bit integer operators, so the 64-bit values of the data paths are FFI
-- uint64_t cdata (arithmetic wraps mod 2^64; the JIT keeps them unboxed in compiled traces) and
-- the bit operations are the bit library's, which take and give 64-bit cdata in LuaJIT 2.1.
local ffi = require("ffi")
local bit = require("bit")
local rol, bxor = bit.rol, bit.bxor

local M = {}

local U64 = ffi.typeof("uint64_t")
-- A Lua number (an integer below 2^53) as uint64_t.
function M.u64(x) return U64(x) end

-- The checksum step of workloads/workload.h: ((h rotl 23) ^ v) * 0x9e3779b97f4a7c15; h and v
-- uint64_t.
function M.mix(h, v)
    return bxor(rol(h, 23), v) * 0x9e3779b97f4a7c15ULL
end

return M
