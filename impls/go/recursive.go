// recursive (workloads/recursive.c): a generator goroutine walks a complete binary tree of
// `height` levels in order by plain recursion and sends each node's value on an unbuffered
// channel; the consumer folds what it receives. One op = one node (one suspension).
package main

import "fmt"

type rcInst struct {
	height   int64
	checksum uint64
	start    chan struct{}
	out      chan uint64
}

func rcValue(id uint64) uint64 { return id*0x9e3779b97f4a7c15 ^ (id >> 3) }

func (w *rcInst) walk(id uint64, level int64) {
	if level+1 < w.height {
		w.walk(2*id, level+1)
	}
	suspensions++
	w.out <- rcValue(id)
	if level+1 < w.height {
		w.walk(2*id+1, level+1)
	}
}

func rcSetup(p params) (instance, error) {
	r := paramReader{p: p}
	h := r.int("height")
	if r.err != nil {
		return nil, fmt.Errorf("recursive: %v", r.err)
	}
	w := &rcInst{height: h, start: make(chan struct{}), out: make(chan uint64)}
	go func() { // created before the clock starts, as C's generator coroutine
		if _, ok := <-w.start; !ok {
			return
		}
		w.walk(1, 0)
		close(w.out)
	}()
	return w, nil
}

func (w *rcInst) run() error {
	w.start <- struct{}{}
	v, ok := <-w.out
	atRest(1) // the generator is at its deepest: the leftmost leaf
	for ; ok; v, ok = <-w.out {
		w.checksum = mix(w.checksum, v)
	}
	return nil
}

func (w *rcInst) finish() (uint64, uint64) {
	close(w.start)
	return uint64(1)<<w.height - 1, w.checksum
}
