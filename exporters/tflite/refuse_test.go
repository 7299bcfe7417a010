package tfliteexport

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// oneNode is a graph of a single node over input x (float32, shape in)
// and the given weights.
func oneNode(op canon.Op, in []int64, weights ...*canon.Tensor) *canon.Graph {
	g := &canon.Graph{Name: "t", Inputs: []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(in...), RankKnown: true}}}
	ins := []string{"x"}
	for _, w := range weights {
		g.Initializers = append(g.Initializers, w)
		ins = append(ins, w.Name)
	}
	g.Nodes = []*canon.Node{{Name: "the_node", Op: op, Inputs: ins, Outputs: []string{"y"}}}
	g.Outputs = []canon.ValueInfo{{Name: "y"}}
	return g
}

func TestRefusalsNameTheNodeAndOp(t *testing.T) {
	conv3d := canon.NewFloat32Tensor("w", []int64{2, 3, 1, 1, 1}, make([]float32, 6))
	conv3d.Layout = "OIDHW"
	cases := []struct {
		name string
		g    *canon.Graph
		want string
	}{
		{"3-D conv", oneNode(&canon.Conv{Strides: []int64{1, 1, 1}, Dilations: []int64{1, 1, 1}, PadsBegin: []int64{0, 0, 0}, PadsEnd: []int64{0, 0, 0}, Group: 1}, []int64{1, 3, 4, 4, 4}, conv3d), "2-D"},
		{"cubic resize", oneNode(&canon.Resize{Sizes: []int64{8, 8}, Axes: []int64{2, 3}, Mode: canon.ResizeCubic, CubicCoeffA: -0.75}, []int64{1, 3, 4, 4}), "bilinear or nearest"},
		{"edge pad", oneNode(&canon.Pad{Mode: canon.PadEdge, PadsBegin: []int64{0, 0, 1, 1}, PadsEnd: []int64{0, 0, 1, 1}}, []int64{1, 3, 4, 4}), "edge"},
		{"softmax over H", oneNode(&canon.Softmax{Axis: 2}, []int64{1, 3, 4, 4}), "last axis"},
		{"nearest round", oneNode(&canon.Resize{Sizes: []int64{8, 8}, Axes: []int64{2, 3}, Mode: canon.ResizeNearest, CoordTransform: canon.HalfPixel, Nearest: canon.RoundPreferFloor}, []int64{1, 3, 4, 4}), "floors"},
		{"gather at run-time indices", func() *canon.Graph {
			g := oneNode(&canon.Gather{Axis: 1}, []int64{1, 3})
			g.Inputs = append(g.Inputs, canon.ValueInfo{Name: "i", DType: canon.Int64, Shape: canon.DimsOf(2), RankKnown: true})
			g.Nodes[0].Inputs = []string{"x", "i"}
			return g
		}(), "negative indices"},
		{"LSTM with gate clip", func() *canon.Graph {
			op := &canon.LSTM{Recurrent: canon.Recurrent{HiddenSize: 2, Direction: canon.Forward, Clip: 3}}
			op.Activations = canon.DefaultActivations(op, 1)
			w := canon.NewFloat32Tensor("w", []int64{1, 8, 3}, make([]float32, 24))
			r := canon.NewFloat32Tensor("r", []int64{1, 8, 2}, make([]float32, 16))
			return oneNode(op, []int64{4, 1, 3}, w, r)
		}(), "cell_clip"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Encode(tc.g, Options{})
			if err == nil {
				t.Fatal("written; want a refusal")
			}
			msg := err.Error()
			kind := tc.g.Nodes[0].Op.Kind()
			if !strings.Contains(msg, `"the_node"`) || !strings.Contains(msg, kind) || !strings.Contains(msg, tc.want) {
				t.Errorf("refusal %q does not name the node, %s and %q", msg, kind, tc.want)
			}
		})
	}
}

func TestDynamicInputRefused(t *testing.T) {
	g := oneNode(&canon.Unary{Fn: canon.Relu}, []int64{1, 3})
	g.Inputs[0].Shape[0] = canon.Dim{Size: -1, Param: "batch"}
	_, _, err := Encode(g, Options{})
	if err == nil || !strings.Contains(err.Error(), `"x"`) || !strings.Contains(err.Error(), "--input-shape") {
		t.Fatalf("dynamic input: %v", err)
	}
}

func TestReshapeLayouts(t *testing.T) {
	// NHWC (N, H, W, C) split along C: stays a RESHAPE, C's parts last.
	q, ok := forwardLayout([]int64{1, 8, 3, 5}, nhwc, []int64{1, 2, 4, 3, 5})
	if !ok || !sameOrder([]int64{1, 2, 4, 3, 5}, q, []int{0, 3, 4, 1, 2}) {
		t.Errorf("channel split: layout %v, %v", q, ok)
	}
	// Merging C with H is not a RESHAPE of NHWC data.
	if q, ok := forwardLayout([]int64{2, 8, 3, 5}, nhwc, []int64{2, 24, 5}); ok {
		t.Errorf("merging C and H: layout %v accepted", q)
	}
	// Back from the NHWC output of a shuffle's merge: (N, c, g, H, W)
	// must be held (N, H, W, c, g).
	p, ok := backwardLayout([]int64{2, 4, 2, 3, 5}, []int64{2, 8, 3, 5}, nhwc)
	if !ok || !samePerm(p, []int{0, 3, 4, 1, 2}, 5) {
		t.Errorf("shuffle merge: input layout %v, %v", p, ok)
	}
	if _, ok := matchGroups([]int64{2, 3}, []int64{4, 2}); ok {
		t.Error("sizes that do not factor were matched")
	}
}
