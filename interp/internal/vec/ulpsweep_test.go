package vec

import (
	"math"
	"os"
	"runtime"
	"testing"
)

// ulpSweep is the largest error, in float32 ulps, of a float32-lane
// kernel against its float64 definition: over every stride-th bit pattern
// (997, or 4099 with -short), at the given edge inputs, and, with
// MODELBRIDGE_EXHAUSTIVE=1, over every pattern with 2^loExp ≤ |x| < 2^hiExp
// (the span outside which the result rounds to a value the sweep checks).
type ulpSweep struct {
	kernel       func(dst, src []float32)
	exact        func(float64) float64
	loExp, hiExp int
	edges        []float32
}

// ulpWorst is the largest error found and the input it was found at.
type ulpWorst struct {
	ulps float64
	x    float32
}

func (s ulpSweep) run(t *testing.T) ulpWorst {
	t.Helper()
	stride := uint64(997)
	if testing.Short() {
		stride = 4099
	}
	type span struct{ lo, hi, step uint64 }
	var spans []span
	for b := uint64(0); b < 1<<32; b += stride << 14 {
		spans = append(spans, span{b, min(b+stride<<14, 1<<32), stride})
	}
	if os.Getenv("MODELBRIDGE_EXHAUSTIVE") != "" {
		lo, hi := uint64(127+s.loExp)<<23, uint64(127+s.hiExp)<<23
		for sign := uint64(0); sign < 2; sign++ {
			for b := lo; b < hi; b += 1 << 20 {
				spans = append(spans, span{sign<<31 | b, sign<<31 | b + 1<<20, 1})
			}
		}
	}
	work, results := make(chan span), make(chan ulpWorst)
	workers := runtime.GOMAXPROCS(0)
	for range workers {
		go func() {
			const chunk = 1 << 14
			in, out := make([]float32, chunk), make([]float32, chunk)
			var w ulpWorst
			for sp := range work {
				for b := sp.lo; b < sp.hi; b += sp.step * chunk {
					n := 0
					for ; n < chunk && b+sp.step*uint64(n) < sp.hi; n++ {
						in[n] = math.Float32frombits(uint32(b + sp.step*uint64(n)))
					}
					s.kernel(out[:n], in[:n])
					for i, x := range in[:n] {
						if e := ulpError(out[i], s.exact(float64(x))); e > w.ulps {
							w = ulpWorst{e, x}
						}
					}
				}
			}
			results <- w
		}()
	}
	for _, sp := range spans {
		work <- sp
	}
	close(work)
	var worst ulpWorst
	for range workers {
		if w := <-results; w.ulps > worst.ulps {
			worst = w
		}
	}
	for _, x := range s.edges {
		var o [1]float32
		s.kernel(o[:], []float32{x})
		if e := ulpError(o[0], s.exact(float64(x))); e > worst.ulps {
			worst = ulpWorst{e, x}
		}
	}
	var nan [1]float32
	if s.kernel(nan[:], []float32{float32(math.NaN())}); nan[0] == nan[0] {
		t.Errorf("NaN gives %v", nan[0])
	}
	t.Logf("largest error %.3f ulp, at x = %v (%#x); %d spans", worst.ulps, worst.x, math.Float32bits(worst.x), len(spans))
	return worst
}
