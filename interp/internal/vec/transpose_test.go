package vec

import (
	"math/rand"
	"testing"
)

// Transpose16 moves every value of its blocks where the reference does
// and writes nothing else.
func TestTranspose16MatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(17))
		for trial := range 50 {
			n := 1 + rng.Intn(4)
			lds, ldd := 16*n+rng.Intn(9), 16+rng.Intn(9)
			src := make([]float32, 15*lds+16*n)
			for i := range src {
				src[i] = float32(rng.NormFloat64())
			}
			got, want := make([]float32, (16*n-1)*ldd+17), make([]float32, (16*n-1)*ldd+17)
			Transpose16(n, got, ldd, src, lds)
			transpose16Ref(n, want, ldd, src, lds)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("trial %d (n %d, lds %d, ldd %d): dst[%d] = %v, want %v", trial, n, lds, ldd, i, got[i], want[i])
				}
			}
		}
	})
}
