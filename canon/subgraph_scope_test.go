package canon

import "testing"

// loopOver is a Loop carrying x (shape [N, 3], N symbolic) through body,
// whose carried input is declared with an open first axis, as files write
// it.
func loopOver(body []*Node, out string) *Graph {
	b := &Graph{Name: "body",
		Inputs: []ValueInfo{{Name: "i", DType: Int64, RankKnown: true}, {Name: "c", DType: Bool, RankKnown: true},
			{Name: "y", DType: Float32, Shape: []Dim{{Size: -1}, {Size: 3}}, RankKnown: true}},
		Nodes:   append(body, &Node{Name: "keep", Op: &Identity{}, Inputs: []string{"c"}, Outputs: []string{"c_next"}}),
		Outputs: []ValueInfo{{Name: "c_next"}, {Name: out, DType: Float32, Shape: []Dim{{Size: -1}, {Size: 3}}, RankKnown: true}}}
	return &Graph{Name: "loop",
		Inputs: []ValueInfo{{Name: "m", DType: Int64, RankKnown: true},
			{Name: "x", DType: Float32, Shape: []Dim{{Size: -1, Param: "N"}, {Size: 3}}, RankKnown: true}},
		Nodes:   []*Node{{Name: "loop", Op: &Loop{Body: b}, Inputs: []string{"m", "", "x"}, Outputs: []string{"out"}}},
		Outputs: []ValueInfo{{Name: "out"}}}
}

// TestLoopKeepsSymbolicSizes: a carried value whose body keeps its shape
// keeps the symbolic batch N in the Loop's output; a body that changes
// the shape leaves the axis open.
func TestLoopKeepsSymbolicSizes(t *testing.T) {
	keep := loopOver([]*Node{{Name: "act", Op: &Unary{Fn: Tanh}, Inputs: []string{"y"}, Outputs: []string{"y_next"}}}, "y_next")
	if err := keep.Infer(); err != nil {
		t.Fatal(err)
	}
	if got := fmtDims(keep.Values.Get("out").Shape); got != "[N 3]" {
		t.Errorf("shape-keeping body: output %s, want [N 3]", got)
	}
	if got := fmtDims(keep.Nodes[0].Op.(*Loop).Body.Outputs[1].Shape); got != "[? 3]" {
		t.Errorf("inference changed the body's declaration to %s", got)
	}
	grow := loopOver([]*Node{{Name: "cat", Op: &Concat{Axis: 0}, Inputs: []string{"y", "y"}, Outputs: []string{"y_next"}}}, "y_next")
	if err := grow.Infer(); err != nil {
		t.Fatal(err)
	}
	if got := grow.Values.Get("out").Shape; got[0].Param == "N" || got[0].Known() {
		t.Errorf("growing body: output axis 0 is %+v, want an open size", got[0])
	}
}
