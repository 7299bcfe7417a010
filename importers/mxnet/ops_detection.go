package mxnetimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&converters, map[string]mxOp{
		"_contrib_ROIAlign": {convROIAlign, []string{"RoiAlign", "Slice", "Squeeze", "Cast"}},
		"ROIPooling":        {convROIPooling, []string{"MaxRoiPool"}},
	})
	optable.Add(&unsupported, map[string]string{
		"_contrib_box_nms": "MXNet's box_nms returns the input array re-sorted with suppressed rows set to -1 (and per-id, topk, background and coordinate options), not the selected (batch, class, box) indices of NonMaxSuppression",
	})
	optable.Add(&lacks, map[string]string{
		"NonMaxSuppression": "MXNet's _contrib_box_nms returns the re-sorted boxes with suppressed rows set to -1, not selected indices",
	})
}

// convROIAlign reads _contrib_ROIAlign(data, rois): rois rows are
// (batch index, x1, y1, x2, y2), the index a float MXNet truncates. MXNet
// computes the regions, the adaptive sample count and the bilinear samples
// as ONNX's RoiAlign does (both come from Caffe2's kernel): aligned=True is
// half_pixel, aligned=False output_half_pixel.
func convROIAlign(b *builder, c *nodeCtx) ([]string, error) {
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	rois, err := b.in(c, 1)
	if err != nil {
		return nil, err
	}
	size, err := c.a.ints("pooled_size", nil)
	if err != nil {
		return nil, err
	}
	if len(size) == 1 {
		size = []int64{size[0], size[0]}
	}
	if len(size) != 2 || size[0] < 1 || size[1] < 1 {
		return nil, c.errf("pooled_size %v must be two positive sizes", size)
	}
	scale, err := c.a.float("spatial_scale", 0)
	if err != nil {
		return nil, err
	}
	if !(scale > 0) {
		return nil, c.errf("spatial_scale %g must be positive", scale)
	}
	ratio, err := c.a.int("sample_ratio", -1)
	if err != nil {
		return nil, err
	}
	if ratio < 0 {
		ratio = 0 // adaptive
	}
	ps, err := c.a.bool("position_sensitive", false)
	if err != nil {
		return nil, err
	}
	if ps {
		return nil, c.errf("position_sensitive=True (PS-RoIAlign) reads one channel group per bin, which RoiAlign does not")
	}
	aligned, err := c.a.bool("aligned", false)
	if err != nil {
		return nil, err
	}
	name := c.n.Name
	col := b.fresh(name + "_batch_col")
	if err := b.emit(col, &canon.Slice{Starts: []int64{0}, Ends: []int64{1}, Axes: []int64{1}, Steps: []int64{1}}, []string{rois}, col); err != nil {
		return nil, err
	}
	sq := b.fresh(name + "_batch_float")
	if err := b.emit(sq, &canon.Squeeze{Axes: []int64{1}}, []string{col}, sq); err != nil {
		return nil, err
	}
	idx := b.fresh(name + "_batch_indices")
	if err := b.emit(idx, &canon.Cast{To: canon.Int64}, []string{sq}, idx); err != nil {
		return nil, err
	}
	boxes := b.fresh(name + "_boxes")
	if err := b.emit(boxes, &canon.Slice{Starts: []int64{1}, Ends: []int64{5}, Axes: []int64{1}, Steps: []int64{1}}, []string{rois}, boxes); err != nil {
		return nil, err
	}
	out := b.fresh(name)
	op := &canon.RoiAlign{OutputHeight: size[0], OutputWidth: size[1], SamplingRatio: ratio, SpatialScale: float32(scale), HalfPixel: aligned}
	return []string{out}, b.emit(out, op, []string{x, boxes, idx}, out)
}

// convROIPooling reads ROIPooling(data, rois): Fast R-CNN's ROI pooling,
// the kernel ONNX's MaxRoiPool defines (rounded corners, rows (batch
// index, x1, y1, x2, y2)).
func convROIPooling(b *builder, c *nodeCtx) ([]string, error) {
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	rois, err := b.in(c, 1)
	if err != nil {
		return nil, err
	}
	size, err := c.a.ints("pooled_size", nil)
	if err != nil {
		return nil, err
	}
	if len(size) != 2 || size[0] < 1 || size[1] < 1 {
		return nil, c.errf("pooled_size %v must be two positive sizes", size)
	}
	scale, err := c.a.float("spatial_scale", 0)
	if err != nil {
		return nil, err
	}
	if !(scale > 0) {
		return nil, c.errf("spatial_scale %g must be positive", scale)
	}
	out := b.fresh(c.n.Name)
	op := &canon.MaxRoiPool{PooledHeight: size[0], PooledWidth: size[1], SpatialScale: float32(scale)}
	return []string{out}, b.emit(out, op, []string{x, rois}, out)
}
