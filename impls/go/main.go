// corobench-go: the corobench workloads on goroutines and channels, driven by the external
// runtime protocol (docs/external.md): one JSON request as the argument (or on stdin), one JSON
// reply on stdout.
// The program times its own repetitions with Go's monotonic clock; setup and finish of every
// instance stay outside the timed region, as in the C cells.
package main

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
)

const protocol = "corobench-external/1"

// suspensions counts the points where a goroutine gives up control by the workload's protocol
// (a channel hand-off at the bottom of a chain, a yield, an EAGAIN): one add per suspension, as
// the C runtimes charge it.
var suspensions uint64

// The checksum step of workloads/workload.h: rotate left 23, xor, multiply.
func mix(h, v uint64) uint64 { return (bits.RotateLeft64(h, 23) ^ v) * 0x9e3779b97f4a7c15 }

type request struct {
	Protocol   string                     `json:"protocol"`
	Workload   string                     `json:"workload"`
	Params     map[string]json.RawMessage `json:"params"`
	Warmup     int                        `json:"warmup"`
	Reps       int                        `json:"reps"`
	Batch      json.RawMessage            `json:"batch"`
	MinRepMs   float64                    `json:"min_rep_ms"`
	MaxBatch   uint64                     `json:"max_batch"`
	WarmupMs   float64                    `json:"warmup_ms"`
	MemoryPass bool                       `json:"memory"`
}

type params map[string]json.RawMessage

// paramReader reads a workload's parameters, keeping the first error for the caller to check
// once after reading them all.
type paramReader struct {
	p   params
	err error
}

func (r *paramReader) get(name string, v interface{}) {
	raw, ok := r.p[name]
	if !ok {
		r.err = fmt.Errorf("parameter %s missing", name)
	} else if err := json.Unmarshal(raw, v); err != nil {
		r.err = fmt.Errorf("parameter %s: %v", name, err)
	}
}

func (r *paramReader) int(name string) int64 {
	var v int64
	if r.err == nil {
		r.get(name, &v)
	}
	return v
}

// choice reads a string parameter that must be one of valid.
func (r *paramReader) choice(name string, valid ...string) string {
	var v string
	if r.err == nil {
		r.get(name, &v)
	}
	for _, c := range valid {
		if r.err == nil && v == c {
			return v
		}
	}
	if r.err == nil {
		r.err = fmt.Errorf("parameter %s '%s' (valid: %s)", name, v, strings.Join(valid, ", "))
	}
	return v
}

// An instance of a workload: made by setup (untimed), run (timed), then finish (untimed)
// reports ops and checksum and frees everything.
type instance interface {
	run() error
	finish() (ops, checksum uint64)
}

// A workload's rest point (spawn: all n suspended) calls atRest(alive); the memory pass
// measures there. Elsewhere it is nil.
var restHook func(alive uint64)

func atRest(alive uint64) {
	if restHook != nil {
		restHook(alive)
	}
}

// unsupported is a setup error that makes the cell unsupported rather than failed: the point
// cannot be compared with the C cells.
type unsupported struct{ why string }

func (u unsupported) Error() string { return u.why }

// setupOrFail sets up one instance, or answers with the error.
func setupOrFail(wl workload, p params) instance {
	in, err := wl.setup(p)
	if err != nil {
		_, unsup := err.(unsupported)
		fail(unsup, "%v", err)
	}
	return in
}

type workload struct {
	setup func(p params) (instance, error)
}

var workloads = map[string]workload{
	"pingpong":   {ppSetup},
	"recursive":  {rcSetup},
	"spawn":      {spSetup},
	"io":         {ioSetup},
	"await":      {awSetup},
	"fault":      {flSetup},
	"forkjoin":   {fjSetup},
	"yieldstorm": {ysSetup},
}

// schedWorkloads run on a scheduler of W workers (docs/sched.md): their `workers` sets
// GOMAXPROCS, and their `queue` must be steal, what Go's own scheduler does.
var schedWorkloads = map[string]bool{"forkjoin": true, "yieldstorm": true}

type reply struct {
	Protocol       string    `json:"protocol"`
	Runtime        string    `json:"runtime"`
	Error          *string   `json:"error"`
	Unsupported    bool      `json:"unsupported,omitempty"`
	Ops            uint64    `json:"ops,omitempty"`
	Checksum       string    `json:"checksum,omitempty"`
	Suspensions    uint64    `json:"suspensions"`
	Batch          uint64    `json:"batch,omitempty"`
	Samples        []float64 `json:"samples_ns_per_op,omitempty"`
	PeakRSS        int64     `json:"peak_rss_bytes,omitempty"`
	CoroutineBytes *float64  `json:"coroutine_bytes"`
	CoroutineWhat  string    `json:"coroutine_bytes_source,omitempty"`
	RestCoroutines *uint64   `json:"rest_coroutines,omitempty"`
	RestRSS        *int64    `json:"rest_rss_bytes,omitempty"`
}

// runtimeNote follows the version in the reply's runtime: a scheduler workload's GOMAXPROCS.
var runtimeNote string

func answer(r reply) {
	r.Protocol = protocol
	r.Runtime = runtime.Version() + runtimeNote
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		r.PeakRSS = ru.Maxrss * 1024
	}
	out, _ := json.Marshal(r)
	os.Stdout.Write(append(out, '\n'))
}

func fail(unsupported bool, format string, a ...interface{}) {
	msg := fmt.Sprintf(format, a...)
	answer(reply{Error: &msg, Unsupported: unsupported})
	os.Exit(0)
}

// schedProcs is GOMAXPROCS for a scheduler workload: its `workers`. procs, the parameter of
// the other workloads, must be left at 1 or say the same; a queue other than steal is
// unsupported (Go's scheduler has per-P queues with stealing, whatever the request says).
func schedProcs(wl string, p params, procs int64) int64 {
	r := paramReader{p: p}
	workers := r.int("workers")
	queue := r.choice("queue", "steal", "wfcq", "ck")
	if r.err != nil || workers < 1 {
		fail(false, "go: %s: parameter workers %s or queue %s (valid: workers an integer >= 1, "+
			"queue steal, wfcq or ck)", wl, p["workers"], p["queue"])
	}
	if queue != "steal" {
		fail(true, "go: %s queue=%s: Go's scheduler has its own run queues (per-P deques with "+
			"stealing, and a global queue), so only queue=steal describes it", wl, queue)
	}
	if procs != 1 && procs != workers {
		fail(false, "go: %s: procs=%d with workers=%d; workers sets GOMAXPROCS here (valid: "+
			"procs=1, or procs equal to workers)", wl, procs, workers)
	}
	return workers
}

// reexecWithoutAsyncPreemption restarts the program with GODEBUG=asyncpreemptoff=1 unless it
// is set: then a goroutine is preempted only at a Go function call, never between the raw
// system calls of one netpoller callback (io.go's exchange). The other workloads have no loop
// long enough for asynchronous preemption to matter.
func reexecWithoutAsyncPreemption() {
	if strings.Contains(os.Getenv("GODEBUG"), "asyncpreemptoff=1") {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	// One GODEBUG, the caller's settings and ours: a second GODEBUG entry appended to the
	// environment is not the one Go reads (it takes the first), so every exec would find the
	// setting missing and exec again, forever.
	setting := "asyncpreemptoff=1"
	if g := os.Getenv("GODEBUG"); g != "" {
		setting = g + "," + setting // the last of a repeated key wins
	}
	env := []string{"GODEBUG=" + setting}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			env = append(env, kv)
		}
	}
	syscall.Exec(self, os.Args, env) // returns only on failure: then run as we are
}

func main() {
	reexecWithoutAsyncPreemption()
	// The request is the first argument (as the harness passes it), else stdin.
	var req request
	var err error
	if len(os.Args) > 1 {
		err = json.Unmarshal([]byte(os.Args[1]), &req)
	} else {
		err = json.NewDecoder(os.Stdin).Decode(&req)
	}
	if err != nil {
		fail(false, "go: bad request: %v", err)
	}
	if req.Protocol != protocol {
		fail(false, "go: protocol '%s' (valid: %s)", req.Protocol, protocol)
	}
	wl, ok := workloads[req.Workload]
	if !ok {
		fail(true, "go: no body for workload '%s'", req.Workload)
	}
	p := params(req.Params)
	procs := int64(1)
	if _, ok := p["procs"]; ok {
		r := paramReader{p: p}
		if procs = r.int("procs"); r.err != nil || procs < 1 {
			fail(false, "go: parameter procs %s (valid: an integer >= 1)", p["procs"])
		}
	}
	if schedWorkloads[req.Workload] {
		procs = schedProcs(req.Workload, p, procs)
		runtimeNote = fmt.Sprintf(" GOMAXPROCS=%d", procs)
	}
	runtime.GOMAXPROCS(int(procs))
	batch, auto := uint64(1), true
	if len(req.Batch) > 0 && string(req.Batch) != `"auto"` {
		if err := json.Unmarshal(req.Batch, &batch); err != nil || batch < 1 {
			fail(false, "go: batch %s (valid: \"auto\" or an integer >= 1)", req.Batch)
		}
		auto = false
	}
	maxBatch := req.MaxBatch
	if maxBatch < 1 {
		maxBatch = 1
	}
	if req.Reps < 1 {
		fail(false, "go: reps %d (valid: 1 or more)", req.Reps)
	}
	r := reply{}
	if req.MemoryPass {
		r.CoroutineBytes, r.CoroutineWhat, r.RestCoroutines, r.RestRSS = memoryPass(wl, p)
	}
	var first struct{ ops, sum, susp uint64 }
	have := false
	samples := make([]float64, 0, req.Reps)
	insts := make([]instance, 0, maxBatch)
	// Warm-up repetitions go on until `warmup` of them are done and warmup_ms has passed; each
	// one re-chooses the batch.
	warmupEnd := time.Now().Add(time.Duration(req.WarmupMs * 1e6))
	warmed := 0
	for rep := 0; rep < warmed+req.Reps; rep++ {
		warming := rep == warmed && (warmed < req.Warmup || time.Now().Before(warmupEnd))
		if warming {
			warmed++
		}
		insts = insts[:0]
		for i := uint64(0); i < batch; i++ {
			insts = append(insts, setupOrFail(wl, p))
		}
		runtime.GC() // the previous repetition's garbage is not this one's cost
		s0 := suspensions
		t0 := time.Now()
		for _, in := range insts {
			if err := in.run(); err != nil {
				fail(false, "%v", err)
			}
		}
		ns := float64(time.Since(t0).Nanoseconds())
		susp := suspensions - s0
		for _, in := range insts {
			ops, sum := in.finish()
			if !have {
				first.ops, first.sum, have = ops, sum, true
			} else if ops != first.ops || sum != first.sum {
				fail(false, "nondeterministic result: checksum 0x%016x then 0x%016x", first.sum, sum)
			}
		}
		if rep == 0 {
			first.susp = susp / batch
		}
		if susp != first.susp*batch {
			fail(false, "nondeterministic suspensions: %d per run, then %d over %d runs",
				first.susp, susp, batch)
		}
		if warming {
			if auto { // as the C cells: one repetition lasts at least min_rep_ms
				perRun := ns / float64(batch)
				if perRun < 1 {
					perRun = 1
				}
				want := req.MinRepMs * 1e6 / perRun
				batch = uint64(want + 0.999)
				if want < 1 {
					batch = 1
				}
				if batch > maxBatch {
					batch = maxBatch
				}
			}
			continue
		}
		samples = append(samples, ns/(float64(first.ops)*float64(batch)))
	}
	r.Ops, r.Suspensions, r.Batch, r.Samples = first.ops, first.susp, batch, samples
	r.Checksum = fmt.Sprintf("0x%016x", first.sum)
	answer(r)
}

// rssAnon is the process's anonymous resident memory in bytes (RssAnon in /proc/self/status,
// statm's resident - shared: the C cells' definition), or -1 if unreadable.
func rssAnon() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "RssAnon:") {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimPrefix(line, "RssAnon:"), "%d", &kb); err == nil {
				return kb * 1024
			}
		}
	}
	return -1
}

// memoryPass runs one instance before the timed repetitions and, at the workload's rest point,
// takes the runtime's own statistics: goroutine stack bytes in use plus live heap bytes grown
// since the start, per coroutine alive; and the process's anonymous resident memory grown
// (rssAnon) with the coroutines alive, for the harness to divide. It stops the world, so it is
// never inside a timed run.
func memoryPass(wl workload, p params) (*float64, string, *uint64, *int64) {
	in := setupOrFail(wl, p)
	var base, rest runtime.MemStats
	var perCoro *float64
	var restAlive *uint64
	var restRSS *int64
	debug.FreeOSMemory()
	runtime.ReadMemStats(&base)
	rss0 := rssAnon()
	restHook = func(alive uint64) {
		runtime.GC()
		runtime.ReadMemStats(&rest)
		rss1 := rssAnon()
		grown := float64(rest.StackInuse+rest.HeapAlloc) - float64(base.StackInuse+base.HeapAlloc)
		v := grown / float64(alive)
		perCoro = &v
		restAlive = &alive
		if rss0 >= 0 && rss1 >= 0 {
			d := rss1 - rss0
			restRSS = &d
		}
	}
	if err := in.run(); err != nil {
		fail(false, "%v", err)
	}
	restHook = nil
	in.finish()
	return perCoro, "runtime.MemStats: StackInuse + HeapAlloc grown by the rest point, per coroutine",
		restAlive, restRSS
}
