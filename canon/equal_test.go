package canon

import (
	"math"
	"strings"
	"testing"
)

func TestEqual(t *testing.T) {
	if err := Equal(smallGraph(), smallGraph()); err != nil {
		t.Fatalf("identical graphs differ: %v", err)
	}
	if err := Equal(channelShuffle(), channelShuffle()); err != nil {
		t.Fatalf("identical graphs differ: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(g *Graph)
		want string // "" means still equal
	}{
		{"nil vs empty attr", func(g *Graph) { g.Nodes[1].Op = &Reduce{Fn: ReduceMean, Axes: []int64{}} }, ""},
		{"metadata ignored", func(g *Graph) { g.Name = "other"; g.Meta.Producer = "x" }, ""},
		{"input name", func(g *Graph) { g.Inputs[0].Name = "data" }, `input 0: name "" vs "data"`},
		{"input param", func(g *Graph) { g.Inputs[0].Shape[0].Param = "B" }, `input "": shape [N 4 8 8] vs [B 4 8 8]`},
		{"input dim", func(g *Graph) { g.Inputs[0].Shape[2].Size = 9 }, `shape [N 4 8 8] vs [N 4 9 8]`},
		{"output dtype", func(g *Graph) { g.Outputs[0].DType = Float16 }, `output "y": dtype undefined vs f16`},
		{"node count", func(g *Graph) { g.Nodes = g.Nodes[:1] }, "2 nodes vs 1"},
		{"node name", func(g *Graph) { g.Nodes[1].Name = "act" }, `node 1: name "relu1" vs "act"`},
		{"node kind", func(g *Graph) { g.Nodes[1].Op = &Unary{Fn: Tanh} }, `node 1: "relu1": kind Relu vs Tanh`},
		{"node type", func(g *Graph) { g.Nodes[1].Op = &Identity{} }, `kind Relu vs Identity`},
		{"node attr", func(g *Graph) { g.Nodes[0].Op.(*Conv).Strides = ints(2, 2) }, `node 0: "conv1" (Conv): attribute Strides: [1 1] vs [2 2]`},
		{"node group", func(g *Graph) { g.Nodes[0].Op.(*Conv).Group = 2 }, `attribute Group: 1 vs 2`},
		{"node inputs", func(g *Graph) { g.Nodes[0].Inputs = g.Nodes[0].Inputs[:2] }, `"conv1" (Conv): inputs ["x" "w" "b"] vs ["x" "w"]`},
		{"node outputs", func(g *Graph) { g.Nodes[1].Outputs[0] = "z" }, `outputs ["y"] vs ["z"]`},
		{"init count", func(g *Graph) { g.Initializers = g.Initializers[:1] }, "2 initializers vs 1"},
		{"init layout", func(g *Graph) { g.Initializers[0].Layout = "IOHW" }, `initializer 0: tensor "w": layout "OIHW" vs "IOHW"`},
		{"init shape", func(g *Graph) { g.Initializers[1].Shape = []int64{2, 4} }, `tensor "b": shape [8] vs [2 4]`},
		{"init data", func(g *Graph) {
			d := append([]byte(nil), g.Initializers[1].Data...)
			d[13] = 1
			g.Initializers[1].Data = d
		}, `tensor "b": data differs at element 3 (byte 13)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := smallGraph(), smallGraph()
			tc.edit(b)
			if tc.name == "nil vs empty attr" {
				a.Nodes[1].Op = &Reduce{Fn: ReduceMean}
			}
			err := Equal(a, b)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want equal, got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want error containing %q", err, tc.want)
			}
		})
	}
}

func TestEqualConstantsAndFloats(t *testing.T) {
	mk := func(v []float32, pad float32) *Graph {
		return &Graph{Nodes: []*Node{
			{Name: "k", Op: &Constant{Value: NewFloat32Tensor("k", []int64{2}, v)}, Outputs: []string{"k"}},
			{Name: "p", Op: &Pad{PadsBegin: ints(1), PadsEnd: ints(1), Value: pad}, Inputs: []string{"k"}, Outputs: []string{"p"}},
			{Name: "c", Op: NewClip(), Inputs: []string{"p"}, Outputs: []string{"c"}},
		}}
	}
	nan := float32(math.NaN())
	// Separate tensors with equal content compare equal; NaN attributes too.
	if err := Equal(mk([]float32{1, 2}, nan), mk([]float32{1, 2}, nan)); err != nil {
		t.Fatal(err)
	}
	err := Equal(mk([]float32{1, 2}, 0), mk([]float32{1, 3}, 0))
	if err == nil || !strings.Contains(err.Error(), `node 0: "k" (Constant): attribute Value: tensor "k": data differs at element 1`) {
		t.Fatalf("got %v", err)
	}
	err = Equal(mk([]float32{1, 2}, 0), mk([]float32{1, 2}, 1))
	if err == nil || !strings.Contains(err.Error(), `"p" (Pad): attribute Value: 0 vs 1`) {
		t.Fatalf("got %v", err)
	}
	if err := Equal(nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := Equal(mk(nil, 0), nil); err == nil {
		t.Fatal("nil graph equal to a graph")
	}
}
