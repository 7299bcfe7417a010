package optimize

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
)

// Target is where the optimized model will run. Growth rewrites (which add
// zeros or FLOPs to save launches) are kept only when the target measures
// the whole rewritten graph faster than the graph before, beyond the
// run-to-run noise: a cost model alone once made models bigger and slower.
type Target interface {
	Name() string
	// Compare times before and after (repeatedly, interleaved) and judges
	// whether after is faster.
	Compare(before, after *canon.Graph) (Comparison, error)
}

// Comparison is the outcome of timing two graphs in a target.
type Comparison struct {
	Target string `json:"target"`
	// BeforeMs and AfterMs are median latencies (modelled for the model
	// target) in milliseconds.
	BeforeMs float64 `json:"before_ms"`
	AfterMs  float64 `json:"after_ms"`
	// Ratio is the median of after/before over paired runs (each pair
	// timed back to back, so a change in the machine's load hits both).
	Ratio float64 `json:"ratio"`
	// Noise is the standard error of log(Ratio), from the median absolute
	// deviation of the paired log ratios (robust to the outliers a loaded
	// machine produces): 1.86·MAD/√n.
	Noise float64 `json:"noise"`
	Runs  int     `json:"runs"`
	// Faster: log(Ratio) is below log(1 - MinGain) by more than 2·Noise,
	// i.e. Ratio < (1 - MinGain)·exp(-2·Noise).
	Faster bool `json:"faster"`
	Cached bool `json:"cached,omitempty"`
}

// MinGain is the smallest relative speed-up a growth rewrite must show to be
// kept, however quiet the measurements.
const MinGain = 0.02

// Judge compares paired timings (seconds; before[i] and after[i] taken back
// to back): after is faster when the median ratio after/before is below
// 1 - MinGain by more than twice its standard error (in log space, where
// the noise of a ratio is symmetric).
func Judge(target string, before, after []float64) Comparison {
	n := min(len(before), len(after))
	c := Comparison{Target: target, Runs: n}
	if n == 0 {
		return c
	}
	c.BeforeMs, c.AfterMs = median(before)*1e3, median(after)*1e3
	logs := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		if before[i] > 0 && after[i] > 0 {
			logs = append(logs, math.Log(after[i]/before[i]))
		}
	}
	if len(logs) == 0 {
		return c
	}
	m, se := medianError(logs)
	c.Ratio, c.Noise = math.Exp(m), se
	c.Faster = c.Ratio < (1-MinGain)*math.Exp(-2*c.Noise)
	return c
}

// medianError returns the median and its standard error, estimated from
// the median absolute deviation (robust to the outliers a loaded machine
// produces): σ ≈ 1.4826·MAD and SE(median) ≈ 1.2533·σ/√n.
func medianError(v []float64) (float64, float64) {
	if len(v) == 0 {
		return 0, 0
	}
	m := median(v)
	dev := make([]float64, len(v))
	for i, x := range v {
		dev[i] = math.Abs(x - m)
	}
	return m, 1.4826 * 1.2533 * median(dev) / math.Sqrt(float64(len(v)))
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ModelTarget judges by the cost model alone (deterministic; no timing).
type ModelTarget struct{ Machine Machine }

func (ModelTarget) Name() string { return "model" }

func (t ModelTarget) Compare(before, after *canon.Graph) (Comparison, error) {
	m := t.Machine
	if m == (Machine{}) {
		m = DefaultMachine
	}
	rb, err := GraphCostWith(before, m)
	if err != nil {
		return Comparison{}, err
	}
	ra, err := GraphCostWith(after, m)
	if err != nil {
		return Comparison{}, err
	}
	return Judge("model", []float64{rb.Cost()}, []float64{ra.Cost()}), nil
}

// InterpTarget times the reference interpreter running both graphs on the
// same random inputs, Runs times each, interleaved.
type InterpTarget struct {
	Runs        int // default 7
	InputShapes map[string][]int64
}

func (InterpTarget) Name() string { return "interp" }

func (t InterpTarget) Compare(before, after *canon.Graph) (Comparison, error) {
	runs := t.Runs
	if runs <= 0 {
		runs = 7
	}
	pb, err := interp.New(before)
	if err != nil {
		return Comparison{}, fmt.Errorf("interp target: %w", err)
	}
	pa, err := interp.New(after)
	if err != nil {
		return Comparison{}, fmt.Errorf("interp target: %w", err)
	}
	in, err := tensorfile.Random(before.Inputs, t.InputShapes, 1)
	if err != nil {
		return Comparison{}, fmt.Errorf("interp target: %w", err)
	}
	timeOne := func(p *interp.Program) (float64, error) {
		t0 := time.Now()
		_, err := p.Run(in)
		return time.Since(t0).Seconds(), err
	}
	var tb, ta []float64
	for r := -1; r < runs; r++ { // run -1 warms up
		b, err := timeOne(pb)
		if err != nil {
			return Comparison{}, fmt.Errorf("interp target: %w", err)
		}
		a, err := timeOne(pa)
		if err != nil {
			return Comparison{}, fmt.Errorf("interp target: %w", err)
		}
		if r >= 0 {
			tb, ta = append(tb, b), append(ta, a)
		}
	}
	return Judge("interp", tb, ta), nil
}
