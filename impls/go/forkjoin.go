// forkjoin (docs/sched.md, "Workloads"): a tree of tasks, each a goroutine that starts one
// goroutine per child, waits for them on a sync.WaitGroup and returns its value plus theirs.
// Go's scheduler runs them over GOMAXPROCS = `workers` threads (per-P run queues, stealing half
// of a victim's queue, a global queue). One op = one task; one suspension = one task that waits
// for its children (every inner node: counted by the protocol, whether or not the wait parks).
package main

import (
	"fmt"
	"sync"
)

type fjInst struct {
	fanout, leafWork, q uint64
	depth               int64
	unbalanced          bool
	sum, tasks, inner   uint64
}

// fjResult is what a subtree returns: its sum, its tasks and its inner nodes (the last two
// counted per subtree and added up by the parents, so the goroutines share no counter).
type fjResult struct{ sum, tasks, inner uint64 }

func (w *fjInst) nchildren(id uint64, level int64) uint64 {
	if level >= w.depth {
		return 0
	}
	if !w.unbalanced || level == 0 || spHash(id)%1000 < w.q {
		return w.fanout
	}
	return 0
}

func (w *fjInst) task(id uint64, level int64) fjResult {
	n := w.nchildren(id, level)
	v := spHash(id) // the definition's mix: splitmix64's finaliser, as spawn's hash
	if n == 0 {
		for k := uint64(0); k < w.leafWork; k++ {
			v = spHash(v)
		}
		return fjResult{v, 1, 0}
	}
	kids := make([]fjResult, n)
	var wg sync.WaitGroup
	wg.Add(int(n))
	for i := uint64(0); i < n; i++ {
		go func(i uint64) {
			kids[i] = w.task(id*w.fanout+i+1, level+1)
			wg.Done()
		}(i)
	}
	wg.Wait()
	r := fjResult{v, 1, 1}
	for _, k := range kids {
		r.sum += k.sum
		r.tasks += k.tasks
		r.inner += k.inner
	}
	return r
}

func fjSetup(p params) (instance, error) {
	r := paramReader{p: p}
	w := &fjInst{fanout: uint64(r.int("fanout")), depth: r.int("depth"),
		leafWork: uint64(r.int("leaf_work")), q: uint64(r.int("q"))}
	w.unbalanced = r.choice("shape", "balanced", "unbalanced") == "unbalanced"
	if r.err != nil {
		return nil, fmt.Errorf("forkjoin: %v", r.err)
	}
	return w, nil
}

func (w *fjInst) run() error {
	r := w.task(0, 0)
	w.sum, w.tasks, w.inner = r.sum, r.tasks, r.inner
	suspensions += r.inner // on the driver's goroutine, after the join
	return nil
}

func (w *fjInst) finish() (uint64, uint64) { return w.tasks, w.sum }
