package torchscript

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp"
)

func randTensor(r *rand.Rand, name string, shape ...int64) *canon.Tensor {
	v := make([]float32, canon.NumElements(shape))
	for i := range v {
		v[i] = r.Float32()*2 - 1
	}
	return canon.NewFloat32Tensor(name, shape, v)
}

func float32s(t *testing.T, x *canon.Tensor) []float32 {
	t.Helper()
	f, err := x.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(f))
	for i, v := range f {
		out[i] = float32(v)
	}
	return out
}

// runProgram finishes p with out as its output and runs it on inputs.
func runProgram(t *testing.T, p *Program, out any, inputs map[string]*canon.Tensor) *canon.Tensor {
	t.Helper()
	ot, ok := out.(*Tensor)
	if !ok {
		t.Fatalf("result is %T, not a tensor", out)
	}
	g, err := p.Finish("test", []*Tensor{ot})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := interp.Run(g, inputs)
	if err != nil {
		t.Fatal(err)
	}
	return res[g.Outputs[0].Name]
}

// attentionRef computes softmax(q kᵀ / sqrt(E) + mask) v for rank-3
// inputs; mask(i, j) is added to the score of query i and key j.
func attentionRef(q, k, v []float32, b, l, s, e, ev int, mask func(i, j int) float64) []float32 {
	out := make([]float32, b*l*ev)
	for n := 0; n < b; n++ {
		for i := 0; i < l; i++ {
			scores := make([]float64, s)
			top := math.Inf(-1)
			for j := 0; j < s; j++ {
				dot := 0.0
				for x := 0; x < e; x++ {
					dot += float64(q[(n*l+i)*e+x]) * float64(k[(n*s+j)*e+x])
				}
				scores[j] = dot/math.Sqrt(float64(e)) + mask(i, j)
				top = math.Max(top, scores[j])
			}
			sum := 0.0
			for j := range scores {
				scores[j] = math.Exp(scores[j] - top)
				sum += scores[j]
			}
			for y := 0; y < ev; y++ {
				acc := 0.0
				for j := 0; j < s; j++ {
					acc += scores[j] / sum * float64(v[(n*s+j)*ev+y])
				}
				out[(n*l+i)*ev+y] = float32(acc)
			}
		}
	}
	return out
}

func TestProgramScaledDotProductAttention(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	const b, l, s, e, ev = 2, 3, 5, 4, 6
	qt, kt, vt := randTensor(r, "q", b, l, e), randTensor(r, "k", b, s, e), randTensor(r, "v", b, s, ev)
	fmask := randTensor(r, "m", l, s)
	fm := float32s(t, fmask)
	bmask := make([]bool, l*s)
	for i := range bmask {
		bmask[i] = r.Intn(3) != 0
	}
	bmask[0], bmask[s] = true, true // every query keeps a key
	cases := []struct {
		name   string
		mask   func(i, j int) float64
		kwargs func(p *Program) map[string]any
		args   func(p *Program) []any
	}{
		{"no mask", func(i, j int) float64 { return 0 }, nil, nil},
		{"float mask", func(i, j int) float64 { return float64(fm[i*s+j]) }, nil,
			func(p *Program) []any { return []any{p.Weight(fmask)} }},
		{"bool mask", func(i, j int) float64 {
			if bmask[i*s+j] {
				return 0
			}
			return math.Inf(-1)
		}, nil, func(p *Program) []any {
			return []any{p.Weight(&canon.Tensor{Name: "bm", DType: canon.Bool, Shape: []int64{l, s}, Data: boolBytes(bmask)})}
		}},
		{"causal", func(i, j int) float64 {
			if j > i {
				return math.Inf(-1)
			}
			return 0
		}, func(p *Program) map[string]any { return nil }, func(p *Program) []any { return []any{nil, 0.0, true} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewProgram("test", 1<<20)
			q := p.Input("q", canon.Float32, canon.DimsOf(b, l, e))
			k := p.Input("k", canon.Float32, canon.DimsOf(b, s, e))
			v := p.Input("v", canon.Float32, canon.DimsOf(b, s, ev))
			args := []any{q, k, v}
			if c.args != nil {
				args = append(args, c.args(p)...)
			}
			out, err := p.Call("torch.scaled_dot_product_attention", "attn", args, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := float32s(t, runProgram(t, p, out, map[string]*canon.Tensor{"q": qt, "k": kt, "v": vt}))
			want := attentionRef(float32s(t, qt), float32s(t, kt), float32s(t, vt), b, l, s, e, ev, c.mask)
			for i := range want {
				if math.Abs(float64(got[i]-want[i])) > 1e-5 {
					t.Fatalf("element %d: got %v, want %v", i, got[i], want[i])
				}
			}
		})
	}
}

func boolBytes(b []bool) []byte {
	out := make([]byte, len(b))
	for i, v := range b {
		if v {
			out[i] = 1
		}
	}
	return out
}

// TestProgramViewsOnSymbolicBatch slices, selects and unflattens a tensor
// whose batch is known only at run time, and checks the symbol survives.
func TestProgramViewsOnSymbolicBatch(t *testing.T) {
	p := NewProgram("test", 1<<20)
	x := p.Input("x", canon.Float32, []canon.Dim{{Size: -1, Param: "s0"}, {Size: 6}, {Size: 4}})
	whole, err := p.Call("torch.slice", "", []any{x, int64(0), int64(0), int64(math.MaxInt64)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if whole.(*Tensor).v != x.v {
		t.Error("a slice of a whole axis should be the input itself")
	}
	sl, err := p.Call("torch.slice", "", []any{x, int64(1), int64(1), int64(5), int64(2)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	un, err := p.Call("torch.unflatten", "", []any{sl, int64(-1), []any{int64(2), int64(-1)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := p.Call("torch.select", "", []any{un, int64(3), int64(-1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if info := p.Info(sel.(*Tensor)); len(info.Shape) != 3 || info.Shape[0].Param != "s0" || info.Shape[1].Size != 2 || info.Shape[2].Size != 2 {
		t.Fatalf("select result has shape %v, want [s0 2 2]", info.Shape)
	}
	xv := make([]float32, 72)
	for i := range xv {
		xv[i] = float32(i)
	}
	xs := canon.NewFloat32Tensor("x", []int64{3, 6, 4}, xv)
	got := float32s(t, runProgram(t, p, sel, map[string]*canon.Tensor{"x": xs}))
	// x[:, 1:5:2, :] is rows 1 and 3; unflatten 4 -> (2, 2); select the
	// last of the final axis.
	var want []float32
	for n := 0; n < 3; n++ {
		for _, row := range []int{1, 3} {
			for a := 0; a < 2; a++ {
				want = append(want, float32(n*24+row*4+a*2+1))
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("element %d: got %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}

// TestProgramCloneIsolatesInPlace: an in-place op on a clone leaves the
// original alone (x + relu_(clone(x)) is x + relu(x)).
func TestProgramCloneIsolatesInPlace(t *testing.T) {
	p := NewProgram("test", 1<<20)
	x := p.Input("x", canon.Float32, canon.DimsOf(4))
	cl, err := p.Call("torch.clone", "", []any{x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Call("torch.relu_", "", []any{cl}, nil); err != nil {
		t.Fatal(err)
	}
	sum, err := p.Call("torch.add", "", []any{x, cl}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := float32s(t, runProgram(t, p, sum, map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{4}, []float32{-1, 2, -3, 4})}))
	want := []float32{-1, 4, -3, 8}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
