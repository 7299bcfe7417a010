package compare

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// The regrouped ResNeXt block of the optimizer's history: max |y| 988,
// max abs error 7.9e-4, 1152 products per output of its longest conv. The
// element-wise rule alone rejects it; the rounding allowance accepts it; a
// real error (1e-2 of the scale) is still rejected.
func TestToleranceRounding(t *testing.T) {
	want := canon.NewFloat32Tensor("y", []int64{3}, []float32{988, 0.5, -3})
	tol := Tolerance{RTol: DefaultRTol, ATol: DefaultATol, AccumLen: 1152}
	for _, tc := range []struct {
		name string
		got  []float32
		tol  Tolerance
		ok   bool
	}{
		{"rounding", []float32{988, 0.5 + 7.9e-4, -3}, tol, true},
		{"rounding without the allowance", []float32{988, 0.5 + 7.9e-4, -3}, Tolerance{RTol: DefaultRTol, ATol: DefaultATol, NoRounding: true}, false},
		{"real error", []float32{988, 0.5 + 10, -3}, tol, false},
		{"short sums allow less", []float32{988, 0.5 + 7.9e-4, -3}, Tolerance{RTol: DefaultRTol, ATol: DefaultATol, AccumLen: 1}, false},
	} {
		r, err := tc.tol.Check(canon.NewFloat32Tensor("y", []int64{3}, tc.got), want)
		if err != nil {
			t.Fatal(err)
		}
		if r.OK != tc.ok {
			t.Errorf("%s: ok=%v (allowance %g, max abs %g), want %v", tc.name, r.OK, r.Allowance, r.MaxAbs, tc.ok)
		}
	}
	ints := canon.NewInt64Tensor("i", []int64{2}, []int64{1, 1000})
	if a := tol.Scaled(ints.DType, 1000); a != 0 {
		t.Errorf("integers get a rounding allowance %g", a)
	}
}

// K adds the products per output element of every Conv, ConvTranspose,
// Linear and MatMul.
func TestAccumulationLength(t *testing.T) {
	w := canon.NewFloat32Tensor("w", []int64{8, 2, 3, 3}, make([]float32, 8*2*9)) // group 2: 2*9 products
	fw := canon.NewFloat32Tensor("fw", []int64{5, 8}, make([]float32, 40))
	g := &canon.Graph{
		Inputs:       []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1, 4, 5, 5), RankKnown: true}},
		Initializers: []*canon.Tensor{w, fw},
		Nodes: []*canon.Node{
			{Name: "c", Op: &canon.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}, Group: 2}, Inputs: []string{"x", "w"}, Outputs: []string{"y"}},
			{Name: "p", Op: &canon.GlobalAveragePool{}, Inputs: []string{"y"}, Outputs: []string{"p"}},
			{Name: "f", Op: &canon.Flatten{Axis: 1}, Inputs: []string{"p"}, Outputs: []string{"f"}},
			{Name: "l", Op: &canon.Linear{Alpha: 1, Beta: 1}, Inputs: []string{"f", "fw"}, Outputs: []string{"z"}},
		},
		Outputs: []canon.ValueInfo{{Name: "z", DType: canon.Float32}},
	}
	w.Layout, fw.Layout = "OIHW", "OI"
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	if k := AccumulationLength(g); k != 18+8 {
		t.Errorf("accumulation length %d, want %d", k, 18+8)
	}
}
