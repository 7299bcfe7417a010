package vec

import (
	"fmt"
	"math"
	"math/rand"
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
	negZero := float32(math.Copysign(0, -1))
	worst := ulpSweep{kernel: Tanh32, exact: math.Tanh, loExp: -30, hiExp: 4, edges: []float32{0, negZero,
		float32(math.Inf(1)), float32(math.Inf(-1)), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		math.MaxFloat32, -math.MaxFloat32, 0.625, -0.625, 0.62499994, 9.01, -52, 1e-3}}.run(t)
	for _, x := range []float32{0, negZero} {
		var o [1]float32
		if Tanh32(o[:], []float32{x}); math.Float32bits(o[0]) != math.Float32bits(x) {
			t.Errorf("tanh32(%v) = %v: the sign of zero is lost", x, o[0])
		}
	}
	if worst.ulps > 1.2 {
		t.Errorf("tanh32 is %.3f ulp off at x = %v", worst.ulps, worst.x)
	}
}
