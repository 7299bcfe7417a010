package interp

import (
	"math"
	"math/rand"
	"testing"
)

// attnGemm gives gemmSerial's results bit for bit: a head's Q·Kᵀ and
// scores·V at vit_b_16's 197 tokens (a last panel of 5 rows, a last strip
// of 5 columns), BERT's 128, and keys past one k block, with one scratch
// reused across shapes.
func TestAttnGemmMatchesGemm(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	var s attnScratch
	defer s.release()
	for _, c := range []struct{ m, n, k int }{{197, 197, 64}, {197, 64, 197}, {128, 128, 64}, {3, 20, 24}, {40, 64, 300}, {21, 7, 1}} {
		a, b := make([]float32, c.m*c.k), make([]float32, c.k*c.n)
		for _, v := range [][]float32{a, b} {
			for i := range v {
				v[i] = r.Float32()*2 - 1
			}
		}
		got, want := make([]float32, c.m*c.n), make([]float32, c.m*c.n)
		for i := range got {
			got[i] = float32(math.NaN()) // a recycled buffer: never read
		}
		attnGemm(&s, c.m, c.n, c.k, a, c.k, b, c.n, got, c.n)
		gemmSerial(false, false, c.m, c.n, c.k, 1, a, c.k, b, c.n, want, c.n, 0)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%d×%d×%d: element %d is %g, gemm gives %g", c.m, c.n, c.k, i, got[i], want[i])
			}
		}
	}
}
