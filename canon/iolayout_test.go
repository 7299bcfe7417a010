package canon

import (
	"fmt"
	"testing"
)

// ChannelsLastIO declares 4-D inputs and outputs NHWC, with one Transpose
// at each, leaves other values and the caller's graph alone, and keeps a
// passed-through input and an output listed twice right.
func TestChannelsLastIO(t *testing.T) {
	g := &Graph{
		Name: "io",
		Inputs: []ValueInfo{
			{Name: "x", DType: Float32, Shape: []Dim{{Size: -1, Param: "n"}, {Size: 3}, {Size: 4}, {Size: 5}}, RankKnown: true},
			{Name: "v", DType: Float32, Shape: DimsOf(2, 3), RankKnown: true},
		},
		// y's shape is known only by inference.
		Outputs: []ValueInfo{{Name: "y"}, {Name: "x"}, {Name: "y"}, {Name: "w"}},
		Nodes: []*Node{
			{Name: "act", Op: &Unary{Fn: Sigmoid}, Inputs: []string{"x"}, Outputs: []string{"y"}},
			{Name: "neg", Op: &Unary{Fn: Relu}, Inputs: []string{"v"}, Outputs: []string{"w"}},
		},
	}
	out, added, err := ChannelsLastIO(g)
	if err != nil {
		t.Fatal(err)
	}
	if added != 2 {
		t.Errorf("%d Transpose nodes added, want 2 (x in, y out)", added)
	}
	if err := out.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := dimsText(out.Inputs[0].Shape); got != "[n 4 5 3]" {
		t.Errorf("input x declared %v", got)
	}
	for i, want := range []string{"[n 4 5 3]", "[n 4 5 3]", "[n 4 5 3]", "[2 3]"} {
		o := out.Outputs[i]
		if got := dimsText(o.Shape); got != want {
			t.Errorf("output %d %q declared %s, want %s", i, o.Name, got, want)
		}
		if got := dimsText(out.Values.Get(o.Name).Shape); got != want {
			t.Errorf("output %d %q computed as %s, want %s", i, o.Name, got, want)
		}
	}
	if out.Outputs[0].Name != "y" || out.Outputs[1].Name != "x" || out.Outputs[2].Name != "y" {
		t.Errorf("outputs renamed: %v", out.Outputs)
	}
	if out.Nodes[0].Op.Kind() != "Transpose" || out.Nodes[len(out.Nodes)-1].Op.Kind() != "Transpose" {
		t.Errorf("Transposes not at the ends: %v", out.Nodes)
	}
	if g.Nodes[0].Inputs[0] != "x" || g.Nodes[0].Outputs[0] != "y" || g.Inputs[0].Shape[1].Size != 3 || len(g.Nodes) != 2 {
		t.Errorf("the caller's graph was changed")
	}
}

// dimsText writes a shape with a dynamic axis as its name.
func dimsText(ds []Dim) string {
	var parts []string
	for _, d := range ds {
		if d.Known() {
			parts = append(parts, fmt.Sprint(d.Size))
		} else {
			parts = append(parts, d.Param)
		}
	}
	return fmt.Sprint(parts)
}
