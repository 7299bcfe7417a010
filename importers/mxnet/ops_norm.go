package mxnetimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The normalization family: LayerNorm, GroupNorm, InstanceNorm and
// L2Normalization, and the lp and same forms of Pooling.

func init() {
	optable.Add(&converters, map[string]mxOp{
		"LayerNorm":       {convLayerNorm, []string{"LayerNormalization", "Transpose"}},
		"GroupNorm":       {convGroupNorm, []string{"GroupNormalization"}},
		"InstanceNorm":    {convInstanceNorm, []string{"InstanceNormalization"}},
		"L2Normalization": {convL2Normalization, []string{"Mul", "ReduceSum", "Add", "Sqrt", "Div"}},
	})
	optable.Add(&lacks, map[string]string{
		"RMSNormalization":          "MXNet 1.x has no RMS normalization op",
		"LpNormalization":           "MXNet's L2Normalization adds eps inside the root (read as Mul, ReduceSum, Add, Sqrt and Div); MXNet has no plain Lp normalization",
		"MeanVarianceNormalization": "MXNet has no mean-variance normalization op",
		"MaxUnpool":                 "MXNet 1.x has no unpooling op",
	})
}

// statsOutputs refuses output_mean_var: MXNet's extra outputs are the mean
// and the standard deviation, which no canonical output carries.
func statsOutputs(c *nodeCtx) error {
	v, err := c.a.bool("output_mean_var", false)
	if err != nil {
		return err
	}
	if v {
		return c.errf("output_mean_var=True is not supported: the standard deviation output has no canonical form")
	}
	return nil
}

// convLayerNorm: MXNet normalizes over the one axis given (default the
// last) with gamma and beta along it. The last axis is LayerNormalization
// at axis -1; another axis is moved last and back.
func convLayerNorm(b *builder, c *nodeCtx) ([]string, error) {
	if err := statsOutputs(c); err != nil {
		return nil, err
	}
	axis, err := c.a.int("axis", -1)
	if err != nil {
		return nil, err
	}
	eps, err := c.a.float("eps", 1e-5)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	xs, ok := b.shapeOf(x)
	last := axis == -1
	var perm []int64
	if !last {
		if !ok {
			return nil, c.errf("LayerNorm over axis %d needs the input rank; pass the input shapes", axis)
		}
		if axis < 0 {
			axis += int64(len(xs))
		}
		if axis < 0 || axis >= int64(len(xs)) {
			return nil, c.errf("axis %d is out of range for rank %d", axis, len(xs))
		}
		if axis != int64(len(xs)-1) {
			perm = make([]int64, len(xs))
			for i := range perm {
				perm[i] = int64(i)
			}
			perm[axis], perm[len(xs)-1] = perm[len(xs)-1], perm[axis]
		}
	}
	want := []int64{dimAt(xs, ok, int(axis))}
	if axis == -1 && ok && len(xs) > 0 {
		want = []int64{xs[len(xs)-1]}
	}
	gamma, err := b.param(c, 1, canon.RoleWeight, want)
	if err != nil {
		return nil, err
	}
	beta, err := b.param(c, 2, canon.RoleWeight, want)
	if err != nil {
		return nil, err
	}
	op := &canon.LayerNorm{Axis: -1, Epsilon: float32(eps), Stash: canon.Float32}
	if perm == nil {
		out := b.fresh(c.n.Name)
		return []string{out}, b.emit(out, op, []string{x, gamma, beta}, out)
	}
	moved := b.fresh(c.n.Name + "_axis_last")
	if err := b.emit(moved, &canon.Transpose{Perm: perm}, []string{x}, moved); err != nil {
		return nil, err
	}
	normed := b.fresh(c.n.Name + "_normalized")
	if err := b.emit(normed, op, []string{moved, gamma, beta}, normed); err != nil {
		return nil, err
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Transpose{Perm: perm}, []string{normed}, out)
}

// convGroupNorm: gamma and beta are per channel (MXNet 2) or, in MXNet
// 1.x files, per group; a per-group parameter is spread over its group's
// channels.
func convGroupNorm(b *builder, c *nodeCtx) ([]string, error) {
	if err := statsOutputs(c); err != nil {
		return nil, err
	}
	g, err := c.a.int("num_groups", 1)
	if err != nil {
		return nil, err
	}
	if g < 1 {
		return nil, c.errf("num_groups %d must be >= 1", g)
	}
	eps, err := c.a.float("eps", 1e-5)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	xs, ok := b.shapeOf(x)
	ch := dimAt(xs, ok, 1)
	var params [2]string
	for k := range params {
		v, err := b.param(c, k+1, canon.RoleData, nil)
		if err != nil {
			return nil, err
		}
		if s, known := b.shapeOf(v); known && len(s) == 1 && s[0] == g && ch > 0 && g != ch {
			if v, err = spreadGroups(b, c, v, g, ch); err != nil {
				return nil, err
			}
		}
		params[k] = v
	}
	op := &canon.GroupNorm{NumGroups: g, Epsilon: float32(eps), Stash: canon.Float32}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, op, []string{x, params[0], params[1]}, out)
}

// spreadGroups repeats each of the g entries of v over ch/g channels.
func spreadGroups(b *builder, c *nodeCtx, v string, g, ch int64) (string, error) {
	if ch%g != 0 {
		return "", c.errf("the input has %d channels, not a multiple of num_groups %d", ch, g)
	}
	steps := []canon.Op{&canon.Unsqueeze{Axes: []int64{1}}, &canon.Expand{Shape: []int64{g, ch / g}}, &canon.Reshape{Shape: []int64{ch}}}
	cur := v
	for _, op := range steps {
		name := b.fresh(c.n.Name + "_" + v + "_per_channel")
		if err := b.emit(name, op, []string{cur}, name); err != nil {
			return "", err
		}
		cur = name
	}
	return cur, nil
}

// convInstanceNorm: MXNet's InstanceNorm eps defaults to 1e-3.
func convInstanceNorm(b *builder, c *nodeCtx) ([]string, error) {
	eps, err := c.a.float("eps", 1e-3)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	xs, ok := b.shapeOf(x)
	want := []int64{dimAt(xs, ok, 1)}
	gamma, err := b.param(c, 1, canon.RoleChannel, want)
	if err != nil {
		return nil, err
	}
	beta, err := b.param(c, 2, canon.RoleChannel, want)
	if err != nil {
		return nil, err
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.InstanceNorm{Epsilon: float32(eps)}, []string{x, gamma, beta}, out)
}

// convL2Normalization: x / sqrt(sum(x²) + eps) over every axis but the
// batch (mode instance), the channel axis (channel) or the spatial axes of
// each channel (spatial); MXNet adds eps inside the root.
func convL2Normalization(b *builder, c *nodeCtx) ([]string, error) {
	eps, err := c.a.float("eps", 1e-10)
	if err != nil {
		return nil, err
	}
	mode := c.a.str("mode", "instance")
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	xs, ok := b.shapeOf(x)
	if !ok {
		return nil, c.errf("L2Normalization needs the input rank; pass the input shapes")
	}
	var axes []int64
	switch mode {
	case "instance":
		axes = seqFrom(1, len(xs))
	case "channel":
		axes = []int64{1}
	case "spatial":
		axes = seqFrom(2, len(xs))
	default:
		return nil, c.errf("mode %q is not one of instance, channel, spatial", mode)
	}
	if len(xs) < 2 || len(axes) == 0 {
		return nil, c.errf("mode %s needs an input of rank %d or more, the input has rank %d", mode, map[bool]int{true: 3, false: 2}[mode == "spatial"], len(xs))
	}
	dt := b.vals[x].DType
	k, err := filled(c.n.Name+"_eps", dt, []int64{}, eps)
	if err != nil {
		return nil, c.errf("%v", err)
	}
	epsName := b.constant(k)
	type step struct {
		suffix string
		op     canon.Op
		ins    func(prev string) []string
	}
	steps := []step{
		{"_square", &canon.Binary{Fn: canon.Mul}, func(string) []string { return []string{x, x} }},
		{"_sum", &canon.Reduce{Fn: canon.ReduceSum, Axes: axes, KeepDims: true}, func(p string) []string { return []string{p} }},
		{"_eps", &canon.Binary{Fn: canon.Add}, func(p string) []string { return []string{p, epsName} }},
		{"_norm", &canon.Math{Fn: canon.MathSqrt}, func(p string) []string { return []string{p} }},
		{"", &canon.Binary{Fn: canon.Div}, func(p string) []string { return []string{x, p} }},
	}
	cur := ""
	for _, s := range steps {
		name := b.fresh(c.n.Name + s.suffix)
		if err := b.emit(name, s.op, s.ins(cur), name); err != nil {
			return nil, err
		}
		cur = name
	}
	return []string{cur}, nil
}

func seqFrom(from, to int) []int64 {
	var out []int64
	for i := from; i < to; i++ {
		out = append(out, int64(i))
	}
	return out
}

// lpPValue reads pool_type=lp's p_value. MXNet raises x itself (not |x|)
// to the power p, so only p=2 is the canonical LpPool.
func lpPValue(c *nodeCtx) error {
	if !c.a.has("p_value") {
		return c.errf("pool_type=lp needs p_value")
	}
	p, err := c.a.int("p_value", 2)
	if err != nil {
		return err
	}
	if p != 2 {
		return c.errf("lp pooling with p_value=%d: MXNet raises x, not |x|, to the power p, which the canonical LpPool matches only for p=2", p)
	}
	return nil
}

// lpPooling reads pool_type=lp with a kernel.
func lpPooling(c *nodeCtx, kernel, stride, pad, padEnd []int64, ceil bool) (canon.Op, error) {
	if err := lpPValue(c); err != nil {
		return nil, err
	}
	return &canon.LpPool{Kernel: kernel, Strides: stride, Dilations: ones(len(kernel), 1), PadsBegin: pad, PadsEnd: padEnd, CeilMode: ceil, P: 2}, nil
}

// samePoolingPads reads pooling_convention=same: 1-D only, no pad; the
// output has ceil(in/stride) positions and the last windows are clipped at
// the end, which for max and lp pooling is padding at the end.
func samePoolingPads(c *nodeCtx, xs []int64, known bool, kernel, stride, pad []int64, ptype string) ([]int64, error) {
	if ptype != "max" && ptype != "lp" {
		return nil, c.errf("pooling_convention=same is read for max and lp pooling only")
	}
	if len(kernel) != 1 {
		return nil, c.errf("pooling_convention=same is 1-D only in MXNet")
	}
	if pad[0] != 0 {
		return nil, c.errf("pooling_convention=same takes no pad")
	}
	if !known || len(xs) != 3 || xs[2] < 0 {
		return nil, c.errf("pooling_convention=same needs the input shape; pass the input shapes")
	}
	in := xs[2]
	out := (in + stride[0] - 1) / stride[0]
	return []int64{max(0, (out-1)*stride[0]+kernel[0]-in)}, nil
}
