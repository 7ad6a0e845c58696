// io (workloads/io.c, docs/workloads-io.md) over Node's net sockets: `conns` echo connections,
// an async function at each end. Node has no socketpair: transport=unix connects AF_UNIX stream
// sockets through a listening path in a fresh temporary directory (the same kernel socket type
// as a socketpair), transport=tcp connects to 127.0.0.1 on an ephemeral port with TCP_NODELAY
// and closes with a reset (linger 0), as io.c does. libuv's epoll loop drives them.
// A suspension is an await that had to wait: a read whose bytes had not all arrived, or a
// write that Node could not hand to the kernel at once (write() returned false: await 'drain').
// When a message fits the socket buffers that is the C count, 2 per message; bigger messages
// arrive in pieces that Node gathers before the await resumes, so they would count once per read
// where C counts every EAGAIN: those points are unsupported (docs/external.md). Content,
// verification and hashing are io.c's.
import net from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { r, mix, mul, add, shr } from './u64.mjs';
import { rt, int, str } from './rt.mjs';

const K_H = 0x9e3779b9 | 0, K_L = 0x7f4a7c15;

// One socket and what its owner is waiting to read.
class Ep {
    constructor(sock) {
        this.sock = sock;
        this.buf = null; // the read in progress: fill buf[off, buf.length)
        this.off = 0;
        this.wake = null;
        this.spare = []; // bytes that came before a read asked for them
        this.error = null;
        sock.on('data', chunk => this.onData(chunk));
        sock.on('error', e => this.onError(e));
        sock.on('end', () => this.onError(new Error('peer closed the connection')));
    }
    onData(chunk) {
        if (!this.buf || this.off === this.buf.length) {
            this.spare.push(chunk);
            return;
        }
        const n = Math.min(chunk.length, this.buf.length - this.off);
        chunk.copy(this.buf, this.off, 0, n);
        this.off += n;
        if (n < chunk.length) this.spare.push(chunk.subarray(n));
        if (this.off === this.buf.length && this.wake) {
            const w = this.wake;
            this.wake = null;
            w();
        }
    }
    onError(e) {
        this.error = this.error ?? e;
        if (this.wake) {
            const w = this.wake;
            this.wake = null;
            w();
        }
    }
    // Fills buf; null when the bytes are already here, else a promise to await (a suspension).
    read(buf) {
        this.buf = buf;
        this.off = 0;
        while (this.spare.length && this.off < buf.length) {
            const c = this.spare.shift();
            const n = Math.min(c.length, buf.length - this.off);
            c.copy(buf, this.off, 0, n);
            this.off += n;
            if (n < c.length) this.spare.unshift(c.subarray(n));
        }
        if (this.off === buf.length) return null;
        rt.suspensions++;
        return new Promise(res => { this.wake = res; });
    }
    // null when the kernel took it all, else a promise for 'drain' (a suspension).
    write(buf) {
        if (this.sock.write(buf)) return null;
        rt.suspensions++;
        return new Promise(res => this.sock.once('drain', res));
    }
}

// Byte j of message m on connection c (io.c's io_fill).
function fill(buf, id, m) {
    let sl = mix(0, 0x10, 0, id), sh = r.h;
    sl = mix(sh, sl, 0, m);
    sh = r.h;
    const n = buf.length;
    for (let j = 0; j < n; j += 8) {
        const kl = mul(0, j >>> 3, K_H, K_L);
        let wl = add(sh, sl, r.h, kl), wh = r.h;
        const xl = shr(wh, wl, 29);
        wl ^= xl;
        wh ^= r.h;
        for (let k = 0; k < 8 && j + k < n; k++)
            buf[j + k] = (k < 4 ? wl >>> (8 * k) : wh >>> (8 * (k - 4))) & 0xff;
    }
}

// Folds a message into h, a little-endian word at a time (io.c's io_hash); h is [hi, lo].
function hash(h, b) {
    const n = b.length;
    let hh = h[0], hl = h[1], j = 0;
    for (; j + 8 <= n; j += 8) {
        hl = mix(hh, hl, b.readInt32LE(j + 4), b.readInt32LE(j));
        hh = r.h;
    }
    let th = 0, tl = 0;
    for (let k = n; k > j; k--) { // tail = tail << 8 | b[k - 1]
        th = (th << 8) | (tl >>> 24);
        tl = (tl << 8) | b[k - 1];
    }
    hl = mix(hh, hl, th ^ ((n & 0xff) << 24), tl);
    h[0] = r.h;
    h[1] = hl;
}

function fault(inst, c, what) {
    inst.fault = inst.fault ?? new Error(`io: conn ${c.id}: ${what}`);
}

async function server(inst, c) {
    const e = c.ep[0];
    for (let i = 0; i < inst.msgs && !inst.fault; i++) {
        const p = e.read(c.sb);
        if (p) await p;
        if (e.error) return fault(inst, c, `recv: ${e.error.message}`);
        hash(c.hs, c.sb);
        const q = e.write(c.sb);
        if (q) await q;
    }
}

async function client(inst, c) {
    const e = c.ep[1];
    for (let i = 0; i < inst.msgs && !inst.fault; i++) {
        fill(c.tx, c.id, i);
        const q = e.write(c.tx);
        if (q) await q;
        const p = e.read(c.rx);
        if (p) await p;
        if (e.error) return fault(inst, c, `recv: ${e.error.message}`);
        if (!c.rx.equals(c.tx)) {
            let at = 0;
            while (c.rx[at] === c.tx[at]) at++;
            return fault(inst, c, `msg ${i}: echo differs at byte ${at} (sent 0x${c.tx[at].toString(16)}, got 0x${c.rx[at].toString(16)})`);
        }
        hash(c.hc, c.rx);
    }
}

function once(emitter, ok, name) {
    return new Promise((res, rej) => {
        emitter.once(ok, res);
        emitter.once('error', e => rej(new Error(`io: ${name}: ${e.message}`)));
    });
}

// Why this point cannot be compared with C, or null.
export function unsupported(params) {
    let wmem = 212992;
    try {
        wmem = parseInt(readFileSync('/proc/sys/net/core/wmem_default', 'utf8'), 10) || wmem;
    } catch { /* the Linux default */ }
    if (params.size > wmem)
        return `io: size=${params.size} exceeds the socket buffer (net.core.wmem_default=${wmem}): ` +
               'Node gathers the pieces of a message before its await resumes, so the suspensions ' +
               `are not io.c's EAGAINs (valid here: size up to ${wmem})`;
    return null;
}

export async function setup(params) {
    const conns = int(params, 'conns'), msgs = int(params, 'msgs'), size = int(params, 'size');
    const tcp = str(params, 'transport', ['unix', 'tcp']) === 'tcp';
    const inst = { msgs, conn: [], fault: null, tcp };
    const srv = net.createServer({ noDelay: tcp });
    let dir = null, addr;
    if (tcp) {
        srv.listen(0, '127.0.0.1');
        await once(srv, 'listening', 'listen(127.0.0.1)');
        addr = { port: srv.address().port, host: '127.0.0.1', noDelay: true };
    } else {
        dir = mkdtempSync(join(tmpdir(), 'corobench-io-'));
        srv.listen(join(dir, 's'));
        await once(srv, 'listening', 'listen(unix)');
        addr = { path: join(dir, 's') };
    }
    const accepted = [];
    srv.on('connection', s => accepted.push(s));
    try {
        for (let c = 0; c < conns; c++) { // one at a time, so the accepted socket is c's
            const cl = net.connect(addr);
            await once(cl, 'connect', tcp ? 'connect(127.0.0.1)' : 'connect(unix)');
            while (accepted.length === 0) await new Promise(res => setImmediate(res));
            const sv = accepted.shift();
            if (tcp) sv.setNoDelay(true);
            const b = Buffer.alloc(3 * size, 0xa5); // touched now, not in the run
            inst.conn.push({ id: c, ep: [new Ep(sv), new Ep(cl)], tx: b.subarray(0, size),
                             rx: b.subarray(size, 2 * size), sb: b.subarray(2 * size),
                             hc: [0, 0], hs: [0, 0] });
        }
    } finally {
        srv.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
    }
    return {
        async run() {
            const all = [];
            for (const c of inst.conn) { // io.c's start order: server c, then client c
                all.push(server(inst, c));
                all.push(client(inst, c));
            }
            await Promise.all(all);
            if (inst.fault) throw inst.fault;
        },
        finish() {
            let sh = 0, sl = 0;
            for (const c of inst.conn) {
                let l = mix(0, c.id, c.hs[0], c.hs[1]);
                l = mix(r.h, l, c.hc[0], c.hc[1]);
                sl = add(sh, sl, r.h, l);
                sh = r.h;
                for (const e of c.ep) tcp ? e.sock.resetAndDestroy() : e.sock.destroy();
            }
            let l = mix(sh, sl, 0, conns);
            l = mix(r.h, l, 0, msgs);
            l = mix(r.h, l, 0, size);
            return { ops: conns * msgs, h: r.h, l };
        },
    };
}
