package canon

import "math"

// The detection family: RoiAlign (ONNX RoiAlign-10/16,
// torchvision::roi_align, MXNet _contrib_ROIAlign) and NonMaxSuppression
// (ONNX NonMaxSuppression-10/11, torchvision::nms), whose output size
// depends on the data and is a named symbolic dimension.

func init() {
	Register(withReason(&OpDef{
		Kind: "RoiAlign", Summary: "bilinear sampling of each region of interest into a fixed grid, averaged or maxed per bin (half_pixel or output_half_pixel)",
		HalfUnsafe: "region coordinates need float32's precision",
		New:        func() Op { return &RoiAlign{OutputHeight: 1, OutputWidth: 1, SpatialScale: 1, HalfPixel: true} },
		Infer:      func(c *InferCtx) ([]ValueInfo, error) { return c.roiAlign(c.n.Op.(*RoiAlign)) },
		Check: func(c *CheckCtx) error {
			op := c.N.Op.(*RoiAlign)
			if op.OutputHeight < 1 || op.OutputWidth < 1 || op.OutputHeight > 1<<16 || op.OutputWidth > 1<<16 {
				return c.Errorf("output size %dx%d must be between 1 and 65536", op.OutputHeight, op.OutputWidth)
			}
			if op.SamplingRatio < 0 || op.SamplingRatio > 1<<10 {
				return c.Errorf("sampling_ratio %d must be between 0 (adaptive) and 1024", op.SamplingRatio)
			}
			if s := float64(op.SpatialScale); !(s > 0) || math.IsInf(s, 0) {
				return c.Errorf("spatial_scale %g must be positive and finite", op.SpatialScale)
			}
			return nil
		},
		Example: func() Example {
			rois := NewFloat32Tensor("", []int64{2, 4}, []float32{0, 0, 3, 3, 1, 0.5, 4.5, 2})
			return Example{Op: &RoiAlign{OutputHeight: 2, OutputWidth: 3, SamplingRatio: 2, SpatialScale: 1},
				Inputs: []ExampleInput{{DType: Float32, Shape: []int64{1, 2, 5, 6}}, {DType: Float32, Shape: []int64{2, 4}, Const: rois},
					{DType: Int64, Shape: []int64{2}, Const: NewInt64Tensor("", []int64{2}, []int64{0, 0})}}}
		},
	}, detectionWithout))
	Register(withReason(&OpDef{
		Kind: "MaxRoiPool", Summary: "max pooling of each region of interest into a fixed grid (Fast R-CNN's ROI pooling: rounded corners, integer bins)",
		New:   func() Op { return &MaxRoiPool{PooledHeight: 1, PooledWidth: 1, SpatialScale: 1} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return c.maxRoiPool(c.n.Op.(*MaxRoiPool)) },
		Check: func(c *CheckCtx) error {
			op := c.N.Op.(*MaxRoiPool)
			if op.PooledHeight < 1 || op.PooledWidth < 1 || op.PooledHeight > 1<<16 || op.PooledWidth > 1<<16 {
				return c.Errorf("pooled shape %dx%d must be between 1 and 65536", op.PooledHeight, op.PooledWidth)
			}
			if s := float64(op.SpatialScale); !(s > 0) || math.IsInf(s, 0) {
				return c.Errorf("spatial_scale %g must be positive and finite", op.SpatialScale)
			}
			return nil
		},
		Example: func() Example {
			rois := NewFloat32Tensor("", []int64{2, 5}, []float32{0, 0, 0, 3, 3, 0, 1, 0.4, 5.6, 2})
			return Example{Op: &MaxRoiPool{PooledHeight: 2, PooledWidth: 3, SpatialScale: 1},
				Inputs: []ExampleInput{{DType: Float32, Shape: []int64{1, 2, 5, 6}}, {DType: Float32, Shape: []int64{2, 5}, Const: rois}}}
		},
	}, detectionWithout))
	Register(withReason(&OpDef{
		Kind: "NonMaxSuppression", Summary: "greedy non-maximum suppression per batch and class: (batch, class, box) of the boxes kept, a data-dependent count",
		HalfUnsafe: "box overlaps compared in float16 change the boxes kept",
		New:        func() Op { return &NonMaxSuppression{} },
		Infer:      func(c *InferCtx) ([]ValueInfo, error) { return c.nms() },
		Example: func() Example {
			boxes := NewFloat32Tensor("", []int64{1, 3, 4}, []float32{0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 2, 1, 3})
			return Example{Op: &NonMaxSuppression{}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{1, 3, 4}, Const: boxes},
				{DType: Float32, Shape: []int64{1, 1, 3}},
				{DType: Int64, Shape: []int64{1}, Const: NewInt64Tensor("", []int64{1}, []int64{2})},
				{DType: Float32, Shape: []int64{1}, Const: NewFloat32Tensor("", []int64{1}, []float32{0.5})}}}
		},
	}, detectionWithout))
}

// RoiAlign samples X (N, C, H, W) inside each region rois[r] = (x1, y1,
// x2, y2) of image batch_indices[r], scaled by SpatialScale, on an
// OutputHeight×OutputWidth grid of bins with SamplingRatio² bilinear
// samples per bin (0: ceil(roi size / bins) per axis). HalfPixel shifts the
// scaled corners by -0.5 (ONNX half_pixel, torchvision aligned=True);
// otherwise regions are at least 1×1 (output_half_pixel, RoiAlign-10). Max
// takes, per bin, the largest of the weighted corner values of its samples
// (ONNX's definition, which ONNX Runtime computes); otherwise the average
// of the samples.
type RoiAlign struct {
	OutputHeight, OutputWidth int64
	SamplingRatio             int64
	SpatialScale              float32
	HalfPixel                 bool
	Max                       bool
}

func (*RoiAlign) Kind() string { return "RoiAlign" }
func (*RoiAlign) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "rois"}, InputSpec{Name: "batch_indices"})
}

func (c *InferCtx) roiAlign(op *RoiAlign) ([]ValueInfo, error) {
	x, rois, idx := c.in[0], c.in[1], c.in[2]
	if dt := x.DType; dt != Undefined && !dt.IsFloat() {
		return nil, c.errf("input X is %s: RoiAlign takes floating-point tensors", dt)
	}
	if err := firstErr(c.needRank(0, 4, "RoiAlign (N, C, H, W)"), c.needRank(1, 2, "RoiAlign (num_rois, 4)"),
		c.needRank(2, 1, "RoiAlign (num_rois)"), c.sameDType(0, 1), c.needIndices(2)); err != nil {
		return nil, err
	}
	if d := dimAt(rois, 1); d.Known() && d.Size != 4 {
		return nil, c.errf("rois has shape %s; want (num_rois, 4)", fmtShape(rois))
	}
	n := dimAt(rois, 0)
	if m := dimAt(idx, 0); m.Known() && n.Known() && m.Size != n.Size {
		return nil, c.errf("rois has shape %s and batch_indices %s: one index per region", fmtShape(rois), fmtShape(idx))
	} else if !n.Known() {
		n = m
	}
	return []ValueInfo{shaped(x.DType, []Dim{n, dimAt(x, 1), knownDim(op.OutputHeight), knownDim(op.OutputWidth)})}, nil
}

// MaxRoiPool max-pools X (N, C, H, W) inside each region rois[r] =
// (batch index, x1, y1, x2, y2): corners scaled by SpatialScale and
// rounded half away from zero, the region at least 1×1 with its end
// included, bin (i, j) spanning rows floor(i·h/PH) to ceil((i+1)·h/PH)
// clipped to the map; an empty bin is 0. (ONNX MaxRoiPool, Caffe's and
// MXNet's ROIPooling, torchvision's roi_pool.)
type MaxRoiPool struct {
	PooledHeight, PooledWidth int64
	SpatialScale              float32
}

func (*MaxRoiPool) Kind() string         { return "MaxRoiPool" }
func (*MaxRoiPool) Signature() Signature { return sig(1, inX, InputSpec{Name: "rois"}) }

func (c *InferCtx) maxRoiPool(op *MaxRoiPool) ([]ValueInfo, error) {
	x, rois := c.in[0], c.in[1]
	if dt := x.DType; dt != Undefined && !dt.IsFloat() {
		return nil, c.errf("input X is %s: MaxRoiPool takes floating-point tensors", dt)
	}
	if err := firstErr(c.needRank(0, 4, "MaxRoiPool (N, C, H, W)"), c.needRank(1, 2, "MaxRoiPool (num_rois, 5)"), c.sameDType(0, 1)); err != nil {
		return nil, err
	}
	if d := dimAt(rois, 1); d.Known() && d.Size != 5 {
		return nil, c.errf("rois has shape %s; want (num_rois, 5): batch index, x1, y1, x2, y2", fmtShape(rois))
	}
	return []ValueInfo{shaped(x.DType, []Dim{dimAt(rois, 0), dimAt(x, 1), knownDim(op.PooledHeight), knownDim(op.PooledWidth)})}, nil
}

// NonMaxSuppression keeps, for each batch and class, boxes in descending
// score order whose score exceeds score_threshold (when given) and whose
// IoU with every box kept before is at most iou_threshold (default 0), up
// to max_output_boxes_per_class (default 0: none). Boxes are (y1, x1, y2,
// x2) with either corner first, or (x center, y center, width, height)
// with CenterPointBox. The output is (count, 3) int64 rows (batch, class,
// box index).
type NonMaxSuppression struct {
	CenterPointBox bool
}

// NonMaxSuppression input slots.
const (
	NMSBoxes = iota
	NMSScores
	NMSMaxOutput
	NMSIoUThreshold
	NMSScoreThreshold
)

func (*NonMaxSuppression) Kind() string { return "NonMaxSuppression" }
func (*NonMaxSuppression) Signature() Signature {
	return sig(1, InputSpec{Name: "boxes"}, InputSpec{Name: "scores"}, InputSpec{Name: "max_output_boxes_per_class", Optional: true},
		InputSpec{Name: "iou_threshold", Optional: true}, InputSpec{Name: "score_threshold", Optional: true})
}

func (c *InferCtx) nms() ([]ValueInfo, error) {
	boxes, scores := c.in[NMSBoxes], c.in[NMSScores]
	if err := firstErr(c.needRank(NMSBoxes, 3, "NonMaxSuppression (batch, boxes, 4)"), c.needRank(NMSScores, 3, "NonMaxSuppression (batch, classes, boxes)")); err != nil {
		return nil, err
	}
	if dt := boxes.DType; dt != Undefined && !dt.IsFloat() {
		return nil, c.errf("boxes are %s; NonMaxSuppression takes floating-point boxes", dt)
	}
	if err := c.sameDType(NMSBoxes, NMSScores); err != nil {
		return nil, err
	}
	if d := dimAt(boxes, 2); d.Known() && d.Size != 4 {
		return nil, c.errf("boxes have shape %s; want (batch, boxes, 4)", fmtShape(boxes))
	}
	for _, pair := range [][3]int{{0, 0, 0}, {1, 2, 1}} {
		a, b := dimAt(boxes, pair[0]), dimAt(scores, pair[1])
		if a.Known() && b.Known() && a.Size != b.Size {
			return nil, c.errf("boxes %s and scores %s disagree on the %s", fmtShape(boxes), fmtShape(scores), map[int]string{0: "batch", 1: "number of boxes"}[pair[2]])
		}
	}
	if c.present(NMSMaxOutput) {
		if err := c.needIndices(NMSMaxOutput); err != nil {
			return nil, err
		}
	}
	for _, i := range []int{NMSIoUThreshold, NMSScoreThreshold} {
		if c.present(i) {
			if dt := c.in[i].DType; dt != Undefined && !dt.IsFloat() {
				return nil, c.errf("%s is %s; want a float scalar", c.slot(i), dt)
			}
		}
	}
	return []ValueInfo{shaped(Int64, []Dim{c.countDim(), knownDim(3)})}, nil
}

// detectionWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var detectionWithout = Without{Accumulation: SumsNoProducts, RemapAxes: AxesFixed, Decompose: Primitive, Noop: NoNoopSetting}
