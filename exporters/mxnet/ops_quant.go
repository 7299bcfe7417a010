package mxnetexport

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	const why = "MXNet's quantized ops take run-time min/max ranges and round half away from zero; ONNX's scale, zero point and half-to-even rounding have no MXNet form"
	optable.Add(&writers, map[string]opWriter{
		"DequantizeLinear": {"Cast to float32, broadcast_sub of the zero point and broadcast_mul by the scale (exact: 8- and 16-bit integers are exact in float32); constant float32 scale and zero point", (*exporter).dequantize},
	})
	optable.Add(&lacks, map[string]string{
		"QuantizeLinear":        why,
		"DynamicQuantizeLinear": why,
		"QLinearConv":           why,
		"QLinearMatMul":         why,
		"ConvInteger":           "MXNet's convolution is floating point only and its quantized convolution has no zero points",
		"MatMulInteger":         "MXNet's dot is floating point only and its quantized fully connected op has no zero points",
	})
}

// dequantize writes (float32(x) - float32(zp)) · scale, which is
// DequantizeLinear's float32 arithmetic exactly for 8- and 16-bit x. The
// scale and zero point are stored broadcast to X's rank (blocked ones
// expanded to X's shape).
func (e *exporter) dequantize(n *canon.Node) error {
	op := n.Op.(*canon.DequantizeLinear)
	switch dt := e.g.Values.Get(n.Inputs[0]).DType; dt {
	case canon.Int8, canon.Uint8, canon.Int16, canon.Uint16:
	default:
		return fmt.Errorf("X is %s: only 8- and 16-bit integers convert to float32 exactly", dt)
	}
	xs, ok := e.shape(n.Inputs[0])
	if !ok || len(xs) == 0 {
		return fmt.Errorf("X needs a static shape of rank >= 1 (MXNet params cannot be 0-D)")
	}
	scale := e.consts[n.Inputs[1]]
	if scale == nil || scale.DType != canon.Float32 {
		return fmt.Errorf("the scale must be a float32 constant")
	}
	sv, err := scale.Float64s()
	if err != nil {
		return err
	}
	zv := make([]float64, len(sv))
	if len(n.Inputs) > 2 && n.Inputs[2] != "" {
		zp := e.consts[n.Inputs[2]]
		if zp == nil {
			return fmt.Errorf("the zero point must be a constant")
		}
		if zv, err = zp.Float64s(); err != nil {
			return err
		}
		if len(zv) != len(sv) {
			return fmt.Errorf("zero point has %d values, scale %d", len(zv), len(sv))
		}
	}
	shape, index, err := quantBroadcast(xs, len(sv), scale.Shape, op.Axis, op.BlockSize)
	if err != nil {
		return err
	}
	total := canon.NumElements(shape)
	sf, zf := make([]float32, total), make([]float32, total)
	for i := range sf {
		k := index(i)
		sf[i], zf[i] = float32(sv[k]), float32(zv[k])
	}
	out := n.Outputs[0]
	sref, err := e.param(out+"_scale", canon.NewFloat32Tensor(out+"_scale", shape, sf))
	if err != nil {
		return err
	}
	zref, err := e.param(out+"_zero_point", canon.NewFloat32Tensor(out+"_zero_point", shape, zf))
	if err != nil {
		return err
	}
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	f := ref{e.add("Cast", out+"_float", map[string]string{"dtype": "float32"}, 1, x), 0}
	c := ref{e.add("broadcast_sub", out+"_centered", nil, 1, f, zref), 0}
	return e.finish(out, e.add("broadcast_mul", out, nil, 1, c, sref))
}

// quantBroadcast is the shape a scale of count values takes to broadcast
// against X (xs), and the scale index of each of its elements.
func quantBroadcast(xs []int64, count int, sshape []int64, axis, block int64) ([]int64, func(int) int, error) {
	r := int64(len(xs))
	shape := make([]int64, r)
	for i := range shape {
		shape[i] = 1
	}
	if block == 0 && count == 1 {
		return shape, func(int) int { return 0 }, nil
	}
	a := axis
	if a < 0 {
		a += r
	}
	if a < 0 || a >= r {
		return nil, nil, fmt.Errorf("axis %d is out of range for X of shape %v", axis, xs)
	}
	if block == 0 {
		if int64(count) != xs[a] {
			return nil, nil, fmt.Errorf("scale has %d values, axis %d of X %v has %d", count, a, xs, xs[a])
		}
		shape[a] = xs[a]
		return shape, func(i int) int { return i }, nil
	}
	if len(sshape) != len(xs) {
		return nil, nil, fmt.Errorf("blocked scale of shape %v does not have X's rank", sshape)
	}
	copy(shape, xs)
	d, inner := int(xs[a]), int(canon.NumElements(xs[a+1:]))
	nb := int(sshape[a])
	return shape, func(i int) int {
		o, j, k := i/(d*inner), (i/inner)%d, i%inner
		return (o*nb+j/int(block))*inner + k
	}, nil
}
