package mxnetimport

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// TestAddNIsOneSum: add_n and ElementWiseSum read as one variadic Sum.
func TestAddNIsOneSum(t *testing.T) {
	for _, op := range []string{"add_n", "ElementWiseSum"} {
		sym := checkpoint(t, oneOp(op, `{"num_args":"3"}`, "a", "b"), map[string]*canon.Tensor{
			"arg:a": f32s([]int64{2}, 10, 20), "arg:b": f32s([]int64{2}, 100, 200),
		})
		g, err := Read(sym, formats.ReadOptions{InputShapes: map[string][]int64{"data": {2}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Nodes) != 1 || g.Nodes[0].Op.Kind() != "Sum" || len(g.Nodes[0].Inputs) != 3 {
			t.Fatalf("%s: nodes %v, want one Sum of 3 inputs", op, g.Nodes)
		}
		expect(t, run(t, sym, f32s([]int64{2}, 1, 2)), []int64{2}, 111, 222)
	}
}

// TestModByZeroIsZero: MXNet's mod answers 0 for a zero divisor (its
// kernel tests for it), where ONNX's Mod is undefined.
func TestModByZeroIsZero(t *testing.T) {
	sym := checkpoint(t, oneOp("broadcast_mod", `{}`, "d"), map[string]*canon.Tensor{
		"arg:d": f32s([]int64{4}, 0, 3, -3, 0),
	})
	// Python's % (the divisor's sign) where the divisor is nonzero.
	expect(t, run(t, sym, f32s([]int64{4}, 7, 7, 7, -2)), []int64{4}, 0, 1, -2, 0)
	expect(t, run(t, checkpoint(t, oneOp("_rmod_scalar", `{"scalar":"7"}`), nil), f32s([]int64{3}, 0, 3, -3)), []int64{3}, 0, 1, -2)
	expect(t, run(t, checkpoint(t, oneOp("_mod_scalar", `{"scalar":"0"}`), nil), f32s([]int64{2}, 5, -1)), []int64{2}, 0, 0)
	// A constant divisor without zeros needs no guard.
	g, err := Read(checkpoint(t, oneOp("_mod_scalar", `{"scalar":"3"}`), nil), formats.ReadOptions{InputShapes: map[string][]int64{"data": {2}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 1 || g.Nodes[0].Op.Kind() != "Mod" {
		t.Fatalf("nodes %v, want a single Mod", g.Nodes)
	}
}

// TestFrontEndScalarAndLogicOps checks ops the issue names against
// MXNet's definitions, on values computed by hand.
func TestFrontEndScalarAndLogicOps(t *testing.T) {
	x := f32s([]int64{4}, -2, 0, 3, 5)
	for _, c := range []struct {
		op, attrs string
		want      []float64
	}{
		{"_greater_scalar", `{"scalar":"0"}`, []float64{0, 0, 1, 1}},
		{"_not_equal_scalar", `{"scalar":"3"}`, []float64{1, 1, 0, 1}},
		{"_equal_scalar", `{"scalar":"3"}`, []float64{0, 0, 1, 0}},
		{"_rminus_scalar", `{"scalar":"1"}`, []float64{3, 1, -2, -4}},
		{"_rdiv_scalar", `{"scalar":"30"}`, []float64{-15, 1e30, 10, 6}},
		{"_power_scalar", `{"scalar":"2"}`, []float64{4, 0, 9, 25}},
		{"_rpower_scalar", `{"scalar":"2"}`, []float64{0.25, 1, 8, 32}},
		{"_mod_scalar", `{"scalar":"3"}`, []float64{1, 0, 0, 2}},
		{"_maximum_scalar", `{"scalar":"1"}`, []float64{1, 1, 3, 5}},
		{"_logical_and_scalar", `{"scalar":"1"}`, []float64{1, 0, 1, 1}},
		{"_logical_or_scalar", `{"scalar":"0"}`, []float64{1, 0, 1, 1}},
		{"_logical_xor_scalar", `{"scalar":"2"}`, []float64{0, 1, 0, 0}},
		{"_hypot_scalar", `{"scalar":"4"}`, []float64{4.47213595, 4, 5, 6.40312424}},
	} {
		got := run(t, checkpoint(t, oneOp(c.op, c.attrs), nil), x)
		v, err := got.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.want {
			if d := v[i] - c.want[i]; (d > 1e-5 || d < -1e-5) && !(c.want[i] > 1e29 && v[i] > 1e29) {
				t.Errorf("%s: got %v, want %v", c.op, v, c.want)
				break
			}
		}
	}
	y := map[string]*canon.Tensor{"arg:y": f32s([]int64{4}, -2, 1, 4, 5)}
	expect(t, run(t, checkpoint(t, oneOp("broadcast_not_equal", `{}`, "y"), y), x), []int64{4}, 0, 1, 1, 0)
	expect(t, run(t, checkpoint(t, oneOp("broadcast_hypot", `{}`, "y"), y), f32s([]int64{4}, 0, 0, 3, 12)), []int64{4}, 2, 1, 5, 13)
}

// TestPick: one index per row along an axis, clipped or wrapped.
func TestPick(t *testing.T) {
	x := f32s([]int64{2, 3}, 1, 2, 3, 4, 5, 6)
	idx := map[string]*canon.Tensor{"arg:i": f32s([]int64{2}, 2, 5)}
	expect(t, run(t, checkpoint(t, oneOp("pick", `{"axis":"1"}`, "i"), idx), x), []int64{2}, 3, 6)
	expect(t, run(t, checkpoint(t, oneOp("pick", `{"axis":"-1","mode":"wrap","keepdims":"True"}`, "i"), idx), x), []int64{2, 1}, 3, 6)
	neg := map[string]*canon.Tensor{"arg:i": f32s([]int64{3}, -1, 1, 0)}
	expect(t, run(t, checkpoint(t, oneOp("pick", `{"axis":"0"}`, "i"), neg), x), []int64{3}, 1, 5, 3)
	expect(t, run(t, checkpoint(t, oneOp("pick", `{"axis":"0","mode":"wrap"}`, "i"), neg), x), []int64{3}, 4, 5, 3)
}

// TestBroadcastAxisAndLike: size-1 axes grow to the given sizes, or to
// the other array's shape.
func TestBroadcastAxisAndLike(t *testing.T) {
	x := f32s([]int64{2, 1}, 1, 2)
	expect(t, run(t, checkpoint(t, oneOp("broadcast_axis", `{"axis":"(1,)","size":"(3,)"}`), nil), x), []int64{2, 3}, 1, 1, 1, 2, 2, 2)
	like := map[string]*canon.Tensor{"arg:y": f32s([]int64{2, 2}, 0, 0, 0, 0)}
	expect(t, run(t, checkpoint(t, oneOp("broadcast_like", `{}`, "y"), like), x), []int64{2, 2}, 1, 1, 2, 2)
}

// TestNamedOpsAreRead lists the MXNet operators the importer must read:
// every elementwise, broadcast and scalar arithmetic, comparison and
// logic op, and the reductions, indexing and generators MXNet 1.x has.
func TestNamedOpsAreRead(t *testing.T) {
	names := []string{"elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div",
		"_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar", "_rdiv_scalar",
		"_mod_scalar", "_rmod_scalar", "_power_scalar", "_rpower_scalar", "_maximum_scalar", "_minimum_scalar", "_hypot_scalar",
		"_equal_scalar", "_not_equal_scalar", "_greater_scalar", "_greater_equal_scalar", "_lesser_scalar", "_lesser_equal_scalar",
		"_logical_and_scalar", "_logical_or_scalar", "_logical_xor_scalar", "add_n", "ElementWiseSum",
		"topk", "argmax", "argmin", "one_hot", "where", "_arange", "pick", "logical_not"}
	for _, op := range []string{"add", "sub", "mul", "div", "mod", "power", "maximum", "minimum", "hypot", "plus", "minus",
		"equal", "not_equal", "greater", "greater_equal", "lesser", "lesser_equal", "logical_and", "logical_or", "logical_xor",
		"to", "axis", "axes", "like"} {
		names = append(names, "broadcast_"+op)
	}
	for _, n := range names {
		if _, ok := converters[n]; !ok {
			t.Errorf("MXNet op %s is not read", n)
		}
	}
}
