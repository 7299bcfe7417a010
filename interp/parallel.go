package interp

import (
	"runtime"
	"sync/atomic"
)

// parallelFor splits [0, n) into contiguous chunks, one per worker, when
// the work (n items of about cost flops each) is large enough to pay for
// handing parts to other cores (runParts).
func parallelFor(n int, cost int, f func(lo, hi int)) {
	w := workersFor(n, cost)
	if w <= 1 {
		f(0, n)
		return
	}
	runParts(w, func(k int) { f(n*k/w, n*(k+1)/w) })
}

// parallelTasks runs f(worker, task) for every task in [0, n), with tasks
// handed out dynamically to w workers; each worker has its own index so it
// can use private scratch memory.
func parallelTasks(n, w int, f func(worker, task int)) {
	if w <= 1 || n <= 1 {
		for t := 0; t < n; t++ {
			f(0, t)
		}
		return
	}
	var next atomic.Int64
	runParts(w, func(k int) {
		for {
			t := int(next.Add(1) - 1)
			if t >= n {
				return
			}
			f(k, t)
		}
	})
}

// workersFor is how many workers n items of the given cost deserve.
func workersFor(n, cost int) int {
	const minWork = 1 << 15 // below this, handing a part over costs more than it saves
	w := runtime.GOMAXPROCS(0)
	if total := n * max(cost, 1); total < minWork*2 {
		return 1
	} else if t := total / minWork; t < w {
		w = t
	}
	return min(w, n)
}
