// pingpong (workloads/pingpong.c): goroutines A and B hand a value back and forth `switches`
// times through unbuffered channels, each at the bottom of a chain of `depth` non-inlined calls.
// One op = one hand-off (one suspension). With GOMAXPROCS=1 a send to the waiting peer makes it
// runnable and the sender's receive parks the sender: one goroutine switch per op.
// `sites` only picks the salt here (B uses A's with sites=same): Go has no control over code
// copies, so the return-address aliasing that sites studies in C does not apply.
package main

import (
	"fmt"
	"math/bits"
	"runtime"
)

type ppShared struct {
	remaining, checksum, final uint64
	depth                      int64
	done                       chan struct{}
}

type ppSide struct {
	sh    *ppShared
	salt  uint64
	in    chan uint64 // what the other side hands to this one
	other *ppSide
}

type ppInst struct {
	sh       ppShared
	side     [2]ppSide
	switches uint64
}

func ppDown(v uint64, level int64, salt uint64) uint64 {
	return (v^uint64(level))*0x100000001b3 + salt
}
func ppUp(v uint64, level int64) uint64 { return bits.RotateLeft64(v, 7) + uint64(level) }

// handoff gives v to the other side and waits for its answer. A closed channel means the run
// is over and this side was left waiting: it exits.
func (s *ppSide) handoff(v uint64) uint64 {
	suspensions++
	s.other.in <- v
	got, ok := <-s.in
	if !ok {
		runtime.Goexit()
	}
	s.sh.checksum = mix(s.sh.checksum, got)
	return got
}

// step is one chain level; levels 1..depth are separate calls.
//
//go:noinline
func (s *ppSide) step(level int64, v uint64) uint64 {
	if level == s.sh.depth {
		return s.handoff(v)
	}
	return ppUp(s.step(level+1, ppDown(v, level, s.salt)), level)
}

func (s *ppSide) loop() {
	v, ok := <-s.in // A: the first value from run; B: A's first hand-off
	if !ok {
		return
	}
	for s.sh.remaining > 0 {
		s.sh.remaining--
		if s.sh.depth == 0 { // level 0 is the loop itself
			v = s.handoff(v)
		} else {
			v = ppUp(s.step(1, ppDown(v, 0, s.salt)), 0)
		}
	}
	s.sh.final = v
	s.sh.done <- struct{}{}
}

func ppSetup(p params) (instance, error) {
	r := paramReader{p: p}
	depth, switches := r.int("depth"), r.int("switches")
	sites := r.choice("sites", "distinct", "same")
	if r.err != nil {
		return nil, fmt.Errorf("pingpong: %v", r.err)
	}
	w := &ppInst{switches: uint64(switches)}
	w.sh = ppShared{remaining: uint64(switches), depth: depth, done: make(chan struct{})}
	salts := [2]uint64{0x0a, 0x0b}
	if sites == "same" {
		salts[1] = 0x0a
	}
	for i := range w.side {
		w.side[i] = ppSide{sh: &w.sh, salt: salts[i], in: make(chan uint64), other: &w.side[1-i]}
	}
	for i := range w.side { // both goroutines exist before the clock starts, as C's coroutines
		go w.side[i].loop()
	}
	return w, nil
}

func (w *ppInst) run() error {
	w.side[0].in <- 0x1234567890abcdef
	<-w.sh.done
	return nil
}

func (w *ppInst) finish() (uint64, uint64) {
	close(w.side[0].in) // releases the side left waiting (and B if it never started)
	close(w.side[1].in)
	return w.switches, mix(w.sh.checksum, w.sh.final)
}
