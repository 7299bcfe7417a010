package interp

import (
	"sync/atomic"
	"time"
)

// stepCrew runs a recurrent layer's steps on the calling goroutine and one
// helper without a barrier the caller must wait at for the helper to
// arrive: each step's region is cut into chunks that both claim from a
// shared word, and the caller waits only for chunks the helper has
// claimed. On a busy machine a helper whose thread the host has
// descheduled simply takes no chunks (the caller does them all) instead
// of holding every step up for a time slice, as a region that waits for
// each part's goroutine does (64 steps, each waiting milliseconds). A
// helper descheduled while it holds a chunk still makes the caller wait;
// after such a wait the caller sends it away and goes on alone, as it
// does a helper that took no chunk crewMisses regions in a row (its
// thread is not running, and waking it each step would only take the
// busy machine's time from the caller). Which goroutine computes a chunk changes no result: units are
// independent.
type stepCrew struct {
	// word is phase<<40 | chunks<<20 | next chunk; stopWord ends the helper.
	word  atomic.Uint64
	done  atomic.Int64 // chunks finished in the current phase
	phase uint64
	// The current phase's work, written before the phase is published in
	// word and read only by the holder of a claimed chunk.
	f func(lo, hi int)
	n int
	// strikes counts regions whose end the caller waited crewLongWait or
	// more for, a chunk held by a helper the host descheduled; at
	// crewStrikes the helper is sent away and the caller goes on alone.
	strikes int
	solo    bool
	// misses counts the regions in a row the caller did alone; at
	// crewMisses the helper is sent away.
	misses int
	// chunks is how many chunks a region is cut into (0: crewChunks).
	chunks int
	// wake lets the helper sleep once no phase has come for crewSpin
	// (between layers, or while the caller is descheduled) instead of
	// spinning on a core others could use; the caller wakes it with each
	// phase and never waits for it to arrive.
	wake *waker
	// finished lets the caller sleep while a descheduled helper holds a
	// chunk.
	finished *waker
}

const (
	crewMask     = 1<<20 - 1
	crewStopWord = ^uint64(0)
	// crewChunks is how many chunks a region is cut into: enough for
	// the two to balance, few enough that claiming costs nothing.
	crewChunks = 16
	// crewLongWait is far longer than a region's chunk takes (a few µs
	// to tens of µs), and shorter than a host's time slice.
	crewLongWait = 200 * time.Microsecond
	crewStrikes  = 1
	crewMisses   = 8
	// crewSpin is how long the helper spins for the next phase before it
	// sleeps: far longer than the caller's part of a step takes.
	crewSpin = 100 * time.Microsecond
)

// run runs f over [0, n) in chunks, returning when every chunk is done.
func (c *stepCrew) run(f func(lo, hi int), n int) {
	chunks := crewChunks
	if c.chunks > 0 {
		chunks = c.chunks
	}
	chunks = min(n, chunks)
	if chunks <= 1 || c.solo {
		f(0, n)
		return
	}
	c.f, c.n = f, n
	c.done.Store(0)
	c.phase++
	c.word.Store(c.phase<<40 | uint64(chunks)<<20)
	if c.wake != nil {
		c.wake.notify()
	}
	mine := 0
	for c.claim() {
		mine++
	}
	if mine == chunks {
		// The helper took nothing: its thread is not running. A helper
		// that keeps missing is sent away rather than woken step after
		// step to compete with the caller for a busy machine's time.
		if c.misses++; c.misses >= crewMisses {
			c.solo = true
			c.stop()
		}
		return
	}
	c.misses = 0
	if c.done.Load() == int64(chunks) {
		return
	}
	// The helper holds a chunk: spin while it should be computing it, then
	// sleep until it is done, so that a helper the host has descheduled
	// can have this core back; a wait that long sends the helper away.
	start := time.Now()
	if c.finished == nil { // no helper: every chunk is done
		return
	}
	c.finished.wait(func() bool { return c.done.Load() == int64(chunks) }, crewLongWait)
	if time.Since(start) > crewLongWait {
		if c.strikes++; c.strikes >= crewStrikes {
			c.solo = true
			c.stop()
		}
	}
}

// claim runs one unclaimed chunk of the current phase, if there is one.
func (c *stepCrew) claim() bool {
	for {
		v := c.word.Load()
		if v == crewStopWord {
			return false
		}
		next, chunks := int(v&crewMask), int(v>>20&crewMask)
		if next >= chunks {
			return false
		}
		if c.word.CompareAndSwap(v, v+1) {
			c.f(c.n*next/chunks, c.n*(next+1)/chunks)
			c.done.Add(1)
			if c.finished != nil {
				c.finished.notify()
			}
			return true
		}
	}
}

// help is the helper's loop: claim chunks until stop, spinning for the
// next phase for up to crewSpin, then sleeping until the caller's notify.
func (c *stepCrew) help() {
	for {
		c.wake.wait(c.claimable, crewSpin)
		if c.word.Load() == crewStopWord {
			return
		}
		for c.claim() {
		}
	}
}

// claimable reports whether a chunk waits to be claimed, or help must end.
func (c *stepCrew) claimable() bool {
	v := c.word.Load()
	return v == crewStopWord || int(v&crewMask) < int(v>>20&crewMask)
}

// stop ends help.
func (c *stepCrew) stop() {
	c.word.Store(crewStopWord)
	if c.wake != nil {
		c.wake.notify()
	}
}

// withCrew runs work (a layer's steps) with a helper claiming chunks of
// its regions. The helper is the worker team's second part: the team's
// helper is already running (it spins after the region before, the input
// GEMM), where a new goroutine would wait for that spin to end and miss
// the steps of a short layer. A region ends when every started part has
// returned and the caller runs the parts no helper has started (team.go),
// so a descheduled helper does not hold the layer's end up: run by the
// caller after the stop word, help returns at once.
func withCrew(c *stepCrew, work func()) {
	if c.wake == nil {
		c.wake, c.finished = newWaker(), newWaker()
	}
	runParts(2, func(part int) {
		if part == 1 {
			c.help()
			return
		}
		defer c.stop()
		work()
	})
}
