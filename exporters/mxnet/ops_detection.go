package mxnetexport

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&writers, map[string]opWriter{
		"MaxRoiPool": {"ROIPooling", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.MaxRoiPool)
			return e.single(n, "ROIPooling", map[string]string{"pooled_size": tuple([]int64{op.PooledHeight, op.PooledWidth}),
				"spatial_scale": f32(op.SpatialScale)}, n.Inputs...)
		}},
		"RoiAlign": {"_contrib_ROIAlign over rows (batch index, x1, y1, x2, y2) made by Cast, Reshape and Concat (avg mode; aligned for half_pixel)", (*exporter).roiAlign},
	})
	optable.Add(&lacks, map[string]string{
		"NonMaxSuppression": "MXNet's _contrib_box_nms returns the re-sorted boxes with suppressed rows set to -1, not the selected (batch, class, box) indices",
	})
}

func (e *exporter) roiAlign(n *canon.Node) error {
	op := n.Op.(*canon.RoiAlign)
	if op.Max {
		return fmt.Errorf("RoiAlign mode max: MXNet's ROIAlign averages its samples")
	}
	refs, err := e.values(n.Inputs...)
	if err != nil {
		return err
	}
	out := n.Outputs[0]
	f := ref{e.add("Cast", out+"_batch_float", map[string]string{"dtype": "float32"}, 1, refs[2]), 0}
	col := ref{e.add("Reshape", out+"_batch_col", map[string]string{"shape": "(-1, 1)"}, 1, f), 0}
	rows := ref{e.add("Concat", out+"_rois", map[string]string{"dim": "1", "num_args": "2"}, 1, col, refs[1]), 0}
	ratio := op.SamplingRatio
	if ratio == 0 {
		ratio = -1 // adaptive
	}
	return e.finish(out, e.add("_contrib_ROIAlign", out, map[string]string{
		"pooled_size":   tuple([]int64{op.OutputHeight, op.OutputWidth}),
		"spatial_scale": f32(op.SpatialScale),
		"sample_ratio":  strconv.FormatInt(ratio, 10),
		"aligned":       map[bool]string{true: "True", false: "False"}[op.HalfPixel],
	}, 1, refs[0], rows))
}
