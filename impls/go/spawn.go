// spawn (workloads/spawn.c): n goroutines are started; each calls `depth` levels down, every
// level holding frame/8 live 64-bit locals on the goroutine's stack, and parks at the bottom on
// its own channel (the handle). With all n parked the driver is at the rest point; then it
// resumes each with a value and receives its result. One op = one goroutine's whole life.
// Go cannot size a stack array at run time (a make() of variable size escapes to the heap), so
// a level's locals live in the smallest power-of-two array that holds them; Go zeroes that
// whole array, so up to twice `frame` bytes are touched for sizes between powers of two.
package main

import "fmt"

type spInst struct {
	n        uint64
	depth    int64
	words    int
	bucket   int // index in spLevels of the smallest array holding words
	checksum uint64
	handle   []chan uint64 // one per goroutine, as a run queue holds one per coroutine
	order    []uint64      // order=random: the goroutines in resume order; nil: creation order
	up       chan uint64   // bottom values and results, to the driver
}

func spWord(id uint64, level int64, k int) uint64 {
	return (id<<24 ^ uint64(level)<<12 ^ uint64(k)) * 0x9e3779b97f4a7c15
}
func spBottom(id uint64) uint64      { return id*0xd6e8feb86659fd93 + 1 }
func spResumeValue(id uint64) uint64 { return id ^ 0x5bd1e9955bd1e995 }

// spHash is splitmix64's finaliser, as spawn.c's sp_hash (the seeded resume order).
func spHash(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// spShuffle is spawn.c's order=random: a Fisher-Yates shuffle of 0..n-1 driven by spHash.
func spShuffle(n, seed uint64) []uint64 {
	order := make([]uint64, n)
	for i := range order {
		order[i] = uint64(i)
	}
	x := seed
	for i := n - 1; i >= 1; i-- {
		x = spHash(x)
		j := x % (i + 1)
		order[i], order[j] = order[j], order[i]
	}
	return order
}

// spBody is a level with its locals in loc.
func (w *spInst) spBody(id uint64, level int64, me chan uint64, loc []uint64) uint64 {
	for k := range loc {
		loc[k] = spWord(id, level, k)
	}
	var v uint64
	if level == w.depth {
		suspensions++
		w.up <- spBottom(id)
		v = <-me
	} else {
		v = w.spLevel(id, level+1, me)
	}
	acc := v + uint64(level)
	for _, x := range loc {
		acc = (acc ^ x) * 0x100000001b3
	}
	return acc
}

// spLevel gives a level a stack array big enough for frame/8 words: one function per size
// (a switch over arrays in one function would reserve all of them in its frame).
func (w *spInst) spLevel(id uint64, level int64, me chan uint64) uint64 {
	return spLevels[w.bucket](w, id, level, me)
}

var spLevels [14]func(w *spInst, id uint64, level int64, me chan uint64) uint64

func init() {
	spLevels = [...]func(w *spInst, id uint64, level int64, me chan uint64) uint64{
		spLevel1,
		spLevel2,
		spLevel4,
		spLevel8,
		spLevel16,
		spLevel32,
		spLevel64,
		spLevel128,
		spLevel256,
		spLevel512,
		spLevel1024,
		spLevel2048,
		spLevel4096,
		spLevel8192,
	}
}

//go:noinline
func spLevel1(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [1]uint64
	return w.spBody(id, level, me, a[:w.words])
}

//go:noinline
func spLevel2(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [2]uint64
	return w.spBody(id, level, me, a[:w.words])
}

//go:noinline
func spLevel4(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [4]uint64
	return w.spBody(id, level, me, a[:w.words])
}

//go:noinline
func spLevel8(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [8]uint64
	return w.spBody(id, level, me, a[:w.words])
}

//go:noinline
func spLevel16(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [16]uint64
	return w.spBody(id, level, me, a[:w.words])
}

//go:noinline
func spLevel32(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [32]uint64
	return w.spBody(id, level, me, a[:w.words])
}

//go:noinline
func spLevel64(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [64]uint64
	return w.spBody(id, level, me, a[:w.words])
}

//go:noinline
func spLevel128(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [128]uint64
	return w.spBody(id, level, me, a[:w.words])
}

//go:noinline
func spLevel256(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [256]uint64
	return w.spBody(id, level, me, a[:w.words])
}

//go:noinline
func spLevel512(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [512]uint64
	return w.spBody(id, level, me, a[:w.words])
}

//go:noinline
func spLevel1024(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [1024]uint64
	return w.spBody(id, level, me, a[:w.words])
}

//go:noinline
func spLevel2048(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [2048]uint64
	return w.spBody(id, level, me, a[:w.words])
}

//go:noinline
func spLevel4096(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [4096]uint64
	return w.spBody(id, level, me, a[:w.words])
}

//go:noinline
func spLevel8192(w *spInst, id uint64, level int64, me chan uint64) uint64 {
	var a [8192]uint64
	return w.spBody(id, level, me, a[:w.words])
}

func spSetup(p params) (instance, error) {
	r := paramReader{p: p}
	n, depth, frame := r.int("n"), r.int("depth"), r.int("frame")
	layout := r.choice("layout", "aligned", "offset")
	order, seed := r.choice("order", "fifo", "random"), r.int("seed")
	if r.err != nil {
		return nil, fmt.Errorf("spawn: %v", r.err)
	}
	if layout != "aligned" { // refused, as docs/memory.md asks of what cannot honour it
		return nil, unsupported{"spawn: layout=offset moves C stacks and frames; Go places " +
			"goroutine stacks itself (valid here: layout=aligned)"}
	}
	if frame%8 != 0 || frame < 8 || frame > 65536 {
		return nil, fmt.Errorf("spawn: frame=%d is not a multiple of 8 (valid: 8, 16, ..., 65536)", frame)
	}
	w := &spInst{n: uint64(n), depth: depth, words: int(frame / 8),
		handle: make([]chan uint64, n), up: make(chan uint64)}
	if order == "random" {
		w.order = spShuffle(w.n, uint64(seed))
	}
	for 1<<w.bucket < w.words {
		w.bucket++
	}
	return w, nil
}

func (w *spInst) run() error {
	for i := uint64(0); i < w.n; i++ {
		me := make(chan uint64)
		w.handle[i] = me
		go func(id uint64) { w.up <- w.spLevel(id, 0, me) }(i)
		w.checksum = mix(w.checksum, <-w.up)
	}
	atRest(w.n)
	for j := uint64(0); j < w.n; j++ {
		i := j
		if w.order != nil {
			i = w.order[j]
		}
		w.handle[i] <- spResumeValue(i)
		w.checksum = mix(w.checksum, <-w.up)
		w.handle[i] = nil
	}
	return nil
}

func (w *spInst) finish() (uint64, uint64) { return w.n, w.checksum }
