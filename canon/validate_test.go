package canon

import (
	"strings"
	"testing"
)

func weight(name string, layout Layout, shape ...int64) *Tensor {
	n := NumElements(shape)
	t := NewFloat32Tensor(name, shape, make([]float32, n))
	t.Layout = layout
	return t
}

func scalarConst(name string, v int64) *Node {
	return &Node{Name: name, Op: &Constant{Value: NewInt64Tensor(name, []int64{}, []int64{v})}, Outputs: []string{name}}
}

// smallGraph is x -> Conv(w, b) -> Relu -> y.
func smallGraph() *Graph {
	return &Graph{
		Name:    "small",
		Inputs:  []ValueInfo{withParam(f32(-1, 4, 8, 8), 0, "N")},
		Outputs: []ValueInfo{{Name: "y"}},
		Nodes: []*Node{
			{Name: "conv1", Op: conv2d(ints(1, 1), ints(1, 1), ints(1, 1), ints(1, 1), 1), Inputs: []string{"x", "w", "b"}, Outputs: []string{"c"}},
			{Name: "relu1", Op: &Unary{Fn: Relu}, Inputs: []string{"c"}, Outputs: []string{"y"}},
		},
		Initializers: []*Tensor{weight("w", "OIHW", 8, 4, 3, 3), weight("b", "O", 8)},
	}
}

func TestValidateOK(t *testing.T) {
	g := smallGraph()
	g.Inputs[0].Name = "x"
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := show(g.Outputs[0]); got != "f32[N 8 8 8]" {
		t.Errorf("output completed to %s, want f32[N 8 8 8]", got)
	}
	if v := g.Values.Get("w"); v.Const != g.Initializers[0] || !v.RankKnown {
		t.Errorf("initializer value %+v lacks its tensor", v)
	}
}

// channelShuffle builds the graph PyTorch exports for ShuffleNet's
// channel_shuffle (x.view(n, groups, c // groups, h, w).transpose(1, 2)
// .view(n, -1, h, w)): the reshape targets come from Shape -> Gather ->
// Div -> Unsqueeze -> Concat chains.
func channelShuffle() *Graph {
	gather := func(name string, idx string) *Node {
		return &Node{Name: name, Op: &Gather{Axis: 0}, Inputs: []string{"shape", idx}, Outputs: []string{name}}
	}
	unsq := func(in string) *Node {
		return &Node{Name: "u_" + in, Op: &Unsqueeze{Axes: ints(0)}, Inputs: []string{in}, Outputs: []string{"u_" + in}}
	}
	return &Graph{
		Inputs:  []ValueInfo{{Name: "x", DType: Float32, Shape: DimsOf(1, 116, 28, 28), RankKnown: true}},
		Outputs: []ValueInfo{{Name: "y", DType: Float32, Shape: []Dim{{Size: -1, Param: "N"}, unknownDim, {Size: 28}, unknownDim}, RankKnown: true}},
		Nodes: []*Node{
			{Name: "shape", Op: NewShapeOf(), Inputs: []string{"x"}, Outputs: []string{"shape"}},
			scalarConst("i0", 0), scalarConst("i1", 1), scalarConst("i2", 2), scalarConst("i3", 3), scalarConst("groups", 2),
			gather("n", "i0"), gather("c", "i1"), gather("h", "i2"), gather("w", "i3"),
			{Name: "cpg", Op: &Binary{Fn: Div}, Inputs: []string{"c", "groups"}, Outputs: []string{"cpg"}},
			unsq("n"), unsq("groups"), unsq("cpg"), unsq("h"), unsq("w"),
			{Name: "target", Op: &Concat{Axis: 0}, Inputs: []string{"u_n", "u_groups", "u_cpg", "u_h", "u_w"}, Outputs: []string{"target"}},
			{Name: "view1", Op: &Reshape{}, Inputs: []string{"x", "target"}, Outputs: []string{"v1"}},
			{Name: "swap", Op: &Transpose{Perm: ints(0, 2, 1, 3, 4)}, Inputs: []string{"v1"}, Outputs: []string{"t"}},
			{Name: "minus1", Op: &Constant{Value: NewInt64Tensor("minus1", nil, []int64{-1})}, Outputs: []string{"minus1"}},
			{Name: "target2", Op: &Concat{Axis: 0}, Inputs: []string{"u_n", "minus1", "u_h", "u_w"}, Outputs: []string{"target2"}},
			{Name: "view2", Op: &Reshape{}, Inputs: []string{"t", "target2"}, Outputs: []string{"y"}},
		},
	}
}

func TestInferConstantChain(t *testing.T) {
	g := channelShuffle()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"shape":   "i64[4]=[1 116 28 28]",
		"cpg":     "i64[]=[58]",
		"target":  "i64[5]=[1 2 58 28 28]",
		"v1":      "f32[1 2 58 28 28]",
		"t":       "f32[1 58 2 28 28]",
		"target2": "i64[4]=[1 -1 28 28]",
		"y":       "f32[1 116 28 28]",
	} {
		if got := show(g.Values.Get(name)); got != want {
			t.Errorf("%s: got %s, want %s", name, got, want)
		}
	}
	// The declared output had unknown dims: they are filled in, the name kept.
	if got := show(g.Outputs[0]); got != "f32[1 116 28 28]" || g.Outputs[0].Name != "y" {
		t.Errorf("graph output became %s %q", got, g.Outputs[0].Name)
	}
}

func TestInferOutputConflict(t *testing.T) {
	g := channelShuffle()
	g.Outputs[0].Shape[1] = Dim{Size: 100}
	err := g.Infer()
	if err == nil || !strings.Contains(err.Error(), `graph output "y": declared shape [N 100 28 ?], but it is computed as [1 116 28 28] (axis 1: 100 vs 116)`) {
		t.Fatalf("got %v", err)
	}
	g = channelShuffle()
	g.Outputs[0].DType = Float16
	if err := g.Infer(); err == nil || !strings.Contains(err.Error(), `graph output "y": declared dtype f16, but it is computed as f32`) {
		t.Fatalf("got %v", err)
	}
}

func TestValidateErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(g *Graph)
		wants []string
	}{
		{"cycle", func(g *Graph) {
			g.Nodes[0].Inputs[0] = "y"
		}, []string{`node "conv1" (Conv): input "y" comes from a cycle: conv1 -> relu1 -> conv1`}},
		{"self loop", func(g *Graph) {
			g.Nodes[1].Inputs[0] = "y"
		}, []string{`node "relu1" (Relu): input "y" is its own output`}},
		{"out of order", func(g *Graph) {
			g.Nodes[0], g.Nodes[1] = g.Nodes[1], g.Nodes[0]
		}, []string{`node "relu1" (Relu): input "c" is defined later, by node "conv1" (Conv)`}},
		{"undefined", func(g *Graph) {
			g.Nodes[1].Inputs[0] = "nope"
		}, []string{`node "relu1" (Relu): input "nope" is undefined`}},
		{"duplicate output", func(g *Graph) {
			g.Nodes[1].Outputs[0] = "c"
		}, []string{`node "relu1" (Relu): output "c" is already defined by node "conv1" (Conv)`}},
		{"redefines input", func(g *Graph) {
			g.Nodes[1].Outputs[0] = "x"
		}, []string{`node "relu1" (Relu): output "x" redefines a graph input`}},
		{"redefines initializer", func(g *Graph) {
			g.Nodes[1].Outputs[0] = "w"
		}, []string{`node "relu1" (Relu): output "w" redefines an initializer`}},
		{"wrong layout", func(g *Graph) {
			g.Nodes[0].Op = &ConvTranspose{Strides: ints(1, 1), Dilations: ints(1, 1), PadsBegin: ints(0, 0), PadsEnd: ints(0, 0), OutputPadding: ints(0, 0), Group: 1}
			g.Nodes[0].Name = "deconv1"
		}, []string{`node "deconv1" (ConvTranspose): weight "w" has layout OIHW, ConvTranspose needs IOHW`}},
		{"no layout", func(g *Graph) {
			g.Initializers[1].Layout = ""
		}, []string{`node "conv1" (Conv): bias "b" has no layout, Conv needs O`}},
		{"two roles", func(g *Graph) {
			g.Initializers = append(g.Initializers, weight("w2", "IOHW", 8, 8, 1, 1))
			g.Nodes = append(g.Nodes,
				&Node{Name: "deconv", Op: &ConvTranspose{Strides: ints(1, 1), Dilations: ints(1, 1), PadsBegin: ints(0, 0), PadsEnd: ints(0, 0), OutputPadding: ints(0, 0), Group: 1}, Inputs: []string{"y", "w2"}, Outputs: []string{"d"}},
				&Node{Name: "conv2", Op: conv2d(ints(1, 1), ints(1, 1), ints(0, 0), ints(0, 0), 1), Inputs: []string{"d", "w2"}, Outputs: []string{"e"}})
		}, []string{`node "conv2" (Conv): weight "w2" is used in layout OIHW here but in layout IOHW by node "deconv" (ConvTranspose)`}},
		{"constant weight layout", func(g *Graph) {
			g.Initializers = g.Initializers[1:]
			g.Nodes = append([]*Node{{Name: "wconst", Op: &Constant{Value: weight("wv", "IOHW", 8, 4, 3, 3)}, Outputs: []string{"w"}}}, g.Nodes...)
		}, []string{`node "conv1" (Conv): weight "w" has layout IOHW, Conv needs OIHW`}},
		{"weight rank", func(g *Graph) {
			g.Initializers[0] = weight("w", "OI", 8, 4)
		}, []string{`node "conv1" (Conv): weight "w" has shape [8 4] (rank 2)`}},
		{"too many inputs", func(g *Graph) {
			g.Nodes[1].Inputs = append(g.Nodes[1].Inputs, "w")
		}, []string{`node "relu1" (Relu): has 2 inputs`}},
		{"missing weight", func(g *Graph) {
			g.Nodes[0].Inputs = g.Nodes[0].Inputs[:1]
		}, []string{`node "conv1" (Conv): has 1 inputs, missing required input W`}},
		{"empty required", func(g *Graph) {
			g.Nodes[0].Inputs[1] = ""
		}, []string{`node "conv1" (Conv): required input W (#1) is empty`}},
		{"bad data size", func(g *Graph) {
			g.Initializers[1].Data = g.Initializers[1].Data[:5]
		}, []string{`initializer "b"`, `f32[8] needs 32 bytes of data, has 5`}},
		{"huge shape", func(g *Graph) {
			g.Initializers[1].Shape = []int64{big, big}
		}, []string{`initializer "b"`, `overflows`}},
		{"negative dim", func(g *Graph) {
			g.Initializers[1].Shape = []int64{-8}
		}, []string{`initializer "b"`}},
		{"duplicate initializer", func(g *Graph) {
			g.Initializers = append(g.Initializers, weight("b", "O", 8))
		}, []string{`initializer "b" is defined twice`}},
		{"output undefined", func(g *Graph) {
			g.Outputs = append(g.Outputs, ValueInfo{Name: "zzz"})
		}, []string{`graph output "zzz" is undefined`}},
		{"bad perm", func(g *Graph) {
			g.Nodes[1].Op = &Transpose{Perm: ints(0, 1, 1, 5)}
		}, []string{`node "relu1" (Transpose): Perm [0 1 1 5] is not a permutation`}},
		{"shape error", func(g *Graph) {
			g.Initializers[0] = weight("w", "OIHW", 8, 3, 3, 3)
		}, []string{`node "conv1" (Conv): input X has 4 channels but W expects 3 (W shape [8 3 3 3], group 1)`}},
		{"nil op", func(g *Graph) {
			g.Nodes[1].Op = nil
		}, []string{`node "relu1" (index 1) has no op`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := smallGraph()
			g.Inputs[0].Name = "x"
			tc.edit(g)
			err := g.Validate()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func names(nodes []*Node) string {
	var s []string
	for _, n := range nodes {
		s = append(s, n.Name)
	}
	return strings.Join(s, " ")
}

func TestTopoSort(t *testing.T) {
	g := channelShuffle()
	want := names(g.Nodes)
	if err := TopoSort(g); err != nil {
		t.Fatal(err)
	}
	if got := names(g.Nodes); got != want {
		t.Errorf("sorted graph reordered:\n got %s\nwant %s", got, want)
	}

	// Reverse the list: the sort must restore a valid order, and keep
	// independent nodes in their (reversed) listed order.
	for i, j := 0, len(g.Nodes)-1; i < j; i, j = i+1, j-1 {
		g.Nodes[i], g.Nodes[j] = g.Nodes[j], g.Nodes[i]
	}
	if err := g.Validate(); err == nil || !strings.Contains(err.Error(), "defined later") {
		t.Fatalf("reversed graph validated: %v", err)
	}
	if err := TopoSort(g); err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	// Lowest listed index first among ready nodes: u_groups becomes ready
	// as soon as groups is placed and was listed before i3.
	if got := names(g.Nodes[:4]); got != "minus1 groups u_groups i3" {
		t.Errorf("ready nodes not kept in listed order: %s", got)
	}
}

func TestTopoSortCycle(t *testing.T) {
	g := smallGraph()
	g.Inputs[0].Name = "x"
	g.Nodes = append(g.Nodes, &Node{Name: "tail", Op: &Unary{Fn: Tanh}, Inputs: []string{"y"}, Outputs: []string{"z"}})
	g.Nodes[0].Inputs[0] = "y"
	before := names(g.Nodes)
	err := TopoSort(g)
	if err == nil || !strings.Contains(err.Error(), "is on a cycle: conv1 -> relu1 -> conv1") && !strings.Contains(err.Error(), "is on a cycle: relu1 -> conv1 -> relu1") {
		t.Fatalf("got %v", err)
	}
	if names(g.Nodes) != before {
		t.Errorf("graph changed on error")
	}
}
