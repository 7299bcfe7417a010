package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// layerEmit writes the small expansions of the nn layer handlers: each
// method emits one canonical node in the call's scope.
type layerEmit struct{ c *opCall }

func (e layerEmit) op(op canon.Op, ins ...*tensorVal) (*tensorVal, error) {
	return e.c.b().emit1(e.c.scope, op, ins...)
}

func (e layerEmit) bin(fn canon.BinaryFn, a, b *tensorVal) (*tensorVal, error) {
	return e.op(&canon.Binary{Fn: fn}, a, b)
}

func (e layerEmit) math(fn canon.MathFn, x *tensorVal) (*tensorVal, error) {
	return e.op(&canon.Math{Fn: fn}, x)
}

func (e layerEmit) cmp(fn canon.CompareFn, a, b *tensorVal) (*tensorVal, error) {
	return e.op(&canon.Compare{Fn: fn}, a, b)
}

func (e layerEmit) where(cond, a, b *tensorVal) (*tensorVal, error) {
	return e.op(&canon.Where{}, cond, a, b)
}

// f32 is a float32 scalar constant.
func f32(v float64) *tensorVal {
	return &tensorVal{konst: canon.NewFloat32Tensor("", []int64{}, []float32{float32(v)})}
}

// i64s is an int64 constant of the given shape.
func i64s(shape []int64, v []int64) *tensorVal {
	return &tensorVal{konst: canon.NewInt64Tensor("", shape, v)}
}

// log1p is log(1 + z) to float32 accuracy even where 1 + z rounds to 1:
// with u = 1 + z, log(u)·z/(u − 1) cancels the rounding of u (Goldberg's
// identity); where u − 1 is 0 the answer is z, and for large z (u above
// 2^24, or infinite) log(u) itself is exact to rounding.
func (e layerEmit) log1p(z *tensorVal) (*tensorVal, error) {
	u, err := e.bin(canon.Add, z, f32(1))
	if err != nil {
		return nil, err
	}
	d, err := e.bin(canon.Sub, u, f32(1))
	if err != nil {
		return nil, err
	}
	lu, err := e.math(canon.MathLog, u)
	if err != nil {
		return nil, err
	}
	ratio, err := e.bin(canon.Div, z, d)
	if err != nil {
		return nil, err
	}
	corrected, err := e.bin(canon.Mul, lu, ratio)
	if err != nil {
		return nil, err
	}
	big, err := e.cmp(canon.CmpGreater, u, f32(math.Exp2(24)))
	if err != nil {
		return nil, err
	}
	large, err := e.where(big, lu, corrected)
	if err != nil {
		return nil, err
	}
	tiny, err := e.cmp(canon.CmpEqual, d, f32(0))
	if err != nil {
		return nil, err
	}
	return e.where(tiny, z, large)
}

// layerLog1pKinds are the kinds log1p emits.
var layerLog1pKinds = []string{"Add", "Sub", "Log", "Div", "Mul", "Greater", "Equal", "Where"}

func kindsWith(base []string, more ...string) []string {
	return append(append([]string{}, base...), more...)
}
