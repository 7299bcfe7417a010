package interp

import (
	"math"
	"math/rand"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelbridge/modelbridge/canon"
)

// A recurrent step allocates nothing: a run over 40 steps allocates about
// as often as one over 4, on one core and on two.
func TestRecurrentStepsDoNotAllocate(t *testing.T) {
	defer func(on bool) { recurrentTwoCores = on }(recurrentTwoCores)
	recurrentTwoCores = true
	defer func(n int) { recurrentCrewBytes = n }(recurrentCrewBytes)
	recurrentCrewBytes = 0 // a crew for the small layers too
	for _, c := range []struct {
		op    func() canon.RecurrentOp
		gates int64
	}{
		{func() canon.RecurrentOp { return &canon.LSTM{} }, 4},
		{func() canon.RecurrentOp { return &canon.GRU{} }, 3},
		{func() canon.RecurrentOp { return &canon.GRU{LinearBeforeReset: true} }, 3},
		{func() canon.RecurrentOp { return &canon.RNN{} }, 1},
	} {
		for _, procs := range []int{1, 2} {
			allocs := map[int]float64{}
			for _, seq := range []int{4, 40} {
				op := c.op()
				g := recurrentGraph(t, op, c.gates, 256, 0.1, seq, 1, 16)
				p, err := New(g)
				if err != nil {
					t.Fatal(err)
				}
				in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(1)), "x", seq, 1, 16)}
				// testing.AllocsPerRun would run on one core.
				old := runtime.GOMAXPROCS(procs)
				// The fewest of three measurements: the runtime's own
				// allocations (sudogs moving between the two cores'
				// caches, timers) come and go between them.
				allocs[seq] = math.Inf(1)
				for range 3 {
					allocs[seq] = math.Min(allocs[seq], mallocsPerRun(5, func() {
						if _, err := p.Run(in); err != nil {
							t.Fatal(err)
						}
					}))
				}
				runtime.GOMAXPROCS(old)
			}
			// An allocation a step would add 36 a run; half of that
			// is far above what the runtime adds on its own.
			if allocs[40] > allocs[4]+18 {
				t.Errorf("%s on %d cores: %v allocations a run of 40 steps, %v of 4", c.op().Kind(), procs, allocs[40], allocs[4])
			}
		}
	}
}

// mallocsPerRun is the average number of heap allocations a call of f
// makes, on as many cores as GOMAXPROCS says, after one warm-up call.
func mallocsPerRun(runs int, f func()) float64 {
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(runs)
}

// The packed products agree with the plain float64 loop for a plain RNN
// too, with a hidden size that leaves a partial panel.
func TestRNNPackedProducts(t *testing.T) {
	op := &canon.RNN{}
	op.Direction = canon.Bidirectional
	g := recurrentGraph(t, op, 1, 21, 0.3, 5, 2, 7)
	x := randTensor(rand.New(rand.NewSource(3)), "x", 5, 2, 7)
	run := func() []float32 {
		res, err := Run(g, map[string]*canon.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		return floats(t, res[g.Outputs[0].Name])
	}
	got := run()
	recurrentPlain = true
	want := run()
	recurrentPlain = false
	assertClose(t, "RNN", got, want, 1e-5)
}

// A crew's regions cover every item exactly once, phase after phase,
// whether the helper takes chunks, never comes, or is slow (a chunk that
// takes longer than crewLongWait: the caller then goes on alone).
func TestStepCrewCoversEveryItemOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, c := range []struct{ helped, slow bool }{{true, false}, {false, false}, {true, true}} {
		helped := c.helped
		crew := new(stepCrew)
		const n, phases = 37, 300
		hits := make([]atomic.Int32, n)
		work := func() {
			for range phases {
				crew.run(func(lo, hi int) {
					if c.slow && lo == 0 {
						time.Sleep(2 * crewLongWait)
					}
					for i := lo; i < hi; i++ {
						hits[i].Add(1)
					}
				}, n)
			}
		}
		if helped {
			withCrew(crew, work)
		} else {
			work()
		}
		for i := range hits {
			if got := hits[i].Load(); got != phases {
				t.Fatalf("helped %v: item %d ran %d times in %d phases", helped, i, got, phases)
			}
		}
	}
}
