// yieldstorm (docs/sched.md, "Workloads"): `coros` goroutines, all started by the run, each
// yielding `yields` times with runtime.Gosched() (the goroutine goes to the global run queue
// and its P runs the next one; an idle P steals), its state mixed after each yield. They report
// their final states on a WaitGroup-guarded slice. GOMAXPROCS = `workers`. One op = one yield,
// each one suspension.
package main

import (
	"fmt"
	"runtime"
	"sync"
)

type ysInst struct {
	coros, yields, checksum uint64
	states                  []uint64
}

func ysSetup(p params) (instance, error) {
	r := paramReader{p: p}
	w := &ysInst{coros: uint64(r.int("coros")), yields: uint64(r.int("yields"))}
	if r.err != nil {
		return nil, fmt.Errorf("yieldstorm: %v", r.err)
	}
	w.states = make([]uint64, w.coros)
	return w, nil
}

func (w *ysInst) run() error {
	var wg sync.WaitGroup
	wg.Add(int(w.coros))
	for id := uint64(0); id < w.coros; id++ {
		go func(id uint64) {
			s := spHash(id) // the definition's mix: splitmix64's finaliser, as spawn's hash
			for k := uint64(0); k < w.yields; k++ {
				runtime.Gosched()
				s = spHash(s ^ k)
			}
			w.states[id] = s
			wg.Done()
		}(id)
	}
	wg.Wait()
	suspensions += w.coros * w.yields // every Gosched, counted once the goroutines are joined
	return nil
}

func (w *ysInst) finish() (uint64, uint64) {
	w.checksum = 0
	for _, s := range w.states {
		w.checksum += s
	}
	return w.coros * w.yields, w.checksum
}
