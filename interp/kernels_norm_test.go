package interp

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func runNormOp(t *testing.T, op canon.Op, inputs map[string]*canon.Tensor, order []string) []float32 {
	t.Helper()
	out, err := Run(graphOf(op, inputs, order, nil), inputs)
	if err != nil {
		t.Fatal(err)
	}
	return floats(t, out["y"])
}

// TestLpNormZero: a zero norm gives zeros, as ONNX Runtime computes.
func TestLpNormZero(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{2, 3}, []float32{0, 0, 0, 3, -4, 0})
	in := map[string]*canon.Tensor{"x": x}
	assertClose(t, "p=2", runNormOp(t, &canon.LpNorm{Axis: 1, P: 2}, in, []string{"x"}), []float32{0, 0, 0, 0.6, -0.8, 0}, 1e-6)
	assertClose(t, "p=1", runNormOp(t, &canon.LpNorm{Axis: -1, P: 1}, in, []string{"x"}), []float32{0, 0, 0, 3.0 / 7, -4.0 / 7, 0}, 1e-6)
}

// TestMeanVarNormEpsilonOnStd: MeanVarianceNormalization adds 1e-9 to the
// standard deviation; a constant group gives zeros, not NaN.
func TestMeanVarNormEpsilonOnStd(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{1, 2, 1, 2}, []float32{1, 3, 5, 5})
	got := runNormOp(t, &canon.MeanVarNorm{Axes: []int64{0, 2, 3}}, map[string]*canon.Tensor{"x": x}, []string{"x"})
	assertClose(t, "mvn", got, []float32{-1, 1, 0, 0}, 1e-6)
}

// TestOneElementBinary: two one-element operands broadcast to one element
// (a row of length one with both strides zero).
func TestOneElementBinary(t *testing.T) {
	a := canon.NewFloat32Tensor("a", []int64{1, 1}, []float32{3})
	b := canon.NewFloat32Tensor("b", []int64{1}, []float32{-2})
	got := runNormOp(t, &canon.Binary{Fn: canon.Mul}, map[string]*canon.Tensor{"a": a, "b": b}, []string{"a", "b"})
	assertClose(t, "a*b", got, []float32{-6}, 0)
}

// TestMaxPoolIndicesOrders: Indices count over the whole input, row-major
// or, with ColumnMajorIndices, the spatial part column-major.
func TestMaxPoolIndicesOrders(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{1, 2, 2, 3}, []float32{1, 9, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2})
	for _, colMajor := range []bool{false, true} {
		op := &canon.MaxPool{Kernel: []int64{2, 2}, Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0},
			ColumnMajorIndices: colMajor}
		g := graphOf(op, map[string]*canon.Tensor{"x": x}, []string{"x"}, nil)
		g.Nodes[0].Outputs = []string{"y", "i"}
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: "i", DType: canon.Int64})
		out, err := Run(g, map[string]*canon.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		idx, _ := out["i"].Int64s()
		// Plane 0's maxima: 9 at (0,1) twice; plane 1's: 7 at (0,1), 8 at (0,2).
		want := []int64{1, 1, 6 + 1, 6 + 2}
		if colMajor {
			want = []int64{2, 2, 6 + 2, 6 + 4} // (h, w) -> h + w·H with H = 2
		}
		for k := range want {
			if idx[k] != want[k] {
				t.Errorf("colMajor %v: indices %v, want %v", colMajor, idx, want)
				break
			}
		}
	}
}

// TestLayerNormStatistics: Mean and InvStdDev have X's leading shape and
// ones after the axis.
func TestLayerNormStatistics(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{2, 2}, []float32{1, 3, -2, 2})
	s := canon.NewFloat32Tensor("s", []int64{2}, []float32{1, 1})
	g := graphOf(&canon.LayerNorm{Axis: 1, Epsilon: 0, Stash: canon.Float32}, map[string]*canon.Tensor{"x": x, "s": s}, []string{"x", "s"}, nil)
	g.Nodes[0].Outputs = []string{"y", "m", "r"}
	g.Outputs = append(g.Outputs, canon.ValueInfo{Name: "m", DType: canon.Float32}, canon.ValueInfo{Name: "r", DType: canon.Float32})
	out, err := Run(g, map[string]*canon.Tensor{"x": x, "s": s})
	if err != nil {
		t.Fatal(err)
	}
	if got := out["m"].Shape; len(got) != 2 || got[0] != 2 || got[1] != 1 {
		t.Fatalf("Mean has shape %v, want [2 1]", got)
	}
	assertClose(t, "mean", floats(t, out["m"]), []float32{2, 0}, 1e-6)
	assertClose(t, "inv std", floats(t, out["r"]), []float32{1, 0.5}, 1e-6)
	assertClose(t, "y", floats(t, out["y"]), []float32{-1, 1, -1, 1}, 1e-6)
}
