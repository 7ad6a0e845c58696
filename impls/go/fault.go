// fault (workloads/fault.c, docs/fault.md): the harness's self-test, not a benchmark. A goroutine
// hands a value over once (the suspension) and, resumed, commits the fault `kind` names inside
// itself, in Go's own terms; nothing recovers it, so the program dies (or spins, or exits)
// without a reply and the harness must record the cell with the reason:
//
//	segv      a store through a nil pointer: the runtime turns the SIGSEGV into the panic
//	          "runtime error: invalid memory address or nil pointer dereference", unrecovered:
//	          the program prints it and exits with status 2
//	overflow  unbounded recursion on the goroutine's stack, which Go grows until the limit
//	          debug.SetMaxStack sets (1 MiB here, not the default 1 GB, so the cell dies in
//	          milliseconds): "fatal error: stack overflow", exit status 2
//	hang      spins forever (the harness's timeout must end it)
//	abort     raises SIGABRT on its own thread, as C's abort() does; Go's handler prints
//	          "SIGABRT: abort" and every goroutine's stack and exits with status 2 (Go has no
//	          abort of its own; an unrecovered panic is what segv shows)
//	exit      os.Exit(0): the program ends "successfully" without a reply
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"syscall"
)

// The stack limit of the overflow kind: far above what any workload here needs, far below the
// default 1 GB, whose growth would take seconds and gigabytes.
const flMaxStack = 1 << 20

type flInst struct {
	kind   string
	resume chan struct{}
	out    chan uint64
	never  chan struct{}
}

// A nil pointer the compiler cannot prove nil, so the store is a real one.
var flNull *int64
var flSink uint64

// flRecurse recurses without bound: a frame of live locals per level and work after the call,
// so it is neither a loop nor a tail call.
//
//go:noinline
func flRecurse(n uint64) uint64 {
	var pad [32]uint64
	pad[n%32] = n
	return flRecurse(n+1) + pad[(n+7)%32]
}

// flCommit never returns.
func flCommit(kind string) {
	switch kind {
	case "segv":
		*flNull = 1
	case "overflow":
		flSink = flRecurse(0)
	case "hang":
		for {
		}
	case "abort":
		syscall.Tgkill(syscall.Getpid(), syscall.Gettid(), syscall.SIGABRT)
		for { // the signal is taken on this thread before Tgkill returns; never reached
		}
	case "exit":
		os.Exit(0)
	}
	panic("fault: kind " + kind + " did not fault") // a bug of this file
}

func flSetup(p params) (instance, error) {
	r := paramReader{p: p}
	kind := r.choice("kind", "segv", "overflow", "hang", "abort", "exit")
	if r.err != nil {
		return nil, fmt.Errorf("fault: %v", r.err)
	}
	if kind == "overflow" {
		debug.SetMaxStack(flMaxStack)
	}
	w := &flInst{kind: kind, resume: make(chan struct{}), out: make(chan uint64),
		never: make(chan struct{})}
	go func() { // created before the clock starts
		suspensions++
		w.out <- 1 // the one real suspension: parked until run takes the value
		<-w.resume
		flCommit(w.kind)
	}()
	return w, nil
}

func (w *flInst) run() error {
	<-w.out
	w.resume <- struct{}{} // the second resume: the goroutine faults
	<-w.never              // nothing ever arrives: the fault ends the program
	return nil
}

func (w *flInst) finish() (uint64, uint64) { return 1, mix(0, 1) }
