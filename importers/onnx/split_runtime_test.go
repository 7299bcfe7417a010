package onnximport

import (
	"fmt"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/interp"
)

// An equal Split along an axis whose size is known only at run time takes
// its sizes from the input's shape when it runs: opset 18's ceil-sized
// chunks with a smaller (or empty) last one, and before 18 equal parts.
func TestEqualSplitOfRunTimeSize(t *testing.T) {
	cases := []struct {
		opset int64
		size  int64
		parts int
		want  []int64
	}{
		{18, 7, 3, []int64{3, 3, 1}},
		{18, 5, 4, []int64{2, 2, 1, 0}},
		{18, 6, 2, []int64{3, 3}},
		{13, 6, 3, []int64{2, 2, 2}},
	}
	for _, k := range cases {
		x := vinfo("x", tFloat, 2, 0)
		x.Type.GetTensorType().Shape.Dim[1] = &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: "n"}}
		var outs []string
		var outInfos []*onnxpb.ValueInfoProto
		for i := range k.parts {
			outs = append(outs, fmt.Sprintf("y%d", i))
			outInfos = append(outInfos, unshaped(outs[i]))
		}
		attrs := []*onnxpb.AttributeProto{aInt("axis", 1)}
		if k.opset >= 18 {
			attrs = append(attrs, aInt("num_outputs", int64(k.parts)))
		}
		g := mustRead(t, graphSpec{opset: k.opset, nodes: []*onnxpb.NodeProto{node("Split", "s", []string{"x"}, outs, attrs...)},
			inputs: []*onnxpb.ValueInfoProto{x}, outputs: outInfos})
		in := canon.NewFloat32Tensor("x", []int64{2, k.size}, make([]float32, 2*k.size))
		res, err := interp.Run(g, map[string]*canon.Tensor{"x": in})
		if err != nil {
			t.Fatalf("opset %d, size %d in %d parts: %v", k.opset, k.size, k.parts, err)
		}
		for i, o := range outs {
			if got := res[o].Shape; len(got) != 2 || got[1] != k.want[i] {
				t.Errorf("opset %d, size %d in %d parts: part %d has shape %v, want (2, %d)", k.opset, k.size, k.parts, i, got, k.want[i])
			}
		}
	}
}
