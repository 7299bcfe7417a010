package onnximport

import (
	"encoding/binary"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Swish (opset 24) is x·Sigmoid(alpha·x), read as exactly that: Mul and
// Sigmoid (the inner Mul left out when alpha is 1, which is SiLU).

func init() {
	optable.Add(&ops, map[string]opEntry{
		"Swish": {convSwish, 24, []string{"Mul", "Sigmoid", "Constant"}},
	})
}

func convSwish(c *nodeCtx) error {
	x := c.in(0)
	alpha := c.float("alpha", 1)
	arg := x
	if alpha != 1 {
		dt := c.info(0).DType
		if !dt.IsFloat() {
			return c.errf("input %q is %s; Swish takes floating-point tensors", x, dt)
		}
		k, err := c.emitAux("alpha", &canon.Constant{Value: floatScalar(dt, float64(alpha))})
		if err != nil {
			return err
		}
		if arg, err = c.emitAux("scaled", &canon.Binary{Fn: canon.Mul}, x, k); err != nil {
			return err
		}
	}
	s, err := c.emitAux("sigmoid", &canon.Unary{Fn: canon.Sigmoid}, arg)
	if err != nil {
		return err
	}
	return c.emit(&canon.Binary{Fn: canon.Mul}, []string{x, s}, c.out1())
}

// floatScalar is a rank-0 tensor of float dtype dt holding v, rounded to dt.
func floatScalar(dt canon.DType, v float64) *canon.Tensor {
	switch dt {
	case canon.Float64:
		return &canon.Tensor{DType: dt, Shape: []int64{}, Data: binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))}
	case canon.Float16:
		return &canon.Tensor{DType: dt, Shape: []int64{}, Data: binary.LittleEndian.AppendUint16(nil, canon.Float32ToHalf(float32(v)))}
	case canon.BFloat16:
		return &canon.Tensor{DType: dt, Shape: []int64{}, Data: binary.LittleEndian.AppendUint16(nil, canon.Float32ToBFloat16(float32(v)))}
	}
	return canon.NewFloat32Tensor("", []int64{}, []float32{float32(v)})
}
