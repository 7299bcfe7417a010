package torchexport

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The quantized ops as explicit arithmetic with ONNX Runtime's numerics:
// divisions and requantization multipliers in float32, torch.round (half
// to even), saturation by torch.clamp. Integer products are exact: matrix
// products in int64, convolutions in float64 (every partial sum is an
// integer far below 2^53). torch.quantize_per_tensor is not used: its
// vectorized kernel multiplies by 1/scale, which rounds differently.

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"QuantizeLinear": {write: writeQuantizeLinear, constParams: true,
			detail: "torch.clamp(torch.round(x / scale) + zero_point, lo, hi) in float32; no uint16 (PyTorch 1.13 has no such dtype)"},
		"DequantizeLinear": {write: writeDequantizeLinear, constParams: true,
			detail: "(x.int() - zero_point.int()).float() * scale"},
		"DynamicQuantizeLinear": {write: writeDynamicQuantizeLinear,
			detail: "range, scale and zero point in float32 as ONNX Runtime computes them, then QuantizeLinear's formula"},
		"QLinearConv": {write: writeQLinearConv, constParams: true,
			detail: "F.conv in float64 on (x - x_zero_point) and (w - w_zero_point), exact, then requantized in float32"},
		"ConvInteger": {write: writeConvInteger, constParams: true,
			detail: "F.conv in float64 on (x - x_zero_point) and (w - w_zero_point), exact, cast to int32"},
		"MatMulInteger": {write: writeMatMulInteger, constParams: true,
			detail: "torch.matmul in int64 on (a - a_zero_point) and (b - b_zero_point), cast to int32"},
		"QLinearMatMul": {write: writeQLinearMatMul, constParams: true,
			detail: "torch.matmul in int64, then requantized in float32"},
	})
}

// quantIn is input i's expression, or "" when the optional input is absent.
func (gen *generator) quantIn(i int) (string, error) {
	if i >= len(gen.node.Inputs) || gen.node.Inputs[i] == "" {
		return "", nil
	}
	return gen.in(i)
}

// isPerTensor reports whether input i is a scalar or holds one element.
func (gen *generator) isPerTensor(i int) bool {
	s, ok := gen.shapeOf(gen.node.Inputs[i])
	return ok && canon.NumElements(s) == 1
}

// quantParam shapes a scale or zero point expression e (input i) to
// broadcast against X for per-tensor, per-axis or blocked quantization.
func (gen *generator) quantParam(e string, i int, axis, block int64) (string, error) {
	if block == 0 && gen.isPerTensor(i) {
		return e + ".reshape(())", nil
	}
	xs, ok := gen.shapeOf(gen.node.Inputs[0])
	if !ok {
		return "", gen.fail("per-axis or blocked quantization needs the static shape of X")
	}
	a := normAxis(axis, len(xs))
	if a < 0 || a >= len(xs) {
		return "", gen.fail("axis %d is out of range for X of shape %v", axis, xs)
	}
	if block > 0 {
		return fmt.Sprintf("%s.repeat_interleave(%d, dim=%d).narrow(%d, 0, %d)", e, block, a, a, xs[a]), nil
	}
	shape := make([]int64, len(xs))
	for k := range shape {
		shape[k] = 1
	}
	shape[a] = -1
	return e + ".reshape(" + pyInts(shape, true) + ")", nil
}

func torchDType(gen *generator, dt canon.DType) (string, error) {
	if s, ok := torchDTypes[dt]; ok {
		return s, nil
	}
	return "", gen.fail("PyTorch 1.13 has no %s dtype", dt)
}

// saturate is the expression clamping float expression e to dt's range and
// casting to dt.
func saturate(e string, dt canon.DType, torchDT string) string {
	lo, hi := canon.QuantRange(dt)
	return fmt.Sprintf("torch.clamp(%s, %d, %d).to(%s)", e, lo, hi, torchDT)
}

func writeQuantizeLinear(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.QuantizeLinear)
	out := gen.g.Values.Get(n.Outputs[0]).DType
	tdt, err := torchDType(gen, out)
	if err != nil {
		return err
	}
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	s, err := gen.in(1)
	if err != nil {
		return err
	}
	if s, err = gen.quantParam(s+".float()", 1, op.Axis, op.BlockSize); err != nil {
		return err
	}
	e := "torch.round(" + x + ".float() / " + s + ")"
	z, err := gen.quantIn(2)
	if err != nil {
		return err
	}
	if z != "" {
		if z, err = gen.quantParam(z+".float()", 2, op.Axis, op.BlockSize); err != nil {
			return err
		}
		e += " + " + z
	}
	gen.assign(saturate(e, out, tdt))
	return nil
}

func writeDequantizeLinear(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.DequantizeLinear)
	out := gen.g.Values.Get(n.Outputs[0]).DType
	tdt, err := torchDType(gen, out)
	if err != nil {
		return err
	}
	if dt, _ := gen.inDType(0); dt == canon.Uint16 {
		return gen.fail("PyTorch 1.13 has no uint16 dtype")
	}
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	s, err := gen.in(1)
	if err != nil {
		return err
	}
	if s, err = gen.quantParam(s+".float()", 1, op.Axis, op.BlockSize); err != nil {
		return err
	}
	d := x + ".int()"
	z, err := gen.quantIn(2)
	if err != nil {
		return err
	}
	if z != "" {
		if z, err = gen.quantParam(z+".int()", 2, op.Axis, op.BlockSize); err != nil {
			return err
		}
		d = "(" + d + " - " + z + ")"
	}
	e := d + ".float() * " + s
	if out != canon.Float32 {
		e = "(" + e + ").to(" + tdt + ")"
	}
	gen.assign(e)
	return nil
}

func writeDynamicQuantizeLinear(gen *generator, n *canon.Node) error {
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	lo := gen.genTemp("lo", "torch.clamp("+x+".min(), max=0.0)")
	hi := gen.genTemp("hi", "torch.clamp("+x+".max(), min=0.0)")
	scale := gen.genTemp("scale", fmt.Sprintf("torch.where(%s == %s, torch.ones_like(%s), (%s - %s) / 255)", hi, lo, hi, hi, lo))
	zp := gen.genTemp("zp", fmt.Sprintf("torch.round(torch.clamp(0.0 - %s / %s, 0, 255))", lo, scale))
	gen.assign(saturate(fmt.Sprintf("torch.round(%s / %s) + %s", x, scale, zp), canon.Uint8, "torch.uint8"))
	if len(n.Outputs) > 1 && n.Outputs[1] != "" {
		gen.forward = append(gen.forward, gen.out(1)+" = "+scale)
	}
	if len(n.Outputs) > 2 && n.Outputs[2] != "" {
		gen.forward = append(gen.forward, gen.out(2)+" = "+zp+".to(torch.uint8)")
	}
	return nil
}

// alongChannels shapes a per-output-channel expression for an output of rank r
// (axis 1).
func alongChannels(e string, r int) string {
	shape := make([]int64, r)
	for k := range shape {
		shape[k] = 1
	}
	shape[1] = -1
	return e + ".reshape(" + pyInts(shape, true) + ")"
}

// intConvExpr is the exact convolution of (x - xzp) and (w - wzp) as a
// float64 expression (wzp per tensor or per output channel).
func (gen *generator) intConvExpr(op *canon.Conv, xi, xzi, wi, wzi int) (string, error) {
	nsp := len(op.Strides)
	if nsp < 1 || nsp > 3 {
		return "", gen.fail("F.conv%dd does not exist", nsp)
	}
	x, err := gen.in(xi)
	if err != nil {
		return "", err
	}
	w, err := gen.in(wi)
	if err != nil {
		return "", err
	}
	xd, wd := x+".double()", w+".double()"
	if z, err := gen.quantIn(xzi); err != nil {
		return "", err
	} else if z != "" {
		xd = "(" + xd + " - " + z + ".double().reshape(()))"
	}
	if z, err := gen.quantIn(wzi); err != nil {
		return "", err
	} else if z != "" {
		zs := z + ".double().reshape(())"
		if !gen.isPerTensor(wzi) {
			zs = z + ".double().reshape(" + pyInts(append([]int64{-1}, fill64(nsp+1, 1)...), true) + ")"
		}
		wd = "(" + wd + " - " + zs + ")"
	}
	padding := pyInts(op.PadsBegin, true)
	if !samePads(op.PadsBegin, op.PadsEnd) {
		xd = "F.pad(" + xd + ", " + fpad(op.PadsBegin, op.PadsEnd) + ")"
		padding = "0"
	}
	return fmt.Sprintf("F.conv%dd(%s, %s, None, %s, %s, %s, %d)", nsp, xd, wd,
		pyInts(op.Strides, true), padding, pyInts(op.Dilations, true), op.Group), nil
}

func fill64(n int, v int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func writeConvInteger(gen *generator, n *canon.Node) error {
	e, err := gen.intConvExpr(n.Op.(*canon.ConvInteger).Conv(), 0, 2, 1, 3)
	if err != nil {
		return err
	}
	gen.assign(e + ".long().int()")
	return nil
}

// requantExpr is saturate(round(float32(acc) · mult) + yzp) with acc an
// int32 expression and mult a float32 one.
func (gen *generator) requantExpr(acc, mult string, yzi int) (string, error) {
	out := gen.g.Values.Get(gen.node.Outputs[0]).DType
	tdt, err := torchDType(gen, out)
	if err != nil {
		return "", err
	}
	z, err := gen.in(yzi)
	if err != nil {
		return "", err
	}
	return saturate("torch.round("+acc+".float() * "+mult+") + "+z+".float().reshape(())", out, tdt), nil
}

func writeQLinearConv(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.QLinearConv)
	e, err := gen.intConvExpr(op.Conv(), 0, 2, 3, 5)
	if err != nil {
		return err
	}
	r := len(op.Strides) + 2
	acc := e + ".long()"
	if b, err := gen.quantIn(8); err != nil {
		return err
	} else if b != "" {
		acc = "(" + acc + " + " + alongChannels(b+".long()", r) + ")"
	}
	acc = gen.genTemp("acc", acc+".int()")
	xs, err := gen.in(1)
	if err != nil {
		return err
	}
	ws, err := gen.in(4)
	if err != nil {
		return err
	}
	ys, err := gen.in(6)
	if err != nil {
		return err
	}
	wsE := ws + ".float().reshape(())"
	if !gen.isPerTensor(4) {
		wsE = alongChannels(ws+".float()", r)
	}
	mult := gen.genTemp("mult", xs+".float().reshape(()) * "+wsE+" / "+ys+".float().reshape(())")
	y, err := gen.requantExpr(acc, mult, 7)
	if err != nil {
		return err
	}
	gen.assign(y)
	return nil
}

// intMatMulExpr is the exact int64 product of (a - azp) and (b - bzp): A's
// zero point per tensor or per row, B's per tensor or per column.
func (gen *generator) intMatMulExpr(ai, azi, bi, bzi int) (string, error) {
	a, err := gen.in(ai)
	if err != nil {
		return "", err
	}
	b, err := gen.in(bi)
	if err != nil {
		return "", err
	}
	al, bl := a+".long()", b+".long()"
	if z, err := gen.quantIn(azi); err != nil {
		return "", err
	} else if z != "" {
		zs := z + ".long().reshape(())"
		if !gen.isPerTensor(azi) {
			zs = z + ".long().reshape(-1, 1)"
		}
		al = "(" + al + " - " + zs + ")"
	}
	if z, err := gen.quantIn(bzi); err != nil {
		return "", err
	} else if z != "" {
		zs := z + ".long().reshape(())"
		if !gen.isPerTensor(bzi) {
			zs = z + ".long().reshape(-1)"
		}
		bl = "(" + bl + " - " + zs + ")"
	}
	return "torch.matmul(" + al + ", " + bl + ")", nil
}

func writeMatMulInteger(gen *generator, n *canon.Node) error {
	e, err := gen.intMatMulExpr(0, 2, 1, 3)
	if err != nil {
		return err
	}
	gen.assign(e + ".int()")
	return nil
}

func writeQLinearMatMul(gen *generator, n *canon.Node) error {
	e, err := gen.intMatMulExpr(0, 2, 3, 5)
	if err != nil {
		return err
	}
	acc := gen.genTemp("acc", e+".int()")
	as, err := gen.in(1)
	if err != nil {
		return err
	}
	bs, err := gen.in(4)
	if err != nil {
		return err
	}
	ys, err := gen.in(6)
	if err != nil {
		return err
	}
	asE, bsE := as+".float().reshape(())", bs+".float().reshape(())"
	if !gen.isPerTensor(1) {
		asE = as + ".float().reshape(-1, 1)"
	}
	if !gen.isPerTensor(4) {
		bsE = bs + ".float().reshape(-1)"
	}
	mult := gen.genTemp("mult", asE+" * "+bsE+" / "+ys+".float().reshape(())")
	y, err := gen.requantExpr(acc, mult, 7)
	if err != nil {
		return err
	}
	gen.assign(y)
	return nil
}
