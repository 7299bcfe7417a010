package interp

import (
	"fmt"
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of the convert family: Cast, Where, Expand, Tile, Size and the
// comparisons. Values keep the interpreter's storage (float32 for float32,
// float16 and bfloat16, float64 for float64, int64 for integers and bool): a
// cast to f16 or bf16 rounds the float32 value to that precision, so later
// ops see what ONNX Runtime would have stored.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"Cast":   computesF64(withOp(runCast)),
		"Where":  movesF64(fixed(runWhere)),
		"Expand": movesF64(withOp(runExpand)),
		"Tile":   movesF64(withOp(runTile)),
		"Size":   movesF64(fixed(runSize)),
	})
	for _, fn := range []canon.CompareFn{canon.CmpEqual, canon.CmpLess, canon.CmpLessOrEqual, canon.CmpGreater, canon.CmpGreaterOrEqual} {
		optable.Add(&kernels, map[string]kernelEntry{fn.String(): computesF64(withOp(runCompare))})
	}
}

// roundFloat rounds v to the precision of float dtype dt.
func roundFloat(dt canon.DType, v float32) float32 {
	switch dt {
	case canon.Float16:
		return canon.HalfToFloat32(canon.Float32ToHalf(v))
	case canon.BFloat16:
		return math.Float32frombits(uint32(canon.Float32ToBFloat16(v)) << 16)
	}
	return v
}

// intValue is integer storage value v of dtype dt as a float64 (u64 values
// are stored with their bit pattern in int64).
func intValue(dt canon.DType, v int64) float64 {
	if dt == canon.Uint64 {
		return float64(uint64(v))
	}
	return float64(v)
}

func runCast(x *exec, op *canon.Cast) error {
	in := x.in(0)
	to := op.To
	rto := to // the precision the result is rounded to
	switch {
	case to == canon.Float64:
		out := x.newD(append([]int{}, in.shape...))
		for i := range out.d {
			out.d[i] = in.num(i)
		}
		x.set(0, out)
	case to.IsFloat() && in.isF64():
		out := x.newF(append([]int{}, in.shape...))
		for i, v := range in.d {
			out.f[i] = roundFloat(rto, float32(v))
		}
		out.dt = to
		x.set(0, out)
	case to.IsFloat():
		out := x.newF(append([]int{}, in.shape...))
		if in.isFloat() {
			for i, v := range in.f {
				out.f[i] = roundFloat(rto, v)
			}
		} else {
			for i, v := range in.i {
				out.f[i] = roundFloat(rto, intToFloat32(in.dt, v))
			}
		}
		out.dt = to
		x.set(0, out)
	case to.IsInt() || to == canon.Bool:
		out := x.newI(to, append([]int{}, in.shape...))
		if in.isFloating() {
			for i := range out.i {
				v := in.fl(i)
				if to == canon.Bool {
					out.i[i] = b2i(v != 0)
				} else {
					out.i[i] = castFloatToInt(to, v)
				}
			}
		} else {
			copy(out.i, in.i)
		}
		wrapInts(to, out.i)
		x.set(0, out)
	default:
		return fmt.Errorf("cannot cast to dtype %s", to)
	}
	return nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// bcastWalk calls f with the output offset and the offset into each input
// for every element of an output of shape out; ins are the input shapes,
// each broadcasting to out.
func bcastWalk(out []int, ins [][]int, f func(o int, offs []int)) {
	r := len(out)
	st := make([][]int, len(ins))
	for k, s := range ins {
		st[k] = make([]int, r)
		acc := 1
		for i := r - 1; i >= 0; i-- {
			j := i - (r - len(s))
			if j >= 0 && s[j] != 1 {
				st[k][i] = acc
				acc *= s[j]
			}
		}
	}
	n := numel(out)
	coord := make([]int, r)
	offs := make([]int, len(ins))
	for o := 0; o < n; o++ {
		f(o, offs)
		for i := r - 1; i >= 0; i-- {
			coord[i]++
			for k := range offs {
				offs[k] += st[k][i]
			}
			if coord[i] < out[i] {
				break
			}
			for k := range offs {
				offs[k] -= st[k][i] * out[i]
			}
			coord[i] = 0
		}
	}
}

func runCompare(x *exec, op *canon.Compare) error {
	a, b := x.in(0), x.in(1)
	if a.dt == canon.String || b.dt == canon.String {
		return compareStrings(x, op, a, b)
	}
	if a.isF64() || b.isF64() {
		if err := bothF64(a, b); err != nil {
			return err
		}
		shape, err := broadcastShape(a.shape, b.shape)
		if err != nil {
			return err
		}
		out := x.newI(canon.Bool, shape)
		bcastWalk(shape, [][]int{a.shape, b.shape}, func(o int, offs []int) {
			out.i[o] = b2i(op.Fn.Holds(a.d[offs[0]], b.d[offs[1]]))
		})
		x.set(0, out)
		return nil
	}
	if a.isFloat() != b.isFloat() || (!a.isFloat() && a.dt != b.dt) {
		return fmt.Errorf("operands have different dtypes %s and %s", a.dt, b.dt)
	}
	shape, err := broadcastShape(a.shape, b.shape)
	if err != nil {
		return err
	}
	out := x.newI(canon.Bool, shape)
	fn := op.Fn
	switch {
	case a.isFloat() && slices.Equal(a.shape, shape) && (slices.Equal(b.shape, shape) || len(b.f) == 1):
		compareF32(fn, out.i, a.f, b.f)
	case a.isFloat():
		bcastWalk(shape, [][]int{a.shape, b.shape}, func(o int, offs []int) {
			out.i[o] = b2i(fn.Holds(float64(a.f[offs[0]]), float64(b.f[offs[1]])))
		})
	case a.dt == canon.Uint64:
		bcastWalk(shape, [][]int{a.shape, b.shape}, func(o int, offs []int) {
			p, q := uint64(a.i[offs[0]]), uint64(b.i[offs[1]])
			// Map unsigned order onto signed order.
			out.i[o] = b2i(fn.HoldsInt(int64(p^1<<63), int64(q^1<<63)))
		})
	default:
		bcastWalk(shape, [][]int{a.shape, b.shape}, func(o int, offs []int) {
			out.i[o] = b2i(fn.HoldsInt(a.i[offs[0]], b.i[offs[1]]))
		})
	}
	x.set(0, out)
	return nil
}

func runWhere(x *exec) error {
	c, a, b := x.in(0), x.in(1), x.in(2)
	if c.dt != canon.Bool {
		return fmt.Errorf("condition is %s, want bool", c.dt)
	}
	if a.isFloat() != b.isFloat() || (!a.isFloat() && a.dt != b.dt) {
		return fmt.Errorf("X and Y have different dtypes %s and %s", a.dt, b.dt)
	}
	s, err := broadcastShape(c.shape, a.shape)
	if err == nil {
		s, err = broadcastShape(s, b.shape)
	}
	if err != nil {
		return fmt.Errorf("condition %v, X %v and Y %v do not broadcast", c.shape, a.shape, b.shape)
	}
	out := x.newLike(a, s)
	if out.isFloat() && slices.Equal(c.shape, s) && slices.Equal(a.shape, s) && slices.Equal(b.shape, s) {
		whereSameShape(out.f, c.i, a.f, b.f)
		x.set(0, out)
		return nil
	}
	bcastWalk(s, [][]int{c.shape, a.shape, b.shape}, func(o int, offs []int) {
		src, k := b, offs[2]
		if c.i[offs[0]] != 0 {
			src, k = a, offs[1]
		}
		if out.isFloat() {
			out.f[o] = src.f[k]
		} else {
			out.i[o] = src.i[k]
		}
	})
	x.set(0, out)
	return nil
}

// compareF32 compares a with b element by element, or with b's one value
// when b is a scalar: nothing to broadcast, so a plain loop, in parallel,
// one per comparison (float32 compares as its exact float64 value does,
// NaN included, so the results are fn.Holds's).
func compareF32(fn canon.CompareFn, out []int64, a, b []float32) {
	step := 1 // b's stride: 0 for a scalar
	if len(b) == 1 {
		step = 0
	}
	parallelFor(len(out), 4, func(lo, hi int) {
		o, x := out[lo:hi], a[lo:hi]
		q := func(i int) float32 { return b[(lo+i)*step] }
		switch fn {
		case canon.CmpEqual:
			for i, v := range x {
				o[i] = b2i(v == q(i))
			}
		case canon.CmpLess:
			for i, v := range x {
				o[i] = b2i(v < q(i))
			}
		case canon.CmpLessOrEqual:
			for i, v := range x {
				o[i] = b2i(v <= q(i))
			}
		case canon.CmpGreater:
			for i, v := range x {
				o[i] = b2i(v > q(i))
			}
		case canon.CmpGreaterOrEqual:
			for i, v := range x {
				o[i] = b2i(v >= q(i))
			}
		default:
			for i, v := range x {
				o[i] = b2i(fn.Holds(float64(v), float64(q(i))))
			}
		}
	})
}

// whereSameShape is Where on float32 operands of one shape (nothing to
// broadcast): a select per element, in parallel, by bit masks rather than
// a branch (a condition from data mispredicts every other element).
func whereSameShape(out []float32, c []int64, a, b []float32) {
	parallelFor(len(out), 2, func(lo, hi int) { selectBits(out[lo:hi], c[lo:hi], a[lo:hi], b[lo:hi]) })
}

// broadcastCopy writes in, broadcast to shape, into a new tensor.
func (x *exec) broadcastCopy(in *tensor, shape []int) *tensor {
	out := x.newLike(in, shape)
	bcastWalk(shape, [][]int{in.shape}, func(o int, offs []int) {
		if out.isFloat() {
			out.f[o] = in.f[offs[0]]
		} else {
			out.i[o] = in.i[offs[0]]
		}
	})
	return out
}

func runExpand(x *exec, op *canon.Expand) error {
	in := x.in(0)
	target, err := x.intsParam(1, op.Shape, "shape")
	if err != nil {
		return err
	}
	ts := make([]int, len(target))
	for i, d := range target {
		if d < 0 || d > math.MaxInt32 {
			return fmt.Errorf("shape %v has size %d; sizes must be between 0 and %d", target, d, math.MaxInt32)
		}
		ts[i] = int(d)
	}
	shape, err := broadcastShape(in.shape, ts)
	if err != nil {
		return fmt.Errorf("input of shape %v cannot be expanded to %v", in.shape, target)
	}
	x.set(0, x.broadcastCopy(in, shape))
	return nil
}

func runTile(x *exec, op *canon.Tile) error {
	in := x.in(0)
	reps, err := x.intsParam(1, op.Repeats, "repeats")
	if err != nil {
		return err
	}
	r := len(in.shape)
	if len(reps) != r {
		return fmt.Errorf("repeats %v have %d entries, the input has rank %d (shape %v)", reps, len(reps), r, in.shape)
	}
	shape := make([]int, r)
	for i, k := range reps {
		if k < 0 || k > math.MaxInt32 {
			return fmt.Errorf("repeats %v: %d must be between 0 and %d", reps, k, math.MaxInt32)
		}
		shape[i] = in.shape[i] * int(k)
	}
	out := x.newLike(in, shape)
	n := numel(shape)
	if n == 0 {
		x.set(0, out)
		return nil
	}
	ist := elemStrides(in.shape)
	coord := make([]int, r)
	src := 0 // offset in the input of the current output coordinate
	for o := 0; o < n; o++ {
		if out.isFloat() {
			out.f[o] = in.f[src]
		} else {
			out.i[o] = in.i[src]
		}
		for i := r - 1; i >= 0; i-- {
			coord[i]++
			// Input coordinate is coord mod the input size: wrap at each
			// input-sized block.
			if coord[i]%in.shape[i] == 0 {
				src -= (in.shape[i] - 1) * ist[i]
			} else {
				src += ist[i]
			}
			if coord[i] < shape[i] {
				break
			}
			coord[i] = 0
		}
	}
	x.set(0, out)
	return nil
}

func runSize(x *exec) error {
	out := x.newI(canon.Int64, []int{})
	out.i[0] = int64(numel(x.in(0).shape))
	x.set(0, out)
	return nil
}
