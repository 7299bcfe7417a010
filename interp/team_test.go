package interp

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// checkParts runs runParts(parts) and fails unless every part ran once.
func checkParts(t *testing.T, parts int) {
	t.Helper()
	counts := make([]atomic.Int32, parts)
	runParts(parts, func(p int) { counts[p].Add(1) })
	for p := range counts {
		if c := counts[p].Load(); c != 1 {
			t.Fatalf("%d parts: part %d ran %d times", parts, p, c)
		}
	}
}

func TestRunPartsRunsEachPartOnce(t *testing.T) {
	for _, parts := range []int{0, 1, 2, 3, 7, 2} {
		checkParts(t, parts)
	}
	// After an idle spell the helpers sleep; a region must wake them.
	time.Sleep(3 * teamSpin)
	checkParts(t, 3)
}

func TestRunPartsConcurrentAndNested(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				var sum atomic.Int64
				runParts(3, func(p int) {
					// A region inside a region finds the team busy.
					runParts(2, func(q int) { sum.Add(int64(10*p + q + 1)) })
				})
				if got := sum.Load(); got != 69 { // Σ over p<3, q<2 of 10p+q+1
					t.Errorf("nested sums %d, want 69", got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// A panic in the caller's part reaches the caller (the interpreter turns
// it into an error) only after the helpers finished, and the team works
// afterwards.
func TestRunPartsPanicLeavesTeamUsable(t *testing.T) {
	var helperDone atomic.Bool
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic in part 0 was lost")
			}
			if !helperDone.Load() {
				t.Fatal("runParts returned before its helper finished")
			}
		}()
		runParts(2, func(p int) {
			if p == 0 {
				panic("part 0")
			}
			time.Sleep(time.Millisecond)
			helperDone.Store(true)
		})
	}()
	checkParts(t, 2)
}

// Parts the caller claims from helpers that have not started (one thread,
// or a busy caller's part) still run once each, region after region, and
// no helper runs a part of a region that has ended.
func TestRunPartsCallerClaimsUnstartedParts(t *testing.T) {
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		for region := range 300 {
			parts := 2 + region%3
			counts := make([]atomic.Int32, parts)
			var ended atomic.Bool
			runParts(parts, func(p int) {
				if ended.Load() {
					t.Errorf("part %d of region %d ran after the region ended", p, region)
				}
				if p == 0 && region%2 == 0 {
					for start := time.Now(); time.Since(start) < 20*time.Microsecond; {
					}
				}
				counts[p].Add(1)
			})
			ended.Store(true)
			for p := range counts {
				if c := counts[p].Load(); c != 1 {
					t.Fatalf("%d procs, region %d: part %d ran %d times", procs, region, p, c)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// A panic in a part the caller claimed reaches the caller, and the team
// works afterwards.
func TestRunPartsPanicInClaimedPart(t *testing.T) {
	old := runtime.GOMAXPROCS(1) // the helper seldom starts before the caller claims
	defer runtime.GOMAXPROCS(old)
	caught := 0
	for range 20 {
		func() {
			defer func() {
				if recover() != nil {
					caught++
				}
			}()
			runParts(2, func(p int) {
				if p == 1 && onCallerStack() {
					panic("part 1")
				}
			})
		}()
		checkParts(t, 2)
	}
	if caught == 0 {
		t.Fatal("the caller never ran part 1, or its panic was lost")
	}
}

// onCallerStack reports whether the calling part runs inside runParts'
// call (not on a helper).
func onCallerStack() bool {
	pc := make([]uintptr, 64)
	frames := runtime.CallersFrames(pc[:runtime.Callers(1, pc)])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, ".runParts") {
			return true
		}
		if !more {
			return false
		}
	}
}
