package interp

import (
	"math"
	"math/rand"
	"runtime"
	"testing"
)

// A Linear's constant weights packed once give gemm's results bit for bit
// (B packed on every call), with alpha and beta, on ragged shapes that
// span several k blocks and split between workers.
func TestGemmConstBScaledMatchesGemm(t *testing.T) {
	if !hasFMA {
		t.Skip("skipping: without the FMA kernels gemm is gonum's BLAS and Linear does not pack its weights")
	}
	r := rand.New(rand.NewSource(11))
	rnd := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		return v
	}
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		for _, c := range []struct{ m, n, k int }{{5, 3, 7}, {17, 33, 300}, {197, 768, 768}, {40, 3100, 513}} {
			for _, beta := range []float32{0, 1} {
				a, w, y0 := rnd(c.m*c.k), rnd(c.n*c.k), rnd(c.m*c.n)
				got, want := append([]float32{}, y0...), append([]float32{}, y0...)
				if beta == 0 {
					for i := range got {
						got[i] = float32(math.NaN()) // a recycled buffer: never read
					}
				}
				gemmConstBScaled(c.m, c.n, c.k, 1.5, a, c.k, newPackedB(true, w, c.k, c.n), got, c.n, beta)
				gemm(false, true, c.m, c.n, c.k, 1.5, a, c.k, w, c.k, want, c.n, beta)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("procs=%d m=%d n=%d k=%d beta=%g: element %d is %g, gemm gives %g", procs, c.m, c.n, c.k, beta, i, got[i], want[i])
					}
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestColumnEdgesSameBits checks that gemmCoreP's narrow last panels, run
// column by column, give the bits the 16-column tiles give: edges of one
// to four columns, row counts with and without a partial panel, k over
// one block.
func TestColumnEdgesSameBits(t *testing.T) {
	if gemmMR != 16 {
		t.Skip("skipping: the column path needs the 16-row AVX-512 micro-kernel")
	}
	defer func(on bool) { columnEdges = on }(columnEdges)
	r := rand.New(rand.NewSource(5))
	for _, c := range []struct{ m, n, k int }{{64, 49, 2304}, {48, 17, 300}, {197, 36, 64}, {16, 4, 9}, {130, 66, 513}} {
		a, w := make([]float32, c.m*c.k), make([]float32, c.n*c.k)
		for _, v := range [][]float32{a, w} {
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
		}
		pb := newPackedB(true, w, c.k, c.n)
		var out [2][]float32
		for i, on := range []bool{true, false} {
			columnEdges = on
			out[i] = make([]float32, c.m*c.n)
			gemmConstBScaled(c.m, c.n, c.k, 1, a, c.k, pb, out[i], c.n, 0)
		}
		for i := range out[0] {
			if math.Float32bits(out[0][i]) != math.Float32bits(out[1][i]) {
				t.Fatalf("m=%d n=%d k=%d: element %d is %g by columns, %g by tiles", c.m, c.n, c.k, i, out[0][i], out[1][i])
			}
		}
	}
}
