package interp

import (
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/modelbridge/modelbridge/canon"
)

// attentionNet has the attention patterns as exporters write them, with
// shapes that leave ragged edges (70 queries: one full and one partial row
// block; 70 keys; heads of 24 and 20): scores divided by a constant plus a
// (1, 1, 1, n) key mask (BERT), scores of a query scaled before the
// product with a Mul after it and no mask, and one whose softmax is also a
// graph output (which must stay unfused).
func attentionNet(tb testing.TB) *canon.Graph {
	b := newNetBuilder("x", 2, 3, 70, 24)
	kt := b.node(&canon.Transpose{Perm: []int64{0, 1, 3, 2}}, b.node(&canon.MatMul{}, "x", b.weight(0.5, 24, 24)))
	v := b.node(&canon.MatMul{}, "x", b.weight(0.5, 24, 20))
	mask := b.weight(3, 1, 1, 1, 70)
	s := b.node(&canon.Binary{Fn: canon.Add}, b.node(&canon.Binary{Fn: canon.Div}, b.node(&canon.MatMul{}, "x", kt), b.weight(1, 1)), mask)
	y := b.node(&canon.MatMul{}, b.node(&canon.Softmax{Axis: -1}, s), v)
	// y is (2, 3, 70, 20); a second attention over heads flattened to rank 3.
	y3 := b.node(&canon.Reshape{Shape: []int64{6, 70, 20}}, y)
	k3 := b.node(&canon.Transpose{Perm: []int64{0, 2, 1}}, y3)
	s3 := b.node(&canon.Binary{Fn: canon.Mul}, b.weight(0.3), b.node(&canon.MatMul{}, y3, k3))
	z := b.node(&canon.MatMul{}, b.node(&canon.Softmax{Axis: 2}, s3), y3)
	// The third keeps its softmax: it is a graph output.
	p := b.node(&canon.Softmax{Axis: -1}, b.node(&canon.MatMul{}, z, b.node(&canon.Transpose{Perm: []int64{0, 2, 1}}, z)))
	w := b.node(&canon.MatMul{}, p, z)
	return b.finish(tb, w, p)
}

// TestAttentionFusion checks that the two fusible patterns become one step
// each and that the fused plan gives the unfused plan's results bit for
// bit, on one core and on all.
func TestAttentionFusion(t *testing.T) {
	g := attentionNet(t)
	in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(5)), "x", 2, 3, 70, 24)}
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
	if got, want := len(fused.steps), len(plain.steps)-4-3; got != want {
		t.Errorf("fused plan has %d steps, want %d (unfused %d)", got, want, len(plain.steps))
	}
	want, err := plain.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { attnRowBlock = n }(attnRowBlock)
	for _, attnRowBlock = range []int{256, 64, 16} {
		compareRuns(t, fused, in, want)
	}
}

// compareRuns checks that p gives want's values bit for bit.
func compareRuns(t *testing.T, p *Program, in, want map[string]*canon.Tensor) {
	t.Helper()
	got, err := p.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range want {
		wf, err := w.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		gf, err := got[name].Float64s()
		if err != nil {
			t.Fatal(err)
		}
		if len(wf) != len(gf) {
			t.Fatalf("%s: %d values, want %d", name, len(gf), len(wf))
		}
		for i := range wf {
			if math.Float64bits(wf[i]) != math.Float64bits(gf[i]) {
				t.Fatalf("%s[%d] = %g fused, %g unfused", name, i, gf[i], wf[i])
			}
		}
	}
}

// TestTransposeOfUnitAxes checks the Transposes that move only axes of
// size 1 (no copy when the input dies there, a copy when it is also a
// graph output) against the element order they must keep, and one that
// looks alike but swaps two real axes.
func TestTransposeOfUnitAxes(t *testing.T) {
	b := newNetBuilder("x", 1, 5, 3)
	id := b.node(&canon.Identity{}, "x")
	moved := b.node(&canon.Transpose{Perm: []int64{1, 0, 2}}, id)
	kept := b.node(&canon.Transpose{Perm: []int64{1, 2, 0}}, b.node(&canon.Identity{}, "x"))
	swapped := b.node(&canon.Transpose{Perm: []int64{0, 2, 1}}, "x")
	g := b.finish(t, moved, kept, swapped, "x")
	in := randTensor(rand.New(rand.NewSource(1)), "x", 1, 5, 3)
	out, err := Run(g, map[string]*canon.Tensor{"x": in})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := in.Float64s()
	for _, c := range []struct {
		name  string
		shape []int64
		at    func(i int) int
	}{
		{moved, []int64{5, 1, 3}, func(i int) int { return i }},
		{kept, []int64{5, 3, 1}, func(i int) int { return i }},
		{swapped, []int64{1, 3, 5}, func(i int) int { return i%5*3 + i/5 }},
	} {
		got, _ := out[c.name].Float64s()
		if !slices.Equal(out[c.name].Shape, c.shape) {
			t.Errorf("%s: shape %v, want %v", c.name, out[c.name].Shape, c.shape)
		}
		for i, v := range got {
			if v != x[c.at(i)] {
				t.Fatalf("%s[%d] = %g, want %g", c.name, i, v, x[c.at(i)])
			}
		}
	}
}

// BenchmarkAttentionFusion times BenchmarkOpFamilies' attention block
// (softmax(Q·Kᵀ·0.125)·V, 12 heads of 128 × 64) fused and unfused in
// alternation, reporting the median wall and CPU time of a run of each.
func BenchmarkAttentionFusion(b *testing.B) {
	g := attentionBlock(b)
	fused, err := New(g)
	if err != nil {
		b.Fatal(err)
	}
	fuseEpilogues = false
	plain, err := New(g)
	fuseEpilogues = true
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	in := map[string]*canon.Tensor{"q": randTensor(r, "q", 1, 12, 128, 64), "k": randTensor(r, "k", 1, 12, 128, 64), "v": randTensor(r, "v", 1, 12, 128, 64)}
	var cf, cp, wf, wp []float64
	for range b.N {
		for i, p := range []*Program{fused, plain} {
			t0, c0 := time.Now(), cpuTime()
			for range 10 {
				if _, err := p.Run(in); err != nil {
					b.Fatal(err)
				}
			}
			c := float64((cpuTime() - c0).Microseconds()) / 10000
			w := float64(time.Since(t0).Microseconds()) / 10000
			if i == 0 {
				cf, wf = append(cf, c), append(wf, w)
			} else {
				cp, wp = append(cp, c), append(wp, w)
			}
		}
	}
	b.ReportMetric(median(cf), "fused-cpu-ms")
	b.ReportMetric(median(cp), "plain-cpu-ms")
	b.ReportMetric(median(wf), "fused-ms")
	b.ReportMetric(median(wp), "plain-ms")
}
