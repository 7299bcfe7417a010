package onnximport

import (
	"fmt"
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/interp"
	"google.golang.org/protobuf/proto"
)

// TestOldLinearResize: Upsample-7/9 and Resize-10 in linear mode map
// output index i to i/scale (asymmetric), as ONNX Runtime computes them:
// doubling [0, 1] samples 0, 0.5, 1 and 1.5 (clamped to 1), where
// half_pixel would give 0, 0.25, 0.75, 1.
func TestOldLinearResize(t *testing.T) {
	scales := &onnxpb.AttributeProto{Name: proto.String("scales"), Type: onnxpb.AttributeProto_FLOATS.Enum(), Floats: []float32{1, 1, 1, 2}}
	for _, c := range []struct {
		op    string
		opset int64
	}{{"Upsample", 7}, {"Upsample", 9}, {"Resize", 10}} {
		s := graphSpec{opset: c.opset,
			inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 1, 1, 1, 2)},
			outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 1, 1, 1, 4)},
		}
		if c.opset == 7 {
			s.nodes = []*onnxpb.NodeProto{node(c.op, "up", []string{"x"}, []string{"y"}, aStr("mode", "linear"), scales)}
		} else {
			s.nodes = []*onnxpb.NodeProto{node(c.op, "up", []string{"x", "s"}, []string{"y"}, aStr("mode", "linear"))}
			s.inits = []*onnxpb.TensorProto{f32Tensor("s", []int64{4}, 1, 1, 1, 2)}
		}
		g, err := Read(write(t, s.model()), formats.ReadOptions{})
		if err != nil {
			t.Fatalf("%s-%d: %v", c.op, c.opset, err)
		}
		out, err := interp.Run(g, map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{1, 1, 1, 2}, []float32{0, 1})})
		g.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := out["y"].Float64s()
		want := []float64{0, 0.5, 1, 1}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-6 {
				t.Errorf("%s-%d: got %v, want %v", c.op, c.opset, got, want)
				break
			}
		}
	}
}

// TestResizeAxesKeptForRunTimeSizes: opset-18 axes stay on the op when
// the sizes arrive at run time, and the interpreter resizes only those
// axes.
func TestResizeAxesKeptForRunTimeSizes(t *testing.T) {
	s := graphSpec{opset: 19,
		nodes: []*onnxpb.NodeProto{node("Resize", "rs", []string{"x", "", "", "sz"}, []string{"y"},
			aStr("mode", "linear"), aInts("axes", 3))},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 1, 1, 2, 2), vinfo("sz", tInt64, 1)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 1, 1, 2, 4)},
	}
	g, err := Read(write(t, s.model()), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	op := g.Nodes[0].Op.(*canon.Resize)
	if fmt.Sprint(op.Axes) != "[3]" {
		t.Fatalf("axes %v, want [3]", op.Axes)
	}
	out, err := interp.Run(g, map[string]*canon.Tensor{
		"x":  canon.NewFloat32Tensor("x", []int64{1, 1, 2, 2}, []float32{0, 1, 2, 3}),
		"sz": canon.NewInt64Tensor("sz", []int64{1}, []int64{4}),
	})
	if err != nil {
		t.Fatal(err)
	}
	// half_pixel doubling of [0, 1]: 0, 0.25, 0.75, 1.
	got, _ := out["y"].Float64s()
	want := []float64{0, 0.25, 0.75, 1, 2, 2.25, 2.75, 3}
	if fmt.Sprint(out["y"].Shape) != "[1 1 2 4]" {
		t.Fatalf("shape %v", out["y"].Shape)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-6 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
