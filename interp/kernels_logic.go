package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of the logic family: And/Or/Xor/Not on bools, the bitwise ops
// and BitShift on integers, the variadic Max/Min/Sum/Mean, Mod and Pow.
// Integer results are computed on the int64 storage with canon's
// per-element functions and wrapped to the declared width.

func init() {
	k := map[string]kernelEntry{
		"Not":        computesF64(fixed(runNot)),
		"BitwiseNot": computesF64(fixed(runBitwiseNot)),
		"BitShift":   computesF64(withOp(runBitShift)),
		"Mod":        computesF64(withOp(runMod)),
		"Pow":        computesF64(fixed(runPow)),
	}
	for _, fn := range []canon.LogicFn{canon.LogicAnd, canon.LogicOr, canon.LogicXor} {
		k[fn.String()] = computesF64(withOp(runLogic))
	}
	for _, fn := range []canon.BitwiseFn{canon.BitAnd, canon.BitOr, canon.BitXor} {
		k[fn.String()] = computesF64(withOp(runBitwise))
	}
	for _, fn := range []canon.VariadicFn{canon.VarMax, canon.VarMin, canon.VarSum, canon.VarMean} {
		k[fn.String()] = computesF64(withOp(runVariadic))
	}
	optable.Add(&kernels, k)
}

// inputs returns every input of the step.
func (x *exec) inputs() []*tensor {
	ts := make([]*tensor, len(x.s.in))
	for i := range ts {
		ts[i] = x.in(i)
	}
	return ts
}

// broadcastInputs is the broadcast shape of ts and their shapes.
func broadcastInputs(ts []*tensor) ([]int, [][]int, error) {
	shapes := make([][]int, len(ts))
	out := ts[0].shape
	for i, t := range ts {
		shapes[i] = t.shape
		if i == 0 {
			continue
		}
		s, err := broadcastShape(out, t.shape)
		if err != nil {
			return nil, nil, fmt.Errorf("input %d of shape %v does not broadcast with the others (%v so far)", i, t.shape, out)
		}
		out = s
	}
	return out, shapes, nil
}

// sameStorage fails unless every input has the dtype of the first.
func sameStorage(ts []*tensor) error {
	for i, t := range ts[1:] {
		if t.dt != ts[0].dt {
			return fmt.Errorf("input %d is %s but input 0 is %s; the inputs must have one dtype", i+1, t.dt, ts[0].dt)
		}
	}
	return nil
}

func needBool(ts ...*tensor) error {
	for i, t := range ts {
		if t.dt != canon.Bool {
			return fmt.Errorf("input %d is %s, want bool", i, t.dt)
		}
	}
	return nil
}

func runLogic(x *exec, op *canon.Logic) error {
	a, b := x.in(0), x.in(1)
	if err := needBool(a, b); err != nil {
		return err
	}
	shape, err := broadcastShape(a.shape, b.shape)
	if err != nil {
		return err
	}
	out := x.newI(canon.Bool, shape)
	fn := op.Fn
	bcastWalk(shape, [][]int{a.shape, b.shape}, func(o int, offs []int) {
		out.i[o] = b2i(fn.Apply(a.i[offs[0]] != 0, b.i[offs[1]] != 0))
	})
	x.set(0, out)
	return nil
}

func runNot(x *exec) error {
	in := x.in(0)
	if err := needBool(in); err != nil {
		return err
	}
	out := x.newI(canon.Bool, append([]int{}, in.shape...))
	for i, v := range in.i {
		out.i[i] = b2i(v == 0)
	}
	x.set(0, out)
	return nil
}

func needInts(ts []*tensor, unsigned bool) error {
	if err := sameStorage(ts); err != nil {
		return err
	}
	dt := ts[0].dt
	switch {
	case !dt.IsInt():
		return fmt.Errorf("input is %s, want an integer tensor", dt)
	case unsigned && dt != canon.Uint8 && dt != canon.Uint16 && dt != canon.Uint32 && dt != canon.Uint64:
		return fmt.Errorf("input is %s, want an unsigned integer tensor", dt)
	}
	return nil
}

func runBitwise(x *exec, op *canon.Bitwise) error {
	a, b := x.in(0), x.in(1)
	if err := needInts([]*tensor{a, b}, false); err != nil {
		return err
	}
	shape, err := broadcastShape(a.shape, b.shape)
	if err != nil {
		return err
	}
	out := x.newI(a.dt, shape)
	fn := op.Fn
	bcastWalk(shape, [][]int{a.shape, b.shape}, func(o int, offs []int) {
		out.i[o] = fn.Apply(a.i[offs[0]], b.i[offs[1]])
	})
	x.set(0, out)
	return nil
}

func runBitwiseNot(x *exec) error {
	in := x.in(0)
	if err := needInts([]*tensor{in}, false); err != nil {
		return err
	}
	out := x.newI(in.dt, append([]int{}, in.shape...))
	for i, v := range in.i {
		out.i[i] = ^v
	}
	wrapInts(out.dt, out.i) // unsigned values were zero-extended
	x.set(0, out)
	return nil
}

func runBitShift(x *exec, op *canon.BitShift) error {
	a, b := x.in(0), x.in(1)
	if err := needInts([]*tensor{a, b}, true); err != nil {
		return err
	}
	shape, err := broadcastShape(a.shape, b.shape)
	if err != nil {
		return err
	}
	out := x.newI(a.dt, shape)
	dt, left := a.dt, op.Left
	bcastWalk(shape, [][]int{a.shape, b.shape}, func(o int, offs []int) {
		out.i[o] = canon.ShiftInt(dt, a.i[offs[0]], b.i[offs[1]], left)
	})
	x.set(0, out)
	return nil
}

func runVariadic(x *exec, op *canon.Variadic) error {
	ts := x.inputs()
	if err := sameStorage(ts); err != nil {
		return err
	}
	shape, shapes, err := broadcastInputs(ts)
	if err != nil {
		return err
	}
	fn := op.Fn
	if ts[0].isFloating() {
		out := x.newFloatLike(ts[0], shape)
		n := float64(len(ts))
		bcastWalk(shape, shapes, func(o int, offs []int) {
			r := ts[0].fl(offs[0])
			for k, t := range ts[1:] {
				v := t.fl(offs[k+1])
				switch {
				case fn == canon.VarSum || fn == canon.VarMean:
					r += v
				case r != r:
					// NaN stays.
				case v != v || (fn == canon.VarMax && v > r) || (fn == canon.VarMin && v < r):
					r = v
				}
			}
			if fn == canon.VarMean {
				r /= n
			}
			out.setFl(o, r)
		})
		x.set(0, out)
		return nil
	}
	dt := ts[0].dt
	if dt == canon.Bool || fn == canon.VarMean {
		return fmt.Errorf("%s does not take %s inputs", fn, dt)
	}
	out := x.newI(dt, shape)
	bcastWalk(shape, shapes, func(o int, offs []int) {
		r := ts[0].i[offs[0]]
		for k, t := range ts[1:] {
			v := t.i[offs[k+1]]
			switch {
			case fn == canon.VarSum:
				r += v
			case fn == canon.VarMax && canon.LessInt(dt, r, v), fn == canon.VarMin && canon.LessInt(dt, v, r):
				r = v
			}
		}
		out.i[o] = r
	})
	wrapInts(dt, out.i)
	x.set(0, out)
	return nil
}

func runMod(x *exec, op *canon.Mod) error {
	a, b := x.in(0), x.in(1)
	if err := sameStorage([]*tensor{a, b}); err != nil {
		return err
	}
	shape, err := broadcastShape(a.shape, b.shape)
	if err != nil {
		return err
	}
	walk := [][]int{a.shape, b.shape}
	if a.isFloating() {
		out := x.newFloatLike(a, shape)
		bcastWalk(shape, walk, func(o int, offs []int) {
			out.setFl(o, canon.ModFloat(a.fl(offs[0]), b.fl(offs[1]), op.Fmod))
		})
		x.set(0, out)
		return nil
	}
	if a.dt == canon.Bool {
		return fmt.Errorf("Mod does not take bool inputs")
	}
	for _, v := range b.i {
		if v == 0 {
			return fmt.Errorf("integer remainder by zero: the divisor holds 0")
		}
	}
	out := x.newI(a.dt, shape)
	dt := a.dt
	bcastWalk(shape, walk, func(o int, offs []int) {
		out.i[o] = canon.ModInt(dt, a.i[offs[0]], b.i[offs[1]], op.Fmod)
	})
	x.set(0, out)
	return nil
}

func runPow(x *exec) error {
	a, b := x.in(0), x.in(1)
	if a.dt == canon.Bool || b.dt == canon.Bool {
		return fmt.Errorf("Pow does not take bool inputs")
	}
	shape, err := broadcastShape(a.shape, b.shape)
	if err != nil {
		return err
	}
	walk := [][]int{a.shape, b.shape}
	// exponent reads the exponent as a float64, whatever its storage.
	exponent := b.num
	if square := a.dt == canon.Float32 && numel(b.shape) == 1 && exponent(0) == 2 && numel(shape) == len(a.f); square {
		// x², as LayerNorm's exports square deviations: float32 products
		// are exact in float64, so x·x rounds once, as math.Pow's does.
		out := x.newF(shape)
		parallelFor(len(a.f), 1, func(lo, hi int) {
			for i, v := range a.f[lo:hi] {
				out.f[lo+i] = v * v
			}
		})
		x.set(0, out)
		return nil
	}
	if a.isFloating() {
		out := x.newFloatLike(a, shape)
		bcastWalk(shape, walk, func(o int, offs []int) {
			out.setFl(o, math.Pow(a.fl(offs[0]), exponent(offs[1])))
		})
		x.set(0, out)
		return nil
	}
	out := x.newI(a.dt, shape)
	if b.isFloating() {
		// ONNX Runtime computes in double and casts back to the base's type.
		bcastWalk(shape, walk, func(o int, offs []int) {
			out.i[o] = truncToInt64(math.Pow(intValue(a.dt, a.i[offs[0]]), exponent(offs[1])))
		})
	} else {
		eu := b.dt == canon.Uint64
		bcastWalk(shape, walk, func(o int, offs []int) {
			out.i[o] = canon.PowInt(a.i[offs[0]], b.i[offs[1]], eu)
		})
	}
	wrapInts(a.dt, out.i)
	x.set(0, out)
	return nil
}

// truncToInt64 is v truncated toward zero; NaN gives 0 and values beyond
// int64 the nearest int64 (C leaves both undefined).
func truncToInt64(v float64) int64 {
	switch {
	case v != v:
		return 0
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	return int64(v)
}
