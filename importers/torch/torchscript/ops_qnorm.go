package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// quantized::batch_norm1d/2d/3d (nnq.BatchNorm2d, a BatchNorm not fused
// into a conv). PyTorch folds the statistics per channel in float32:
//
//	inv   = 1/sqrt(var + eps)
//	alpha = inv·weight·(in_scale/out_scale)
//	beta  = (bias - mean·inv·weight)·(1/out_scale)
//	y     = clamp(nearbyint((q - in_zp)·alpha + beta) + out_zp, 0, 255)
//
// which is Cast, Sub, Mul, Add, Round, Add, Clip and Cast with alpha and
// beta folded at import in the same float32 order.
func init() {
	k := []string{"Cast", "Sub", "Mul", "Add", "Round", "Clip"}
	optable.Add(&opTable, map[string]opEntry{
		"ops.quantized.batch_norm":   entry(opQuantizedBatchNorm(0), k...),
		"ops.quantized.batch_norm1d": entry(opQuantizedBatchNorm(1), k...),
		"ops.quantized.batch_norm2d": entry(opQuantizedBatchNorm(2), k...),
		"ops.quantized.batch_norm3d": entry(opQuantizedBatchNorm(3), k...),
	})
}

// constVector reads a 1-D float tensor known at import without making it
// a graph weight; nil for None.
func constVector(c *opCall, i int) ([]float64, error) {
	if c.isNone(i) {
		return nil, nil
	}
	t, err := c.tensor(i)
	if err != nil {
		return nil, err
	}
	k := t.konst
	if t.ref != nil {
		if k, err = t.ref.load(c.b().a, t.path); err != nil {
			return nil, err
		}
	}
	if k == nil || len(k.Shape) != 1 || !k.DType.IsFloat() {
		return nil, c.errf("argument %s must be a 1-D float tensor known at import (a module's weight or buffer)", c.params[i])
	}
	return k.Float64s()
}

func opQuantizedBatchNorm(dims int) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("qx", "weight", "bias", "mean", "var", "eps", "output_scale", "output_zero_point"); err != nil {
			return nil, err
		}
		q, err := quantizedUint8(c, 0)
		if err != nil {
			return nil, err
		}
		var vec [4][]float64
		for i := range vec {
			if vec[i], err = constVector(c, 1+i); err != nil {
				return nil, err
			}
		}
		weight, bias, mean, variance := vec[0], vec[1], vec[2], vec[3]
		eps, err := c.float(5)
		if err != nil {
			return nil, err
		}
		so, zo, err := outputQParams(c, 6)
		if err != nil {
			return nil, err
		}
		shape, err := c.shapeOf(q.ints, "the input")
		if err != nil {
			return nil, err
		}
		if len(shape) < 2 || dims > 0 && len(shape) != dims+2 && !(dims == 1 && len(shape) == 2) {
			return nil, c.errf("input has rank %d, not a batch of channels for a %d-D batch norm", len(shape), dims)
		}
		n := shape[1]
		if int64(len(mean)) != n || int64(len(variance)) != n || weight != nil && int64(len(weight)) != n || bias != nil && int64(len(bias)) != n {
			return nil, c.errf("statistics have %d and %d entries for %d channels", len(mean), len(variance), n)
		}
		alpha, beta := make([]float32, n), make([]float32, n)
		ratio, invOut := q.scale/so, 1/so
		for i := int64(0); i < n; i++ {
			w, bb := float32(1), float32(0)
			if weight != nil {
				w = float32(weight[i])
			}
			if bias != nil {
				bb = float32(bias[i])
			}
			inv := 1 / float32(math.Sqrt(float64(float32(variance[i])+float32(eps))))
			alpha[i] = inv * w * ratio
			beta[i] = (bb - float32(mean[i])*inv*w) * invOut
		}
		cshape := []int64{n}
		for range shape[2:] {
			cshape = append(cshape, 1)
		}
		kc := func(v []float32) *tensorVal { return &tensorVal{konst: canon.NewFloat32Tensor("", cshape, v)} }
		b := c.b()
		v, err := b.emit1(c.scope, &canon.Cast{To: canon.Float32}, q.ints)
		if err != nil {
			return nil, err
		}
		if v, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Sub}, v, scalarF32(float32(q.zeroPoint))); err != nil {
			return nil, err
		}
		if v, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, v, kc(alpha)); err != nil {
			return nil, err
		}
		if v, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, v, kc(beta)); err != nil {
			return nil, err
		}
		if v, err = b.emit1(c.scope, &canon.Math{Fn: canon.MathRound}, v); err != nil {
			return nil, err
		}
		if v, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, v, scalarF32(float32(zo))); err != nil {
			return nil, err
		}
		if v, err = b.emit1(c.scope, &canon.Clip{Min: 0, Max: 255}, v); err != nil {
			return nil, err
		}
		ints, err := b.emit1(c.scope, &canon.Cast{To: canon.Uint8}, v)
		if err != nil {
			return nil, err
		}
		return &quantizedVal{ints: ints, scale: so, zeroPoint: zo}, nil
	}
}
