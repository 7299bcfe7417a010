package vec

import (
	"math"
	"math/rand"
	"testing"
)

// Quads equals its reference bit for bit at every vector level: taps out
// of the plane, zero weights, signed zeros, infinities and NaN included.
func TestQuadsMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(35))
		for trial := range 400 {
			plane, n := 1+rng.Intn(300), rng.Intn(140)
			stride := n + rng.Intn(9)
			src := make([]float32, plane)
			for i := range src {
				src[i] = float32(rng.NormFloat64())
				if rng.Intn(20) == 0 {
					src[i] = float32(specials[rng.Intn(len(specials))])
				}
			}
			off, w := make([]int32, 4*stride), make([]float64, 4*stride)
			for i := range off {
				off[i] = int32(rng.Intn(plane))
				w[i] = rng.Float64()
				switch rng.Intn(8) {
				case 0:
					off[i], w[i] = -1, 0
				case 1:
					off[i], w[i] = int32(plane+rng.Intn(3)), 0
				case 2:
					w[i] = math.Copysign(0, -1)
				case 3:
					w[i] = -w[i]
				}
			}
			got, want := make([]float32, n), make([]float32, n)
			Quads(got, src, off, w, stride)
			quadsRef(want, src, off, w, stride)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("trial %d: dst[%d] = %v, want %v", trial, i, got[i], want[i])
				}
			}
		}
	})
}
