package formats

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// convGraph is x -> Conv(2x1x3x3) -> Relu -> Reshape(target) -> y; x has
// the given type.
func convGraph(x canon.ValueInfo, target []int64) *canon.Graph {
	x.Name, x.DType = "x", canon.Float32
	w := canon.NewFloat32Tensor("w", []int64{2, 1, 3, 3}, make([]float32, 18))
	w.Layout = "OIHW"
	one := []int64{1, 1}
	zero := []int64{0, 0}
	return &canon.Graph{
		Name:         "conv",
		Inputs:       []canon.ValueInfo{x},
		Outputs:      []canon.ValueInfo{{Name: "y", DType: canon.Float32}},
		Initializers: []*canon.Tensor{w},
		Nodes: []*canon.Node{
			{Name: "conv", Op: &canon.Conv{Strides: one, Dilations: one, PadsBegin: zero, PadsEnd: zero, Group: 1}, Inputs: []string{"x", "w"}, Outputs: []string{"c"}},
			{Name: "relu", Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{"c"}, Outputs: []string{"r"}},
			{Name: "flat", Op: &canon.Reshape{Shape: target}, Inputs: []string{"r"}, Outputs: []string{"y"}},
		},
	}
}

// An input read without a rank gets the one rank its consumers accept,
// each axis a named free dim; the graph then validates with them.
func TestRankFromConsumers(t *testing.T) {
	g := convGraph(canon.ValueInfo{}, []int64{0, -1})
	if err := resolveInputDims(g, ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	x := g.Inputs[0]
	if !x.RankKnown || len(x.Shape) != 4 {
		t.Fatalf("x: rank known %v, shape %v; want rank 4 (Conv with a 2-D kernel)", x.RankKnown, x.Shape)
	}
	for a, d := range x.Shape {
		if want := "x_dim" + string(rune('0'+a)); d.Known() || d.Param != want {
			t.Errorf("axis %d is %+v, want the free dim %s", a, d, want)
		}
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(g.Meta.Notes) != 0 {
		t.Errorf("notes: %v", g.Meta.Notes)
	}

	// Elementwise ops accept every rank: the rank stays open, with a note.
	g = &canon.Graph{
		Inputs:  []canon.ValueInfo{{Name: "x", DType: canon.Float32}},
		Outputs: []canon.ValueInfo{{Name: "y", DType: canon.Float32}},
		Nodes:   []*canon.Node{{Name: "relu", Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{"x"}, Outputs: []string{"y"}}},
	}
	if err := resolveInputDims(g, ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	if g.Inputs[0].RankKnown || len(g.Meta.Notes) != 1 || !strings.Contains(g.Meta.Notes[0], "--input-shape x=") {
		t.Errorf("relu-only graph: rank known %v, notes %v", g.Inputs[0].RankKnown, g.Meta.Notes)
	}
}

// --input-shape x=N,1,8,8 names axis 0; position keys (#0) work too.
func TestNamedDims(t *testing.T) {
	for _, key := range []string{"x", "#0"} {
		g := convGraph(canon.ValueInfo{}, []int64{0, -1})
		opts := ReadOptions{InputShapes: map[string][]int64{key: {-1, 1, 8, 8}}, DimNames: map[string]map[int]string{key: {0: "N"}}}
		if err := resolveInputDims(g, opts); err != nil {
			t.Fatal(err)
		}
		want := []canon.Dim{{Size: -1, Param: "N"}, {Size: 1}, {Size: 8}, {Size: 8}}
		if got := g.Inputs[0].Shape; len(got) != 4 || got[0] != want[0] || got[1] != want[1] || got[3] != want[3] {
			t.Fatalf("key %s: x is %v, want %v", key, got, want)
		}
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		if y := g.Values.Get("c"); y.Shape[0].Param != "N" || y.Shape[2].Size != 6 {
			t.Errorf("key %s: the Conv output is %v; want N carried through and 6x6", key, y.Shape)
		}
	}
}

// --dynamic-batch names axis 0 "batch"; a Reshape whose constant target
// fixes axis 0 of a batch-sized value is refused by name.
func TestDynamicBatch(t *testing.T) {
	static := canon.ValueInfo{Shape: canon.DimsOf(1, 1, 8, 8), RankKnown: true}
	g := convGraph(static, []int64{0, -1})
	if err := resolveInputDims(g, ReadOptions{DynamicBatch: true}); err != nil {
		t.Fatal(err)
	}
	if d := g.Inputs[0].Shape[0]; d.Param != BatchDim || d.Known() {
		t.Errorf("axis 0 is %+v", d)
	}
	g = convGraph(static, []int64{1, -1})
	err := resolveInputDims(g, ReadOptions{DynamicBatch: true})
	if err == nil || !strings.Contains(err.Error(), `node "flat" (Reshape)`) || !strings.Contains(err.Error(), "bakes the batch size") {
		t.Errorf("Reshape to [1 -1]: got %v", err)
	}
}
