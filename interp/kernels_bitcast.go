package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The BitCast kernel: each element's bits, taken from its storage at its
// dtype's width, are read back as the target dtype.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"BitCast": movesF64(withOp(runBitCast)),
	})
}

func runBitCast(x *exec, op *canon.BitCast) error {
	in := x.in(0)
	if in.dt.Size() != op.To.Size() || op.To == canon.Bool {
		return fmt.Errorf("BitCast from %s to %s: the target must be numeric and of the input's width", in.dt, op.To)
	}
	var out *tensor
	shape := append([]int{}, in.shape...)
	switch op.To {
	case canon.Float32, canon.Float16, canon.BFloat16:
		out = x.newF(shape)
		out.dt = op.To
	case canon.Float64:
		out = x.newD(shape)
	default:
		out = x.newI(op.To, shape)
	}
	for i := range out.size() {
		b := elementBits(in, i)
		switch op.To {
		case canon.Float32:
			out.f[i] = math.Float32frombits(uint32(b))
		case canon.Float16:
			out.f[i] = canon.HalfToFloat32(uint16(b))
		case canon.BFloat16:
			out.f[i] = math.Float32frombits(uint32(uint16(b)) << 16)
		case canon.Float64:
			out.d[i] = math.Float64frombits(b)
		case canon.Int8:
			out.i[i] = int64(int8(b))
		case canon.Int16:
			out.i[i] = int64(int16(b))
		case canon.Int32:
			out.i[i] = int64(int32(b))
		case canon.Uint8:
			out.i[i] = int64(uint8(b))
		case canon.Uint16:
			out.i[i] = int64(uint16(b))
		case canon.Uint32:
			out.i[i] = int64(uint32(b))
		default: // int64, uint64: the stored bits
			out.i[i] = int64(b)
		}
	}
	x.set(0, out)
	return nil
}

// elementBits is element i of t as the bits its dtype stores, in the low
// bits of the result.
func elementBits(t *tensor, i int) uint64 {
	switch {
	case t.dt == canon.Float32 && t.f != nil:
		return uint64(math.Float32bits(t.f[i]))
	case t.dt == canon.Float16 && t.f != nil:
		return uint64(canon.Float32ToHalf(t.f[i]))
	case t.dt == canon.BFloat16 && t.f != nil:
		return uint64(canon.Float32ToBFloat16(t.f[i]))
	case t.isF64():
		return math.Float64bits(t.d[i])
	}
	return uint64(t.i[i]) // integers, and float64 carried by its bits
}
