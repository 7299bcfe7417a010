package vec

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"runtime"
	"testing"
)

// The float32-lane tanh equals its scalar reference bit for bit at every
// width, on every length (tails included) and over a sweep of every bit
// pattern class.
func TestTanh32MatchesReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(11))
		for _, n := range lengths {
			for _, scale := range []float64{0.3, 1, 8, 60} {
				s := randF32(r, n, scale)
				for i := range s {
					if r.Intn(16) == 0 {
						s[i] = math.Float32frombits(r.Uint32())
					}
				}
				got, want := guard32(n), make([]float32, n)
				Tanh32(got, s)
				tanh32Ref(want, s)
				sameBits32(t, fmt.Sprintf("Tanh32 n=%d", n), got, want)
				checkGuard32(t, "Tanh32", got)
			}
		}
		const chunk = 1 << 14
		in, got, want := make([]float32, chunk), make([]float32, chunk), make([]float32, chunk)
		for b := uint64(0); b < 1<<32; b += 4099 * chunk {
			for i := range in {
				in[i] = math.Float32frombits(uint32(b + 4099*uint64(i)))
			}
			Tanh32(got, in)
			tanh32Ref(want, in)
			sameBits32(t, "Tanh32 sweep", got, want)
		}
	})
}

// TestTanh32Accuracy bounds tanh32's error against math.Tanh over a dense
// sweep of float32 bit patterns and at the edges (±0 keep their sign, NaN
// stays NaN). MODELBRIDGE_EXHAUSTIVE=1 adds every pattern with
// 2^-30 ≤ |x| < 16: below it tanh(x) rounds to x, above it to ±1, both of
// which the sweep checks.
func TestTanh32Accuracy(t *testing.T) {
	stride := uint64(997)
	if testing.Short() {
		stride = 4099
	}
	type span struct{ lo, hi, step uint64 }
	var ranges []span
	for b := uint64(0); b < 1<<32; b += stride << 14 {
		ranges = append(ranges, span{b, min(b+stride<<14, 1<<32), stride})
	}
	if os.Getenv("MODELBRIDGE_EXHAUSTIVE") != "" {
		lo, hi := uint64(127-30)<<23, uint64(127+4)<<23
		for sign := uint64(0); sign < 2; sign++ {
			for b := lo; b < hi; b += 1 << 20 {
				ranges = append(ranges, span{sign<<31 | b, sign<<31 | b + 1<<20, 1})
			}
		}
	}
	type result struct {
		worst float64
		x     float32
	}
	work, results := make(chan span), make(chan result)
	workers := runtime.GOMAXPROCS(0)
	for range workers {
		go func() {
			const chunk = 1 << 14
			in, out := make([]float32, chunk), make([]float32, chunk)
			var r result
			for rg := range work {
				for b := rg.lo; b < rg.hi; b += rg.step * chunk {
					n := 0
					for ; n < chunk && b+rg.step*uint64(n) < rg.hi; n++ {
						in[n] = math.Float32frombits(uint32(b + rg.step*uint64(n)))
					}
					Tanh32(out[:n], in[:n])
					for i, x := range in[:n] {
						if e := ulpError(out[i], math.Tanh(float64(x))); e > r.worst {
							r = result{e, x}
						}
					}
				}
			}
			results <- r
		}()
	}
	for _, rg := range ranges {
		work <- rg
	}
	close(work)
	var worst result
	for range workers {
		if r := <-results; r.worst > worst.worst {
			worst = r
		}
	}
	negZero := float32(math.Copysign(0, -1))
	for _, x := range []float32{0, negZero, float32(math.Inf(1)), float32(math.Inf(-1)), math.SmallestNonzeroFloat32,
		-math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32, 0.625, -0.625, 0.62499994, 9.01, -52, 1e-3} {
		var o [1]float32
		Tanh32(o[:], []float32{x})
		if e := ulpError(o[0], math.Tanh(float64(x))); e > worst.worst {
			worst = result{e, x}
		}
		if x == 0 && math.Float32bits(o[0]) != math.Float32bits(x) {
			t.Errorf("tanh32(%v) = %v: the sign of zero is lost", x, o[0])
		}
	}
	var nan [1]float32
	if Tanh32(nan[:], []float32{float32(math.NaN())}); nan[0] == nan[0] {
		t.Errorf("tanh32(NaN) = %v", nan[0])
	}
	t.Logf("largest error %.3f ulp, at x = %v (%#x); %d ranges", worst.worst, worst.x, math.Float32bits(worst.x), len(ranges))
	if worst.worst > 1.2 {
		t.Errorf("tanh32 is %.3f ulp off at x = %v", worst.worst, worst.x)
	}
}
