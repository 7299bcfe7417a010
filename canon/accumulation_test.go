package canon

import "testing"

// exampleAccumulation is AccumulationOf on kind's example graph.
func exampleAccumulation(t *testing.T, kind string) int64 {
	t.Helper()
	g, err := Lookup(kind).ExampleGraph()
	if err != nil {
		t.Fatal(err)
	}
	n := g.Nodes[0]
	return AccumulationOf(n, func(i int) []int64 {
		if i >= len(n.Inputs) || n.Inputs[i] == "" {
			return nil
		}
		s, _ := g.Values.Get(n.Inputs[i]).StaticShape()
		return s
	})
}

// TestAccumulationLengths: the sums each kind's definition counts, on its
// example, worked out by hand from the shapes.
func TestAccumulationLengths(t *testing.T) {
	for kind, want := range map[string]int64{
		"Attention": 2 + 5, // head size 2 (Q is 1,4,3,2), 5 keys (K is 1,2,5,2)
		"Relu":      0,
	} {
		if got := exampleAccumulation(t, kind); got != want {
			t.Errorf("%s: accumulation length %d, want %d", kind, got, want)
		}
	}
	for _, kind := range []string{"Conv", "ConvTranspose", "Linear", "MatMul", "Einsum", "LSTM", "GRU", "RNN", "QLinearConv", "QLinearMatMul", "ConvInteger", "MatMulInteger"} {
		if got := exampleAccumulation(t, kind); got <= 0 {
			t.Errorf("%s: accumulation length %d, want > 0", kind, got)
		}
	}
	// LSTM: steps × (input + hidden).
	x := &Node{Op: &LSTM{}, Inputs: []string{"x", "w", "r"}}
	shapes := map[int][]int64{RecX: {7, 1, 4}, RecW: {1, 12, 4}, RecR: {1, 12, 3}}
	if got := AccumulationOf(x, func(i int) []int64 { return shapes[i] }); got != 7*(4+3) {
		t.Errorf("LSTM over 7 steps, input 4, hidden 3: %d, want 49", got)
	}
	// Einsum: the summed labels' sizes multiply.
	e := &Node{Op: &Einsum{Equation: "bij,bjk->bik"}, Inputs: []string{"a", "b"}}
	es := map[int][]int64{0: {2, 3, 5}, 1: {2, 5, 4}}
	if got := AccumulationOf(e, func(i int) []int64 { return es[i] }); got != 5 {
		t.Errorf("einsum bij,bjk->bik sums j of size 5; got %d", got)
	}
	e.Op = &Einsum{Equation: "ij->"}
	es = map[int][]int64{0: {3, 4}}
	e.Inputs = e.Inputs[:1]
	if got := AccumulationOf(e, func(i int) []int64 { return es[i] }); got != 12 {
		t.Errorf("einsum ij-> sums all 12; got %d", got)
	}
}
