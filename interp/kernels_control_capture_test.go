package interp

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// captureLoop is a Loop of trips iterations whose body reads one element
// of a captured tensor of n floats per iteration (acc += x[i]) and
// overwrites a copy of it in place (Relu of x, summed at [i]): the captured
// tensor crosses into the body every iteration, and a body kernel that
// writes in place must not reach it.
func captureLoop(t testing.TB, n, trips int64) *canon.Graph {
	t.Helper()
	body := &canon.Graph{Name: "body",
		Inputs: []canon.ValueInfo{{Name: "i", DType: canon.Int64, RankKnown: true}, {Name: "c", DType: canon.Bool, RankKnown: true},
			{Name: "acc", DType: canon.Float32, Shape: canon.DimsOf(), RankKnown: true}},
		Nodes: []*canon.Node{
			{Name: "pick", Op: &canon.Gather{Axis: 0}, Inputs: []string{"x", "i"}, Outputs: []string{"xi"}},
			{Name: "add", Op: &canon.Binary{Fn: canon.Add}, Inputs: []string{"acc", "xi"}, Outputs: []string{"acc_next"}},
			{Name: "keep", Op: &canon.Identity{}, Inputs: []string{"c"}, Outputs: []string{"c_next"}},
		},
		Outputs: []canon.ValueInfo{{Name: "c_next"}, {Name: "acc_next"}}}
	g := &canon.Graph{Name: "capture",
		Inputs: []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(n), RankKnown: true},
			{Name: "acc0", DType: canon.Float32, Shape: canon.DimsOf(), RankKnown: true}},
		Initializers: []*canon.Tensor{canon.NewInt64Tensor("m", []int64{}, []int64{trips})},
		Nodes:        []*canon.Node{{Name: "loop", Op: &canon.Loop{Body: body, Captures: []string{"x"}}, Inputs: []string{"m", "", "acc0", "x"}, Outputs: []string{"sum"}}},
		Outputs:      []canon.ValueInfo{{Name: "sum"}}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

// BenchmarkLoopCapture runs 100 iterations over a captured tensor of 1M
// floats: the body reads one element per iteration, so the time is what
// handing the tensor to the body costs.
func BenchmarkLoopCapture(b *testing.B) {
	const n, trips = 1 << 20, 100
	g := captureLoop(b, n, trips)
	p, err := New(g)
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i % 7)
	}
	in := map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{n}, x), "acc0": canon.NewFloat32Tensor("acc0", []int64{}, []float32{0})}
	b.ResetTimer()
	for range b.N {
		if _, err := p.Run(in); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSubgraphCannotChangeLentInputs: a body whose last read of a captured
// tensor and of a carried value is an elementwise op (which writes in
// place into an input it owns) must leave the outer values as they were:
// the outer graph returns both after the loop.
func TestSubgraphCannotChangeLentInputs(t *testing.T) {
	body := &canon.Graph{Name: "body",
		Inputs: []canon.ValueInfo{{Name: "i", DType: canon.Int64, RankKnown: true}, {Name: "c", DType: canon.Bool, RankKnown: true},
			{Name: "acc", DType: canon.Float32, Shape: canon.DimsOf(3), RankKnown: true}},
		Nodes: []*canon.Node{
			{Name: "negx", Op: &canon.Math{Fn: canon.MathNeg}, Inputs: []string{"x"}, Outputs: []string{"nx"}},
			{Name: "nega", Op: &canon.Math{Fn: canon.MathNeg}, Inputs: []string{"acc"}, Outputs: []string{"na"}},
			{Name: "add", Op: &canon.Binary{Fn: canon.Add}, Inputs: []string{"na", "nx"}, Outputs: []string{"acc_next"}},
			{Name: "keep", Op: &canon.Identity{}, Inputs: []string{"c"}, Outputs: []string{"c_next"}},
		},
		Outputs: []canon.ValueInfo{{Name: "c_next"}, {Name: "acc_next"}}}
	g := &canon.Graph{Name: "lent",
		Inputs: []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(3), RankKnown: true},
			{Name: "acc0", DType: canon.Float32, Shape: canon.DimsOf(3), RankKnown: true}},
		Initializers: []*canon.Tensor{canon.NewInt64Tensor("m", []int64{}, []int64{2})},
		Nodes: []*canon.Node{
			{Name: "loop", Op: &canon.Loop{Body: body, Captures: []string{"x"}}, Inputs: []string{"m", "", "acc0", "x"}, Outputs: []string{"y"}},
			{Name: "x_after", Op: &canon.Identity{}, Inputs: []string{"x"}, Outputs: []string{"x_out"}},
			{Name: "acc_after", Op: &canon.Identity{}, Inputs: []string{"acc0"}, Outputs: []string{"acc_out"}},
		},
		Outputs: []canon.ValueInfo{{Name: "y"}, {Name: "x_out"}, {Name: "acc_out"}}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	out, err := Run(g, map[string]*canon.Tensor{
		"x":    canon.NewFloat32Tensor("x", []int64{3}, []float32{1, 2, 3}),
		"acc0": canon.NewFloat32Tensor("acc0", []int64{3}, []float32{10, 20, 30})})
	if err != nil {
		t.Fatal(err)
	}
	// acc -> -acc - x twice: a1 = -a0 - x, a2 = -a1 - x = a0.
	for name, want := range map[string][]float64{"y": {10, 20, 30}, "x_out": {1, 2, 3}, "acc_out": {10, 20, 30}} {
		got, err := out[name].Float64s()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}
