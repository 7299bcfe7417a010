package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// torchvision's operators, which traced code calls as ops.torchvision.X:
// roi_align, roi_pool, ps_roi_align, nms and deform_conv2d map onto the
// canonical detection ops; ps_roi_pool (average pooling per bin) has no
// canonical form and is refused.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"ops.torchvision.roi_align":     entry(opTVRoiAlign, "RoiAlign", "Slice", "Squeeze", "Cast", "Mul"),
		"ops.torchvision.roi_pool":      entry(opTVRoiPool, "MaxRoiPool"),
		"ops.torchvision.ps_roi_align":  entry(opTVPSRoiAlign, "RoiAlign", "Slice", "Squeeze", "Cast", "Reshape", "Gather"),
		"ops.torchvision.ps_roi_pool":   entry(opTVPSRoiPool),
		"ops.torchvision.nms":           entry(opTVNMS, "NonMaxSuppression", "Unsqueeze", "Gather"),
		"ops.torchvision.deform_conv2d": entry(opTVDeformConv, "DeformConv"),
	})
}

// tvRois splits torchvision's (K, 5) regions (batch index, x1, y1, x2, y2)
// into RoiAlign's boxes (K, 4) and int64 batch indices (K).
func tvRois(c *opCall, rois *tensorVal) (boxes, idx *tensorVal, err error) {
	if r, err := c.rankOf(rois, "rois"); err != nil {
		return nil, nil, err
	} else if r != 2 {
		return nil, nil, c.errf("rois must be (K, 5): batch index, x1, y1, x2, y2 (got rank %d)", r)
	}
	b := c.b()
	boxes, err = b.emit1(c.scope, &canon.Slice{Starts: []int64{1}, Ends: []int64{5}, Axes: []int64{1}, Steps: []int64{1}}, rois)
	if err != nil {
		return nil, nil, err
	}
	col, err := b.emit1(c.scope, &canon.Slice{Starts: []int64{0}, Ends: []int64{1}, Axes: []int64{1}, Steps: []int64{1}}, rois)
	if err != nil {
		return nil, nil, err
	}
	col, err = b.emit1(c.scope, &canon.Squeeze{Axes: []int64{1}}, col)
	if err != nil {
		return nil, nil, err
	}
	// torchvision truncates the float index (int cast) as Cast does.
	idx, err = b.emit1(c.scope, &canon.Cast{To: canon.Int64}, col)
	return boxes, idx, err
}

// tvRoiAlignArgs reads the arguments roi_align and ps_roi_align share:
// torchvision samples adaptively (ceil(size / bins) per axis) for any
// sampling_ratio <= 0, which is RoiAlign's 0.
func tvRoiAlignArgs(c *opCall) (x, rois *tensorVal, op *canon.RoiAlign, err error) {
	if x, err = c.tensor(0); err != nil {
		return
	}
	if rois, err = c.tensor(1); err != nil {
		return
	}
	scale := 1.0 // a scale known only at run time scales the boxes instead
	if _, runTime := c.bound[2].(*dynFloat); !runTime || c.name != "ops.torchvision.roi_align" {
		if scale, err = c.float(2); err != nil {
			return
		}
	}
	ph, err := c.int(3)
	if err != nil {
		return
	}
	pw, err := c.int(4)
	if err != nil {
		return
	}
	ratio, err := c.int(5)
	if err != nil {
		return
	}
	if ph < 1 || pw < 1 || !(scale > 0) || !isFinite(scale) {
		return nil, nil, nil, c.errf("output size %dx%d and spatial_scale %g must be positive", ph, pw, scale)
	}
	return x, rois, &canon.RoiAlign{OutputHeight: ph, OutputWidth: pw, SamplingRatio: max(ratio, 0), SpatialScale: float32(scale)}, nil
}

// opTVRoiAlign: roi_align(input, rois, spatial_scale, pooled_height,
// pooled_width, sampling_ratio, aligned). aligned shifts the scaled corners
// by half a pixel and lets regions be smaller than one pixel: RoiAlign's
// half_pixel; otherwise output_half_pixel (regions at least 1×1). The
// bilinear sampling and the per-bin average are the same kernel (both come
// from Caffe2's).
func opTVRoiAlign(c *opCall) (value, error) {
	if err := c.bind("input", "rois", "spatial_scale", "pooled_height", "pooled_width", "sampling_ratio", "aligned"); err != nil {
		return nil, err
	}
	x, rois, op, err := tvRoiAlignArgs(c)
	if err != nil {
		return nil, err
	}
	if op.HalfPixel, err = c.bool(6); err != nil {
		return nil, err
	}
	boxes, idx, err := tvRois(c, rois)
	if err != nil {
		return nil, err
	}
	if f, ok := c.bound[2].(*dynFloat); ok {
		if boxes, err = scaleBoxesRunTime(c, boxes, f); err != nil {
			return nil, err
		}
	}
	return c.b().emit1(c.scope, op, x, boxes, idx)
}

// opTVPSRoiAlign: position-sensitive RoIAlign. Output channel c, bin
// (i, j) is bin (i, j) of input channel (c·PH + i)·PW + j, sampled as
// roi_align with aligned=True samples it. It is read as RoiAlign over every
// channel, then a Gather of the (channel, bin) pairs where the channel's
// bin offset is the bin. (torchvision divides by the sample count without
// a floor of 1, so an empty region with adaptive sampling is NaN there and
// 0 here.)
func opTVPSRoiAlign(c *opCall) (value, error) {
	if err := c.bind("input", "rois", "spatial_scale", "pooled_height", "pooled_width", "sampling_ratio"); err != nil {
		return nil, err
	}
	x, rois, op, err := tvRoiAlignArgs(c)
	if err != nil {
		return nil, err
	}
	op.HalfPixel = true
	xs := c.b().info(x)
	cin := knownDimAt(xs, 1)
	bins := op.OutputHeight * op.OutputWidth
	if cin < 0 {
		return nil, c.errf("the channel count of input is not known at import; give the input shape")
	}
	if cin%bins != 0 {
		return nil, c.errf("input has %d channels, not a multiple of the %d bins", cin, bins)
	}
	boxes, idx, err := tvRois(c, rois)
	if err != nil {
		return nil, err
	}
	b := c.b()
	all, err := b.emit1(c.scope, op, x, boxes, idx)
	if err != nil {
		return nil, err
	}
	cout := cin / bins
	flat, err := b.emit1(c.scope, &canon.Reshape{Shape: []int64{0, cout, bins * bins}}, all)
	if err != nil {
		return nil, err
	}
	pick := make([]int64, bins)
	for k := range pick {
		pick[k] = int64(k)*bins + int64(k)
	}
	diag, err := b.emit1(c.scope, &canon.Gather{Axis: 2}, flat, &tensorVal{konst: canon.NewInt64Tensor("", nil, pick)})
	if err != nil {
		return nil, err
	}
	out, err := b.emit1(c.scope, &canon.Reshape{Shape: []int64{0, cout, op.OutputHeight, op.OutputWidth}}, diag)
	if err != nil {
		return nil, err
	}
	// The second result, the channel mapping for the backward pass, is not
	// computed: using it is refused as a None.
	return &tupleVal{items: []value{out, noneVal{}}}, nil
}

// knownDimAt is axis i of v, or -1 when unknown.
func knownDimAt(v canon.ValueInfo, i int) int64 {
	if !v.RankKnown || i >= len(v.Shape) || !v.Shape[i].Known() {
		return -1
	}
	return v.Shape[i].Size
}

// opTVRoiPool: roi_pool(input, rois, spatial_scale, pooled_height,
// pooled_width) is Fast R-CNN's max ROI pooling, ONNX's MaxRoiPool, with
// the same (batch index, x1, y1, x2, y2) regions. Its second result (the
// argmax for the backward pass) is not computed.
func opTVRoiPool(c *opCall) (value, error) {
	if err := c.bind("input", "rois", "spatial_scale", "pooled_height", "pooled_width"); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	rois, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	scale, err := c.float(2)
	if err != nil {
		return nil, err
	}
	ph, err := c.int(3)
	if err != nil {
		return nil, err
	}
	pw, err := c.int(4)
	if err != nil {
		return nil, err
	}
	if ph < 1 || pw < 1 || !(scale > 0) || !isFinite(scale) {
		return nil, c.errf("output size %dx%d and spatial_scale %g must be positive", ph, pw, scale)
	}
	out, err := c.b().emit1(c.scope, &canon.MaxRoiPool{PooledHeight: ph, PooledWidth: pw, SpatialScale: float32(scale)}, x, rois)
	if err != nil {
		return nil, err
	}
	return &tupleVal{items: []value{out, noneVal{}}}, nil
}

func opTVPSRoiPool(c *opCall) (value, error) {
	return nil, c.errf("position-sensitive ROI pooling averages each bin over rounded integer bounds, which no canonical op computes (MaxRoiPool takes the maximum)")
}

// opTVNMS: nms(boxes (N, 4) as x1, y1, x2, y2, scores (N), iou_threshold)
// keeps boxes in decreasing score order, dropping any whose IoU with a
// kept box exceeds the threshold: NonMaxSuppression of one batch and one
// class with no score threshold and room for every box, whose third column
// is the kept box's index. IoU does not change when x and y swap, so the
// (x1, y1, x2, y2) rows are used as they are.
func opTVNMS(c *opCall) (value, error) {
	if err := c.bind("dets", "scores", "iou_threshold"); err != nil {
		return nil, err
	}
	boxes, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	scores, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	iou, err := c.float(2)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(iou) {
		return nil, c.errf("iou_threshold is NaN")
	}
	b := c.b()
	limit := int64(math.MaxInt32)
	if n := knownDimAt(b.info(boxes), 0); n >= 0 {
		limit = n
	}
	b3, err := b.emit1(c.scope, &canon.Unsqueeze{Axes: []int64{0}}, boxes)
	if err != nil {
		return nil, err
	}
	s3, err := b.emit1(c.scope, &canon.Unsqueeze{Axes: []int64{0, 1}}, scores)
	if err != nil {
		return nil, err
	}
	sel, err := b.emit1(c.scope, &canon.NonMaxSuppression{}, b3, s3,
		&tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{limit})},
		&tensorVal{konst: canon.NewFloat32Tensor("", []int64{1}, []float32{float32(iou)})})
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Gather{Axis: 1}, sel, &tensorVal{konst: canon.NewInt64Tensor("", []int64{}, []int64{2})})
}

// opTVDeformConv: deform_conv2d(input, weight, offset, mask, bias,
// stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups,
// offset_groups, use_mask) is DeformConv (the mask input only when
// use_mask).
func opTVDeformConv(c *opCall) (value, error) {
	if err := c.bind("input", "weight", "offset", "mask", "bias", "stride_h", "stride_w", "pad_h", "pad_w",
		"dilation_h", "dilation_w", "groups", "offset_groups", "use_mask"); err != nil {
		return nil, err
	}
	var ts [5]*tensorVal
	for i := range ts {
		t, err := c.optTensor(i)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	var p [8]int64
	for i := range p {
		v, err := c.int(5 + i)
		if err != nil {
			return nil, err
		}
		p[i] = v
	}
	useMask, err := c.bool(13)
	if err != nil {
		return nil, err
	}
	if ts[0] == nil || ts[1] == nil || ts[2] == nil {
		return nil, c.errf("input, weight and offset must be tensors")
	}
	op := &canon.DeformConv{Strides: []int64{p[0], p[1]}, PadsBegin: []int64{p[2], p[3]}, PadsEnd: []int64{p[2], p[3]},
		Dilations: []int64{p[4], p[5]}, Group: p[6], OffsetGroup: p[7]}
	mask := ts[3]
	if !useMask {
		mask = nil
	}
	return c.b().emit1(c.scope, op, ts[0], ts[1], ts[2], ts[4], mask)
}
