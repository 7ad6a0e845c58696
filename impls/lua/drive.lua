-- The driver loops of the Lua workloads, shared by lua (Lua 5.4, embedded) and luajit (LuaJIT
-- 2.1, a program of its own, docs/external.md): written in the subset both languages parse, with
-- whatever is arithmetic (the checksum step, a resume value) passed in by the body, which has it
-- in its own language's 64-bit integers.
local create, resume = coroutine.create, coroutine.resume

local M = {}

-- pingpong: the two sides in co[1], co[2] hand v back and forth through this trampoline (a
-- side yields its value, which resumes the other side) until one returns (yields nil).
function M.trampoline(co, v)
    local cur = 1
    while true do
        local ok, out = resume(co[cur], v)
        if not ok then error(out, 0) end
        if out == nil then return end
        v, cur = out, 3 - cur
    end
end

-- recursive: folds every value the generator coroutine yields into sum with mix; the rest point
-- is after the first (the generator at its deepest, the leftmost leaf). Returns the sum.
function M.consume(gen, sum, mix, at_rest)
    local ok, v = resume(gen)
    at_rest(1)
    while v ~= nil do
        sum = mix(sum, v)
        ok, v = resume(gen)
    end
    if not ok then error(v, 0) end
    return sum
end

-- spawn: n coroutines of body(i), each run to its suspension (its yielded value folded into
-- sum), the rest point, then each resumed to its end with resume_value(i) in order (a list of
-- 0-based indices) or creation order, its result folded in. Returns the sum.
function M.spawn(n, body, order, sum, mix, resume_value, at_rest)
    local handle = {} -- one per coroutine, as a run queue holds
    for i = 0, n - 1 do
        local co = create(body)
        handle[i + 1] = co
        local ok, out = resume(co, i)
        if not ok then error(out, 0) end
        sum = mix(sum, out)
    end
    at_rest(n)
    for j = 0, n - 1 do
        local i = order and order[j + 1] or j
        local ok, out = resume(handle[i + 1], resume_value(i))
        if not ok then error(out, 0) end
        sum = mix(sum, out)
        handle[i + 1] = false
    end
    return sum
end

-- io: co[ep] for ep = 1..2*conns (server c at 2c+1, client c at 2c+2) start in that order, each
-- to its first would-block yield (want[ep] then says on what) or its end ("done"); then every
-- event wait(events) reports (events[2k-1] an ep, events[2k] its epoll events; n of them) resumes
-- ep's coroutine if ready(ev, want[ep]), until all have ended.
function M.event_loop(co, want, conns, wait, ready)
    local live, events = 2 * conns, {}
    for ep = 1, 2 * conns do -- io.c's start order: server c, then client c
        local ok, r = resume(co[ep])
        if not ok then error(r, 0) end
        if r then live = live - 1 end
    end
    while live > 0 do
        local n = wait(events)
        for k = 1, 2 * n, 2 do
            local ep, ev = events[k], events[k + 1]
            local w = want[ep]
            if w ~= 0 and ready(ev, w) then
                want[ep] = 0
                local ok, r = resume(co[ep])
                if not ok then error(r, 0) end
                if r then live = live - 1 end
            end
        end
    end
end

return M
