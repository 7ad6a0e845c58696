-- io (workloads/io.c, docs/workloads-io.md) on LuaJIT: impls/lua/io.lua's coroutines, would-block
-- yields and edge-triggered epoll loop, with io.c's sockets made and driven through the FFI
-- (the embedded Lua 5.4 reaches them through corobench.net, C functions LuaJIT's separate
-- process cannot call): AF_UNIX socketpairs or loopback TCP with TCP_NODELAY and linger 0, each
-- end non-blocking. Messages live in FFI byte buffers (LuaJIT has no string.pack), filled and
-- hashed a little-endian 64-bit word at a time. Content, verification and hashing are io.c's.
local ffi = require("ffi")
local common = require("common")
local mix, u64 = common.mix, common.u64
local bit = require("bit")
local bxor, bor, band, lshift, rshift = bit.bxor, bit.bor, bit.band, bit.lshift, bit.rshift
local event_loop = require("drive").event_loop
local create, yield = coroutine.create, coroutine.yield

ffi.cdef [[
int socketpair(int domain, int type, int protocol, int sv[2]);
int socket(int domain, int type, int protocol);
int bind(int fd, const void *addr, unsigned len);
int listen(int fd, int backlog);
int getsockname(int fd, void *addr, unsigned *len);
int connect(int fd, const void *addr, unsigned len);
int accept4(int fd, void *addr, unsigned *len, int flags);
int setsockopt(int fd, int level, int name, const void *val, unsigned len);
int fcntl(int fd, int cmd, ...);
int close(int fd);
long recv(int fd, void *buf, size_t len, int flags);
long send(int fd, const void *buf, size_t len, int flags);
int epoll_create1(int flags);
int epoll_wait(int epfd, void *events, int maxevents, int timeout);
int epoll_ctl(int epfd, int op, int fd, void *event);
char *strerror(int errnum);
int memcmp(const void *a, const void *b, size_t n);
]]
-- struct epoll_event is packed on x86-64, naturally aligned elsewhere.
if ffi.arch == "x64" then
    ffi.cdef "struct cb_epoll_event { uint32_t events; uint64_t data; } __attribute__((packed));"
else
    ffi.cdef "struct cb_epoll_event { uint32_t events; uint64_t data; };"
end

local C = ffi.C
local AF_UNIX, AF_INET, SOCK_STREAM, SOCK_NONBLOCK, SOCK_CLOEXEC = 1, 2, 1, 0x800, 0x80000
local MSG_NOSIGNAL, EAGAIN, EINTR = 0x4000, 11, 4
local IPPROTO_TCP, TCP_NODELAY, SOL_SOCKET, SO_LINGER = 6, 1, 1, 13
local F_GETFL, F_SETFL, O_NONBLOCK = 3, 4, 0x800
local EPOLL_CLOEXEC, EPOLL_CTL_ADD = 0x80000, 1
local IN, OUT, ERRHUP, ET = 0x1, 0x4, 0x8 + 0x10, 0x80000000
local MAXEVENTS, STALL_MS, TCP_MAX_SIZE = 256, 10000, 131072 -- io.c's

local M = {}

local function syserr(call)
    error(("io: %s: %s"):format(call, ffi.string(C.strerror(ffi.errno()))), 0)
end

-- io.c's io_tcp_pair: a blocking connect, accept4 non-blocking, then the client non-blocking,
-- Nagle off and linger 0 on both.
local function tcp_pair(lfd, addr, fds)
    local cl = C.socket(AF_INET, bor(SOCK_STREAM, SOCK_CLOEXEC), 0)
    if cl < 0 then syserr("socket(AF_INET)") end
    fds[#fds + 1] = cl
    if C.connect(cl, addr, 16) ~= 0 then syserr("connect(127.0.0.1)") end
    local sv = C.accept4(lfd, nil, nil, bor(SOCK_NONBLOCK, SOCK_CLOEXEC))
    if sv < 0 then syserr("accept4") end
    fds[#fds + 1] = sv
    if C.fcntl(cl, F_SETFL, ffi.new("int", bor(C.fcntl(cl, F_GETFL), O_NONBLOCK))) ~= 0 then
        syserr("fcntl(O_NONBLOCK)")
    end
    local one, rst = ffi.new("int[1]", 1), ffi.new("int[2]", 1, 0)
    for _, fd in ipairs({ sv, cl }) do
        if C.setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, one, 4) ~= 0 or
            C.setsockopt(fd, SOL_SOCKET, SO_LINGER, rst, 8) ~= 0 then
            syserr("setsockopt(TCP_NODELAY, SO_LINGER)")
        end
    end
    return sv, cl
end

-- Descriptors [2c+1] server c, [2c+2] client c, all edge-triggered in one epoll instance; the
-- events the registrations raised are drained (not the run's).
local function open(conns, tcp, fds)
    local ep = C.epoll_create1(EPOLL_CLOEXEC)
    if ep < 0 then syserr("epoll_create1") end
    fds.epoll = ep
    local lfd, addr = -1, ffi.new("uint8_t[16]")
    if tcp then
        addr[0], addr[4], addr[7] = AF_INET, 127, 1 -- struct sockaddr_in 127.0.0.1, port 0
        lfd = C.socket(AF_INET, bor(SOCK_STREAM, SOCK_CLOEXEC), 0)
        if lfd < 0 then syserr("socket(AF_INET)") end
        fds.listener = lfd
        local len = ffi.new("unsigned[1]", 16)
        if C.bind(lfd, addr, 16) ~= 0 then syserr("bind(127.0.0.1:0)") end
        if C.listen(lfd, 4096) ~= 0 then syserr("listen") end
        if C.getsockname(lfd, addr, len) ~= 0 then syserr("getsockname") end
    end
    local sv, ev = ffi.new("int[2]"), ffi.new("struct cb_epoll_event")
    local pair = {}
    for c = 0, conns - 1 do
        if tcp then
            pair[1], pair[2] = tcp_pair(lfd, addr, fds)
        else
            if C.socketpair(AF_UNIX, bor(SOCK_STREAM, SOCK_NONBLOCK, SOCK_CLOEXEC), 0, sv) ~= 0 then
                syserr("socketpair(AF_UNIX)")
            end
            pair[1], pair[2] = sv[0], sv[1]
            fds[#fds + 1], fds[#fds + 1] = sv[0], sv[1]
        end
        for s = 1, 2 do
            ev.events, ev.data = bor(IN, OUT, ET), 2 * c + s
            if C.epoll_ctl(ep, EPOLL_CTL_ADD, pair[s], ev) ~= 0 then syserr("epoll_ctl(EPOLL_CTL_ADD)") end
            fds.of[2 * c + s] = pair[s]
        end
    end
    if lfd >= 0 then
        C.close(lfd)
        fds.listener = nil
    end
    local evs = ffi.new("struct cb_epoll_event[?]", MAXEVENTS)
    local n
    repeat n = C.epoll_wait(ep, evs, MAXEVENTS, 0) until n <= 0
    if n < 0 then syserr("epoll_wait") end
end

local function close_all(fds)
    for _, fd in ipairs(fds) do C.close(fd) end
    if fds.listener then C.close(fds.listener) end
    if fds.epoll then C.close(fds.epoll) end
end

function M.unsupported(p)
    if p.transport == "tcp" and p.size > TCP_MAX_SIZE then
        return ("io: transport=tcp with size=%d: how a message arrives in pieces then depends " ..
                "on kernel timing, so suspension counts are not reproducible (valid: size up " ..
                "to %d with tcp, any size with unix)"):format(p.size, TCP_MAX_SIZE)
    end
    return nil
end

function M.setup(p)
    local conns, msgs, size = p.conns, p.msgs, p.size
    local fds = { of = {} }
    local ok, err = pcall(open, conns, p.transport == "tcp", fds)
    if not ok then
        close_all(fds)
        error(err, 0)
    end
    local of, want, hs, hc, co = fds.of, {}, {}, {}, {}
    -- Touched now, not in the run: tx, rx and the server's buffer of each connection.
    local bufs = ffi.new("uint8_t[?]", 3 * size * conns)
    ffi.fill(bufs, 3 * size * conns, 0xa5)
    local words = math.floor(size / 8)

    -- io.c's io_pump: moves buf[0, size) with as many calls as succeed, yielding (the counted
    -- suspension) whenever the socket would block.
    local function xfer(ep, buf, wr)
        local off, fd = 0, of[ep]
        while off < size do
            local n = wr and C.send(fd, buf + off, size - off, MSG_NOSIGNAL)
                         or C.recv(fd, buf + off, size - off, 0)
            if n > 0 then
                off = off + tonumber(n)
            else
                local e = n < 0 and ffi.errno() or 0
                if n < 0 and e == EAGAIN then
                    want[ep] = wr and OUT or IN
                    yield()
                elseif not (n < 0 and e == EINTR) then
                    local c = math.floor((ep - 1) / 2)
                    error(n == 0 and ("io: conn %d: recv: peer closed the connection"):format(c)
                          or ("io: conn %d: %s: %s"):format(c, wr and "send" or "recv",
                                                            ffi.string(C.strerror(e))), 0)
                end
            end
        end
    end

    -- Byte j of message m on connection c: a function of (c, m, j) only (io.c's io_fill).
    local function fill(tx, c, m)
        local seed = mix(mix(u64(0x10), u64(c)), u64(m))
        local w64 = ffi.cast("uint64_t *", tx)
        for j = 0, words - 1 do
            local w = seed + u64(j) * 0x9e3779b97f4a7c15ULL
            w64[j] = bxor(w, rshift(w, 29)) -- unaligned stores are fine on x86-64 and AArch64
        end
        if size % 8 ~= 0 then
            local w = seed + u64(words) * 0x9e3779b97f4a7c15ULL
            w = bxor(w, rshift(w, 29))
            for k = 0, size % 8 - 1 do tx[8 * words + k] = tonumber(band(rshift(w, 8 * k), 0xff)) end
        end
    end

    -- Folds a message into h, a little-endian word at a time (io.c's io_hash).
    local function hash(h, b)
        local w64 = ffi.cast("uint64_t *", b)
        for j = 0, words - 1 do h = mix(h, w64[j]) end
        local tail = u64(0)
        for k = size - 1, 8 * words, -1 do tail = bor(lshift(tail, 8), b[k]) end
        return mix(h, bxor(tail, lshift(u64(size), 56)))
    end

    local function server(c)
        local ep, sb = 2 * c + 1, bufs + 3 * size * c + 2 * size
        for _ = 0, msgs - 1 do
            xfer(ep, sb, false)
            hs[c] = hash(hs[c], sb)
            xfer(ep, sb, true)
        end
        return "done"
    end

    local function client(c)
        local ep, tx = 2 * c + 2, bufs + 3 * size * c
        local rx = tx + size
        for i = 0, msgs - 1 do
            fill(tx, c, i)
            xfer(ep, tx, true)
            xfer(ep, rx, false)
            if C.memcmp(rx, tx, size) ~= 0 then
                local at = 0
                while rx[at] == tx[at] do at = at + 1 end
                error(("io: conn %d msg %d: echo differs at byte %d (sent 0x%02x, got 0x%02x)")
                    :format(c, i, at, tx[at], rx[at]), 0)
            end
            hc[c] = hash(hc[c], rx)
        end
        return "done"
    end

    -- The coroutines exist before the clock starts, as io.c's stackful ones.
    for c = 0, conns - 1 do
        hs[c], hc[c] = u64(0), u64(0)
        co[2 * c + 1] = create(function() return server(c) end)
        co[2 * c + 2] = create(function() return client(c) end)
        want[2 * c + 1], want[2 * c + 2] = 0, 0
    end

    -- One epoll_wait, its events as the shared loop reads them (corobench.net's wait in Lua 5.4).
    local evs = ffi.new("struct cb_epoll_event[?]", MAXEVENTS)
    local function wait(events)
        local n = C.epoll_wait(fds.epoll, evs, MAXEVENTS, STALL_MS)
        if n < 0 then
            if ffi.errno() ~= EINTR then syserr("epoll_wait") end
            return 0
        end
        if n == 0 then
            error(("io: epoll_wait: no readiness for %d ms"):format(STALL_MS), 0)
        end
        for k = 0, n - 1 do
            events[2 * k + 1], events[2 * k + 2] = tonumber(evs[k].data), evs[k].events
        end
        return n
    end
    local function ready(ev, w) return band(ev, bor(w, ERRHUP)) ~= 0 end

    local inst = {}
    function inst.run()
        event_loop(co, want, conns, wait, ready)
    end
    function inst.finish()
        local sum = u64(0)
        for c = 0, conns - 1 do
            -- A sum of per-connection hashes: independent of how the connections interleaved.
            sum = sum + mix(mix(u64(c), hs[c]), hc[c])
        end
        close_all(fds)
        return conns * msgs, mix(mix(mix(sum, u64(conns)), u64(msgs)), u64(size))
    end
    return inst
end

return M
