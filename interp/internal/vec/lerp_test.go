package vec

import (
	"math"
	"math/rand"
	"testing"
)

// LerpRow equals its reference bit for bit, zero weights and signed zeros
// included.
func TestLerpRowMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(16))
		for trial := range 300 {
			iw, n := 1+rng.Intn(40), rng.Intn(120)
			row := make([]float64, iw)
			for i := range row {
				row[i] = rng.NormFloat64()
				if rng.Intn(15) == 0 {
					row[i] = math.Copysign(0, -1)
				}
			}
			i0, i1 := make([]int32, n), make([]int32, n)
			w0, w1 := make([]float64, n), make([]float64, n)
			for o := range n {
				i0[o], i1[o] = int32(rng.Intn(iw)), int32(rng.Intn(iw))
				w1[o] = rng.Float64()
				w0[o] = 1 - w1[o]
				if rng.Intn(5) == 0 {
					w0[o], w1[o], i1[o] = 1, 0, i0[o]
				}
			}
			got, want := make([]float32, n), make([]float32, n)
			LerpRow(got, row, i0, i1, w0, w1)
			lerpRowRef(want, row, i0, i1, w0, w1)
			for o := range got {
				if math.Float32bits(got[o]) != math.Float32bits(want[o]) {
					t.Fatalf("trial %d: dst[%d] = %v, want %v", trial, o, got[o], want[o])
				}
			}
		}
	})
}
