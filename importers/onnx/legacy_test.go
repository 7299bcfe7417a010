package onnximport

import (
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/interp"
)

// runSpec imports s and runs it on x (float32, shape of input "x").
func runSpec(t *testing.T, s graphSpec, x []float32) []float32 {
	t.Helper()
	g, err := Read(write(t, s.model()), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	shape, _ := g.Inputs[0].StaticShape()
	outs, err := interp.Run(g, map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", shape, x)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := outs[g.Outputs[0].Name].Float64s()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(got))
	for i, v := range got {
		out[i] = float32(v)
	}
	return out
}

func sameFloats(t *testing.T, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values %v, want %d %v", len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("value %d: got %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}

// Opset 6's broadcast=1 with an axis places B on A's axes from axis on,
// which NumPy broadcasting does not: B (3,) on A (2,3,2) at axis 1 adds
// B[j] to A[i,j,k].
func TestLegacyBroadcastAxis(t *testing.T) {
	s := graphSpec{
		opset:   6,
		nodes:   []*onnxpb.NodeProto{node("Add", "add", []string{"x", "b"}, []string{"y"}, aInt("broadcast", 1), aInt("axis", 1))},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 3, 2)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 2, 3, 2)},
		inits:   []*onnxpb.TensorProto{f32Tensor("b", []int64{3}, 10, 20, 30)},
	}
	x := seq(12)
	want := make([]float32, 12)
	for i := range want {
		want[i] = x[i] + []float32{10, 20, 30}[(i/2)%3]
	}
	sameFloats(t, runSpec(t, s, x), want)

	// Suffix matching (no axis) is NumPy's rule already.
	s.nodes[0] = node("Mul", "mul", []string{"x", "c"}, []string{"y"}, aInt("broadcast", 1))
	s.inits = []*onnxpb.TensorProto{f32Tensor("c", []int64{2}, 1, -1)}
	for i := range want {
		want[i] = x[i] * []float32{1, -1}[i%2]
	}
	sameFloats(t, runSpec(t, s, x), want)

	s.nodes[0] = node("Add", "add", []string{"x", "b"}, []string{"y"}, aInt("broadcast", 1), aInt("axis", 3))
	s.inits = []*onnxpb.TensorProto{f32Tensor("b", []int64{3}, 10, 20, 30)}
	if _, err := Read(write(t, s.model()), formats.ReadOptions{}); err == nil || !strings.Contains(err.Error(), "axis 3 does not place input B") {
		t.Fatalf("B of rank 1 at axis 3 of a rank-3 A: got %v", err)
	}
	s.nodes[0] = node("Add", "add", []string{"x", "b"}, []string{"y"}, aInt("broadcast", 1), aInt("axis", math.MaxInt64))
	if _, err := Read(write(t, s.model()), formats.ReadOptions{}); err == nil || !strings.Contains(err.Error(), "does not place input B") {
		t.Fatalf("axis MaxInt64: got %v", err)
	}
}

// The attribute forms of Reshape (before 5), Concat without axis (before
// 4), Pad's paddings and Split's sizes input (opset 1), and Upsample's
// height_scale/width_scale (before 7).
func TestLegacyAttributeForms(t *testing.T) {
	x := seq(6)
	reshape := graphSpec{
		opset:   4,
		nodes:   []*onnxpb.NodeProto{node("Reshape", "r", []string{"x"}, []string{"y"}, aInts("shape", 3, 2), aInts("consumed_inputs", 0))},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 3)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 3, 2)},
	}
	sameFloats(t, runSpec(t, reshape, x), x)

	concat := graphSpec{
		opset:   3,
		nodes:   []*onnxpb.NodeProto{node("Concat", "c", []string{"x", "x"}, []string{"y"})},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 3)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 2, 6)},
	}
	sameFloats(t, runSpec(t, concat, x), []float32{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5})

	pad := graphSpec{
		opset:   1,
		nodes:   []*onnxpb.NodeProto{node("Pad", "p", []string{"x"}, []string{"y"}, aInts("paddings", 0, 1, 0, 0))},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 3)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 2, 4)},
	}
	sameFloats(t, runSpec(t, pad, x), []float32{0, 0, 1, 2, 0, 3, 4, 5})

	split := graphSpec{
		opset:   1,
		nodes:   []*onnxpb.NodeProto{node("Split", "s", []string{"x", "sizes"}, []string{"a", "y"}, aInt("axis", 1))},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 3)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 2, 2), vinfo("a", tFloat, 2, 1)},
		inits:   []*onnxpb.TensorProto{i64Tensor("sizes", 1, 2)},
	}
	sameFloats(t, runSpec(t, split, x), []float32{1, 2, 4, 5})

	up := graphSpec{
		opset: 6,
		nodes: []*onnxpb.NodeProto{node("Upsample", "u", []string{"x"}, []string{"y"},
			&onnxpb.AttributeProto{Name: proto.String("height_scale"), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(2)},
			&onnxpb.AttributeProto{Name: proto.String("width_scale"), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(1)})},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 1, 1, 2, 3)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 1, 1, 4, 3)},
	}
	sameFloats(t, runSpec(t, up, x), []float32{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5})
}

// Files of IR 11-13 and opsets 23-27 are read; element types modelbridge
// cannot compute are refused by name with the tensor, and a model of other
// domains only is refused by its first node's domain.
func TestNewestVersions(t *testing.T) {
	s := graphSpec{
		opset:   27,
		nodes:   []*onnxpb.NodeProto{node("Relu", "r", []string{"x"}, []string{"y"})},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 2)},
	}
	sameFloats(t, runSpec(t, s, []float32{-1, 2}), []float32{0, 2})
	m := s.model()
	m.IrVersion = proto.Int64(13)
	if _, err := Read(write(t, m), formats.ReadOptions{}); err != nil {
		t.Fatal(err)
	}

	for code, name := range map[onnxpb.TensorProto_DataType]string{
		onnxpb.TensorProto_FLOAT8E4M3FN: "FLOAT8E4M3FN", onnxpb.TensorProto_INT4: "INT4",
		onnxpb.TensorProto_FLOAT4E2M1: "FLOAT4E2M1", onnxpb.TensorProto_FLOAT8E8M0: "FLOAT8E8M0", onnxpb.TensorProto_INT2: "INT2",
	} {
		s.inputs = []*onnxpb.ValueInfoProto{vinfo("x", int32(code), 2)}
		m := s.model()
		m.IrVersion = proto.Int64(13)
		_, err := Read(write(t, m), formats.ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), `graph input "x"`) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s input: got %v", name, err)
		}
	}

	ml := s.model()
	ml.OpsetImport = []*onnxpb.OperatorSetIdProto{{Domain: proto.String("ai.onnx.ml"), Version: proto.Int64(3)}}
	ml.Graph.Input = []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2)}
	ml.Graph.Node = []*onnxpb.NodeProto{node("Binarizer", "b", []string{"x"}, []string{"y"})}
	ml.Graph.Node[0].Domain = proto.String("ai.onnx.ml")
	g, err := Read(write(t, ml), formats.ReadOptions{})
	if err != nil {
		t.Fatalf("ai.onnx.ml-only model: %v", err)
	}
	if k := g.Nodes[0].Op.Kind(); k != "Binarizer" {
		t.Errorf("ai.onnx.ml-only model: read a %s", k)
	}
	g.Close()
	ml.Graph.Node[0].OpType = proto.String("Normalizer")
	if _, err := Read(write(t, ml), formats.ReadOptions{}); err == nil || !strings.Contains(err.Error(), `is in ONNX's ai.onnx.ml domain`) {
		t.Errorf("ai.onnx.ml Normalizer: got %v", err)
	}
}

// PRelu before opset 7: a one-element slope or one of X's shape reads as
// today; a per-channel (C,) slope, whose old meaning the spec leaves open,
// is refused by name.
func TestLegacyPRelu(t *testing.T) {
	s := graphSpec{
		opset:   6,
		nodes:   []*onnxpb.NodeProto{node("PRelu", "p", []string{"x", "slope"}, []string{"y"})},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 1, 2, 2)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 1, 2, 2)},
		inits:   []*onnxpb.TensorProto{f32Tensor("slope", []int64{1}, 0.5)},
	}
	sameFloats(t, runSpec(t, s, []float32{-2, 1, -4, 3}), []float32{-1, 1, -2, 3})
	s.inits = []*onnxpb.TensorProto{f32Tensor("slope", []int64{2}, 0.5, 0.25)}
	if _, err := Read(write(t, s.model()), formats.ReadOptions{}); err == nil || !strings.Contains(err.Error(), `slope "slope" of shape [2]`) {
		t.Errorf("(C,) slope at opset 6: got %v", err)
	}
}
