package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The normalization family and the pooling ops beyond Max/AveragePool.

func init() {
	optable.Add(&ops, map[string]opEntry{
		"LayerNormalization":        {convLayerNorm, 17, []string{"LayerNormalization"}},
		"GroupNormalization":        {convGroupNorm, 18, []string{"GroupNormalization", "Unsqueeze", "Expand", "Reshape"}},
		"InstanceNormalization":     {convInstanceNorm, 6, []string{"InstanceNormalization"}},
		"RMSNormalization":          {convRMSNorm, 23, []string{"RMSNormalization"}},
		"LpNormalization":           {convLpNorm, 1, []string{"LpNormalization"}},
		"MeanVarianceNormalization": {convMeanVarNorm, 9, []string{"MeanVarianceNormalization"}},
		// LpPool-1 took p as a float; 2 made it an int.
		"LpPool":       {convLpPool, 2, []string{"LpPool"}},
		"GlobalLpPool": {convGlobalLpPool, 2, []string{"GlobalLpPool"}},
		"MaxUnpool":    {convMaxUnpool, 9, []string{"MaxUnpool"}},
	})
}

// stash reads stash_type: the element type the statistics are kept in.
func (c *nodeCtx) stash() canon.DType {
	code := c.int("stash_type", int64(onnxpb.TensorProto_FLOAT))
	dt, err := onnxtensor.DType(int32(code))
	if err != nil || !dt.IsFloat() {
		c.fail("stash_type %d is not a floating-point element type", code)
		return canon.Float32
	}
	return dt
}

func convLayerNorm(c *nodeCtx) error {
	op := &canon.LayerNorm{Axis: c.int("axis", -1), Epsilon: c.float("epsilon", 1e-5), Stash: c.stash()}
	outs := c.outputs(3, "LayerNormalization has only Y, Mean and InvStdDev")
	return c.emit(op, []string{c.in(0), c.in(1), c.in(2)}, outs)
}

// convGroupNorm reads GroupNormalization-18 (scale and bias per group) and
// -21 (per channel). A per-group vector becomes a per-channel one by
// repeating each entry over its group's channels: Unsqueeze, Expand,
// Reshape, which fold away when the vectors are constants.
func convGroupNorm(c *nodeCtx) error {
	if !c.has("num_groups") {
		return c.errf("GroupNormalization needs its num_groups attribute")
	}
	g := c.int("num_groups", 0)
	if g < 1 {
		return c.errf("num_groups %d must be >= 1", g)
	}
	op := &canon.GroupNorm{NumGroups: g, Epsilon: c.float("epsilon", 1e-5), Stash: canon.Float32}
	if c.im.opset >= 21 {
		op.Stash = c.stash()
	}
	scale, bias := c.in(1), c.in(2)
	if c.im.opset < 21 {
		x := c.info(0)
		if !x.RankKnown || len(x.Shape) < 2 || !x.Shape[1].Known() {
			return c.errf("GroupNormalization-18 gives scale and bias per group; spreading them over the channels needs the channel count of input %q, which is unknown (give the model's inputs full shapes, --input-shape)", c.in(0))
		}
		ch := x.Shape[1].Size
		if ch%g != 0 {
			return c.errf("input %q has %d channels, not a multiple of num_groups %d", c.in(0), ch, g)
		}
		var err error
		for i, v := range []*string{&scale, &bias} {
			suffix := []string{"scale", "bias"}[i]
			if *v, err = c.emitAux(suffix+"_column", &canon.Unsqueeze{Axes: []int64{1}}, *v); err != nil {
				return err
			}
			if *v, err = c.emitAux(suffix+"_spread", &canon.Expand{Shape: []int64{g, ch / g}}, *v); err != nil {
				return err
			}
			if *v, err = c.emitAux(suffix+"_per_channel", &canon.Reshape{Shape: []int64{ch}}, *v); err != nil {
				return err
			}
		}
	}
	return c.emit(op, []string{c.in(0), scale, bias}, c.out1())
}

func convInstanceNorm(c *nodeCtx) error {
	return c.emit(&canon.InstanceNorm{Epsilon: c.float("epsilon", 1e-5)}, []string{c.in(0), c.in(1), c.in(2)}, c.out1())
}

func convRMSNorm(c *nodeCtx) error {
	op := &canon.RMSNorm{Axis: c.int("axis", -1), Epsilon: c.float("epsilon", 1e-5), Stash: c.stash()}
	return c.emit(op, []string{c.in(0), c.in(1)}, c.out1())
}

func convLpNorm(c *nodeCtx) error {
	op := &canon.LpNorm{Axis: c.int("axis", -1), P: c.int("p", 2)}
	if op.P != 1 && op.P != 2 {
		c.fail("p is %d; LpNormalization takes 1 or 2", op.P)
	}
	return c.emit(op, []string{c.in(0)}, c.out1())
}

func convMeanVarNorm(c *nodeCtx) error {
	axes := c.ints("axes")
	if axes == nil {
		axes = []int64{0, 2, 3}
	}
	axes = c.normAxes(axes, c.rankOr(0), "axis")
	return c.emit(&canon.MeanVarNorm{Axes: axes}, []string{c.in(0)}, c.out1())
}

func convLpPool(c *nodeCtx) error {
	w := c.readWindow(c.poolKernel(), c.im.opset >= 18)
	op := &canon.LpPool{Kernel: w.kernel, Strides: w.strides, Dilations: w.dilations, PadsBegin: w.padsBegin, PadsEnd: w.padsEnd,
		P: c.int("p", 2)}
	if c.im.opset >= 18 {
		op.CeilMode = c.int("ceil_mode", 0) != 0
	}
	if op.P < 1 {
		c.fail("p is %d, must be >= 1", op.P)
	}
	return c.emit(op, []string{c.in(0)}, c.out1())
}

func convGlobalLpPool(c *nodeCtx) error {
	op := &canon.GlobalLpPool{P: c.int("p", 2)}
	if op.P < 1 {
		c.fail("p is %d, must be >= 1", op.P)
	}
	return c.emit(op, []string{c.in(0)}, c.out1())
}

func convMaxUnpool(c *nodeCtx) error {
	k := c.poolKernel()
	w := c.readWindow(k, false)
	op := &canon.MaxUnpool{Kernel: w.kernel, Strides: w.strides, PadsBegin: w.padsBegin, PadsEnd: w.padsEnd}
	if c.in(2) != "" {
		shape, ok := c.constInts(2, "MaxUnpool output_shape")
		if ok {
			op.OutputShape = shape
		}
	}
	return c.emit(op, []string{c.in(0), c.in(1)}, c.out1())
}
