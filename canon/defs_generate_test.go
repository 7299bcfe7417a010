package canon

import "testing"

// A data-dependent count stays a named symbolic dim through later ops.
func TestNonZeroCountIsSymbolic(t *testing.T) {
	g := &Graph{
		Inputs: []ValueInfo{{Name: "x", DType: Float32, Shape: DimsOf(3, 4), RankKnown: true}},
		Nodes: []*Node{
			{Name: "nz", Op: &NonZero{}, Inputs: []string{"x"}, Outputs: []string{"i"}},
			{Name: "t", Op: &Transpose{Perm: []int64{1, 0}}, Inputs: []string{"i"}, Outputs: []string{"y"}},
		},
		Outputs: []ValueInfo{{Name: "y"}},
	}
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	y := g.Values.Get("y")
	if y.DType != Int64 || len(y.Shape) != 2 || y.Shape[0].Known() || y.Shape[0].Param != "nz_count" || y.Shape[1].Size != 2 {
		t.Fatalf("y is %s %s, want i64 [nz_count 2]", y.DType, fmtShape(y))
	}
}

// Shape -> ConstantOfShape (PyTorch's F.pad export) gives a static shape
// and a known value.
func TestConstantOfShapeFolds(t *testing.T) {
	g := &Graph{
		Inputs: []ValueInfo{{Name: "x", DType: Float32, Shape: DimsOf(1, 3, 5), RankKnown: true}},
		Nodes: []*Node{
			{Name: "s", Op: &ShapeOf{Start: 0, End: 2}, Inputs: []string{"x"}, Outputs: []string{"s"}},
			{Name: "c", Op: &ConstantOfShape{Value: NewInt64Tensor("", []int64{1}, []int64{0})}, Inputs: []string{"s"}, Outputs: []string{"z"}},
		},
		Outputs: []ValueInfo{{Name: "z"}},
	}
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	z := g.Values.Get("z")
	if s, ok := z.StaticShape(); !ok || len(s) != 2 || s[0] != 1 || s[1] != 3 || z.Const == nil {
		t.Fatalf("z is %s (const %v), want static [1 3] with its value", fmtShape(z), z.Const != nil)
	}
}
