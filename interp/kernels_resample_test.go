package interp

import (
	"math"
	"runtime"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func resizeGraph(t testing.TB, op *canon.Resize, shape ...int64) (*canon.Graph, map[string]*canon.Tensor) {
	t.Helper()
	g := &canon.Graph{Name: "resize",
		Inputs: []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(shape...), RankKnown: true}},
		Nodes:  []*canon.Node{{Name: "rs", Op: op, Inputs: []string{"x"}, Outputs: []string{"y"}}},
	}
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	y := g.Values.Get("y")
	y.Const = nil
	g.Outputs = []canon.ValueInfo{y}
	v := make([]float32, canon.NumElements(shape))
	for i := range v {
		v[i] = float32(math.Sin(float64(i) * 0.37))
	}
	return g, map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", shape, v)}
}

// TestResizeIntermediateBound: growing one axis 1000× while shrinking
// another 1000× runs in the bounds of its input and output, because the
// shrinking axis goes first.
func TestResizeIntermediateBound(t *testing.T) {
	old := MaxTensorBytes
	MaxTensorBytes = 64 << 10
	defer func() { MaxTensorBytes = old }()
	g, in := resizeGraph(t, &canon.Resize{Mode: canon.ResizeLinear, Sizes: []int64{1, 2000, 2}}, 1, 2, 2000)
	out, err := Run(g, in)
	if err != nil {
		t.Fatal(err)
	}
	if s := out["y"].Shape; s[1] != 2000 || s[2] != 2 {
		t.Fatalf("shape %v", s)
	}
}

// TestResizeLinearValues: half-pixel doubling of [0, 1, 2] samples -0.25
// (the edge), 0.25, 0.75, 1.25, 1.75 and 2.25 (the edge).
func TestResizeLinearValues(t *testing.T) {
	g, _ := resizeGraph(t, &canon.Resize{Mode: canon.ResizeLinear, Scales: []float32{1, 2}}, 1, 3)
	out, err := Run(g, map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{1, 3}, []float32{0, 1, 2})})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := out["y"].Float64s()
	want := []float64{0, 0.25, 0.75, 1.25, 1.75, 2}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-6 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// TestResizeSplitsMatchOneCore: output rows split between cores give one
// core's bits (linear and cubic, growing and shrinking, one plane or
// several).
func TestResizeSplitsMatchOneCore(t *testing.T) {
	for _, c := range []struct {
		mode   canon.ResizeMode
		scales []float32
		shape  []int64
	}{
		{canon.ResizeLinear, []float32{1, 1, 2, 1.5}, []int64{1, 4, 64, 80}},
		{canon.ResizeCubic, []float32{1, 1, 0.5, 2}, []int64{2, 3, 64, 48}},
		{canon.ResizeLinear, []float32{1, 1, 3, 2}, []int64{1, 1, 120, 90}},
	} {
		g, in := resizeGraph(t, &canon.Resize{Mode: c.mode, Scales: c.scales}, c.shape...)
		run := func(procs int) []float32 {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			out, err := Run(g, in)
			if err != nil {
				t.Fatal(err)
			}
			return floats(t, out["y"])
		}
		want, got := run(1), run(2)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v %v on %v: element %d is %v on two cores, %v on one", c.mode, c.scales, c.shape, i, got[i], want[i])
			}
		}
	}
}

func BenchmarkResizeBilinear(b *testing.B) {
	g, in := resizeGraph(b, &canon.Resize{Mode: canon.ResizeLinear, Scales: []float32{1, 1, 2, 2}}, 1, 64, 128, 128)
	p, err := New(g)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := p.Run(in); err != nil {
			b.Fatal(err)
		}
	}
}

// TestResampleBadRunTimeParams: nonsense parameters arriving at run time
// are errors, never panics or huge allocations.
func TestResampleBadRunTimeParams(t *testing.T) {
	f32 := canon.Float32
	cases := []struct {
		name   string
		op     canon.Op
		inputs []canon.ValueInfo
		feed   map[string]*canon.Tensor
	}{
		{"resize negative size", &canon.Resize{Mode: canon.ResizeLinear},
			[]canon.ValueInfo{{Name: "x", DType: f32, Shape: canon.DimsOf(1, 4), RankKnown: true}, {Name: "", DType: canon.Undefined}, {Name: "s", DType: canon.Int64, Shape: canon.DimsOf(2), RankKnown: true}},
			map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{1, 4}, []float32{1, 2, 3, 4}), "s": canon.NewInt64Tensor("s", []int64{2}, []int64{1, -3})}},
		{"resize huge size", &canon.Resize{Mode: canon.ResizeCubic, CubicCoeffA: -0.75},
			[]canon.ValueInfo{{Name: "x", DType: f32, Shape: canon.DimsOf(1, 4), RankKnown: true}, {Name: "", DType: canon.Undefined}, {Name: "s", DType: canon.Int64, Shape: canon.DimsOf(2), RankKnown: true}},
			map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{1, 4}, []float32{1, 2, 3, 4}), "s": canon.NewInt64Tensor("s", []int64{2}, []int64{1 << 30, 1 << 30})}},
		{"col2im zero block", &canon.Col2Im{},
			[]canon.ValueInfo{{Name: "x", DType: f32, Shape: canon.DimsOf(1, 4, 4), RankKnown: true}, {Name: "i", DType: canon.Int64, Shape: canon.DimsOf(2), RankKnown: true}, {Name: "b", DType: canon.Int64, Shape: canon.DimsOf(2), RankKnown: true}},
			map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{1, 4, 4}, make([]float32, 16)), "i": canon.NewInt64Tensor("i", []int64{2}, []int64{3, 3}), "b": canon.NewInt64Tensor("b", []int64{2}, []int64{0, 2})}},
		{"affine grid bad size", &canon.AffineGrid{},
			[]canon.ValueInfo{{Name: "x", DType: f32, Shape: canon.DimsOf(1, 2, 3), RankKnown: true}, {Name: "s", DType: canon.Int64, Shape: canon.DimsOf(3), RankKnown: true}},
			map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{1, 2, 3}, make([]float32, 6)), "s": canon.NewInt64Tensor("s", []int64{3}, []int64{1, 1, 4})}},
	}
	for _, c := range cases {
		g := &canon.Graph{Name: "bad"}
		n := &canon.Node{Name: "n", Op: c.op, Outputs: []string{"y"}}
		for _, v := range c.inputs {
			if v.Name != "" {
				g.Inputs = append(g.Inputs, v)
			}
			n.Inputs = append(n.Inputs, v.Name)
		}
		g.Nodes = []*canon.Node{n}
		if err := g.Infer(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		y := g.Values.Get("y")
		y.Name = "y"
		g.Outputs = []canon.ValueInfo{y}
		if _, err := Run(g, c.feed); err == nil {
			t.Errorf("%s: no error", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
}
