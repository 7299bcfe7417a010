package interp

import (
	"encoding/binary"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// Each dtype is carried as itself: float64 computed in float64, uint64 and
// the other integers exact and unsigned where that matters, bfloat16
// rounded at every op output, float16 rounded where ONNX Runtime rounds.

func f64Tensor(name string, v ...float64) *canon.Tensor {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return &canon.Tensor{Name: name, DType: canon.Float64, Shape: []int64{int64(len(v))}, Data: b}
}

func u64Tensor(name string, v ...uint64) *canon.Tensor {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return &canon.Tensor{Name: name, DType: canon.Uint64, Shape: []int64{int64(len(v))}, Data: b}
}

func halfTensor(name string, dt canon.DType, v ...float32) *canon.Tensor {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		h := canon.Float32ToHalf(x)
		if dt == canon.BFloat16 {
			h = canon.Float32ToBFloat16(x)
		}
		binary.LittleEndian.PutUint16(b[2*i:], h)
	}
	return &canon.Tensor{Name: name, DType: dt, Shape: []int64{int64(len(v))}, Data: b}
}

// chain is a graph of nodes (each writing the output named in it) over
// run-time inputs, validated so every value has its inferred dtype.
func chain(t *testing.T, inputs []*canon.Tensor, nodes []*canon.Node, outputs ...string) *canon.Graph {
	t.Helper()
	g := &canon.Graph{Name: "dtypes", Nodes: nodes}
	for _, in := range inputs {
		g.Inputs = append(g.Inputs, canon.ValueInfo{Name: in.Name, DType: in.DType, Shape: canon.DimsOf(in.Shape...), RankKnown: true})
	}
	for _, o := range outputs {
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o})
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	return g
}

func node(op canon.Op, out string, ins ...string) *canon.Node {
	return &canon.Node{Name: out, Op: op, Inputs: ins, Outputs: []string{out}}
}

func runChain(t *testing.T, g *canon.Graph, inputs ...*canon.Tensor) map[string]*canon.Tensor {
	t.Helper()
	feed := map[string]*canon.Tensor{}
	for _, in := range inputs {
		feed[in.Name] = in
	}
	out, err := Run(g, feed)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func f64s(t *testing.T, ct *canon.Tensor) []float64 {
	t.Helper()
	if ct.DType != canon.Float64 {
		t.Fatalf("%s is %s, want float64", ct.Name, ct.DType)
	}
	v, err := ct.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func u64s(t *testing.T, ct *canon.Tensor) []uint64 {
	t.Helper()
	v, err := ct.Int64s()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = uint64(x)
	}
	return out
}

// TestFloat64Precision: differences of 1e-10 around 1, sums of 2^53 and
// one, and reductions that float32 would round away survive in float64.
func TestFloat64Precision(t *testing.T) {
	one, tiny, p52, tenth, fifth := 1.0, 1e-10, float64(1<<52), 0.1, 0.2
	a := f64Tensor("a", one, p52, tenth)
	b := f64Tensor("b", tiny, one, fifth)
	g := chain(t, []*canon.Tensor{a, b}, []*canon.Node{
		node(&canon.Binary{Fn: canon.Add}, "s", "a", "b"),
		node(&canon.Binary{Fn: canon.Sub}, "d", "s", "a"),
		node(&canon.Binary{Fn: canon.Mul}, "m", "d", "b"),
		node(&canon.Math{Fn: canon.MathExp}, "e", "b"),
		node(&canon.Reduce{Fn: canon.ReduceSum, KeepDims: false}, "r", "s"),
		node(&canon.Softmax{Axis: -1}, "sm", "b"),
		node(&canon.Compare{Fn: canon.CmpGreater}, "gt", "s", "a"),
	}, "d", "m", "e", "r", "sm", "gt", "s")
	out := runChain(t, g, a, b)
	d := f64s(t, out["d"])
	if want := (one + tiny) - one; d[0] != want || d[0] == 0 {
		t.Errorf("(1 + 1e-10) - 1 = %v, want %v", d[0], want)
	}
	if d[1] != 1 {
		t.Errorf("(2^52 + 1) - 2^52 = %v, want 1", d[1])
	}
	if got, want := f64s(t, out["s"])[2], tenth+fifth; got != want {
		t.Errorf("0.1 + 0.2 = %v, want %v (float64)", got, want)
	}
	if got, want := f64s(t, out["e"])[0], math.Exp(1e-10); got != want {
		t.Errorf("exp(1e-10) = %.17g, want %.17g", got, want)
	}
	if got, want := f64s(t, out["r"])[0], (one+tiny)+(p52+one)+(tenth+fifth); got != want {
		t.Errorf("ReduceSum = %.17g, want %.17g", got, want)
	}
	sm := f64s(t, out["sm"])
	var sum float64
	for _, v := range sm {
		sum += v
	}
	if math.Abs(sum-1) > 1e-15 {
		t.Errorf("softmax sums to %.17g, want 1 within 1e-15", sum)
	}
	if gt, _ := out["gt"].Int64s(); gt[0] != 1 {
		t.Errorf("1 + 1e-10 > 1 is false in the interpreter")
	}
}

// TestFloat64Cast: Cast keeps 2^53+1 (an int64) exact through float64 and
// back, rounds float64 to float32 once, and uint64 above 2^63 converts
// unsigned.
func TestFloat64Cast(t *testing.T) {
	i := canon.NewInt64Tensor("i", []int64{3}, []int64{1<<53 + 1, -(1<<53 + 1), 1 << 62})
	g := chain(t, []*canon.Tensor{i}, []*canon.Node{
		node(&canon.Cast{To: canon.Float64}, "f", "i"),
		node(&canon.Cast{To: canon.Int64}, "back", "f"),
		node(&canon.Cast{To: canon.Float32}, "f32", "f"),
	}, "f", "back", "f32")
	out := runChain(t, g, i)
	f := f64s(t, out["f"])
	if f[0] != 1<<53 || f[1] != -(1<<53) || f[2] != 1<<62 {
		t.Errorf("Cast int64 to float64 = %v", f)
	}
	back, _ := out["back"].Int64s()
	if back[0] != 1<<53 || back[2] != 1<<62 {
		t.Errorf("Cast int64 -> float64 -> int64 = %v", back)
	}
	// 2^53 + 2 is exact in float64 but not in float32 (24-bit mantissa).
	j := canon.NewInt64Tensor("j", []int64{1}, []int64{1<<53 + 2})
	g2 := chain(t, []*canon.Tensor{j}, []*canon.Node{
		node(&canon.Cast{To: canon.Float64}, "f", "j"),
		node(&canon.Cast{To: canon.Int64}, "back", "f"),
	}, "back")
	if back, _ := runChain(t, g2, j)["back"].Int64s(); back[0] != 1<<53+2 {
		t.Errorf("2^53+2 through float64 = %d, want %d", back[0], int64(1<<53+2))
	}
}

// TestUint64Unsigned: values above 2^63 divide, compare, take the maximum,
// reduce and cast as unsigned numbers.
func TestUint64Unsigned(t *testing.T) {
	big := uint64(1)<<63 + 1<<11 // stored as a negative int64; exact in float64
	a := u64Tensor("a", big, math.MaxUint64, 7, big)
	b := u64Tensor("b", 2, 3, 2, 1)
	g := chain(t, []*canon.Tensor{a, b}, []*canon.Node{
		node(&canon.Binary{Fn: canon.Div}, "q", "a", "b"),
		node(&canon.Mod{}, "r", "a", "b"),
		node(&canon.Compare{Fn: canon.CmpGreater}, "gt", "a", "b"),
		node(&canon.Variadic{Fn: canon.VarMax}, "mx", "a", "b"),
		node(&canon.Reduce{Fn: canon.ReduceMax, KeepDims: false}, "rmax", "a"),
		node(&canon.ArgReduce{Axis: 0}, "am", "a"),
		node(&canon.Cast{To: canon.Float64}, "f", "a"),
		node(&canon.Cast{To: canon.Uint64}, "back", "f"),
	}, "q", "r", "gt", "mx", "rmax", "am", "f", "back")
	out := runChain(t, g, a, b)
	want := []uint64{big / 2, math.MaxUint64 / 3, 3, big}
	for i, v := range u64s(t, out["q"]) {
		if v != want[i] {
			t.Errorf("Div[%d] = %d, want %d", i, v, want[i])
		}
	}
	wantR := []uint64{big % 2, math.MaxUint64 % 3, 1, 0}
	for i, v := range u64s(t, out["r"]) {
		if v != wantR[i] {
			t.Errorf("Mod[%d] = %d, want %d", i, v, wantR[i])
		}
	}
	if gt, _ := out["gt"].Int64s(); gt[0] != 1 || gt[1] != 1 {
		t.Errorf("2^63+10 > 2 and 2^64-1 > 3: got %v", gt)
	}
	if mx := u64s(t, out["mx"]); mx[0] != big || mx[1] != math.MaxUint64 {
		t.Errorf("Max = %v", mx)
	}
	if r := u64s(t, out["rmax"]); r[0] != math.MaxUint64 {
		t.Errorf("ReduceMax = %d, want %d", r[0], uint64(math.MaxUint64))
	}
	if am, _ := out["am"].Int64s(); am[0] != 1 {
		t.Errorf("ArgMax = %d, want 1", am[0])
	}
	if f := f64s(t, out["f"]); f[0] != float64(big) || f[1] != 1<<64 {
		t.Errorf("Cast uint64 -> float64 = %v", f)
	}
	if back := u64s(t, out["back"]); back[0] != big || back[2] != 7 {
		t.Errorf("Cast uint64 -> float64 -> uint64 = %v", back)
	}
}

// TestUint64Clip: Clip and Relu bound uint64 values above 2^63 unsigned.
func TestUint64Clip(t *testing.T) {
	big := uint64(1)<<63 + 5
	a := u64Tensor("a", 3, big, math.MaxUint64, 1<<62)
	lo, hi := u64Tensor("lo", 4), u64Tensor("hi", big)
	lo.Shape, hi.Shape = []int64{}, []int64{}
	g := chain(t, []*canon.Tensor{a, lo, hi}, []*canon.Node{
		node(canon.NewClip(), "c", "a", "lo", "hi"),
		node(&canon.Unary{Fn: canon.Relu}, "r", "a"),
	}, "c", "r")
	out := runChain(t, g, a, lo, hi)
	want := []uint64{4, big, big, 1 << 62}
	for i, v := range u64s(t, out["c"]) {
		if v != want[i] {
			t.Errorf("Clip[%d] = %d, want %d", i, v, want[i])
		}
	}
	for i, v := range u64s(t, out["r"]) {
		if w := []uint64{3, big, math.MaxUint64, 1 << 62}[i]; v != w {
			t.Errorf("Relu[%d] = %d, want %d", i, v, w)
		}
	}
}

// TestIntegerDivisionRules: Div truncates toward zero, Mod with fmod=0
// takes the divisor's sign, and results wrap at the dtype's width.
func TestIntegerDivisionRules(t *testing.T) {
	a := &canon.Tensor{Name: "a", DType: canon.Int8, Shape: []int64{4}, Data: []byte{0xf9, 7, 0x80, 100}} // -7, 7, -128, 100
	b := &canon.Tensor{Name: "b", DType: canon.Int8, Shape: []int64{4}, Data: []byte{2, 0xfe, 0xff, 3}}   // 2, -2, -1, 3
	g := chain(t, []*canon.Tensor{a, b}, []*canon.Node{
		node(&canon.Binary{Fn: canon.Div}, "q", "a", "b"),
		node(&canon.Mod{}, "r", "a", "b"),
		node(&canon.Binary{Fn: canon.Mul}, "m", "a", "b"),
	}, "q", "r", "m")
	out := runChain(t, g, a, b)
	check := func(name string, want []int8) {
		for i, v := range out[name].Data {
			if int8(v) != want[i] {
				t.Errorf("%s[%d] = %d, want %d", name, i, int8(v), want[i])
			}
		}
	}
	check("q", []int8{-3, -3, -128, 33}) // -128 / -1 wraps to -128
	check("r", []int8{1, -1, 0, 1})
	check("m", []int8{-14, -14, -128, 44}) // 300 wraps to 44
}

// TestHalfRounding: bfloat16 rounds after every op, so (x + 2^-8) - x is
// 0 for x = 1; float16 chains run in float32 and round once at the end, as
// ONNX Runtime's CPU provider does, so (x + 2^-11) - x keeps 2^-11.
func TestHalfRounding(t *testing.T) {
	for _, dt := range []canon.DType{canon.Float16, canon.BFloat16} {
		eps := float32(math.Ldexp(1, -11)) // half an f16 ulp at 1: a tie, rounds to even (1)
		want := []float64{float64(eps), float64(3 * eps)}
		if dt == canon.BFloat16 {
			eps = float32(math.Ldexp(1, -8))
			want = []float64{0, float64(4 * eps)} // 1+eps ties to 1; 1+3eps rounds to 1+4eps
		}
		x := halfTensor("x", dt, 1, 1)
		e := halfTensor("e", dt, eps, 3*eps)
		g := chain(t, []*canon.Tensor{x, e}, []*canon.Node{
			node(&canon.Binary{Fn: canon.Add}, "s", "x", "e"),
			node(&canon.Binary{Fn: canon.Sub}, "d", "s", "x"),
		}, "d")
		out := runChain(t, g, x, e)
		if out["d"].DType != dt {
			t.Fatalf("%s: output is %s", dt, out["d"].DType)
		}
		v, _ := out["d"].Float64s()
		if v[0] != want[0] || v[1] != want[1] {
			t.Errorf("%s: (1+e)-1 = %v, want %v", dt, v, want)
		}
	}
}

// TestHalfCast: an explicit Cast to float16 rounds, whatever reads it, as
// PyTorch's .half() and the ONNX spec do (ONNX Runtime drops a Cast pair
// float32->float16->float32, the interpreter does not).
func TestHalfCast(t *testing.T) {
	v := float32(1 + math.Ldexp(1, -12)) // not a float16: rounds to 1
	x := canon.NewFloat32Tensor("x", []int64{1}, []float32{v})
	g := chain(t, []*canon.Tensor{x}, []*canon.Node{
		node(&canon.Cast{To: canon.Float16}, "h", "x"),
		node(&canon.Cast{To: canon.Float32}, "back", "h"),
		node(&canon.Binary{Fn: canon.Sub}, "d", "x", "back"),
	}, "back", "d")
	out := runChain(t, g, x)
	if got, _ := out["back"].Float64s(); got[0] != 1 {
		t.Errorf("Cast to float16 and back = %.10g, want 1", got[0])
	}
	if got, _ := out["d"].Float64s(); got[0] != float64(v)-1 {
		t.Errorf("x - float16(x) = %g, want %g", got[0], float64(v)-1)
	}
}

// TestFloat64Refused: a kernel without float64 loops (GlobalLpPool)
// refuses float64 data, naming the op, rather than computing it in
// float32; the Conv before it computes in float64.
func TestFloat64Refused(t *testing.T) {
	x := f64Matrix("x", []int64{1, 1, 2, 2}, 1.5, -2, 3.1, 0.25)
	w := f64Matrix("w", []int64{1, 1, 1, 1}, 2)
	g := chain(t, []*canon.Tensor{x, w}, []*canon.Node{
		node(&canon.Conv{Group: 1, Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}}, "c", "x", "w"),
		node(&canon.GlobalLpPool{P: 2}, "y", "c"),
	}, "y")
	_, err := Run(g, map[string]*canon.Tensor{"x": x, "w": w})
	if err == nil || !strings.Contains(err.Error(), "float64") || !strings.Contains(err.Error(), "GlobalLpPool") {
		t.Errorf("GlobalLpPool on float64 data: %v; want an error naming GlobalLpPool and float64", err)
	}
	in := f64Tensor("v", 1.5, -2, 3.1)
	g = chain(t, []*canon.Tensor{in}, []*canon.Node{
		node(&canon.Unsqueeze{Axes: []int64{0, 1}}, "u", "v"),
	}, "u")
	// Unsqueeze moves float64 values by their bits.
	if u := f64s(t, runChain(t, g, in)["u"]); u[2] != 3.1 {
		t.Errorf("Unsqueeze changed 3.1 to %.17g", u[2])
	}
}

// TestFloat64DataMovement: ops that only move elements keep float64 values
// bit for bit, and fill values (Pad) are float64 too.
func TestFloat64DataMovement(t *testing.T) {
	in := f64Tensor("x", 0.1, math.Pi, -1e-300, math.Inf(1))
	g := chain(t, []*canon.Tensor{in}, []*canon.Node{
		node(&canon.Unsqueeze{Axes: []int64{0}}, "u", "x"),
		node(&canon.Transpose{Perm: []int64{1, 0}}, "tr", "u"),
		node(&canon.Concat{Axis: 0}, "c", "tr", "tr"),
		node(&canon.Reshape{Shape: []int64{-1}}, "r", "c"),
	}, "r")
	r := f64s(t, runChain(t, g, in)["r"])
	want := []float64{0.1, math.Pi, -1e-300, math.Inf(1), 0.1, math.Pi, -1e-300, math.Inf(1)}
	for i := range want {
		if r[i] != want[i] {
			t.Errorf("element %d: %.17g, want %.17g", i, r[i], want[i])
		}
	}
}

// f64Matrix is a float64 tensor of the given shape.
func f64Matrix(name string, shape []int64, v ...float64) *canon.Tensor {
	t := f64Tensor(name, v...)
	t.Shape = shape
	return t
}

// TestFloat64Kernels runs float64 data through the kernels that compute in
// float64 or carry it by its bits, on values float32 cannot hold (1 + k·1e-10),
// and checks each result exactly against float64 arithmetic in Go.
func TestFloat64Kernels(t *testing.T) {
	e := 1e-10
	av := []float64{1 + e, 1 + 2*e, 1 + 3*e, 2 + 4*e, 2 + 5*e, 2 + 6*e}
	bv := []float64{1 - e, 3 + e, 1 + 7*e, 1, 0.5 + e, 1 - 9*e}
	a := f64Matrix("a", []int64{2, 3}, av...)
	b := f64Matrix("b", []int64{3, 2}, bv...)
	cond := &canon.Tensor{Name: "c", DType: canon.Bool, Shape: []int64{2, 3}, Data: []byte{1, 0, 1, 0, 1, 0}}
	idx := canon.NewInt64Tensor("idx", []int64{2, 3}, []int64{2, 0, 1, 0, 0, 2})
	g := chain(t, []*canon.Tensor{a, b, cond, idx}, []*canon.Node{
		node(&canon.MatMul{}, "mm", "a", "b"),
		node(&canon.CumSum{Axis: 1}, "cs", "a"),
		node(&canon.Transpose{Perm: []int64{1, 0}}, "bt", "b"),
		node(&canon.Where{}, "wh", "c", "a", "bt"),
		node(&canon.GatherElements{Axis: 1}, "ge", "a", "idx"),
		node(&canon.ScatterElements{Axis: 1, Reduction: canon.ScatterAdd}, "se", "a", "idx", "bt"),
		node(&canon.Pad{Mode: canon.PadConstant, PadsBegin: []int64{0, 1}, PadsEnd: []int64{0, 0}, Value: 0.25}, "pd", "a"),
		node(&canon.Variadic{Fn: canon.VarMean}, "mean", "a", "bt"),
		node(&canon.Reduce{Fn: canon.ReduceL2, Axes: []int64{1}}, "l2", "a"),
		node(&canon.Reduce{Fn: canon.ReduceMax, Axes: []int64{1}}, "rmax", "a"),
	}, "mm", "cs", "wh", "ge", "se", "pd", "mean", "l2", "rmax")
	out := runChain(t, g, a, b, cond, idx)
	at := func(i, j int) float64 { return av[i*3+j] }
	bt := func(i, j int) float64 { return bv[j*2+i] } // b transposed: (2,3)
	want := map[string][]float64{}
	for i := range 2 {
		for j := range 2 {
			var s float64
			for k := range 3 {
				s += av[i*3+k] * bv[k*2+j]
			}
			want["mm"] = append(want["mm"], s)
		}
	}
	ix := []int{2, 0, 1, 0, 0, 2}
	se := append([]float64{}, av...)
	for i := range 2 {
		var s, l2, mx float64
		mx = math.Inf(-1)
		for j := range 3 {
			s += at(i, j)
			want["cs"] = append(want["cs"], s)
			if cond.Data[i*3+j] != 0 {
				want["wh"] = append(want["wh"], at(i, j))
			} else {
				want["wh"] = append(want["wh"], bt(i, j))
			}
			want["ge"] = append(want["ge"], at(i, ix[i*3+j]))
			se[i*3+ix[i*3+j]] += bt(i, j)
			want["mean"] = append(want["mean"], (at(i, j)+bt(i, j))/2)
			l2 += at(i, j) * at(i, j)
			mx = max(mx, at(i, j))
		}
		want["pd"] = append(want["pd"], 0.25, at(i, 0), at(i, 1), at(i, 2))
		want["l2"] = append(want["l2"], math.Sqrt(l2))
		want["rmax"] = append(want["rmax"], mx)
	}
	want["se"] = se
	for name, w := range want {
		got := f64s(t, out[name])
		if len(got) != len(w) {
			t.Errorf("%s: %d values, want %d", name, len(got), len(w))
			continue
		}
		for i := range w {
			if got[i] != w[i] {
				t.Errorf("%s[%d] = %.17g, want %.17g", name, i, got[i], w[i])
			}
		}
	}
}

// retypeExample turns every float32 input and initializer of an op example
// into dtype dt and validates the graph again; it reports false when the
// op does not take dt there.
func retypeExample(g *canon.Graph, dt canon.DType) bool {
	for i, in := range g.Inputs {
		if in.DType == canon.Float32 {
			g.Inputs[i].DType = dt
		}
	}
	for i, t := range g.Initializers {
		if t.DType == canon.Float32 {
			w := retyped(t, dt)
			w.Layout = t.Layout
			g.Initializers[i] = w
		}
	}
	for i := range g.Outputs {
		g.Outputs[i].DType = canon.Undefined
	}
	g.Values = nil
	return g.Validate() == nil
}

// hasFloat32 reports whether g has a float32 input or initializer.
func hasFloat32(g *canon.Graph) bool {
	for _, in := range g.Inputs {
		if in.DType == canon.Float32 {
			return true
		}
	}
	for _, w := range g.Initializers {
		if w.DType == canon.Float32 {
			return true
		}
	}
	return false
}

// retyped is float32 tensor t in float dtype dt.
func retyped(t *canon.Tensor, dt canon.DType) *canon.Tensor {
	v, _ := t.Float64s()
	if dt == canon.Float64 {
		w := f64Tensor(t.Name, v...)
		w.Shape = t.Shape
		return w
	}
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	w := halfTensor(t.Name, dt, f...)
	w.Shape = t.Shape
	return w
}

// TestEveryExampleInEveryFloat runs every op's example with its float32
// data in float64, float16 and bfloat16: each kernel (for float64: native,
// carrying it by its bits or falling back to float32) gives the new dtype
// where it gave float32, and the same values within the dtype's precision
// (the inputs are rounded to it first).
func TestEveryExampleInEveryFloat(t *testing.T) {
	for _, dt := range []canon.DType{canon.Float64, canon.Float16, canon.BFloat16} {
		t.Run(dt.String(), func(t *testing.T) { exampleInFloat(t, dt) })
	}
}

func exampleInFloat(t *testing.T, dt canon.DType) {
	tol := map[canon.DType]float64{canon.Float64: 1e-4, canon.Float16: 2e-2, canon.BFloat16: 1e-1}[dt]
	r := rand.New(rand.NewSource(3))
	ran := 0
	for _, d := range canon.Ops() {
		if d.Example == nil || d.Kind == "Constant" || d.Traits.Nondeterministic {
			continue // a Constant's value is not an input to retype; draws are checked in kernels_random_test.go
		}
		g32, err := d.ExampleGraph()
		if err != nil {
			t.Fatalf("%s: %v", d.Kind, err)
		}
		in32, inDT := map[string]*canon.Tensor{}, map[string]*canon.Tensor{}
		for _, in := range g32.Inputs {
			if in.DType != canon.Float32 {
				break // integer or bool inputs: nothing to retype
			}
			x := randTensor(r, in.Name, ints(mustStatic(t, in))...)
			inDT[in.Name] = retyped(x, dt)
			// The float32 run sees the values the narrower dtype holds.
			v, _ := inDT[in.Name].Float64s()
			f := make([]float32, len(v))
			for i, y := range v {
				f[i] = float32(y)
			}
			in32[in.Name] = canon.NewFloat32Tensor(in.Name, x.Shape, f)
		}
		if len(in32) != len(g32.Inputs) {
			continue
		}
		for i, w := range g32.Initializers {
			if w.DType == canon.Float32 {
				v, _ := retyped(w, dt).Float64s()
				f := make([]float32, len(v))
				for j, y := range v {
					f[j] = float32(y)
				}
				r := canon.NewFloat32Tensor(w.Name, w.Shape, f)
				r.Layout = w.Layout
				g32.Initializers[i] = r
			}
		}
		want, err := runAny(g32, in32)
		if err != nil {
			continue
		}
		gDT, _ := d.ExampleGraph()
		if !hasFloat32(gDT) || !retypeExample(gDT, dt) {
			continue // no float32 data to retype (integer or string tokens)
		}
		got, err := runAny(gDT, inDT)
		if dt == canon.Float64 && kernels[d.Kind].f64 == f64Refused && d.Decompose == nil && err != nil {
			// Refused by its table entry (an integer op given no float64
			// data runs).
			if !strings.Contains(err.Error(), "float64") {
				t.Errorf("%s: float64 refused with an error that does not say so: %v", d.Kind, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: float32 example runs, %s fails: %v", d.Kind, dt, err)
			continue
		}
		ran++
		for name, w := range want {
			gt := got[name]
			if w.DType == canon.Float32 && gt.DType != dt {
				t.Errorf("%s: output %s is %s, want %s", d.Kind, name, gt.DType, dt)
				continue
			}
			a, _ := gt.Float64s()
			b, _ := w.Float64s()
			if len(a) != len(b) {
				t.Errorf("%s: output %s has %d values, float32 run %d", d.Kind, name, len(a), len(b))
				continue
			}
			for i := range a {
				if math.Abs(a[i]-b[i]) > tol+tol*math.Abs(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
					t.Errorf("%s: output %s[%d] = %v in %s, %v in float32", d.Kind, name, i, a[i], dt, b[i])
					break
				}
			}
		}
	}
	if ran < 50 {
		t.Errorf("only %d op examples ran in %s", ran, dt)
	}
	t.Logf("%d op examples ran in %s", ran, dt)
}

func mustStatic(t *testing.T, v canon.ValueInfo) []int64 {
	s, ok := v.StaticShape()
	if !ok {
		t.Fatalf("input %s has no static shape", v.Name)
	}
	return s
}
