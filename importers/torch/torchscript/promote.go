package torchscript

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// dtypeCategory orders dtypes as torch's type promotion does:
// bool < integer < floating point.
func dtypeCategory(dt canon.DType) int {
	switch {
	case dt == canon.Bool:
		return 0
	case dt.IsInt():
		return 1
	}
	return 2
}

// isZeroDimConst reports a constant tensor without dimensions, such as the
// CONSTANTS.cN that torch.jit.trace records for `x * 2`.
func isZeroDimConst(t *tensorVal) bool {
	return t.konst != nil && len(t.konst.Shape) == 0
}

// promoteOperands applies torch's promotion for a tensor combined with a
// number: a Python number or a 0-d tensor whose category is not higher than
// the tensor's does not change the result dtype, so the constant is
// materialized in the tensor's dtype. A higher category would promote the
// tensor itself (int tensor * 0.5), which needs a cast this importer does
// not emit, so it is refused.
func promoteOperands(c *opCall, a, b *tensorVal, aNum, bNum value) (*tensorVal, *tensorVal, error) {
	fix := func(tensor *tensorVal, num value) (*tensorVal, error) {
		target := c.b().info(tensor).DType
		s, ok := scalarOf(num)
		if !ok {
			return nil, c.errf("internal error: %s is not a number", typeName(num))
		}
		numCategory := 1
		if !s.isInt {
			numCategory = 2
		}
		if t, ok := num.(*tensorVal); ok {
			numCategory = dtypeCategory(t.konst.DType)
			if t.konst.DType == target {
				return t, nil
			}
		}
		if numCategory > dtypeCategory(target) {
			return nil, c.errf("a %s tensor combined with the number %v would be promoted to floating point; casting a tensor is not supported by this importer", target, s.f)
		}
		k, err := scalarAs(s.f, target)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		return &tensorVal{konst: k}, nil
	}
	var err error
	switch {
	case a != nil && b == nil:
		b, err = fix(a, bNum)
	case b != nil && a == nil:
		a, err = fix(b, aNum)
	case isZeroDimConst(b) && !isZeroDimConst(a):
		b, err = fix(a, b)
	case isZeroDimConst(a) && !isZeroDimConst(b):
		a, err = fix(b, a)
	}
	return a, b, err
}

// scalarAs encodes v as a rank-0 tensor of dtype dt.
func scalarAs(v float64, dt canon.DType) (*canon.Tensor, error) {
	buf := make([]byte, dt.Size())
	switch dt {
	case canon.Float32:
		binary.LittleEndian.PutUint32(buf, math.Float32bits(float32(v)))
	case canon.Float64:
		binary.LittleEndian.PutUint64(buf, math.Float64bits(v))
	case canon.Float16:
		binary.LittleEndian.PutUint16(buf, canon.Float32ToHalf(float32(v)))
	case canon.BFloat16:
		binary.LittleEndian.PutUint16(buf, canon.Float32ToBFloat16(float32(v)))
	case canon.Int8, canon.Uint8, canon.Bool:
		buf[0] = byte(int64(v))
	case canon.Int16, canon.Uint16:
		binary.LittleEndian.PutUint16(buf, uint16(int64(v)))
	case canon.Int32, canon.Uint32:
		binary.LittleEndian.PutUint32(buf, uint32(int64(v)))
	case canon.Int64, canon.Uint64:
		binary.LittleEndian.PutUint64(buf, uint64(int64(v)))
	default:
		return nil, fmt.Errorf("no scalar constant of dtype %s", dt)
	}
	return &canon.Tensor{DType: dt, Shape: []int64{}, Data: buf}, nil
}
