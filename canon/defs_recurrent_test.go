package canon

import (
	"strings"
	"testing"
)

// TestReorderGates moves whole gate blocks, alike in every direction and
// in both halves of a bias.
func TestReorderGates(t *testing.T) {
	// Two directions × 4 gates × 1 row × 2 columns; the value says which
	// direction and gate (d*10 + gate) the row holds.
	var v []float32
	for d := 0; d < 2; d++ {
		for g := 0; g < 4; g++ {
			v = append(v, float32(d*10+g), float32(d*10+g))
		}
	}
	w := NewFloat32Tensor("w", []int64{2, 4, 2}, v)
	got, err := ReorderGates(w, 1, 1, TorchLSTMGates, LSTMGates) // i f c o -> i o f c
	if err != nil {
		t.Fatal(err)
	}
	f, _ := got.Float64s()
	want := []float64{0, 0, 3, 3, 1, 1, 2, 2, 10, 10, 13, 13, 11, 11, 12, 12}
	for i := range want {
		if f[i] != want[i] {
			t.Fatalf("reordered %v, want %v", f, want)
		}
	}
	// A GRU bias: two sets (W then R biases) of r, z, h -> z, r, h.
	b := NewFloat32Tensor("b", []int64{1, 6}, []float32{0, 1, 2, 10, 11, 12})
	got, err = ReorderGates(b, 1, 2, TorchGRUGates, GRUGates)
	if err != nil {
		t.Fatal(err)
	}
	f, _ = got.Float64s()
	for i, x := range []float64{1, 0, 2, 11, 10, 12} {
		if f[i] != x {
			t.Fatalf("bias reordered %v", f)
		}
	}
	if _, err := ReorderGates(NewFloat32Tensor("odd", []int64{1, 5}, make([]float32, 5)), 1, 1, TorchLSTMGates, LSTMGates); err == nil || !strings.Contains(err.Error(), "odd") {
		t.Errorf("5 rows split into 4 gates: error %v", err)
	}
	if _, err := ReorderGates(w, 1, 1, "ifco", "iofz"); err == nil {
		t.Error("a gate missing from the source order was accepted")
	}
}

// TestRecurrentChecks: shapes that contradict the hidden size or X, and
// activation lists of the wrong length, are refused naming the input.
func TestRecurrentChecks(t *testing.T) {
	mk := func(w, r []int64, acts int) *Graph {
		op := &LSTM{Recurrent: Recurrent{HiddenSize: 3}}
		op.Activations = DefaultActivations(op, 1)[:acts]
		g := &Graph{Inputs: []ValueInfo{{Name: "x", DType: Float32, Shape: DimsOf(2, 1, 4), RankKnown: true}},
			Initializers: []*Tensor{NewFloat32Tensor("w", w, make([]float32, NumElements(w))), NewFloat32Tensor("r", r, make([]float32, NumElements(r)))},
			Nodes:        []*Node{{Name: "lstm", Op: op, Inputs: []string{"x", "w", "r"}, Outputs: []string{"y"}}},
			Outputs:      []ValueInfo{{Name: "y"}}}
		AssignLayouts(g)
		return g
	}
	if err := mk([]int64{1, 12, 4}, []int64{1, 12, 3}, 3).Validate(); err != nil {
		t.Fatalf("a valid LSTM is refused: %v", err)
	}
	for name, g := range map[string]*Graph{
		"W":           mk([]int64{1, 12, 5}, []int64{1, 12, 3}, 3),
		"R":           mk([]int64{1, 12, 4}, []int64{1, 8, 3}, 3),
		"activations": mk([]int64{1, 12, 4}, []int64{1, 12, 3}, 2),
	} {
		if err := g.Validate(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v, want one naming it", name, err)
		}
	}
}
