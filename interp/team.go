package interp

import (
	"sync"
	"sync/atomic"
	"time"
)

// A parallel region hands its pieces to helper goroutines that stay awake
// for a while after each region. A goroutine started per region, or a
// helper that sleeps between regions, begins its piece only after the
// runtime wakes an idle thread: 25–50 µs on a virtual machine, as long as
// many of a small network's regions take in all (mobilenet_v2 has ~100).
// Helpers spin on an atomic instead, then sleep once they have been idle
// for teamSpin, so an idle process costs nothing.
const teamSpin = 200 * time.Microsecond

// waker lets one goroutine wait for a condition another makes true: the
// waiter spins first and sleeps only when the condition is slow to come.
type waker struct {
	sleeping atomic.Bool
	ch       chan struct{} // capacity 1: one send per sleep
}

func newWaker() *waker { return &waker{ch: make(chan struct{}, 1)} }

// wait returns once ready() holds, spinning for up to spin first.
func (w *waker) wait(ready func() bool, spin time.Duration) {
	start := time.Now()
	for i := 0; ; i++ {
		if ready() {
			return
		}
		if i&63 == 63 && time.Since(start) > spin {
			break
		}
	}
	for {
		w.sleeping.Store(true)
		if ready() {
			// The notifier may have seen us sleeping already; if so its
			// send is on its way and must be taken.
			if !w.sleeping.CompareAndSwap(true, false) {
				<-w.ch
			}
			return
		}
		<-w.ch
		// A send can be late: a helper that finished the last region
		// may notify only after the caller, having seen pending reach 0
		// while spinning, started the next one. The condition decides.
		if ready() {
			return
		}
	}
}

// notify wakes the waiter if it sleeps; call it after making ready() true.
func (w *waker) notify() {
	if w.sleeping.Swap(false) {
		w.ch <- struct{}{}
	}
}

// helper is one goroutine of the team, running its part of each job: the
// team's i-th helper runs part i+1 (part 0 is the caller's), unless the
// caller, done with its own part, claimed it first: a helper whose thread
// the machine has not scheduled yet then costs the region nothing.
type helper struct {
	seq   atomic.Uint64 // jobs handed out
	taken atomic.Bool   // the current job's part is claimed (by the helper or the caller)
	job   func(part int)
	part  int
	wake  *waker
}

type team struct {
	busy    sync.Mutex // held by the goroutine running a region
	helpers []*helper
	pending atomic.Int32 // helpers still running the current job
	done    *waker       // the caller waiting for pending to reach 0
}

var workTeam = &team{done: newWaker()}

func (h *helper) run(t *team) {
	var seen uint64
	for {
		h.wake.wait(func() bool { return h.seq.Load() != seen }, teamSpin)
		seen = h.seq.Load()
		if !h.taken.CompareAndSwap(false, true) {
			continue // the caller ran the part (or a later job's, already claimed)
		}
		h.job(h.part)
		if t.pending.Add(-1) == 0 {
			t.done.notify()
		}
	}
}

// runParts runs f(0), …, f(parts-1) at once, f(0) on the calling goroutine.
// Nested or concurrent regions, which find the team busy, start goroutines.
func runParts(parts int, f func(part int)) {
	if parts <= 1 {
		if parts == 1 {
			f(0)
		}
		return
	}
	t := workTeam
	if !t.busy.TryLock() {
		runPartsGo(parts, f)
		return
	}
	for len(t.helpers) < parts-1 {
		h := &helper{part: len(t.helpers) + 1, wake: newWaker()}
		t.helpers = append(t.helpers, h)
		go h.run(t)
	}
	t.pending.Store(int32(parts - 1))
	for p := 1; p < parts; p++ {
		h := t.helpers[p-1]
		h.job = f
		h.taken.Store(false)
		h.seq.Add(1)
		h.wake.notify()
	}
	// Deferred so that a panic in f(0), which the interpreter turns into
	// an error, still leaves the team idle for the next region.
	defer func() {
		t.done.wait(func() bool { return t.pending.Load() == 0 }, teamSpin)
		for _, h := range t.helpers[:parts-1] {
			h.job = nil // let the region's closure go
		}
		t.busy.Unlock()
	}()
	f(0)
	// Parts whose helper has not started yet run here, in turn: the
	// results are the same, as each part is the same call wherever it runs.
	for _, h := range t.helpers[:parts-1] {
		if h.taken.CompareAndSwap(false, true) {
			t.pending.Add(-1) // counted first: a panic in f must not leave the wait below hanging
			f(h.part)
		}
	}
}

// runPartsGo is runParts with a goroutine per part.
func runPartsGo(parts int, f func(part int)) {
	var wg sync.WaitGroup
	for p := 1; p < parts; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(p)
		}()
	}
	f(0)
	wg.Wait()
}
