package onnximport

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// TestConvTransposeOutputShapeOddPadding pins where the odd pixel of an
// output_shape's total padding goes: at the beginning for NOTSET and
// SAME_LOWER, at the end only for SAME_UPPER (ONNX spec; ONNX Runtime agrees).
func TestConvTransposeOutputShapeOddPadding(t *testing.T) {
	// x (1,1,5,4), stride 2, kernel 3: full output 11x9; output_shape 10x9
	// crops 1 row (odd) and 0 columns.
	cases := []struct {
		autoPad          string
		beginRow, endRow int64
	}{
		{"NOTSET", 1, 0},
		{"SAME_LOWER", 1, 0},
		{"SAME_UPPER", 0, 1},
	}
	for _, c := range cases {
		attrs := []*onnxpb.AttributeProto{aInts("strides", 2, 2), aInts("output_shape", 10, 9)}
		if c.autoPad != "NOTSET" {
			attrs = append(attrs, aStr("auto_pad", c.autoPad))
		}
		spec := graphSpec{
			nodes:   []*onnxpb.NodeProto{node("ConvTranspose", "deconv", []string{"x", "w"}, []string{"y"}, attrs...)},
			inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 1, 1, 5, 4)},
			outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 1, 1, 10, 9)},
			inits:   []*onnxpb.TensorProto{f32Tensor("w", []int64{1, 1, 3, 3}, seq(9)...)},
		}
		g, err := Read(write(t, spec.model()), formats.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.autoPad, err)
		}
		op := g.Nodes[0].Op.(*canon.ConvTranspose)
		if op.PadsBegin[0] != c.beginRow || op.PadsEnd[0] != c.endRow || op.PadsBegin[1] != 0 || op.PadsEnd[1] != 0 {
			t.Errorf("%s: pads begin %v end %v, want rows %d/%d and no column padding", c.autoPad, op.PadsBegin, op.PadsEnd, c.beginRow, c.endRow)
		}
		g.Close()
	}
}
