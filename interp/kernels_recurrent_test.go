package interp

import (
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// lstmGraph is one bidirectional LSTM layer: X (seq, batch, input), hidden h.
func lstmGraph(seq, batch, input, h int64) (*canon.Graph, map[string]*canon.Tensor) {
	fill := func(name string, shape ...int64) *canon.Tensor {
		v := make([]float32, canon.NumElements(shape))
		for i := range v {
			v[i] = float32(0.3 * math.Sin(float64(i)*0.7))
		}
		return canon.NewFloat32Tensor(name, shape, v)
	}
	op := &canon.LSTM{Recurrent: canon.Recurrent{HiddenSize: h, Direction: canon.Bidirectional}}
	op.Activations = canon.DefaultActivations(op, 2)
	g := &canon.Graph{
		Inputs:       []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(seq, batch, input), RankKnown: true}},
		Initializers: []*canon.Tensor{fill("w", 2, 4*h, input), fill("r", 2, 4*h, h), fill("b", 2, 8*h)},
		Nodes:        []*canon.Node{{Name: "lstm", Op: op, Inputs: []string{"x", "w", "r", "b"}, Outputs: []string{"y", "y_h", "y_c"}}},
		Outputs:      []canon.ValueInfo{{Name: "y"}, {Name: "y_h"}, {Name: "y_c"}},
	}
	canon.AssignLayouts(g)
	return g, map[string]*canon.Tensor{"x": fill("x", seq, batch, input)}
}

// TestLSTMStepByHand checks one forward step of a one-unit LSTM against
// the equations written out: i, o, f, c gates, H = o·tanh(C).
func TestLSTMStepByHand(t *testing.T) {
	op := &canon.LSTM{Recurrent: canon.Recurrent{HiddenSize: 1}}
	op.Activations = canon.DefaultActivations(op, 1)
	w := canon.NewFloat32Tensor("w", []int64{1, 4, 1}, []float32{0.5, -0.25, 0.75, 1}) // i o f c
	r := canon.NewFloat32Tensor("r", []int64{1, 4, 1}, []float32{0.1, 0.2, 0.3, 0.4})
	g := &canon.Graph{
		Inputs:       []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1, 1, 1), RankKnown: true}, {Name: "c0", DType: canon.Float32, Shape: canon.DimsOf(1, 1, 1), RankKnown: true}},
		Initializers: []*canon.Tensor{w, r},
		Nodes:        []*canon.Node{{Name: "lstm", Op: op, Inputs: []string{"x", "w", "r", "", "", "", "c0"}, Outputs: []string{"", "y_h", "y_c"}}},
		Outputs:      []canon.ValueInfo{{Name: "y_h"}, {Name: "y_c"}},
	}
	canon.AssignLayouts(g)
	outs, err := Run(g, map[string]*canon.Tensor{
		"x": canon.NewFloat32Tensor("x", []int64{1, 1, 1}, []float32{2}), "c0": canon.NewFloat32Tensor("c0", []int64{1, 1, 1}, []float32{0.5})})
	if err != nil {
		t.Fatal(err)
	}
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	i, o, f, c := sig(1), sig(-0.5), sig(1.5), math.Tanh(2) // h0 = 0: only W·x
	cell := f*0.5 + i*c
	hWant := o * math.Tanh(cell)
	h, _ := outs["y_h"].Float64s()
	cc, _ := outs["y_c"].Float64s()
	if math.Abs(h[0]-hWant) > 1e-6 || math.Abs(cc[0]-cell) > 1e-6 {
		t.Fatalf("H %v C %v, want %v %v", h, cc, hWant, cell)
	}
}

func BenchmarkLSTM(b *testing.B) {
	g, in := lstmGraph(32, 8, 64, 64)
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
