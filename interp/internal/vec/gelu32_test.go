package vec

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"testing"
)

// gelu64 is gelu in float64, its error far below float32's ulp.
func gelu64(x float64) float64 { return 0.5 * x * math.Erfc(-x/math.Sqrt2) }

// Gelu32 equals its reference bit for bit (NaN's payload aside) at every
// width and length, on random values, the edges of its ranges and a sweep
// of bit patterns.
func TestGelu32MatchesReference(t *testing.T) {
	edges := []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 0.49999997, -0.49999997, 15, -15, 15.000001,
		-15.000001, 14, -14, 1e-45, -1e-45, 1e-38, -1e-38, float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32, 1, -1, 4, -4, 10, -10}
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(13))
		for _, n := range lengths {
			for _, scale := range []float64{0.3, 2, 8} {
				s := randF32(r, n, scale)
				for i := range s {
					switch r.Intn(16) {
					case 0:
						s[i] = math.Float32frombits(r.Uint32())
					case 1:
						s[i] = edges[r.Intn(len(edges))]
					}
				}
				got, want := guard32(n), make([]float32, n)
				Gelu32(got, s)
				geluLanes32Ref(want, s)
				sameBits32(t, fmt.Sprintf("Gelu32 n=%d", n), got, want)
				checkGuard32(t, "Gelu32", got)
			}
		}
		const block = 4096
		s, got, want := make([]float32, block), make([]float32, block), make([]float32, block)
		stride := uint64(9973)
		if testing.Short() {
			stride = 99991
		}
		for b := uint64(0); b < 1<<32; b += stride * block {
			for i := range s {
				s[i] = math.Float32frombits(uint32(b + uint64(i)*stride))
			}
			Gelu32(got, s)
			geluLanes32Ref(want, s)
			sameBits32(t, "Gelu32 sweep", got, want)
		}
	})
}

// TestGelu32Accuracy measures gelu32 against float64 gelu (math.Erfc) over
// every 97th float32 bit pattern (every pattern with
// MODELBRIDGE_EXHAUSTIVE=1): ±Inf, NaN, subnormals and the negatives down
// to where gelu underflows among them.
func TestGelu32Accuracy(t *testing.T) {
	stride := uint64(97)
	if testing.Short() {
		stride = 9973
	}
	if os.Getenv("MODELBRIDGE_EXHAUSTIVE") != "" {
		stride = 1
	}
	worst, worstX := 0.0, float32(0)
	for b := uint64(0); b < 1<<32; b += stride {
		x := math.Float32frombits(uint32(b))
		if e := ulpError(gelu32(x), gelu64(float64(x))); e > worst {
			worst, worstX = e, x
		}
	}
	for _, x := range []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), -1e-45, 1e-45} {
		if e := ulpError(gelu32(x), gelu64(float64(x))); e > worst {
			worst, worstX = e, x
		}
	}
	t.Logf("largest error %.3f ulp, at x = %v (%#x)", worst, worstX, math.Float32bits(worstX))
	if worst > 5.04 {
		t.Errorf("gelu32 is %.3f ulp off at x = %v", worst, worstX)
	}
}

// BenchmarkGelu32 runs Gelu32 over one of vit_b_16's MLP activations
// (197×3072 floats), in place, as the fused product's epilogue does.
func BenchmarkGelu32(b *testing.B) {
	x := make([]float32, 197*3072)
	for i := range x {
		x[i] = float32(i%2000)/250 - 4
	}
	y := make([]float32, len(x))
	b.SetBytes(int64(4 * len(x)))
	for range b.N {
		copy(y, x)
		Gelu32(y, y)
	}
}
