package tfliteimport

// Builtins the TFLite exporter writes that read without layout work:
// TRANSPOSE, SPLIT, GATHER, BATCH_MATMUL and LOG_SOFTMAX on their input in
// file order, the elementwise ops in their operands' form, and the
// resizes on NCHW.

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// convTranspose reads TRANSPOSE: its permutation is over the file's axes,
// so it works on the input in file order.
func convTranspose(c *opCtx) error {
	x, err := c.need(0)
	if err != nil {
		return err
	}
	perm, err := c.constInts(c.in(1), "permutation")
	if err != nil {
		return err
	}
	if len(perm) != len(c.b.tensor(x).shape) {
		return c.errf("permutation %v for a tensor of rank %d", perm, len(c.b.tensor(x).shape))
	}
	xv, err := c.b.value(x, fileForm)
	if err != nil {
		return err
	}
	y := c.out(0)
	c.b.define(y, c.b.node(c.b.tensor(y).name, &canon.Transpose{Perm: perm}, xv), fileForm)
	return nil
}

// convSplit reads SPLIT (axis first, equal parts) and SPLIT_V (sizes,
// then axis) on the input in file order.
func convSplit(c *opCtx, sizesV bool) error {
	xSlot, axisSlot := 1, 0
	if sizesV {
		xSlot, axisSlot = 0, 2
	}
	x, err := c.need(xSlot)
	if err != nil {
		return err
	}
	ax, err := c.constInts(c.in(axisSlot), "axis")
	if err != nil {
		return err
	}
	xs := c.b.tensor(x).shape
	if len(ax) != 1 || ax[0] < -int64(len(xs)) || ax[0] >= int64(len(xs)) {
		return c.errf("axis %v for a tensor of rank %d", ax, len(xs))
	}
	axis := ax[0]
	if axis < 0 {
		axis += int64(len(xs))
	}
	n := len(c.op.outputs)
	sizes := make([]int64, n)
	for k := range sizes {
		s := c.b.tensor(c.out(k)).shape
		if len(s) != len(xs) {
			return c.errf("output %d has rank %d, the input %d", k, len(s), len(xs))
		}
		sizes[k] = s[axis]
	}
	xv, err := c.b.value(x, fileForm)
	if err != nil {
		return err
	}
	outs := make([]string, n)
	for k := range outs {
		outs[k] = c.b.fresh(c.b.tensor(c.out(k)).name)
	}
	c.b.emit(outs[0], &canon.Split{Axis: axis, Sizes: sizes}, []string{xv}, outs...)
	for k, o := range outs {
		c.b.define(c.out(k), o, fileForm)
	}
	return nil
}

// convPlain2 reads a two-input elementwise op without options (MAXIMUM,
// MINIMUM), broadcast as the arithmetic ops are.
func convPlain2(c *opCtx, op canon.Op) error {
	a, err := c.need(0)
	if err != nil {
		return err
	}
	bb, err := c.need(1)
	if err != nil {
		return err
	}
	if c.b.quantized(a) || c.b.quantized(bb) {
		return c.errf("quantized %s is not supported", c.op.opcode.name())
	}
	f := c.operandForm([]int{a, bb})
	av, err := c.operand(a, f)
	if err != nil {
		return err
	}
	bv, err := c.operand(bb, f)
	if err != nil {
		return err
	}
	y := c.out(0)
	c.b.define(y, c.b.node(c.b.base(y), op, av, bv), f)
	return nil
}

// convCast reads CAST to the output tensor's type.
func convCast(c *opCtx) error {
	to, err := dtypeOf(c.b.tensor(c.out(0)).dtype)
	if err != nil {
		return c.errf("output: %v", err)
	}
	return convUnary(c, &canon.Cast{To: to})
}

// convResize reads RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: the
// output size is the file's output shape; the flags are ONNX coordinate
// modes (TFLite maps with in/out, which is ONNX's 1/scale for sizes).
func convResize(c *opCtx, bilinear bool) error {
	x, err := c.need(0)
	if err != nil {
		return err
	}
	if c.b.quantized(x) {
		return c.errf("quantized %s is not supported", c.op.opcode.name())
	}
	if _, err := c.rank4Of(x, "input"); err != nil {
		return err
	}
	var align, half bool
	if bilinear {
		o, err := optionsOf[tflitefb.ResizeBilinearOptions](c, tflitefb.BuiltinOptionsResizeBilinearOptions)
		if err != nil {
			return err
		}
		align, half = o.AlignCorners(), o.HalfPixelCenters()
	} else {
		o, err := optionsOf[tflitefb.ResizeNearestNeighborOptions](c, tflitefb.BuiltinOptionsResizeNearestNeighborOptions)
		if err != nil {
			return err
		}
		align, half = o.AlignCorners(), o.HalfPixelCenters()
	}
	op := &canon.Resize{Axes: []int64{2, 3}, Mode: canon.ResizeNearest, Nearest: canon.Floor, CoordTransform: canon.Asymmetric}
	switch {
	case bilinear && align:
		op.Mode, op.CoordTransform = canon.ResizeLinear, canon.AlignCorners
	case bilinear && half:
		op.Mode, op.CoordTransform = canon.ResizeLinear, canon.HalfPixel
	case bilinear:
		op.Mode = canon.ResizeLinear
	case align:
		return c.errf("align_corners rounds half away from zero in TFLite's nearest resize, which has no canonical form here")
	case half:
		op.CoordTransform = canon.TFHalfPixelForNN
	}
	y := c.out(0)
	ys := c.b.tensor(y).shape
	if len(ys) != 4 {
		return c.errf("output has shape %v; a 4-D NHWC tensor is needed", ys)
	}
	op.Sizes = []int64{ys[1], ys[2]}
	xv, err := c.b.value(x, nchwForm)
	if err != nil {
		return err
	}
	c.b.define(y, c.b.node(c.b.tensor(y).name, op, xv, "", "", ""), nchwForm)
	return nil
}

// convPRelu reads PRELU: the slope broadcast as the arithmetic ops'
// operands are.
func convPRelu(c *opCtx) error {
	x, err := c.need(0)
	if err != nil {
		return err
	}
	a, err := c.need(1)
	if err != nil {
		return err
	}
	if c.b.quantized(x) || c.b.quantized(a) {
		return c.errf("quantized PRELU is not supported")
	}
	f := c.operandForm([]int{x, a})
	xv, err := c.operand(x, f)
	if err != nil {
		return err
	}
	av, err := c.operand(a, f)
	if err != nil {
		return err
	}
	y := c.out(0)
	c.b.define(y, c.b.node(c.b.base(y), &canon.PRelu{}, xv, av), f)
	return nil
}

// convBatchMatMul reads BATCH_MATMUL without adjoints as MatMul on the
// operands in file order.
func convBatchMatMul(c *opCtx) error {
	o, err := optionsOf[tflitefb.BatchMatMulOptions](c, tflitefb.BuiltinOptionsBatchMatMulOptions)
	if err != nil {
		return err
	}
	if o.AdjX() || o.AdjY() {
		return c.errf("adj_x/adj_y are not read: transpose the operands with TRANSPOSE")
	}
	a, err := c.need(0)
	if err != nil {
		return err
	}
	bb, err := c.need(1)
	if err != nil {
		return err
	}
	if c.b.quantized(a) || c.b.quantized(bb) {
		return c.errf("quantized BATCH_MATMUL is not supported")
	}
	av, err := c.b.value(a, fileForm)
	if err != nil {
		return err
	}
	bv, err := c.b.value(bb, fileForm)
	if err != nil {
		return err
	}
	y := c.out(0)
	c.b.define(y, c.b.node(c.b.base(y), &canon.MatMul{}, av, bv), fileForm)
	return nil
}

// convGelu reads GELU, exact or with the tanh approximation.
func convGelu(c *opCtx) error {
	o, err := optionsOf[tflitefb.GeluOptions](c, tflitefb.BuiltinOptionsGeluOptions)
	if err != nil {
		return err
	}
	op := &canon.Gelu{Approximate: canon.GeluExact}
	if o.Approximate() {
		op.Approximate = canon.GeluTanh
	}
	return convUnary(c, op)
}

// convLogSoftmax reads LOG_SOFTMAX, over the file's last axis.
func convLogSoftmax(c *opCtx) error {
	x, err := c.need(0)
	if err != nil {
		return err
	}
	if c.b.quantized(x) {
		return c.errf("quantized LOG_SOFTMAX is not supported")
	}
	xv, err := c.b.value(x, fileForm)
	if err != nil {
		return err
	}
	y := c.out(0)
	c.b.define(y, c.b.node(c.b.tensor(y).name, &canon.LogSoftmax{Axis: int64(len(c.b.tensor(x).shape) - 1)}, xv), fileForm)
	return nil
}

// convGather reads GATHER (batch_dims 0) on the input in file order.
func convGather(c *opCtx) error {
	o, err := optionsOf[tflitefb.GatherOptions](c, tflitefb.BuiltinOptionsGatherOptions)
	if err != nil {
		return err
	}
	if o.BatchDims() != 0 {
		return c.errf("batch_dims %d is not supported", o.BatchDims())
	}
	x, err := c.need(0)
	if err != nil {
		return err
	}
	ix, err := c.need(1)
	if err != nil {
		return err
	}
	if c.b.quantized(x) {
		return c.errf("quantized GATHER is not supported")
	}
	xv, err := c.b.value(x, fileForm)
	if err != nil {
		return err
	}
	iv, err := c.b.value(ix, fileForm)
	if err != nil {
		return err
	}
	y := c.out(0)
	c.b.define(y, c.b.node(c.b.tensor(y).name, &canon.Gather{Axis: int64(o.Axis())}, xv, iv), fileForm)
	return nil
}
