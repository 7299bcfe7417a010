package interp

import (
	"math"
	"math/rand"
	"testing"
)

// linearByDots agrees with the packed GEMM it replaces for few rows, with
// and without an accumulated C, for shapes that split W into several
// chunks and across workers.
func TestLinearByDotsMatchesGemm(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	rnd := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		return v
	}
	for _, c := range []struct{ m, n, k int }{{1, 1, 1}, {1, 37, 5}, {2, 300, 1000}, {3, 1000, 77}, {4, 129, 40000}} {
		for _, beta := range []float32{0, 0.75} {
			a, w, y0 := rnd(c.m*c.k), rnd(c.n*c.k), rnd(c.m*c.n)
			got, want := append([]float32{}, y0...), append([]float32{}, y0...)
			if beta == 0 {
				for i := range got {
					got[i] = float32(math.NaN()) // a recycled buffer: never read
				}
			}
			linearByDots(c.m, c.n, c.k, 1.5, a, w, got, beta)
			gemm(false, true, c.m, c.n, c.k, 1.5, a, c.k, w, c.k, want, c.n, beta)
			tol := 1e-6 * float64(c.k+1)
			for i := range want {
				if d := math.Abs(float64(got[i] - want[i])); !(d <= tol) {
					t.Fatalf("m=%d n=%d k=%d beta=%g: element %d is %g, the GEMM gives %g", c.m, c.n, c.k, beta, i, got[i], want[i])
				}
			}
		}
	}
}

// dot32x4 gives, bit for bit, dot32 of each of its four rows, at every
// length (vector body, 8-wide step, scalar tail) and row stride.
func TestDot32x4MatchesDot32(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for k := range 70 {
		for _, ldw := range []int{k, k + 5} {
			a := make([]float32, k)
			w := make([]float32, 3*ldw+k)
			for i := range a {
				a[i] = r.Float32()*2 - 1
			}
			for i := range w {
				w[i] = r.Float32()*2 - 1
			}
			var got [4]float32
			dot32x4(a, w, ldw, &got)
			for row, v := range got {
				if want := dot32(a, w[row*ldw:]); math.Float32bits(v) != math.Float32bits(want) {
					t.Fatalf("k=%d ldw=%d row %d: %v, dot32 gives %v", k, ldw, row, v, want)
				}
			}
		}
	}
}
