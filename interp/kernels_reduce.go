package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of the reduce family: Reduce* (every function), ArgMax/ArgMin,
// TopK and CumSum. Floats accumulate in float64; integers reduce exactly in
// int64 and wrap to their dtype; uint64 compares unsigned.

func init() {
	k := map[string]kernelEntry{
		"ArgMax": computesF64(withOp(runArgReduce)),
		"ArgMin": computesF64(withOp(runArgReduce)),
		"TopK":   computesF64(withOp(runTopK)),
		"CumSum": computesF64(withOp(runCumSum)),
	}
	for _, fn := range canon.ReduceFns() {
		k[fn.String()] = computesF64(withOp(runReduce))
	}
	optable.Add(&kernels, k)
}

// intLess orders int64-stored values of dtype dt (uint64 unsigned).
func intLess(dt canon.DType) func(a, b int64) bool {
	if dt == canon.Uint64 {
		return func(a, b int64) bool { return uint64(a) < uint64(b) }
	}
	return func(a, b int64) bool { return a < b }
}

// intRange is the lowest and highest value of integer dtype dt, as stored.
func intRange(dt canon.DType) (lo, hi int64) {
	switch dt {
	case canon.Bool:
		return 0, 1
	case canon.Int8:
		return math.MinInt8, math.MaxInt8
	case canon.Int16:
		return math.MinInt16, math.MaxInt16
	case canon.Int32:
		return math.MinInt32, math.MaxInt32
	case canon.Uint8:
		return 0, math.MaxUint8
	case canon.Uint16:
		return 0, math.MaxUint16
	case canon.Uint32:
		return 0, math.MaxUint32
	case canon.Uint64:
		return 0, -1 // all ones: the largest uint64
	}
	return math.MinInt64, math.MaxInt64
}

// reducePlan maps every input element to the output element it reduces
// into, for a reduction over the axes marked in reduce.
func reducePlan(shape []int, reduce []bool, keep bool) (out []int, offs []int) {
	r := len(shape)
	ostr := make([]int, r)
	acc := 1
	for i := r - 1; i >= 0; i-- {
		if !reduce[i] {
			ostr[i] = acc
			acc *= shape[i]
		}
	}
	out = reducedShape(shape, reduce, keep)
	n := numel(shape)
	offs = make([]int, n)
	if n == 0 {
		return out, offs
	}
	idx := make([]int, r)
	o := 0
	for e := range offs {
		offs[e] = o
		for k := r - 1; k >= 0; k-- {
			idx[k]++
			o += ostr[k]
			if idx[k] < shape[k] {
				break
			}
			o -= ostr[k] * idx[k]
			idx[k] = 0
		}
	}
	return out, offs
}

// reducedShape is shape without the reduced axes, or with them set to 1
// when keep.
func reducedShape(shape []int, reduce []bool, keep bool) []int {
	out := []int{}
	for i, d := range shape {
		switch {
		case !reduce[i]:
			out = append(out, d)
		case keep:
			out = append(out, 1)
		}
	}
	return out
}

func runReduce(x *exec, op *canon.Reduce) error {
	in := x.in(0)
	axes, err := x.intsParam(1, op.Axes, "axes")
	if err != nil {
		return err
	}
	if len(axes) == 0 && x.in(1) != nil && op.NoopWithEmptyAxes {
		x.set(0, x.copyOf(in))
		return nil
	}
	if in.dt == canon.Bool && op.Fn != canon.ReduceMax && op.Fn != canon.ReduceMin {
		return fmt.Errorf("input is bool; %s needs numbers", op.Fn)
	}
	r := len(in.shape)
	reduce := make([]bool, r)
	for _, a := range axes {
		ax, err := normAxis(a, r)
		if err != nil {
			return err
		}
		if reduce[ax] {
			return fmt.Errorf("axes %v list axis %d twice", axes, ax)
		}
		reduce[ax] = true
	}
	if len(axes) == 0 {
		for i := range reduce {
			reduce[i] = true
		}
	}
	if in.isFloat() && rowReducible(op.Fn) && trailingReduce(reduce) {
		shape := reducedShape(in.shape, reduce, op.KeepDims)
		out := x.newF(shape)
		reduceRows(op.Fn, in.f, out.f, in.size()/max(out.size(), 1))
		x.set(0, out)
		return nil
	}
	shape, offs := reducePlan(in.shape, reduce, op.KeepDims)
	m := numel(shape)
	count := 1
	for i, d := range in.shape {
		if reduce[i] {
			count *= d
		}
	}
	if in.isF64() {
		out := x.newD(shape)
		copy(out.d, reduceFloat(op.Fn, in.d, offs, m, count))
		x.set(0, out)
		return nil
	}
	if in.isFloat() {
		res := reduceFloat(op.Fn, in.f, offs, m, count)
		out := x.newF(shape)
		for i, v := range res {
			out.f[i] = float32(v)
		}
		x.set(0, out)
		return nil
	}
	out := x.newI(in.dt, shape)
	reduceInt(op.Fn, in.dt, in.i, offs, out.i, count)
	x.set(0, out)
	return nil
}

// reduceFloat reduces v into m outputs (offs maps each element to its
// output); count is the number of elements per output.
func reduceFloat[T float32 | float64](fn canon.ReduceFn, v []T, offs []int, m, count int) []float64 {
	acc := make([]float64, m)
	init := 0.0
	switch fn {
	case canon.ReduceProd:
		init = 1
	case canon.ReduceMax, canon.ReduceLogSumExp:
		init = math.Inf(-1)
	case canon.ReduceMin:
		init = math.Inf(1)
	}
	for i := range acc {
		acc[i] = init
	}
	switch fn {
	case canon.ReduceSum, canon.ReduceMean, canon.ReduceLogSum:
		for e, x := range v {
			acc[offs[e]] += float64(x)
		}
	case canon.ReduceProd:
		for e, x := range v {
			acc[offs[e]] *= float64(x)
		}
	case canon.ReduceMax:
		for e, x := range v {
			if f := float64(x); f > acc[offs[e]] || math.IsNaN(f) {
				acc[offs[e]] = f
			}
		}
	case canon.ReduceMin:
		for e, x := range v {
			if f := float64(x); f < acc[offs[e]] || math.IsNaN(f) {
				acc[offs[e]] = f
			}
		}
	case canon.ReduceL1:
		for e, x := range v {
			acc[offs[e]] += math.Abs(float64(x))
		}
	case canon.ReduceL2, canon.ReduceSumSquare:
		for e, x := range v {
			acc[offs[e]] += float64(x) * float64(x)
		}
	case canon.ReduceLogSumExp:
		// Subtract each group's maximum before exponentiating.
		mx := acc
		for e, x := range v {
			if f := float64(x); f > mx[offs[e]] {
				mx[offs[e]] = f
			}
		}
		sum := make([]float64, m)
		for e, x := range v {
			sum[offs[e]] += math.Exp(float64(x) - mx[offs[e]])
		}
		for i := range acc {
			if !math.IsInf(mx[i], 0) {
				acc[i] = mx[i] + math.Log(sum[i])
			}
		}
	}
	for i, a := range acc {
		switch fn {
		case canon.ReduceMean:
			acc[i] = a / float64(count)
		case canon.ReduceL2:
			acc[i] = math.Sqrt(a)
		case canon.ReduceLogSum:
			acc[i] = math.Log(a)
		}
	}
	return acc
}

// reduceInt reduces integer data exactly into out (int64 storage of dtype
// dt): sums and products wrap, L2 and the logs are computed in float64 and
// truncated, Mean divides with truncation.
func reduceInt(fn canon.ReduceFn, dt canon.DType, v []int64, offs []int, out []int64, count int) {
	switch fn {
	case canon.ReduceL2, canon.ReduceLogSum, canon.ReduceLogSumExp:
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = intValue(dt, x)
		}
		for i, a := range reduceFloat(fn, f, offs, len(out), count) {
			if math.IsNaN(a) || math.IsInf(a, 0) {
				a = 0
			}
			out[i] = int64(a)
		}
		wrapInts(dt, out)
		return
	}
	lo, hi := intRange(dt)
	init := int64(0)
	switch fn {
	case canon.ReduceProd:
		init = 1
	case canon.ReduceMax:
		init = lo
	case canon.ReduceMin:
		init = hi
	}
	for i := range out {
		out[i] = init
	}
	less := intLess(dt)
	for e, x := range v {
		o := offs[e]
		switch fn {
		case canon.ReduceSum, canon.ReduceMean:
			out[o] += x
		case canon.ReduceProd:
			out[o] *= x
		case canon.ReduceMax:
			if less(out[o], x) {
				out[o] = x
			}
		case canon.ReduceMin:
			if less(x, out[o]) {
				out[o] = x
			}
		case canon.ReduceL1:
			if x < 0 && dt != canon.Uint64 {
				x = -x
			}
			out[o] += x
		case canon.ReduceSumSquare:
			out[o] += x * x
		}
	}
	if fn == canon.ReduceMean && count > 0 {
		wrapInts(dt, out) // the sum wraps in dt before it is divided
		for i := range out {
			if dt == canon.Uint64 {
				out[i] = int64(uint64(out[i]) / uint64(count))
			} else {
				out[i] /= int64(count)
			}
		}
	}
	wrapInts(dt, out)
}

// axisSplit is (outer, n, inner) of shape around axis a.
func axisSplit(shape []int, a int) (outer, n, inner int) {
	return numel(shape[:a]), shape[a], numel(shape[a+1:])
}

func runArgReduce(x *exec, op *canon.ArgReduce) error {
	in := x.in(0)
	a, err := normAxis(op.Axis, len(in.shape))
	if err != nil {
		return err
	}
	outer, n, inner := axisSplit(in.shape, a)
	if n == 0 {
		return fmt.Errorf("%s over axis %d of size 0 has no entry to select", op.Kind(), a)
	}
	shape := append([]int{}, in.shape...)
	if op.KeepDims {
		shape[a] = 1
	} else {
		shape = append(shape[:a], shape[a+1:]...)
	}
	out := x.newI(canon.Int64, shape)
	// better reports whether value j beats the best so far (ties go to the
	// last index with SelectLastIndex).
	var better func(p, q int) bool
	if in.isFloating() {
		f := in.fl
		better = func(p, q int) bool {
			fp, fq := f(p), f(q)
			if op.Min {
				return fp < fq || (op.SelectLastIndex && fp == fq)
			}
			return fp > fq || (op.SelectLastIndex && fp == fq)
		}
	} else {
		less, v := intLess(in.dt), in.i
		better = func(p, q int) bool {
			if op.Min {
				return less(v[p], v[q]) || (op.SelectLastIndex && v[p] == v[q])
			}
			return less(v[q], v[p]) || (op.SelectLastIndex && v[p] == v[q])
		}
	}
	for o := range outer {
		for i := range inner {
			base := o*n*inner + i
			best := 0
			for j := 1; j < n; j++ {
				if better(base+j*inner, base+best*inner) {
					best = j
				}
			}
			out.i[o*inner+i] = int64(best)
		}
	}
	x.set(0, out)
	return nil
}

func runTopK(x *exec, op *canon.TopK) error {
	in := x.in(0)
	a, err := normAxis(op.Axis, len(in.shape))
	if err != nil {
		return err
	}
	k := op.K
	if t := x.in(1); t != nil {
		if t.isFloating() || t.size() != 1 {
			return fmt.Errorf("k input is %s%v, want one int64 value", t.dt, t.shape)
		}
		k = t.i[0]
	}
	outer, n, inner := axisSplit(in.shape, a)
	if k < 0 || k > int64(n) {
		return fmt.Errorf("k is %d; it must be between 0 and the size %d of axis %d", k, n, a)
	}
	shape := append([]int{}, in.shape...)
	shape[a] = int(k)
	vals := x.newLike(in, shape)
	idx := x.newI(canon.Int64, append([]int{}, shape...))
	kk := int(k)
	switch {
	case in.isFloat():
		topKRows(in.f, vals.f, idx.i, outer, n, inner, kk, op.Largest)
	case in.isF64():
		topKRows(in.d, vals.d, idx.i, outer, n, inner, kk, op.Largest)
	case in.dt == canon.Uint64:
		u := make([]uint64, len(in.i))
		for i, v := range in.i {
			u[i] = uint64(v)
		}
		uv := make([]uint64, len(vals.i))
		topKRows(u, uv, idx.i, outer, n, inner, kk, op.Largest)
		for i, v := range uv {
			vals.i[i] = int64(v)
		}
	default:
		topKRows(in.i, vals.i, idx.i, outer, n, inner, kk, op.Largest)
	}
	x.set(0, vals)
	x.set(1, idx)
	return nil
}

func runCumSum(x *exec, op *canon.CumSum) error {
	in := x.in(0)
	axis := op.Axis
	if t := x.in(1); t != nil {
		if t.isFloating() || t.size() != 1 {
			return fmt.Errorf("axis input is %s%v, want one integer", t.dt, t.shape)
		}
		axis = t.i[0]
	}
	a, err := normAxis(axis, len(in.shape))
	if err != nil {
		return err
	}
	outer, n, inner := axisSplit(in.shape, a)
	out := x.newLike(in, append([]int{}, in.shape...))
	for o := range outer {
		for i := range inner {
			var sf float64
			var si int64
			for s := range n {
				j := s
				if op.Reverse {
					j = n - 1 - s
				}
				p := o*n*inner + j*inner + i
				if in.isFloating() {
					if op.Exclusive {
						out.setFl(p, sf)
						sf += in.fl(p)
					} else {
						sf += in.fl(p)
						out.setFl(p, sf)
					}
					continue
				}
				if op.Exclusive {
					out.i[p] = si
					si += in.i[p]
				} else {
					si += in.i[p]
					out.i[p] = si
				}
			}
		}
	}
	if !in.isFloating() {
		wrapInts(in.dt, out.i)
	}
	x.set(0, out)
	return nil
}
