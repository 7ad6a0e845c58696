// io (workloads/io.c, docs/workloads-io.md): `conns` echo connections over the same transports
// as the C cells (AF_UNIX socketpairs, or loopback TCP with TCP_NODELAY and linger 0), a
// goroutine at each end. The netpoller does what the C io body does by hand: every read and
// write is tried first through the connection's RawConn, and only EAGAIN parks the goroutine
// until epoll reports the socket ready (that EAGAIN is the counted suspension, as in C).
// The content, verification and hashing are those of io.c, so the checksum is the same.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

type ioEp struct {
	nc      net.Conn
	raw     syscall.RawConn
	started uint32 // set (atomically) at the owner's first suspension or when it ends
	conn    uint64 // the connection's id, for errors
	// The transfer in progress (pump): buf[off:] to move, its direction, its failure; skip
	// makes the first call wait for readiness without a system call.
	buf  []byte
	off  int
	wr   bool
	skip bool
	err  error
	// waiting: the last try of this transfer hit EAGAIN (counted) and nothing has moved since.
	// The netpoller may call again with no readiness (a token left from an earlier event,
	// before this wait began: when one is left depends on when the scheduler polled); that
	// EAGAIN is the same wait going on, not another suspension. Counting it made a run's
	// suspensions one more than io.c's now and then (3201 for 3200 under load).
	waiting bool
	// The write of an exchange: w[woff:] still to go; blocked when it hit EAGAIN.
	w       []byte
	woff    int
	blocked bool
	step    func(fd uintptr) bool // e.transfer, bound once
	xstep   func(fd uintptr) bool // e.exchangeStep, bound once
}

type ioConn struct {
	id         uint64
	ep         [2]ioEp // [0] server, [1] client
	tx, rx, sb []byte
	hc, hs     uint64
}

type ioInst struct {
	conns, msgs, size uint64
	conn              []ioConn
	done              sync.WaitGroup
	faultOnce         sync.Once
	fault             error
}

func (in *ioInst) fail(err error) { in.faultOnce.Do(func() { in.fault = err }) }

func ioLoad64(b []byte) uint64 {
	var w uint64
	for k := 7; k >= 0; k-- {
		w = w<<8 | uint64(b[k])
	}
	return w
}

// Byte j of message m on connection c: a function of (c, m, j) only (io.c's io_fill).
func ioFill(buf []byte, id, m uint64) {
	seed := mix(mix(0x10, id), m)
	n := uint64(len(buf))
	for j := uint64(0); j < n; j += 8 {
		w := seed + (j>>3)*0x9e3779b97f4a7c15
		w ^= w >> 29
		for k := uint64(0); k < 8 && j+k < n; k++ {
			buf[j+k] = byte(w >> (8 * k))
		}
	}
}

func ioHash(h uint64, b []byte) uint64 {
	n := len(b)
	j := 0
	for ; j+8 <= n; j += 8 {
		h = mix(h, ioLoad64(b[j:]))
	}
	var tail uint64
	for k := n; k > j; k-- {
		tail = tail<<8 | uint64(b[k-1])
	}
	return mix(h, tail^uint64(n)<<56)
}

// pump moves all of buf: each call is tried first; EAGAIN returns false to the netpoller,
// which parks the goroutine until the socket is ready and calls again. The transfer's state
// lives in the endpoint and its callback is made once in setup, so a transfer allocates
// nothing: garbage would bring collections, whose stop-the-world reorders the goroutines.
func pump(e *ioEp, buf []byte, wr bool) error {
	e.buf, e.off, e.wr, e.err, e.waiting = buf, 0, wr, nil, false
	var err error
	if wr {
		err = e.raw.Write(e.step)
	} else {
		err = e.raw.Read(e.step)
	}
	if e.err != nil {
		return e.err
	}
	return err
}

// transfer is the callback of pump: false when the socket would block. nosplit, as
// exchangeStep: no stack check, so no point where a requested preemption could be taken.
//
//go:nosplit
func (e *ioEp) transfer(fd uintptr) bool {
	if e.skip {
		e.skip = false
		return false
	}
	for e.off < len(e.buf) {
		// A raw system call: the socket is non-blocking, so the call never blocks, and the
		// scheduler must not hand this goroutine's P to another thread while it runs
		// (syscall.Write would allow that after 20 us, letting the peer run in parallel and
		// change which reads find their bytes already there).
		sys := uintptr(syscall.SYS_READ)
		if e.wr {
			sys = syscall.SYS_WRITE
		}
		p := e.buf[e.off:]
		r, _, errno := syscall.RawSyscall(sys, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		switch {
		case errno == 0 && r > 0:
			e.off += int(r)
			e.waiting = false
		case errno == syscall.EAGAIN:
			if !e.waiting {
				suspensions++
				e.waiting = true
			}
			atomic.StoreUint32(&e.started, 1)
			return false
		case errno == syscall.EINTR:
		case errno != 0:
			e.err = fmt.Errorf("io: conn %d: %s: %v", e.conn, map[bool]string{true: "send", false: "recv"}[e.wr], errno)
			return true
		default:
			e.err = fmt.Errorf("io: conn %d: recv: peer closed the connection", e.conn)
			return true
		}
	}
	return true
}

// exchange writes all of w, then reads all of r into r. The read is tried in the same netpoller
// callback the write completed in: raw system calls only, no Go call, so no scheduling point
// between them where a preemption (sysmon preempts a goroutine whose thread the kernel held
// for 10 ms) could let the peer answer first and spare the read its EAGAIN. When the write
// itself would block, the goroutine waits for writability as io.c's does, then reads.
func exchange(e *ioEp, w, r []byte) error {
	e.w, e.woff, e.blocked = w, 0, false
	e.buf, e.off, e.wr, e.err, e.waiting = r, 0, false, nil, false
	err := e.raw.Read(e.xstep)
	if e.err != nil || err != nil || !e.blocked {
		if e.err != nil {
			return e.err
		}
		return err
	}
	e.buf, e.off, e.wr, e.skip = w, e.woff, true, true
	if err = e.raw.Write(e.step); err == nil && e.err == nil {
		return pump(e, r, false)
	}
	if e.err != nil {
		return e.err
	}
	return err
}

// exchangeStep is the callback of exchange: the write's rest, then the read, both by transfer.
//
//go:nosplit
func (e *ioEp) exchangeStep(fd uintptr) bool {
	if e.woff < len(e.w) {
		rbuf := e.buf
		e.buf, e.off, e.wr = e.w, e.woff, true
		done := e.transfer(fd)
		e.woff = e.off
		if !done { // the write would block (counted): leave, wait for writability
			e.blocked = true
			return true
		}
		if e.err != nil {
			return true
		}
		e.buf, e.off, e.wr = rbuf, 0, false
	}
	return e.transfer(fd)
}

func (in *ioInst) server(c *ioConn) {
	defer in.done.Done()
	defer atomic.StoreUint32(&c.ep[0].started, 1)
	if err := pump(&c.ep[0], c.sb, false); err != nil {
		in.fail(err)
		return
	}
	for i := uint64(0); i < in.msgs; i++ {
		c.hs = ioHash(c.hs, c.sb)
		var err error
		if i+1 < in.msgs { // the echo, then the next message
			err = exchange(&c.ep[0], c.sb, c.sb)
		} else {
			err = pump(&c.ep[0], c.sb, true)
		}
		if err != nil {
			in.fail(err)
			return
		}
	}
}

func (in *ioInst) client(c *ioConn) {
	defer in.done.Done()
	defer atomic.StoreUint32(&c.ep[1].started, 1)
	for i := uint64(0); i < in.msgs; i++ {
		ioFill(c.tx, c.id, i)
		if err := exchange(&c.ep[1], c.tx, c.rx); err != nil { // the message, then its echo
			in.fail(err)
			return
		}
		if !bytes.Equal(c.rx, c.tx) {
			at := 0
			for c.rx[at] == c.tx[at] {
				at++
			}
			in.fail(fmt.Errorf("io: conn %d msg %d: echo differs at byte %d (sent 0x%02x, got 0x%02x)",
				c.id, i, at, c.tx[at], c.rx[at]))
			return
		}
		c.hc = ioHash(c.hc, c.rx)
	}
}

func ioEndpoint(conn net.Conn) (ioEp, error) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return ioEp{}, errors.New("io: connection has no raw descriptor")
	}
	raw, err := sc.SyscallConn()
	return ioEp{nc: conn, raw: raw}, err
}

func ioUnixPair() (net.Conn, net.Conn, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("io: socketpair(AF_UNIX): %v", err)
	}
	var c [2]net.Conn
	for s := 0; s < 2; s++ {
		f := os.NewFile(uintptr(fds[s]), "socketpair")
		c[s], err = net.FileConn(f) // a duplicate registered with the netpoller
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("io: socketpair: %v", err)
		}
	}
	return c[0], c[1], nil
}

func ioTCPPair(ln *net.TCPListener) (net.Conn, net.Conn, error) {
	cl, err := net.DialTCP("tcp", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		return nil, nil, fmt.Errorf("io: connect(127.0.0.1): %v", err)
	}
	sv, err := ln.AcceptTCP()
	if err != nil {
		return nil, nil, fmt.Errorf("io: accept: %v", err)
	}
	for _, t := range []*net.TCPConn{sv, cl} {
		t.SetNoDelay(true)
		t.SetLinger(0) // close sends a reset: no TIME_WAIT sockets left by repeated runs
	}
	return sv, cl, nil
}

func ioSetup(p params) (instance, error) {
	r := paramReader{p: p}
	conns, msgs, size := r.int("conns"), r.int("msgs"), r.int("size")
	transport := r.choice("transport", "unix", "tcp")
	if r.err != nil {
		return nil, fmt.Errorf("io: %v", r.err)
	}
	wmem := int64(212992) // the Linux default
	if b, err := os.ReadFile("/proc/sys/net/core/wmem_default"); err == nil {
		fmt.Sscan(string(b), &wmem)
	}
	if size > wmem {
		return nil, unsupported{fmt.Sprintf("io: size=%d exceeds the socket buffer "+
			"(net.core.wmem_default=%d): its pieces depend on when the peer goroutine runs, so "+
			"the suspensions are not io.c's (valid here: size up to %d)", size, wmem, wmem)}
	}
	var err error
	in := &ioInst{conns: uint64(conns), msgs: uint64(msgs), size: uint64(size),
		conn: make([]ioConn, conns)}
	var ln *net.TCPListener
	if transport == "tcp" {
		if ln, err = net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}); err != nil {
			return nil, fmt.Errorf("io: listen: %v", err)
		}
		defer ln.Close()
	}
	bufs := bytes.Repeat([]byte{0xa5}, int(3*size*conns)) // touched now, not in the run
	for c := range in.conn {
		k := &in.conn[c]
		b := bufs[3*int(size)*c:]
		k.id, k.tx, k.rx, k.sb = uint64(c), b[:size], b[size:2*size], b[2*size:3*size]
		var sv, cl net.Conn
		if ln != nil {
			sv, cl, err = ioTCPPair(ln)
		} else {
			sv, cl, err = ioUnixPair()
		}
		if err == nil {
			if k.ep[0], err = ioEndpoint(sv); err == nil {
				k.ep[1], err = ioEndpoint(cl)
			}
		}
		if err != nil {
			in.close()
			return nil, err
		}
		for s := range k.ep {
			k.ep[s].conn, k.ep[s].step, k.ep[s].xstep = k.id, k.ep[s].transfer, k.ep[s].exchangeStep
		}
	}
	return in, nil
}

// run starts the goroutines in io.c's order (server 0, client 0, server 1, ...), each running
// until its first suspension (the driver yields the processor until it has), as io.c's run
// starts its coroutines; then it waits for all of them.
func (in *ioInst) run() error {
	in.done.Add(int(2 * in.conns))
	for c := range in.conn {
		k := &in.conn[c]
		go in.server(k)
		for atomic.LoadUint32(&k.ep[0].started) == 0 {
			runtime.Gosched()
		}
		go in.client(k)
		for atomic.LoadUint32(&k.ep[1].started) == 0 {
			runtime.Gosched()
		}
	}
	in.done.Wait()
	return in.fault
}

func (in *ioInst) close() {
	for c := range in.conn {
		for s := 0; s < 2; s++ {
			if in.conn[c].ep[s].nc != nil {
				in.conn[c].ep[s].nc.Close()
			}
		}
	}
}

func (in *ioInst) finish() (uint64, uint64) {
	var sum uint64
	for c := range in.conn {
		k := &in.conn[c]
		sum += mix(mix(k.id, k.hs), k.hc)
	}
	in.close()
	return in.conns * in.msgs, mix(mix(mix(sum, in.conns), in.msgs), in.size)
}
