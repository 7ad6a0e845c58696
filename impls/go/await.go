// await (workloads/await.c): a task goroutine makes `calls` top-level calls in sequence, each a
// chain of `depth` nested plain Go calls whose innermost awaits a value. One call in
// `suspend_every` finds it missing and blocks on an unbuffered channel until the driver sends it
// (the goroutine parks, as on a read the netpoller completes later); the others take it at once.
// Go has no async functions: a blocking call in a goroutine is its way to await. One op = one
// top-level call.
package main

import (
	"fmt"
	"math/bits"
	"strconv"
)

type awInst struct {
	calls, every uint64
	depth        int64
	i, checksum  uint64
	start        chan struct{}
	val          chan uint64
	done         chan struct{}
}

func awArg(i uint64) uint64   { return i*0x2545f4914f6cdd1d + 0x1234567 }
func awValue(i uint64) uint64 { return (i ^ 0x5bd1e995) * 0x9e3779b97f4a7c15 }
func awDown(v uint64, level int64) uint64 {
	return (v^uint64(level))*0x100000001b3 + 0x0c
}
func awUp(v uint64, level int64) uint64 { return bits.RotateLeft64(v, 7) + uint64(level) }
func (w *awInst) suspends(i uint64) bool {
	return w.every != 0 && i%w.every == w.every-1
}

func (w *awInst) chain(level int64, v uint64) uint64 {
	if level < w.depth {
		return awUp(w.chain(level+1, awDown(v, level)), level)
	}
	var got uint64
	if w.suspends(w.i) {
		suspensions++
		got = <-w.val
	} else {
		got = awValue(w.i)
	}
	return awUp(v+got, level)
}

func awSetup(p params) (instance, error) {
	r := paramReader{p: p}
	w := &awInst{calls: uint64(r.int("calls")), depth: r.int("depth"),
		start: make(chan struct{}), val: make(chan uint64), done: make(chan struct{})}
	k := r.choice("suspend_every", "1", "10", "100", "never")
	if r.err != nil {
		return nil, fmt.Errorf("await: %v", r.err)
	}
	if k != "never" {
		w.every, _ = strconv.ParseUint(k, 10, 64)
	}
	go func() { // created before the clock starts, as C's task coroutine
		if _, ok := <-w.start; !ok {
			return
		}
		for w.i = 0; w.i < w.calls; w.i++ {
			w.checksum = mix(w.checksum, w.chain(0, awArg(w.i)))
		}
		close(w.done)
	}()
	return w, nil
}

func (w *awInst) run() error {
	w.start <- struct{}{}
	for i := uint64(0); i < w.calls; i++ {
		if w.suspends(i) {
			w.val <- awValue(i) // the value arrives: the parked call resumes
		}
	}
	<-w.done
	return nil
}

func (w *awInst) finish() (uint64, uint64) {
	close(w.start)
	return w.calls, w.checksum
}
