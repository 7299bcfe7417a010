package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"RoiAlign": {onnx: "RoiAlign", native: 10, write: writeRoiAlign},
		"MaxRoiPool": {onnx: "MaxRoiPool", native: 1, write: func(b *builder, n *canon.Node) error {
			op := n.Op.(*canon.MaxRoiPool)
			b.emit(n.Name, "MaxRoiPool", n.Inputs, n.Outputs, attrInts("pooled_shape", []int64{op.PooledHeight, op.PooledWidth}),
				attrFloat("spatial_scale", op.SpatialScale))
			return nil
		}},
		"NonMaxSuppression": {onnx: "NonMaxSuppression", native: 10, write: func(b *builder, n *canon.Node) error {
			var attrs []*onnxpb.AttributeProto
			if n.Op.(*canon.NonMaxSuppression).CenterPointBox {
				attrs = append(attrs, attrInt("center_point_box", 1))
			}
			b.emit(n.Name, "NonMaxSuppression", n.Inputs, n.Outputs, attrs...)
			return nil
		}},
	})
}

// writeRoiAlign: RoiAlign-10 maps corners as output_half_pixel does;
// half_pixel needs RoiAlign-16 (shifting the regions instead would drop
// output_half_pixel's 1×1 minimum size only where it applies).
func writeRoiAlign(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.RoiAlign)
	mode := "avg"
	if op.Max {
		mode = "max"
	}
	attrs := []*onnxpb.AttributeProto{attrString("mode", mode), attrInt("output_height", op.OutputHeight),
		attrInt("output_width", op.OutputWidth), attrInt("sampling_ratio", op.SamplingRatio), attrFloat("spatial_scale", op.SpatialScale)}
	if b.opset >= 16 {
		m := "output_half_pixel"
		if op.HalfPixel {
			m = "half_pixel"
		}
		attrs = append(attrs, attrString("coordinate_transformation_mode", m))
	} else if op.HalfPixel {
		return b.needOpset(n, "RoiAlign with half_pixel coordinates (torchvision's aligned=True)", 16)
	}
	b.emit(n.Name, "RoiAlign", n.Inputs, n.Outputs, attrs...)
	return nil
}
