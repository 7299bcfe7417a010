package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
)

// shiftSigned shifts a signed integer tensor by a constant number of
// bits as torch does: left is a wrapping multiplication by 2^s (0 once s
// reaches the width), right is arithmetic, floor(a / 2^s) computed
// exactly as (a - a mod 2^s) / 2^s, and -1 or 0 by the sign once s
// reaches the width less one.
func shiftSigned(c *opCall, a, s *tensorVal, left bool) (value, error) {
	dt := c.b().info(a).DType
	if s.konst == nil || s.konst.NumElements() != 1 {
		return shiftSignedByTensor(c, a, s, left)
	}
	by, ok := scalarInt64(s.konst)
	if !ok {
		return nil, c.errf("the shift amount must be an integer")
	}
	if by < 0 {
		return nil, c.errf("a negative shift amount (%d) is not defined", by)
	}
	e := newExpansion(c)
	bits := int64(dt.Size() * 8)
	if left {
		if by >= bits {
			return e.result(e.mul(a, e.num(0, a)))
		}
		// 2^s as the dtype's bit pattern: 1<<63 wraps to MinInt64, which
		// multiplies as 2^63 does modulo 2^64.
		return e.result(e.mul(a, &tensorVal{konst: intConstBits(dt, int64(1)<<uint(by))}))
	}
	if by >= bits-1 {
		neg := e.cmp(canon.CmpLess, a, e.num(0, a))
		return e.result(e.where(neg, e.num(-1, a), e.num(0, a)))
	}
	p := &tensorVal{konst: intConstBits(dt, int64(1)<<uint(by))}
	r := e.op(&canon.Mod{}, a, p)
	return e.result(e.div(e.sub(a, r), p))
}

// shiftSignedByTensor shifts by amounts computed at run time: the power
// of two is taken of the amount clamped to [0, width-2] (which fits the
// dtype), a shift by width-1 doubles once more, and amounts out of range
// give what torch gives: 0 for left shifts, the sign fill for right ones.
func shiftSignedByTensor(c *opCall, a, s *tensorVal, left bool) (value, error) {
	e := newExpansion(c)
	dt := e.dtype(a)
	bits := float64(dt.Size() * 8)
	zero := e.num(0, a)
	clamped := e.min(e.max(s, zero), e.num(bits-2, s))
	p := e.op(&canon.Pow{}, e.num(2, a), clamped)
	outOfRange := e.or(e.cmp(canon.CmpLess, s, zero), e.cmp(canon.CmpGreaterOrEqual, s, e.num(bits, s)))
	if left {
		r := e.mul(a, p)
		r = e.mul(r, e.where(e.cmp(canon.CmpEqual, s, e.num(bits-1, s)), e.num(2, a), e.num(1, a)))
		return e.result(e.where(outOfRange, zero, r))
	}
	q := e.div(e.sub(a, e.op(&canon.Mod{}, a, p)), p)
	fill := e.where(e.cmp(canon.CmpLess, a, zero), e.num(-1, a), zero)
	wide := e.or(outOfRange, e.cmp(canon.CmpEqual, s, e.num(bits-1, s)))
	return e.result(e.where(wide, fill, q))
}

// intConstBits is a rank-0 integer constant of dtype dt holding v's low bits.
func intConstBits(dt canon.DType, v int64) *canon.Tensor {
	k, _ := scalarAs(0, dt)
	for i := range k.Data {
		k.Data[i] = byte(uint64(v) >> (8 * uint(i)))
	}
	return k
}
