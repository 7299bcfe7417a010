package canon

import "testing"

// TestSharedWeights: two names over one buffer are one weight (counted
// once, merged into one initializer for formats that name it once); equal
// bytes in two buffers are two weights.
func TestSharedWeights(t *testing.T) {
	w := NewFloat32Tensor("embed.weight", []int64{4, 2}, []float32{1, 2, 3, 4, 5, 6, 7, 8})
	tied := *w
	tied.Name = "head.weight"
	tied.Layout = ""
	copied := NewFloat32Tensor("other", []int64{4, 2}, []float32{1, 2, 3, 4, 5, 6, 7, 8})
	g := &Graph{
		Inputs:       []ValueInfo{{Name: "x", DType: Float32, Shape: DimsOf(3, 4), RankKnown: true}},
		Initializers: []*Tensor{w, &tied, copied},
		Nodes: []*Node{
			{Name: "a", Op: &Binary{Fn: Add}, Inputs: []string{"x", "x"}, Outputs: []string{"y"}},
			{Name: "m", Op: &MatMul{}, Inputs: []string{"y", "head.weight"}, Outputs: []string{"z"}},
		},
	}
	if !SameData(w, &tied) || SameData(w, copied) {
		t.Fatalf("SameData: tied %v, copied %v; want true, false", SameData(w, &tied), SameData(w, copied))
	}
	ps := g.Params()
	if ps.Tensors != 2 || ps.Elements != 16 || ps.Shared != 1 {
		t.Fatalf("Params %+v, want 2 tensors, 16 elements, 1 shared name", ps)
	}
	g.Outputs = []ValueInfo{{Name: "z"}, {Name: "head.weight"}, {Name: "z"}, {Name: "x"}}
	m, alias := MergeShared(g)
	if alias["head.weight"] != "embed.weight" || len(m.Initializers) != 2 {
		t.Fatalf("MergeShared: alias %v, %d initializers", alias, len(m.Initializers))
	}
	if m.Nodes[len(m.Nodes)-1].Inputs[1] != "embed.weight" {
		t.Fatalf("the MatMul reads %q, want the first name", m.Nodes[len(m.Nodes)-1].Inputs[1])
	}
	// The second name is an output: an Identity of the first computes it.
	if m.Nodes[0].Outputs[0] != "head.weight" || m.Nodes[0].Inputs[0] != "embed.weight" {
		t.Fatalf("first node %+v, want the Identity for the output", m.Nodes[0])
	}
	if len(g.Initializers) != 3 || g.Nodes[1].Inputs[1] != "head.weight" {
		t.Fatal("MergeShared changed its argument")
	}
	// Repeated outputs and an input as output are valid.
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
}
