package interp

import (
	"fmt"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of the math family. Floats are computed in float64 and rounded
// to float32 as the activations are; Abs, Neg and Sign on integers are
// exact and wrap at the declared width.

func init() {
	entries := map[string]kernelEntry{
		"IsNaN": computesF64(fixed(runIsNaN)),
		"IsInf": computesF64(withOp(runIsInf)),
	}
	for _, fn := range canon.MathFns() {
		entries[fn.String()] = computesF64(withOp(runMath))
	}
	optable.Add(&kernels, entries)
}

func runMath(x *exec, op *canon.Math) error {
	in := x.in(0)
	if in.isF64() {
		return runFloatMapF64(x, op.Fn.Apply)
	}
	if !in.isFloat() {
		if !op.Fn.Integers() || in.dt == canon.Bool {
			return fmt.Errorf("input is %s, want a floating-point tensor", in.dt)
		}
		out := x.take(0)
		if out == nil {
			out = x.newI(in.dt, in.shape)
		}
		unsigned := in.dt == canon.Uint8 || in.dt == canon.Uint16 || in.dt == canon.Uint32 || in.dt == canon.Uint64
		for i, v := range in.i {
			out.i[i] = op.Fn.ApplyInt(v, unsigned)
		}
		out.dt = in.dt
		wrapInts(out.dt, out.i)
		x.set(0, out)
		return nil
	}
	out := x.take(0)
	if out == nil {
		out = x.newF(in.shape)
	}
	fn := op.Fn
	parallelFor(len(out.f), unaryCost, func(lo, hi int) {
		d, s := out.f[lo:hi], in.f[lo:hi]
		if fn == canon.MathErf {
			vec.Erf(d, s)
			return
		}
		for i := range d {
			d[i] = float32(fn.Apply(float64(s[i])))
		}
	})
	x.set(0, out)
	return nil
}

func runIsNaN(x *exec) error {
	in := x.in(0)
	if err := needFloating(in, "input"); err != nil {
		return err
	}
	out := x.newI(canon.Bool, in.shape)
	for i := range out.i {
		out.i[i] = mathBool(math.IsNaN(in.fl(i)))
	}
	x.set(0, out)
	return nil
}

func runIsInf(x *exec, op *canon.IsInf) error {
	in := x.in(0)
	if err := needFloating(in, "input"); err != nil {
		return err
	}
	out := x.newI(canon.Bool, in.shape)
	for i := range out.i {
		f := in.fl(i)
		out.i[i] = mathBool(op.DetectPositive && math.IsInf(f, 1) || op.DetectNegative && math.IsInf(f, -1))
	}
	x.set(0, out)
	return nil
}

func mathBool(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
