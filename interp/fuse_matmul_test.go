package interp

import (
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// feedForwardNet is a transformer block's feed-forward half with shapes
// that leave ragged edges everywhere (2·seq rows, k of 300 and 200 across
// k blocks, 200 and 96 columns): MatMul+bias+Gelu, MatMul+bias+residual,
// a MatMul by weights with a (1, n) bias whose sum is also a graph output
// (which must stay), and one without bias feeding a broadcasting Add.
func feedForwardNet(tb testing.TB, seq int64) *canon.Graph {
	b := newNetBuilder("x", 2, seq, 96)
	h := b.node(&canon.MatMul{}, "x", b.weight(0.1, 96, 300))
	h = b.node(&canon.Gelu{}, b.node(&canon.Binary{Fn: canon.Add}, b.weight(0.5, 300), h))
	h = b.node(&canon.MatMul{}, h, b.weight(0.1, 300, 200))
	h = b.node(&canon.Binary{Fn: canon.Add}, h, b.weight(0.5, 1, 200))
	y := b.node(&canon.MatMul{}, h, b.weight(0.1, 200, 96))
	y = b.node(&canon.Binary{Fn: canon.Add}, "x", b.node(&canon.Binary{Fn: canon.Add}, y, b.weight(0.5, 96)))
	z := b.node(&canon.MatMul{}, y, b.weight(0.1, 96, 17))
	z = b.node(&canon.Binary{Fn: canon.Add}, z, b.weight(0.5, 2, 1, 17))
	return b.finish(tb, z, h)
}

// TestMatMulWeightsFusion checks that the fused plan drops the absorbed
// steps and gives the unfused plan's results bit for bit, on the in-place
// path (AVX-512) and on the fallback (gemm, then the epilogue).
func TestMatMulWeightsFusion(t *testing.T) {
	// 74, 72 and 68 rows: a last panel of 10, 8 and 4 rows.
	for _, seq := range []int64{37, 36, 34} {
		g := feedForwardNet(t, seq)
		in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(3)), "x", 2, int(seq), 96)}
		fused, err := New(g)
		if err != nil {
			t.Fatal(err)
		}
		fuseEpilogues = false
		plain, err := New(g)
		fuseEpilogues = true
		if err != nil {
			t.Fatal(err)
		}
		// Bias and Gelu; bias; bias and residual; nothing (the Add
		// broadcasts over rows).
		if got, want := len(fused.steps), len(plain.steps)-5; got != want {
			t.Errorf("fused plan has %d steps, want %d (unfused %d)", got, want, len(plain.steps))
		}
		want, err := plain.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		compareRuns(t, fused, in, want)
		mr, mc := gemmMR, gemmMC
		gemmMR, gemmMC = 6, 120 // the AVX2 blocking: gemm, then the epilogue
		compareRuns(t, fused, in, want)
		gemmMR, gemmMC = mr, mc
	}
}

// Weights whose rows are a multiple of 512 floats long are packed a block
// of columns at a time; the sums are those of the weights read in place
// and of gemm, bit for bit (three column blocks, two k blocks, a last
// panel of 5 rows; a bias and Gelu on each strip).
func TestGemmByWeightsPackedBlocks(t *testing.T) {
	// Columns split between tasks; rows split between tasks (n < m); a
	// last, partial panel of columns; a single panel of rows.
	for _, sh := range []struct{ m, k, n int }{{37, 300, 1536}, {600, 300, 512}, {53, 270, 1000}, {9, 40, 600}} {
		m, k, n := sh.m, sh.k, sh.n
		r := rand.New(rand.NewSource(4))
		a, w, bias := make([]float32, m*k), make([]float32, k*n), make([]float32, n)
		for _, s := range [][]float32{a, w, bias} {
			for i := range s {
				s[i] = float32(r.NormFloat64())
			}
		}
		defer func() { packAliasedWeights = true }()
		want := make([]float32, m*n)
		gemm(false, false, m, n, k, 1, a, k, w, n, want, n, 0)
		(&matMulEp{bias: bias, gelu: true}).apply(want, n, 0, m, 0, n)
		pre := newPackedB(false, w, k, n)
		// One core: the whole width in blocks; two: a block a task.
		for _, procs := range []int{1, 2} {
			old := runtime.GOMAXPROCS(procs)
			ways := []string{"packed in blocks", "in place", "packed once"}
			var got [3][]float32
			for i := range ways {
				packAliasedWeights = i == 0
				var p *packedB
				if i == 2 {
					p = pre
				}
				got[i] = make([]float32, m*n)
				gemmByWeights(m, n, k, a, w, p, got[i], &matMulEp{bias: bias, gelu: true})
			}
			runtime.GOMAXPROCS(old)
			for i := range want {
				for v, g := range got {
					if math.Float32bits(g[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%dx%dx%d on %d cores, element %d: %s %v, gemm %v", m, k, n, procs, i, ways[v], g[i], want[i])
					}
				}
			}
		}
	}
}
