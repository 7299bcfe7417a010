package onnxexport

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// channelsLast permutes a 4-D tensor from NCHW to NHWC (others as they are).
func channelsLast(t *testing.T, x *canon.Tensor) *canon.Tensor {
	t.Helper()
	if len(x.Shape) != 4 {
		return x
	}
	c := *x
	c.Layout = "NCHW"
	p, err := canon.PermuteTensor(&c, "NHWC")
	if err != nil {
		t.Fatal(err)
	}
	p.Layout = ""
	return p
}

// passThroughGraph has a 4-D input that is also an output, a 4-D output
// listed twice and a 2-D output.
func passThroughGraph() *canon.Graph {
	return &canon.Graph{
		Name:    "pass_through",
		Inputs:  []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: []canon.Dim{{Size: -1, Param: "batch"}, {Size: 3}, {Size: 4}, {Size: 5}}, RankKnown: true}},
		Outputs: []canon.ValueInfo{{Name: "x"}, {Name: "y"}, {Name: "y"}, {Name: "m"}},
		Nodes: []*canon.Node{
			{Name: "act", Op: &canon.Unary{Fn: canon.Sigmoid}, Inputs: []string{"x"}, Outputs: []string{"y"}},
			{Name: "pool", Op: &canon.Reduce{Fn: canon.ReduceMean, Axes: []int64{2, 3}}, Inputs: []string{"y"}, Outputs: []string{"m"}},
		},
	}
}

// TestIOLayoutNHWCInORT writes models with channels-last inputs and
// outputs and runs them in ONNX Runtime on NHWC data: the results must be
// the interpreter's NCHW results of the model as read, permuted, and the
// file may hold only one added Transpose per 4-D input and output.
func TestIOLayoutNHWCInORT(t *testing.T) {
	rt := testfix.ORT(t)
	root := testfix.RepoRoot()
	graphs := map[string]func() (*canon.Graph, error){
		"pass_through": func() (*canon.Graph, error) { return passThroughGraph(), nil },
	}
	for _, p := range []string{
		filepath.Join(root, "testdata", "tiny_convnet.onnx"),
		filepath.Join(root, "exporters", "tflite", "testdata", "decoder_blocks.onnx"),
		filepath.Join(root, "exporters", "tflite", "testdata", "flatten_head.onnx"),
	} {
		p := p
		graphs[filepath.Base(p)] = func() (*canon.Graph, error) { return onnximport.Read(p, formats.ReadOptions{}) }
	}
	for name, read := range graphs {
		t.Run(name, func(t *testing.T) {
			g, err := read()
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			shapes := map[string][]int64{}
			for _, in := range g.Inputs {
				if len(in.Shape) == 4 && !in.Shape[0].Known() {
					shapes[in.Name] = []int64{2, in.Shape[1].Size, in.Shape[2].Size, in.Shape[3].Size}
				}
			}
			feeds, err := tensorfile.Random(g.Inputs, shapes, 3)
			if err != nil {
				t.Fatal(err)
			}
			want, err := interp.Run(g, feeds)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "nhwc.onnx")
			if err := Write(g, path, formats.WriteOptions{IOLayout: "nhwc"}); err != nil {
				t.Fatal(err)
			}
			back, err := onnximport.Read(path, formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			edges := 0
			for _, in := range g.Inputs {
				if len(in.Shape) == 4 {
					edges++
				}
			}
			seen := map[string]bool{}
			for _, o := range g.Outputs {
				if v := g.Values.Get(o.Name); len(v.Shape) == 4 && !seen[o.Name] && g.Initializer(o.Name) == nil && !isGraphInput(g, o.Name) {
					edges++
				}
				seen[o.Name] = true
			}
			if added := countOps(back, "Transpose") - countOps(g, "Transpose"); added != edges {
				t.Errorf("%d Transpose nodes added for %d 4-D inputs and outputs", added, edges)
			}
			var ins []*canon.Tensor
			for i, in := range g.Inputs {
				x := channelsLast(t, feeds[in.Name])
				if got := back.Inputs[i].Shape; len(got) == 4 && got[3].Size != x.Shape[3] {
					t.Errorf("input %s declared %v in the file, fed %v", in.Name, got, x.Shape)
				}
				ins = append(ins, x)
			}
			got, err := rt.Run(path, ins, ort.Options{Level: "disabled", Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(g.Outputs) {
				t.Fatalf("ONNX Runtime gave %d outputs, the model has %d", len(got), len(g.Outputs))
			}
			for i, o := range g.Outputs {
				w := channelsLast(t, want[o.Name])
				if len(w.Shape) != len(got[i].Shape) {
					t.Fatalf("output %s: shape %v, want %v", o.Name, got[i].Shape, w.Shape)
				}
				for k := range w.Shape {
					if w.Shape[k] != got[i].Shape[k] {
						t.Fatalf("output %s: shape %v, want %v", o.Name, got[i].Shape, w.Shape)
					}
				}
				a, _ := w.Float64s()
				b, _ := got[i].Float64s()
				var d, m float64
				for k := range a {
					d = math.Max(d, math.Abs(a[k]-b[k]))
					m = math.Max(m, math.Abs(a[k]))
				}
				t.Logf("output %s %v: max abs diff %.3g (max |y| %.3g)", o.Name, got[i].Shape, d, m)
				if d > 1e-4*(1+m) {
					t.Errorf("output %s differs from the interpreter by %g", o.Name, d)
				}
			}
		})
	}
}

func isGraphInput(g *canon.Graph, name string) bool {
	for _, in := range g.Inputs {
		if in.Name == name {
			return true
		}
	}
	return false
}

func countOps(g *canon.Graph, kind string) int {
	n := 0
	for _, node := range g.Nodes {
		if node.Op.Kind() == kind {
			n++
		}
	}
	return n
}

// TestIOLayoutLeavesGraph checks that writing with NHWC inputs and
// outputs does not change the caller's graph.
func TestIOLayoutLeavesGraph(t *testing.T) {
	g := passThroughGraph()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	before := len(g.Nodes)
	if err := Write(g, filepath.Join(t.TempDir(), "m.onnx"), formats.WriteOptions{IOLayout: "nhwc"}); err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != before || g.Nodes[0].Inputs[0] != "x" || g.Nodes[0].Outputs[0] != "y" || g.Inputs[0].Shape[1].Size != 3 {
		t.Errorf("the graph was changed: %d nodes, %v → %v, input %v", len(g.Nodes), g.Nodes[0].Inputs, g.Nodes[0].Outputs, g.Inputs[0].Shape)
	}
	if err := Write(g, filepath.Join(t.TempDir(), "m.onnx"), formats.WriteOptions{IOLayout: "hwcn"}); err == nil {
		t.Error("io layout hwcn was accepted")
	}
}
