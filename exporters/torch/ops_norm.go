package torchexport

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The normalization family and LpPool, GlobalLpPool, MaxUnpool, MaxPool's
// Indices. Each is written as the torch function with the same definition
// or as its formula; the statistics are population ones (unbiased=False),
// as ONNX's are.

func init() {
	norm := "normalization"
	optable.Add(&opWriters, map[string]opWriter{
		"LayerNormalization": {write: writeLayerNorm, floatOnly: norm,
			detail: "F.layer_norm over x.shape[axis:] (scale and bias that broadcast applied after); Mean and InvStdDev through torch.var_mean"},
		"GroupNormalization":    {write: writeGroupNorm, floatOnly: norm, detail: "F.group_norm"},
		"InstanceNormalization": {write: writeInstanceNorm, floatOnly: norm, detail: "F.instance_norm"},
		"RMSNormalization":      {write: writeRMSNorm, floatOnly: norm, detail: "x * torch.rsqrt(mean(x²) + eps) * scale"},
		"LpNormalization": {write: writeLpNorm, floatOnly: norm,
			detail: "x / torch.linalg.vector_norm, a zero norm giving zeros (F.normalize's eps clamp would differ)"},
		"MeanVarianceNormalization": {write: writeMeanVarNorm, floatOnly: norm, detail: "(x - mean) / (std + 1e-9) through torch.var_mean"},
		"LpPool": {write: writeLpPool, floatOnly: "Lp pooling",
			detail: "window sums of |x|^p by a depthwise F.conv with ones on the zero-padded input (dilations and ceil mode included), then the p-th root"},
		"GlobalLpPool": {write: writeGlobalLpPool, floatOnly: "Lp pooling", detail: "torch.sum of |x|^p over the spatial axes, then the p-th root"},
		"MaxUnpool": {write: writeMaxUnpool, floatOnly: "unpooling",
			detail: "Tensor.scatter of the flat indices into zeros of the output's static shape"},
	})
}

// normArgs returns the expressions of inputs idx, in float32 when input 0
// is float16 (PyTorch 1.13 has no CPU kernel for these normalizations in
// half precision; ONNX computes their statistics in float32 too), and the
// suffix casting the result back.
func (gen *generator) normArgs(idx ...int) (args []any, back string, err error) {
	half := false
	if dt, ok := gen.inDType(0); ok && dt == canon.Float16 {
		half, back = true, ".half()"
	}
	for _, i := range idx {
		if i >= len(gen.node.Inputs) || gen.node.Inputs[i] == "" {
			args = append(args, "")
			continue
		}
		e, err := gen.in(i)
		if err != nil {
			return nil, "", err
		}
		if half {
			e = "(" + e + ").float()"
		}
		args = append(args, e)
	}
	return args, back, nil
}

// statsDims is the tuple of axes from a..rank-1 of input 0.
func (gen *generator) statsDims(axis int64) (string, error) {
	r := gen.rankOf(gen.node.Inputs[0])
	if r < 0 {
		return "", gen.fail("the input's rank is unknown")
	}
	a := axis
	if a < 0 {
		a += int64(r)
	}
	return pyInts(seq(a, int64(r)), true), nil
}

func writeLayerNorm(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.LayerNorm)
	args, back, err := gen.normArgs(0, 1, 2)
	if err != nil {
		return err
	}
	x, scale, bias := args[0].(string), args[1].(string), args[2].(string)
	ax := strconv.FormatInt(op.Axis, 10)
	shape := x + ".shape[" + ax + ":]"
	eps := pyFloat(op.Epsilon)
	xs, okx := gen.shapeOf(n.Inputs[0])
	ss, oks := gen.shapeOf(n.Inputs[1])
	bs, okb := []int64(nil), true
	if bias != "" {
		bs, okb = gen.shapeOf(n.Inputs[2])
	}
	var expr string
	if okx && oks && okb && slices.Equal(ss, xs[len(xs)-len(ss):]) && (bias == "" || slices.Equal(bs, ss)) && len(ss) == len(xs[normAxis(op.Axis, len(xs)):]) {
		b := "None"
		if bias != "" {
			b = bias
		}
		expr = fmt.Sprintf("F.layer_norm(%s, %s, %s, %s, eps=%s)", x, shape, scale, b, eps)
	} else {
		expr = fmt.Sprintf("F.layer_norm(%s, %s, eps=%s) * %s", x, shape, eps, scale)
		if bias != "" {
			expr += " + " + bias
		}
	}
	gen.assign(castBack(expr, back))
	if len(n.Outputs) < 2 || n.Outputs[1] == "" && (len(n.Outputs) < 3 || n.Outputs[2] == "") {
		return nil
	}
	dims, err := gen.statsDims(op.Axis)
	if err != nil {
		return err
	}
	st, err := gen.genDType(op.Stash)
	if err != nil {
		return err
	}
	vm := gen.genTemp("var_mean", fmt.Sprintf("torch.var_mean(%s.to(%s), dim=%s, unbiased=False, keepdim=True)", x, st, dims))
	if n.Outputs[1] != "" {
		gen.forward = append(gen.forward, gen.out(1)+" = "+vm+"[1]")
	}
	if len(n.Outputs) > 2 && n.Outputs[2] != "" {
		gen.forward = append(gen.forward, gen.out(2)+" = torch.rsqrt("+vm+"[0] + "+eps+")")
	}
	return nil
}

// normAxis resolves a possibly negative axis against rank r.
func normAxis(a int64, r int) int {
	if a < 0 {
		a += int64(r)
	}
	return int(a)
}

// callNorm is gen.call through normArgs.
func (gen *generator) callNorm(format string, idx ...int) error {
	args, back, err := gen.normArgs(idx...)
	if err != nil {
		return err
	}
	gen.assign(castBack(fmt.Sprintf(format, args...), back))
	return nil
}

// castBack applies back (a cast suffix, or "") to the whole of expr.
func castBack(expr, back string) string {
	if back == "" {
		return expr
	}
	return "(" + expr + ")" + back
}

func writeGroupNorm(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.GroupNorm)
	return gen.callNorm("F.group_norm(%s, "+strconv.FormatInt(op.NumGroups, 10)+", %s, %s, eps="+pyFloat(op.Epsilon)+")", 0, 1, 2)
}

func writeInstanceNorm(gen *generator, n *canon.Node) error {
	return gen.callNorm("F.instance_norm(%s, weight=%s, bias=%s, eps="+pyFloat(n.Op.(*canon.InstanceNorm).Epsilon)+")", 0, 1, 2)
}

func writeRMSNorm(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.RMSNorm)
	dims, err := gen.statsDims(op.Axis)
	if err != nil {
		return err
	}
	return gen.callNorm("%[1]s * torch.rsqrt(torch.mean(%[1]s * %[1]s, dim="+dims+", keepdim=True) + "+pyFloat(op.Epsilon)+") * %[2]s", 0, 1)
}

func writeLpNorm(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.LpNorm)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	norm := gen.genTemp("norm", fmt.Sprintf("torch.linalg.vector_norm(%s, ord=%d, dim=%d, keepdim=True)", x, op.P, op.Axis))
	gen.assign(fmt.Sprintf("%s / torch.where(%[2]s == 0, torch.ones_like(%[2]s), %[2]s)", x, norm))
	return nil
}

func writeMeanVarNorm(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.MeanVarNorm)
	args, back, err := gen.normArgs(0)
	if err != nil {
		return err
	}
	x := args[0].(string)
	vm := gen.genTemp("var_mean", fmt.Sprintf("torch.var_mean(%s, dim=%s, unbiased=False, keepdim=True)", x, pyInts(op.Axes, true)))
	gen.assign(castBack(fmt.Sprintf("(%s - %[2]s[1]) / (torch.sqrt(%[2]s[0]) + 1e-09)", x, vm), back))
	return nil
}

// writeLpPool sums |x|^p over each window with a depthwise convolution by
// ones (dilations included) on the zero-padded input, then takes the p-th
// root; ceil mode's last windows get the extra zeros at the end they read.
func writeLpPool(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.LpPool)
	nsp := len(op.Kernel)
	if nsp < 1 || nsp > 3 {
		return gen.fail("%d spatial axes; torch convolves 1 to 3", nsp)
	}
	xs, ok := gen.shapeOf(n.Inputs[0])
	ys, ok2 := gen.shapeOf(n.Outputs[0])
	if !ok || !ok2 {
		return gen.fail("the input and output shapes must be known before running")
	}
	args, back, err := gen.normArgs(0)
	if err != nil {
		return err
	}
	x := args[0].(string)
	dt := "torch.float32"
	if ds, ok := gen.inDType(0); ok && back == "" {
		if dt, err = gen.genDType(ds); err != nil {
			return err
		}
	}
	end := append([]int64{}, op.PadsEnd...)
	for i := range end {
		reach := (ys[2+i]-1)*op.Strides[i] + (op.Kernel[i]-1)*op.Dilations[i] + 1
		if extra := reach - (xs[2+i] + op.PadsBegin[i] + end[i]); extra > 0 {
			end[i] += extra
		}
	}
	p := strconv.FormatInt(op.P, 10)
	pw := "torch.abs(" + x + ").pow(" + p + ")"
	if !allZero(op.PadsBegin, end) {
		pw = "F.pad(" + pw + ", " + fpad(op.PadsBegin, end) + ")"
	}
	ones := fmt.Sprintf("torch.ones(%s, dtype=%s)", pyInts(append([]int64{xs[1], 1}, op.Kernel...), true), dt)
	gen.assign(fmt.Sprintf("F.conv%dd(%s, %s, stride=%s, dilation=%s, groups=%d).pow(1.0 / %s)%s",
		nsp, pw, ones, pyInts(op.Strides, true), pyInts(op.Dilations, true), xs[1], p, back))
	return nil
}

func writeGlobalLpPool(gen *generator, n *canon.Node) error {
	r := gen.rankOf(n.Inputs[0])
	if r < 3 {
		return gen.fail("input rank is unknown or below 3")
	}
	p := strconv.FormatInt(n.Op.(*canon.GlobalLpPool).P, 10)
	return gen.callNorm("torch.sum(torch.abs(%s).pow("+p+"), dim="+pyInts(seq(2, int64(r)), true)+", keepdim=True).pow(1.0 / "+p+")", 0)
}

func writeMaxUnpool(gen *generator, n *canon.Node) error {
	out, ok := gen.shapeOf(n.Outputs[0])
	if !ok {
		return gen.fail("the output shape is not known before running")
	}
	total := int64(1)
	for _, d := range out {
		total *= d
	}
	return gen.call(fmt.Sprintf("torch.zeros(%d, dtype=%%[1]s.dtype).scatter(0, %%[2]s.flatten(), %%[1]s.flatten()).reshape%s", total, pyInts(out, true)), 0, 1)
}

// maxPoolIndices writes MaxPool's Indices output: torch's indices count
// within each (n, c) plane, ONNX's over the whole input, so the plane
// offsets are added; column-major indices are rebuilt from row and column.
func (gen *generator) maxPoolIndices(op *canon.MaxPool, y string) error {
	xs, ok := gen.shapeOf(gen.node.Inputs[0])
	if !ok {
		return gen.fail("MaxPool's Indices need the input's static shape")
	}
	plane := int64(1)
	for _, d := range xs[2:] {
		plane *= d
	}
	offsets := fmt.Sprintf("torch.arange(%d, dtype=torch.int64).reshape(%s) * %d", xs[0]*xs[1], pyInts(append([]int64{xs[0], xs[1]}, ones(len(xs)-2)...), true), plane)
	local := y + "[1]"
	if op.ColumnMajorIndices {
		if len(xs) != 4 {
			return gen.fail("column-major Indices are written for 2-D pooling only")
		}
		h, w := xs[2], xs[3]
		local = fmt.Sprintf("(%[1]s // %[2]d + %[1]s %% %[2]d * %[3]d)", local, w, h)
	}
	gen.forward = append(gen.forward, gen.out(1)+" = "+local+" + "+offsets)
	return nil
}

func ones(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// writeMaxPoolIndices writes a MaxPool whose Indices output is used:
// F.max_poolNd(return_indices=True), floating-point input, pads torch can
// take (equal at both ends, at most half the kernel), no ceil mode.
func writeMaxPoolIndices(gen *generator, op *canon.MaxPool) error {
	nsp := len(op.Kernel)
	if nsp < 1 || nsp > 3 {
		return gen.fail("%d spatial axes; torch pools 1 to 3", nsp)
	}
	if dt, ok := gen.inDType(0); ok && !dt.IsFloat() {
		return gen.fail("input dtype %s: torch returns pooling indices for floating-point input only", dt)
	}
	if op.CeilMode {
		return gen.fail("ceil mode with the Indices output is not written")
	}
	for i, p := range op.PadsBegin {
		if p != op.PadsEnd[i] || 2*p > op.Kernel[i] {
			return gen.fail("pads %v %v: torch's pooling with indices takes equal pads of at most half the kernel", op.PadsBegin, op.PadsEnd)
		}
	}
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	t := gen.genTemp("pooled", fmt.Sprintf("F.max_pool%dd(%s, kernel_size=%s, stride=%s, padding=%s, dilation=%s, return_indices=True)",
		nsp, x, pyInts(op.Kernel, true), pyInts(op.Strides, true), pyInts(op.PadsBegin, true), pyInts(op.Dilations, true)))
	gen.forward = append(gen.forward, gen.out(0)+" = "+t+"[0]")
	return gen.maxPoolIndices(op, t)
}
