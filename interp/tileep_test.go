package interp

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestGemmPackedEpExact checks the GEMM that applies its epilogue tile by
// tile against the GEMM followed by the epilogue over the whole output,
// bit for bit: same sums, same epilogue, across ragged tiles, several k
// blocks, the parallel split, and strips run along all of C (a short k
// and long rows: 96×3136×16, and ragged rows and columns, last panels of
// 4 and 10 columns).
func TestGemmPackedEpExact(t *testing.T) {
	if !hasFMA {
		t.Skip("skipping: no packed GEMM without FMA")
	}
	r := rand.New(rand.NewSource(9))
	rnd := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		return v
	}
	for _, sz := range [][3]int{{16, 16, 16}, {96, 3136, 16}, {24, 3136, 144}, {160, 49, 960}, {37, 53, 300}, {1280, 49, 320}, {5, 3, 2}, {112, 196, 600}, {40, 50, 20}, {48, 4, 7}, {37, 2100, 16}, {40, 2090, 20}} {
		m, n, k := sz[0], sz[1], sz[2]
		// Special residuals and biases (NaN, ±0, ±Inf, the bounds) reach
		// every branch of the epilogue.
		special := make([]float32, m*n)
		specialFloats(r, special, 0, 6)
		negZero := float32(math.Copysign(0, -1))
		for _, ep := range []clampEp{noClamp, {lo: 0, hi: 6, clamp: true}, {res: rnd(m * n)}, {lo: 0, hi: float32(math.Inf(1)), clamp: true, res: special}, {lo: -1, hi: negZero, clamp: true, res: special}} {
			for _, withBias := range []bool{false, true} {
				pa := newPackedA(false, m, k, 1, rnd(m*k), k)
				b := rnd(k * n)
				var bias []float32
				if withBias {
					bias = make([]float32, m)
					specialFloats(r, bias, 0, 6)
				}
				want := make([]float32, m*n)
				gemmPacked(pa, false, n, b, n, want, n, 0)
				ep.apply(want, n, bias, 0, m, 0, n)
				got := make([]float32, m*n)
				for i := range got {
					got[i] = float32(math.NaN()) // the output may hold garbage
				}
				gemmPackedEp(pa, n, b, got, bias, ep)
				sameBits(t, fmt.Sprintf("%dx%dx%d bias=%v clamp=%v res=%v", m, n, k, withBias, ep.clamp, ep.res != nil), got, want, false)
			}
		}
	}
}

// TestConvTileEpiloguesExact runs convolutions with fused epilogues (bias,
// residual, Relu or Clip) large enough to be split across cores, on the
// pointwise and the im2col paths, with tile epilogues and with the pass
// over each slab: the outputs must agree bit for bit.
func TestConvTileEpiloguesExact(t *testing.T) {
	// The GEMMs split by columns (16×16 map) and by rows (8×8, 4×4).
	b := newNetBuilder("x", 1, 24, 16, 16)
	y := b.node(&canon.Clip{Min: 0, Max: 6}, b.conv("x", 24, 48, 1, 1, 0, 1, true)) // pointwise + Clip
	y = b.relu(b.conv(y, 48, 96, 3, 2, 1, 1, true))                                 // im2col, stride 2
	z := b.node(&canon.Binary{Fn: canon.Add}, b.conv(y, 96, 96, 1, 1, 0, 1, true), y)
	short := b.conv(z, 96, 96, 1, 2, 0, 1, false)
	z = b.relu(b.node(&canon.Binary{Fn: canon.Add}, b.conv(z, 96, 96, 3, 2, 1, 1, true), short)) // im2col + residual
	g := b.finish(t, z, y)
	in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(4)), "x", 1, 24, 16, 16)}
	run := func(tiles bool) map[string]*canon.Tensor {
		defer func() { tileEpilogues = true }()
		tileEpilogues = tiles
		out, err := Run(g, in)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	got, want := run(true), run(false)
	for name, w := range want {
		sameBits(t, name, floats(t, got[name]), floats(t, w), true)
	}
}
