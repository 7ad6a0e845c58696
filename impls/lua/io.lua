-- io (workloads/io.c, docs/workloads-io.md): `conns` echo connections over the same sockets as
-- io.c (corobench.net makes them with io.c's code and exposes recv, send and epoll_wait), a
-- coroutine at each end and one edge-triggered epoll loop in the driver. Every read or write is
-- tried first; only a would-block yields (the counted suspension) until epoll reports the
-- direction it waits for. Messages are Lua strings: a client builds each with string.pack, a
-- read gathers its pieces with table.concat. Content, verification and hashing are io.c's.
local mix = require("common").mix
local event_loop = require("drive").event_loop
local create, yield = coroutine.create, coroutine.yield
local pack, unpack, concat = string.pack, string.unpack, table.concat
local net = corobench.net
local IN, OUT, ERRHUP = net.IN, net.OUT, net.ERRHUP

local M = {}

-- Byte j of message m on connection id (io.c's io_fill); parts is a reused table.
local function fill(id, m, size, parts)
    local seed = mix(mix(0x10, id), m)
    local k = 0
    for j = 0, size - 1, 8 do
        local w = seed + (j >> 3) * 0x9e3779b97f4a7c15
        k = k + 1
        parts[k] = pack("<i8", w ~ (w >> 29))
    end
    local s = concat(parts, "", 1, k)
    if size % 8 ~= 0 then s = s:sub(1, size) end
    return s
end

-- Folds a message into h, a little-endian word at a time (io.c's io_hash).
local function hash(h, s)
    local n, j = #s, 1
    while j + 7 <= n do
        h = mix(h, (unpack("<i8", s, j)))
        j = j + 8
    end
    local tail = 0
    for k = n, j, -1 do tail = tail << 8 | s:byte(k) end
    return mix(h, tail ~ (n << 56))
end

function M.setup(p)
    local conns, msgs, size = p.conns, p.msgs, p.size
    local h = net.open(conns, p.transport)
    local want, hs, hc, co = {}, {}, {}, {}
    local recv, send = net.recv, net.send

    local function read(ep, n)
        local s = recv(h, ep, n)
        while not s do
            want[ep] = IN
            yield()
            s = recv(h, ep, n)
        end
        if #s == n then return s end
        local parts, got = { s }, #s
        while got < n do
            local t = recv(h, ep, n - got)
            if t then
                parts[#parts + 1] = t
                got = got + #t
            else
                want[ep] = IN
                yield()
            end
        end
        return concat(parts)
    end

    local function write(ep, s)
        local off, n = 0, #s
        while off < n do
            local k = send(h, ep, s, off)
            if k then
                off = off + k
            else
                want[ep] = OUT
                yield()
            end
        end
    end

    local function server(c)
        local ep = 2 * c + 1
        for _ = 0, msgs - 1 do
            local m = read(ep, size)
            hs[c] = hash(hs[c], m)
            write(ep, m)
        end
        return "done"
    end

    local function client(c)
        local ep, parts = 2 * c + 2, {}
        for i = 0, msgs - 1 do
            local tx = fill(c, i, size, parts)
            write(ep, tx)
            local rx = read(ep, size)
            if rx ~= tx then
                local at = 1
                while rx:byte(at) == tx:byte(at) do at = at + 1 end
                error(("io: conn %d msg %d: echo differs at byte %d (sent 0x%02x, got 0x%02x)")
                    :format(c, i, at - 1, tx:byte(at), rx:byte(at)), 0)
            end
            hc[c] = hash(hc[c], rx)
        end
        return "done"
    end

    -- The coroutines exist before the clock starts, as io.c's stackful ones.
    for c = 0, conns - 1 do
        hs[c], hc[c] = 0, 0
        co[2 * c + 1] = create(function() return server(c) end)
        co[2 * c + 2] = create(function() return client(c) end)
        want[2 * c + 1], want[2 * c + 2] = 0, 0
    end

    local function wait(events) return net.wait(h, events) end
    local function ready(ev, w) return ev & (w | ERRHUP) ~= 0 end

    local inst = {}
    function inst.run()
        event_loop(co, want, conns, wait, ready)
    end
    function inst.finish()
        local sum = 0
        for c = 0, conns - 1 do
            -- A sum of per-connection hashes: independent of how the connections interleaved.
            sum = sum + mix(mix(c, hs[c]), hc[c])
        end
        net.close(h)
        return conns * msgs, mix(mix(mix(sum, conns), msgs), size)
    end
    return inst
end

return M
