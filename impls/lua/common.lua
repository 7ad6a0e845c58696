-- What every corobench Lua workload shares: the checksum step of workloads/workload.h. Lua 5.4
-- integers are 64-bit and wrap on overflow, and >> is a logical shift, so it is exact.
local M = {}

function M.mix(h, v)
    return ((h << 23 | h >> 41) ~ v) * 0x9e3779b97f4a7c15
end

return M
