// io (workloads/io.c, docs/workloads-io.md): `conns` echo connections over the same transports
// as the C cells (AF_UNIX socketpairs, or loopback TCP with TCP_NODELAY and linger 0), an async
// method at each end, one epoll loop. Mono's System.Net.Sockets cannot serve here: a Socket
// cannot adopt a socketpair's descriptor (Mono's sockets are handles of its own I/O layer, and
// its constructor from a handle is internal), and its async operations (SocketAsyncEventArgs,
// the Task wrappers) complete through Mono's I/O selector thread and the thread pool, so the
// number of waits would not be io.c's EAGAIN count. So the sockets are libc's, called through
// P/Invoke, and the coroutines are C# async methods: a send or recv that hits EAGAIN awaits its
// endpoint (the counted suspension), and the loop below resumes it when epoll reports readiness,
// in io.c's order (server c, then client c, each to its first suspension; then every event of
// each epoll_wait batch in the order returned). Content, verification and hashing are io.c's.
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading.Tasks;

static class Libc
{
    const string L = "libc";
    [DllImport(L, SetLastError = true)] public static extern int socketpair(int d, int t, int p, int[] sv);
    [DllImport(L, SetLastError = true)] public static extern int socket(int d, int t, int p);
    [DllImport(L, SetLastError = true)] public static extern int bind(int fd, byte[] addr, int len);
    [DllImport(L, SetLastError = true)] public static extern int listen(int fd, int backlog);
    [DllImport(L, SetLastError = true)] public static extern int getsockname(int fd, byte[] addr, ref int len);
    [DllImport(L, SetLastError = true)] public static extern int connect(int fd, byte[] addr, int len);
    [DllImport(L, SetLastError = true)] public static extern int accept4(int fd, IntPtr addr, IntPtr len, int flags);
    [DllImport(L, SetLastError = true)] public static extern int setsockopt(int fd, int level, int name, int[] val, int len);
    [DllImport(L, SetLastError = true)] public static extern int fcntl(int fd, int cmd, int arg);
    [DllImport(L, SetLastError = true)] public static extern int close(int fd);
    [DllImport(L, SetLastError = true)] public static extern IntPtr recv(int fd, IntPtr buf, UIntPtr len, int flags);
    [DllImport(L, SetLastError = true)] public static extern IntPtr send(int fd, IntPtr buf, UIntPtr len, int flags);
    [DllImport(L, SetLastError = true)] public static extern int epoll_create1(int flags);
    [DllImport(L, SetLastError = true)] public static extern int epoll_ctl(int epfd, int op, int fd, byte[] ev);
    [DllImport(L, SetLastError = true)] public static extern int epoll_wait(int epfd, byte[] ev, int max, int timeout);
    [DllImport(L)] static extern IntPtr strerror(int errnum);
    [DllImport(L)] static extern int uname(byte[] buf);

    public const int AF_UNIX = 1, AF_INET = 2, SOCK_STREAM = 1, SOCK_NONBLOCK = 0x800,
                     SOCK_CLOEXEC = 0x80000, MSG_NOSIGNAL = 0x4000, EAGAIN = 11, EINTR = 4,
                     IPPROTO_TCP = 6, TCP_NODELAY = 1, SOL_SOCKET = 1, SO_LINGER = 13,
                     F_GETFL = 3, F_SETFL = 4, O_NONBLOCK = 0x800, EPOLL_CLOEXEC = 0x80000,
                     EPOLL_CTL_ADD = 1;
    public const uint EPOLLIN = 1, EPOLLOUT = 4, EPOLLERR = 8, EPOLLHUP = 0x10, EPOLLET = 1u << 31;

    public static int Errno() { return Marshal.GetLastWin32Error(); }
    public static string Strerror(int e) { return Marshal.PtrToStringAnsi(strerror(e)); }

    // struct epoll_event is packed on x86-64 (12 bytes, data at 4), naturally aligned elsewhere.
    public static readonly bool PackedEpoll = Machine() == "x86_64";

    static string Machine()
    {
        var b = new byte[6 * 65 * 2];
        if (uname(b) != 0)
            return "";
        int at = 4 * 65, end = at;
        while (end < at + 65 && b[end] != 0)
            end++;
        return System.Text.Encoding.ASCII.GetString(b, at, end - at);
    }
}

static class Io
{
    const int MaxEvents = 256, StallMs = 10000, TcpMaxSize = 131072; // io.c's
    static readonly int Stride = Libc.PackedEpoll ? 12 : 16, DataAt = Libc.PackedEpoll ? 4 : 8;

    // One socket end and the coroutine that owns it, awaited (`await ep`) on EAGAIN.
    sealed class Ep : ICriticalNotifyCompletion
    {
        public int fd = -1;
        public uint want;
        public Action cont;
        public Conn c;

        public Ep GetAwaiter() { return this; }
        public bool IsCompleted { get { return false; } }
        public void GetResult() { }
        public void OnCompleted(Action k) { cont = k; }
        public void UnsafeOnCompleted(Action k) { cont = k; }
    }

    sealed class Conn
    {
        public ulong id, hc, hs;
        public readonly Ep[] ep = { new Ep(), new Ep() }; // [0] server, [1] client
        public int tx, rx, sb; // offsets in the instance's buffer
    }

    sealed class Instance : IInstance
    {
        public ulong conns, msgs;
        public int size, epfd = -1, live;
        public Conn[] conn;
        public Ep[] eps;
        public byte[] bufs;
        public GCHandle pin;
        public IntPtr at;
        public string fault;
        public Task[] tasks;

        void Fail(string why)
        {
            if (fault == null)
                fault = why;
        }

        // Byte j of message m on connection c: a function of (c, m, j) only (io.c's io_fill).
        void Fill(Conn c, ulong m)
        {
            ulong seed = Rt.Mix(Rt.Mix(0x10, c.id), m);
            for (int j = 0; j < size; j += 8) {
                ulong w = seed + (ulong)(j >> 3) * 0x9e3779b97f4a7c15UL;
                w ^= w >> 29;
                for (int k = 0; k < 8 && j + k < size; k++)
                    bufs[c.tx + j + k] = (byte)(w >> (8 * k));
            }
        }

        // Folds a whole message into h, a little-endian word at a time (io.c's io_hash).
        ulong Hash(ulong h, int b)
        {
            int j = 0;
            for (; j + 8 <= size; j += 8)
                h = Rt.Mix(h, BitConverter.ToUInt64(bufs, b + j)); // little-endian hosts only
            ulong tail = 0;
            for (int k = size; k > j; k--)
                tail = tail << 8 | bufs[b + k - 1];
            return Rt.Mix(h, tail ^ (ulong)size << 56);
        }

        // io.c's io_pump: 1 when all of [*off, size) moved, 0 when the socket would block
        // (e.want says on what), -1 on failure (recorded).
        int Pump(Ep e, int buf, ref int off, bool wr)
        {
            while (off < size) {
                IntPtr p = at + buf + off;
                var len = (UIntPtr)(uint)(size - off);
                long n = (long)(wr ? Libc.send(e.fd, p, len, Libc.MSG_NOSIGNAL)
                                   : Libc.recv(e.fd, p, len, 0));
                if (n > 0) {
                    off += (int)n;
                    continue;
                }
                int err = n < 0 ? Libc.Errno() : 0;
                if (n < 0 && err == Libc.EAGAIN) {
                    e.want = wr ? Libc.EPOLLOUT : Libc.EPOLLIN;
                    return 0;
                }
                if (n < 0 && err == Libc.EINTR)
                    continue;
                Fail(n == 0 ? "io: conn " + e.c.id + ": recv: peer closed the connection"
                            : "io: conn " + e.c.id + ": " + (wr ? "send" : "recv") + ": " +
                                  Libc.Strerror(err));
                return -1;
            }
            return 1;
        }

        async Task Server(Conn c)
        {
            Ep e = c.ep[0];
            try {
                for (ulong i = 0; i < msgs; i++) {
                    int off = 0, r;
                    while ((r = Pump(e, c.sb, ref off, false)) == 0) {
                        Rt.Suspensions++;
                        await e;
                    }
                    if (r < 0)
                        break;
                    c.hs = Hash(c.hs, c.sb);
                    off = 0;
                    while ((r = Pump(e, c.sb, ref off, true)) == 0) {
                        Rt.Suspensions++;
                        await e;
                    }
                    if (r < 0)
                        break;
                }
            } finally {
                live--;
            }
        }

        async Task Client(Conn c)
        {
            Ep e = c.ep[1];
            try {
                for (ulong i = 0; i < msgs; i++) {
                    Fill(c, i);
                    int off = 0, r;
                    while ((r = Pump(e, c.tx, ref off, true)) == 0) {
                        Rt.Suspensions++;
                        await e;
                    }
                    if (r < 0)
                        break;
                    off = 0;
                    while ((r = Pump(e, c.rx, ref off, false)) == 0) {
                        Rt.Suspensions++;
                        await e;
                    }
                    if (r < 0)
                        break;
                    int d = 0;
                    while (d < size && bufs[c.rx + d] == bufs[c.tx + d])
                        d++;
                    if (d < size) {
                        Fail(string.Format("io: conn {0} msg {1}: echo differs at byte {2} " +
                                           "(sent 0x{3:x2}, got 0x{4:x2})",
                                           c.id, i, d, bufs[c.tx + d], bufs[c.rx + d]));
                        break;
                    }
                    c.hc = Hash(c.hc, c.rx);
                }
            } finally {
                live--;
            }
        }

        public void Run()
        {
            var ev = new byte[MaxEvents * Stride];
            for (ulong c = 0; c < conns && fault == null; c++) { // io.c's start order
                tasks[2 * c] = Server(conn[c]);
                if (fault == null)
                    tasks[2 * c + 1] = Client(conn[c]);
            }
            while (live > 0 && fault == null) {
                int n = Libc.epoll_wait(epfd, ev, MaxEvents, StallMs), err = Libc.Errno();
                if (n < 0 && err != Libc.EINTR)
                    Fail("io: epoll_wait: " + Libc.Strerror(err));
                if (n == 0)
                    Fail("io: epoll_wait: no readiness for " + StallMs + " ms with " + live +
                         " coroutines waiting");
                for (int i = 0; i < n && fault == null; i++) {
                    uint events = BitConverter.ToUInt32(ev, i * Stride);
                    Ep e = eps[BitConverter.ToUInt64(ev, i * Stride + DataAt)];
                    if (e.want == 0 ||
                        (events & (e.want | Libc.EPOLLERR | Libc.EPOLLHUP)) == 0)
                        continue;
                    e.want = 0;
                    Action k = e.cont;
                    e.cont = null;
                    k();
                }
            }
            foreach (Task t in tasks)
                if (t != null && t.IsFaulted)
                    t.GetAwaiter().GetResult(); // rethrows its exception
            if (fault != null)
                throw new Exception(fault);
        }

        public void Finish(out ulong ops, out ulong checksum)
        {
            ulong sum = 0;
            foreach (Conn c in conn) {
                if (c == null) // setup failed before it
                    continue;
                // A sum of per-connection hashes: independent of how the connections interleaved.
                sum += Rt.Mix(Rt.Mix(c.id, c.hs), c.hc);
                foreach (Ep e in c.ep)
                    if (e.fd >= 0)
                        Libc.close(e.fd);
            }
            if (epfd >= 0)
                Libc.close(epfd);
            if (pin.IsAllocated)
                pin.Free();
            ops = conns * msgs;
            checksum = Rt.Mix(Rt.Mix(Rt.Mix(sum, conns), msgs), (ulong)size);
        }
    }

    static Exception SysErr(string call)
    {
        return new Exception("io: " + call + ": " + Libc.Strerror(Libc.Errno()));
    }

    // One TCP connection through the listener, as io.c's io_tcp_pair: a blocking connect,
    // accept4 non-blocking, then the client non-blocking, Nagle off and linger 0 on both.
    static void TcpPair(int lfd, byte[] addr, int[] sv)
    {
        sv[1] = Libc.socket(Libc.AF_INET, Libc.SOCK_STREAM | Libc.SOCK_CLOEXEC, 0);
        if (sv[1] < 0)
            throw SysErr("socket(AF_INET)");
        if (Libc.connect(sv[1], addr, addr.Length) != 0)
            throw SysErr("connect(127.0.0.1)");
        sv[0] = Libc.accept4(lfd, IntPtr.Zero, IntPtr.Zero, Libc.SOCK_NONBLOCK | Libc.SOCK_CLOEXEC);
        if (sv[0] < 0)
            throw SysErr("accept4");
        if (Libc.fcntl(sv[1], Libc.F_SETFL, Libc.fcntl(sv[1], Libc.F_GETFL, 0) | Libc.O_NONBLOCK) != 0)
            throw SysErr("fcntl(O_NONBLOCK)");
        for (int s = 0; s < 2; s++)
            if (Libc.setsockopt(sv[s], Libc.IPPROTO_TCP, Libc.TCP_NODELAY, new[] { 1 }, 4) != 0 ||
                Libc.setsockopt(sv[s], Libc.SOL_SOCKET, Libc.SO_LINGER, new[] { 1, 0 }, 8) != 0)
                throw SysErr("setsockopt(TCP_NODELAY, SO_LINGER)");
    }

    public static IInstance Setup(Params p)
    {
        long conns = p.Int("conns"), msgs = p.Int("msgs"), size = p.Int("size");
        bool tcp = p.Choice("transport", "unix", "tcp") == "tcp";
        if (tcp && size > TcpMaxSize)
            throw new UnsupportedException(
                "io: transport=tcp with size=" + size + ": how a message arrives in pieces then " +
                "depends on kernel timing, so suspension counts are not reproducible (valid: " +
                "size up to " + TcpMaxSize + " with tcp, any size with unix)");
        var w = new Instance { conns = (ulong)conns, msgs = (ulong)msgs, size = (int)size,
                               conn = new Conn[conns], eps = new Ep[2 * conns],
                               tasks = new Task[2 * conns], live = (int)(2 * conns) };
        // Touched now, not in the run; pinned, so the system calls can be given its address.
        w.bufs = new byte[3 * size * conns];
        for (long i = 0; i < w.bufs.Length; i++)
            w.bufs[i] = 0xa5;
        w.pin = GCHandle.Alloc(w.bufs, GCHandleType.Pinned);
        w.at = w.pin.AddrOfPinnedObject();
        int lfd = -1;
        try {
            if ((w.epfd = Libc.epoll_create1(Libc.EPOLL_CLOEXEC)) < 0)
                throw SysErr("epoll_create1");
            var addr = new byte[16]; // struct sockaddr_in 127.0.0.1, port 0, then the listener's
            if (tcp) {
                addr[0] = Libc.AF_INET;
                addr[4] = 127;
                addr[7] = 1;
                int len = addr.Length;
                lfd = Libc.socket(Libc.AF_INET, Libc.SOCK_STREAM | Libc.SOCK_CLOEXEC, 0);
                if (lfd < 0)
                    throw SysErr("socket(AF_INET)");
                if (Libc.bind(lfd, addr, addr.Length) != 0)
                    throw SysErr("bind(127.0.0.1:0)");
                if (Libc.listen(lfd, 4096) != 0)
                    throw SysErr("listen");
                if (Libc.getsockname(lfd, addr, ref len) != 0)
                    throw SysErr("getsockname");
            }
            var ee = new byte[Stride];
            var sv = new int[2];
            for (long c = 0; c < conns; c++) {
                var k = new Conn { id = (ulong)c, tx = (int)(3 * size * c),
                                   rx = (int)(3 * size * c + size), sb = (int)(3 * size * c + 2 * size) };
                w.conn[c] = k;
                sv[0] = sv[1] = -1;
                if (tcp)
                    TcpPair(lfd, addr, sv);
                else if (Libc.socketpair(Libc.AF_UNIX, Libc.SOCK_STREAM | Libc.SOCK_NONBLOCK |
                                                           Libc.SOCK_CLOEXEC, 0, sv) != 0)
                    throw SysErr("socketpair(AF_UNIX)");
                for (int s = 0; s < 2; s++) {
                    k.ep[s].fd = sv[s];
                    k.ep[s].c = k;
                    w.eps[2 * c + s] = k.ep[s];
                    BitConverter.GetBytes(Libc.EPOLLIN | Libc.EPOLLOUT | Libc.EPOLLET).CopyTo(ee, 0);
                    BitConverter.GetBytes((ulong)(2 * c + s)).CopyTo(ee, DataAt);
                    if (Libc.epoll_ctl(w.epfd, Libc.EPOLL_CTL_ADD, sv[s], ee) != 0)
                        throw SysErr("epoll_ctl(EPOLL_CTL_ADD)");
                }
            }
            var ev = new byte[MaxEvents * Stride]; // the registrations' first events: not the run's
            int got;
            while ((got = Libc.epoll_wait(w.epfd, ev, MaxEvents, 0)) > 0)
                ;
            if (got < 0)
                throw SysErr("epoll_wait");
        } catch {
            ulong ops, sum;
            w.Finish(out ops, out sum); // closes what was opened
            throw;
        } finally {
            if (lfd >= 0)
                Libc.close(lfd);
        }
        return w;
    }
}
