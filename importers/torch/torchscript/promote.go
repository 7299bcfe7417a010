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
// number: a Python number or a 0-d constant (traced code keeps numbers as
// such constants, and torch still promotes them as numbers) whose category
// is not higher than the tensor's does not change the result dtype, so the
// constant is materialized in the tensor's dtype. A higher category
// promotes the tensor: to float32 (torch's default dtype) for a float
// number, to int64 for an int number with a bool tensor. Two dimensioned
// tensors of different dtypes meet in the higher category, or the wider
// type of one category.
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
				// A copy: emitting names the value in place, and traced
				// code shares one CONSTANTS entry between calls.
				return &tensorVal{konst: t.konst}, nil
			}
		}
		if numCategory > dtypeCategory(target) && target != canon.Undefined {
			target = canon.Int64
			if numCategory == 2 {
				target = canon.Float32
			}
		}
		k, err := scalarAs(s.f, target)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		return &tensorVal{konst: k}, nil
	}
	var err error
	// The number, materialized, has the result's dtype; the tensor is
	// cast to it.
	switch {
	case a != nil && b == nil:
		if b, err = fix(a, bNum); err == nil {
			a, err = castTo(c, a, c.b().info(b).DType)
		}
	case b != nil && a == nil:
		if a, err = fix(b, aNum); err == nil {
			b, err = castTo(c, b, c.b().info(a).DType)
		}
	case isZeroDimConst(b) && !isZeroDimConst(a):
		if b, err = fix(a, b); err == nil {
			a, err = castTo(c, a, c.b().info(b).DType)
		}
	case isZeroDimConst(a) && !isZeroDimConst(b):
		if a, err = fix(b, a); err == nil {
			b, err = castTo(c, b, c.b().info(a).DType)
		}
	default:
		return promoteTensors(c, a, b)
	}
	return a, b, err
}

// castTo casts t to dt unless it has that dtype (or dt is unknown).
func castTo(c *opCall, t *tensorVal, dt canon.DType) (*tensorVal, error) {
	if have := c.b().info(t).DType; have == dt || have == canon.Undefined || dt == canon.Undefined {
		return t, nil
	}
	return c.b().emit1(c.scope, &canon.Cast{To: dt}, t)
}

// promoteTensors casts one of two tensors of different dtypes so both have
// torch's result dtype: the higher category wins; within one, the wider
// type (float16 with bfloat16 meet in float32, a signed and an unsigned
// integer of one width in the next wider signed type).
func promoteTensors(c *opCall, a, b *tensorVal) (*tensorVal, *tensorVal, error) {
	da, db := c.b().info(a).DType, c.b().info(b).DType
	if da == db || da == canon.Undefined || db == canon.Undefined {
		return a, b, nil
	}
	var to canon.DType
	ca, cb := dtypeCategory(da), dtypeCategory(db)
	switch {
	case ca > cb:
		to = da
	case cb > ca:
		to = db
	case da.Size() > db.Size() && (ca == 2 || isSigned(da) || !isSigned(db)):
		to = da
	case db.Size() > da.Size() && (ca == 2 || isSigned(db) || !isSigned(da)):
		to = db
	case ca == 2:
		to = canon.Float32
	case da.Size() < 8:
		to = map[int]canon.DType{1: canon.Int16, 2: canon.Int32, 4: canon.Int64}[da.Size()]
	default:
		return nil, nil, c.errf("operands are %s and %s, which torch does not combine", da, db)
	}
	var err error
	if a, err = castTo(c, a, to); err != nil {
		return nil, nil, err
	}
	if b, err = castTo(c, b, to); err != nil {
		return nil, nil, err
	}
	return a, b, nil
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
