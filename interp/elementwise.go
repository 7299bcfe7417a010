package interp

import (
	"fmt"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// binFn is the interpreter's own code for a binary kernel; the kernels
// table maps canon's kinds to it.
type binFn uint8

const (
	binAdd binFn = iota
	binSub
	binMul
	binDiv
	// binPRelu is a >= 0 ? a : a*b, with b (the slope) broadcast to a.
	binPRelu
)

// broadcastShape applies NumPy's rules.
func broadcastShape(a, b []int) ([]int, error) {
	r := max(len(a), len(b))
	out := make([]int, r)
	for i := range r {
		da, db := 1, 1
		if j := i - (r - len(a)); j >= 0 {
			da = a[j]
		}
		if j := i - (r - len(b)); j >= 0 {
			db = b[j]
		}
		switch {
		case da == db || db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			return nil, fmt.Errorf("shapes %v and %v do not broadcast", a, b)
		}
	}
	return out, nil
}

// bcastPlan walks an output of shape out row by row, giving the offsets of
// the matching elements of operands a and b. Adjacent axes that broadcast
// the same way are merged so rows are as long as possible.
type bcastPlan struct {
	dims   []int // merged output dims; the last is the row length
	sa, sb []int // strides (0 on broadcast axes)
}

func newBcast(out, a, b []int) bcastPlan {
	r := len(out)
	strides := func(s []int) []int {
		st := make([]int, r)
		acc := 1
		for i := r - 1; i >= 0; i-- {
			j := i - (r - len(s))
			if j >= 0 && s[j] != 1 {
				st[i] = acc
				acc *= s[j]
			}
		}
		return st
	}
	sa, sb := strides(a), strides(b)
	p := bcastPlan{}
	for i := range r {
		if out[i] == 1 {
			continue
		}
		if n := len(p.dims); n > 0 && p.sa[n-1] == sa[i]*out[i] && p.sb[n-1] == sb[i]*out[i] {
			p.dims[n-1] *= out[i]
			p.sa[n-1], p.sb[n-1] = sa[i], sb[i]
			continue
		}
		p.dims = append(p.dims, out[i])
		p.sa = append(p.sa, sa[i])
		p.sb = append(p.sb, sb[i])
	}
	if len(p.dims) == 0 {
		p.dims, p.sa, p.sb = []int{1}, []int{0}, []int{0}
	}
	return p
}

// rows calls f for each output row: output offset, a offset, b offset.
// The row length is p.dims[last], with strides p.sa[last], p.sb[last].
func (p bcastPlan) rows(f func(o, oa, ob int)) { p.rowRange(0, p.outerRows(), f) }

// outerRows is how many rows the output has.
func (p bcastPlan) outerRows() int {
	outer := 1
	for _, d := range p.dims[:len(p.dims)-1] {
		outer *= d
	}
	return outer
}

// rowsParallel is rows with the rows split between cores, each row
// costing about cost flops an element (f must only write its own row).
func (p bcastPlan) rowsParallel(cost int, f func(o, oa, ob int)) {
	n := p.dims[len(p.dims)-1]
	parallelFor(p.outerRows(), n*cost, func(lo, hi int) { p.rowRange(lo, hi, f) })
}

// rowRange calls f for output rows lo..hi.
func (p bcastPlan) rowRange(lo, hi int, f func(o, oa, ob int)) {
	r := len(p.dims)
	n := p.dims[r-1]
	idx := make([]int, r)
	oa, ob := 0, 0
	for k, rest := r-2, lo; k >= 0; k-- {
		idx[k] = rest % p.dims[k]
		rest /= p.dims[k]
		oa += idx[k] * p.sa[k]
		ob += idx[k] * p.sb[k]
	}
	for row := lo; row < hi; row++ {
		f(row*n, oa, ob)
		for k := r - 2; k >= 0; k-- {
			idx[k]++
			oa += p.sa[k]
			ob += p.sb[k]
			if idx[k] < p.dims[k] {
				break
			}
			oa -= p.sa[k] * p.dims[k]
			ob -= p.sb[k] * p.dims[k]
			idx[k] = 0
		}
	}
}

func runBinary(x *exec, fn binFn) error {
	a, b := x.in(0), x.in(1)
	if a.isF64() || b.isF64() {
		return runBinaryF64(x, fn)
	}
	if a.isFloat() != b.isFloat() || (!a.isFloat() && a.dt != b.dt && fn != binPRelu) {
		return fmt.Errorf("operands have different dtypes %s and %s", a.dt, b.dt)
	}
	shape, err := broadcastShape(a.shape, b.shape)
	if err != nil {
		return err
	}
	if fn == binPRelu && !slices.Equal(shape, a.shape) {
		return fmt.Errorf("slope of shape %v does not broadcast to X of shape %v", b.shape, a.shape)
	}
	// Write in place into an operand that is dead after this node.
	var out *tensor
	if slices.Equal(shape, a.shape) {
		out = x.take(0)
	}
	if out == nil && slices.Equal(shape, b.shape) && fn != binPRelu {
		out = x.take(1)
	}
	if out == nil {
		out = x.newLike(a, shape)
	}
	out.shape = shape
	p := newBcast(shape, a.shape, b.shape)
	last := len(p.dims) - 1
	n, sa, sb := p.dims[last], p.sa[last], p.sb[last]
	if numel(shape) == 0 {
		x.set(0, out)
		return nil
	}
	if a.isFloat() {
		if p.outerRows() == 1 {
			// One long row (operands of one shape, or one a scalar: the
			// plan merges their axes): split along it instead.
			parallelFor(n, 1, func(lo, hi int) {
				binRow(fn, out.f[lo:hi], a.f[lo*sa:], b.f[lo*sb:], sa, sb)
			})
			x.set(0, out)
			return nil
		}
		if binPerRow(fn, p, a, b, out) {
			x.set(0, out)
			return nil
		}
		p.rowsParallel(1, func(o, oa, ob int) {
			binRow(fn, out.f[o:o+n], a.f[oa:], b.f[ob:], sa, sb)
		})
		x.set(0, out)
		return nil
	}
	if fn == binDiv {
		for _, v := range b.i {
			if v == 0 {
				x.p.pool.put(out)
				return fmt.Errorf("integer division by zero")
			}
		}
	}
	if fn == binDiv && a.dt == canon.Uint64 {
		p.rows(func(o, oa, ob int) {
			for i := range out.i[o : o+n] {
				out.i[o+i] = int64(uint64(a.i[oa+i*sa]) / uint64(b.i[ob+i*sb]))
			}
		})
	} else {
		p.rows(func(o, oa, ob int) {
			binRowInt(fn, out.i[o:o+n], a.i[oa:], b.i[ob:], sa, sb)
		})
	}
	out.dt = a.dt
	wrapInts(out.dt, out.i)
	x.set(0, out)
	return nil
}

// binRow computes one output row; sa and sb are 0 (broadcast) or 1.
// Aliasing between d and a or b is safe: element i is read before written.
func binRow(fn binFn, d, a, b []float32, sa, sb int) {
	switch {
	case sa == 1 && sb == 1:
		a, b = a[:len(d)], b[:len(d)]
		if op, ok := vecBinOp(fn); ok {
			vec.BinRows(op, d, a, b)
			return
		}
		switch fn {
		case binAdd:
			for i := range d {
				d[i] = a[i] + b[i]
			}
		case binSub:
			for i := range d {
				d[i] = a[i] - b[i]
			}
		case binMul:
			for i := range d {
				d[i] = a[i] * b[i]
			}
		case binDiv:
			for i := range d {
				d[i] = a[i] / b[i]
			}
		case binPRelu:
			for i := range d {
				if v := a[i]; v < 0 {
					d[i] = v * b[i]
				} else {
					d[i] = v
				}
			}
		}
	case sb == 0:
		bv := b[0]
		if sa == 0 { // both operands are one value (e.g. two scalars)
			var v float32
			switch fn {
			case binAdd:
				v = a[0] + bv
			case binSub:
				v = a[0] - bv
			case binMul:
				v = a[0] * bv
			case binDiv:
				v = a[0] / bv
			case binPRelu:
				v = a[0]
				if v < 0 {
					v *= bv
				}
			}
			for i := range d {
				d[i] = v
			}
			return
		}
		a = a[:len(d)]
		if op, ok := vecBinOp(fn); ok {
			vec.BinScalar(op, d, a, bv, false)
			return
		}
		switch fn {
		case binAdd:
			for i := range d {
				d[i] = a[i] + bv
			}
		case binSub:
			for i := range d {
				d[i] = a[i] - bv
			}
		case binMul:
			for i := range d {
				d[i] = a[i] * bv
			}
		case binDiv:
			for i := range d {
				d[i] = a[i] / bv
			}
		case binPRelu:
			for i := range d {
				if v := a[i]; v < 0 {
					d[i] = v * bv
				} else {
					d[i] = v
				}
			}
		}
	default: // sa == 0, sb == 1
		av := a[0]
		b = b[:len(d)]
		if op, ok := vecBinOp(fn); ok {
			vec.BinScalar(op, d, b, av, true)
			return
		}
		switch fn {
		case binAdd:
			for i := range d {
				d[i] = av + b[i]
			}
		case binSub:
			for i := range d {
				d[i] = av - b[i]
			}
		case binMul:
			for i := range d {
				d[i] = av * b[i]
			}
		case binDiv:
			for i := range d {
				d[i] = av / b[i]
			}
		case binPRelu:
			for i := range d {
				if av < 0 {
					d[i] = av * b[i]
				} else {
					d[i] = av
				}
			}
		}
	}
}

// binRowInt is binRow for integers; Div truncates toward zero (as ONNX
// Runtime and C do). The caller has ruled out division by zero.
func binRowInt(fn binFn, d, a, b []int64, sa, sb int) {
	for i := range d {
		av, bv := a[i*sa], b[i*sb]
		switch fn {
		case binAdd:
			d[i] = av + bv
		case binSub:
			d[i] = av - bv
		case binMul:
			d[i] = av * bv
		case binDiv:
			if bv == -1 {
				d[i] = -av // avoids the MinInt64 / -1 trap
			} else {
				d[i] = av / bv
			}
		case binPRelu:
			if av < 0 {
				d[i] = av * bv
			} else {
				d[i] = av
			}
		}
	}
}

// unaryFn is the interpreter's own code for an elementwise activation;
// the kernels table maps canon's kinds (and attributes) to it.
type unaryFn uint8

const (
	uRelu unaryFn = iota
	uSigmoid
	uTanh
	uHardSwish
	uSoftplus
	uSoftsign
	uLeakyRelu   // a = Alpha
	uClip        // a = Min, b = Max
	uHardSigmoid // a = Alpha, b = Beta
	uElu         // a = Alpha
	uSelu        // a = Alpha, b = Gamma
	uGelu        // exact, with erf
	uGeluTanh    // tanh approximation
)

// unaryCost is the work of one element for parallelFor, about that of a
// transcendental function; cheap functions split a little early, which is
// harmless on tensors of a few thousand elements.
const unaryCost = 16

type unaryOp struct {
	fn   unaryFn
	a, b float32
}

func runUnary(x *exec, op unaryOp) error {
	in := x.in(0)
	if in.isF64() {
		return runUnaryF64(x, op, float64(op.a), float64(op.b))
	}
	if !in.isFloat() {
		return unaryInt(x, in, op)
	}
	out := x.take(0)
	if out == nil {
		out = x.newF(in.shape)
	}
	// Elements are independent: cut the tensor into one run per core.
	parallelFor(len(out.f), unaryCost, func(lo, hi int) { unaryF(op, out.f[lo:hi], in.f[lo:hi]) })
	x.set(0, out)
	return nil
}

func unaryF(op unaryOp, d, s []float32) {
	s = s[:len(d)]
	switch op.fn {
	case uRelu:
		// max(v, 0) in vector lanes: the clamp to [+0, +Inf] gives it bit
		// for bit, NaN and -0 included (vec.TestCopyRowsClampMatchReference).
		vec.CopyRowsClamp(d, len(d), s, len(s), 1, len(d), 0, float32(math.Inf(1)))
	case uSigmoid:
		vec.Sigmoid32(d, s)
	case uTanh:
		vec.Tanh(d, s)
	case uHardSwish:
		for i, v := range s {
			d[i] = v * max(0, min(1, v/6+0.5))
		}
	case uLeakyRelu:
		for i, v := range s {
			if v < 0 {
				v *= op.a
			}
			d[i] = v
		}
	case uClip:
		lo, hi := op.a, op.b
		for i, v := range s {
			if v < lo {
				v = lo
			}
			if v > hi {
				v = hi
			}
			d[i] = v
		}
	case uHardSigmoid:
		for i, v := range s {
			d[i] = max(0, min(1, float32(op.a*v)+op.b)) // rounded apart, as the fused gate computes it
		}
	case uSoftplus:
		for i, v := range s {
			d[i] = softplus(v)
		}
	case uSoftsign:
		for i, v := range s {
			d[i] = v / (1 + float32(math.Abs(float64(v))))
		}
	case uElu:
		for i, v := range s {
			d[i] = elu(v, op.a)
		}
	case uSelu:
		for i, v := range s {
			d[i] = op.b * elu(v, op.a)
		}
	case uGelu:
		vec.Gelu32(d, s)
	case uGeluTanh:
		vec.GeluTanh(d, s)
	}
}

// gelu is x·Φ(x) = 0.5·x·(1+erf(x/√2)), written with erfc: for very
// negative x, 1+erf(x/√2) cancels to 0 in float64 long before the true
// value underflows float32 (gelu(-10) is about -7.6e-23).
func gelu(x float64) float64 {
	return 0.5 * x * math.Erfc(-x/math.Sqrt2)
}

// gelu32 is gelu for float32 data (in float32 operations, within 5.03 ulp)
// and geluTanh its tanh approximation in float64 (see the vector kernels'
// GeluOne32 and GeluTanh1, their one home).
func gelu32(v float32) float32 { return vec.GeluOne32(v) }

func geluTanh(x float64) float64 { return vec.GeluTanh1(x) }

// softplus is log(1+exp(x)) written as max(x,0) + log1p(exp(-|x|)), which
// neither overflows for large x nor loses the small tail for very negative x.
func softplus(v float32) float32 {
	x := float64(v)
	if x > 30 {
		return v // log1p(exp(-30)) is below float32 resolution at 30
	}
	return float32(max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))))
}

// elu is x for x > 0, alpha*(exp(x)-1) otherwise; Expm1 keeps precision
// near zero.
func elu(v, alpha float32) float32 {
	if v > 0 {
		return v
	}
	return alpha * float32(math.Expm1(float64(v)))
}

func unaryInt(x *exec, in *tensor, op unaryOp) error {
	var lo, hi int64 = math.MinInt64, math.MaxInt64
	switch op.fn {
	case uRelu:
		lo = 0
	case uClip:
		if !math.IsInf(float64(op.a), -1) {
			lo = int64(math.Ceil(float64(op.a)))
		}
		if !math.IsInf(float64(op.b), 1) {
			hi = int64(math.Floor(float64(op.b)))
		}
	default:
		return fmt.Errorf("input is %s, want a floating-point tensor", in.dt)
	}
	out := x.take(0)
	if out == nil {
		out = x.newI(in.dt, in.shape)
	}
	if in.dt == canon.Uint64 {
		ulo, uhi := uint64Bounds(op.fn == uClip, op.a, op.b)
		clipUint64(out.i, in.i, ulo, uhi)
		x.set(0, out)
		return nil
	}
	for i, v := range in.i {
		out.i[i] = min(max(v, lo), hi)
	}
	x.set(0, out)
	return nil
}

func runSoftmax(x *exec, op *canon.Softmax) error {
	in := x.in(0)
	if in.isF64() {
		return alongAxisF64(x, op.Axis, softmaxRow64)
	}
	if err := needFloat(in, "input"); err != nil {
		return err
	}
	axis, err := normAxis(op.Axis, len(in.shape))
	if err != nil {
		return err
	}
	outer, n := numel(in.shape[:axis]), in.shape[axis]
	inner := numel(in.shape[axis+1:])
	out := x.take(0)
	if out == nil {
		out = x.newF(in.shape)
	}
	// Rows along the axis are independent: split them between cores. Every
	// row, contiguous or strided, is one row of vec.SoftmaxRows32, so that
	// a layout chosen for the tensor does not change a bit of the result.
	parallelFor(outer*inner, 16*n, func(lo, hi int) {
		if inner == 1 {
			vec.SoftmaxRows32(out.f[lo*n:hi*n], in.f[lo*n:hi*n], n)
			return
		}
		sp := getPack(min(16, inner) * n) // no larger than the tensor
		defer packPool.Put(sp)
		for r := lo; r < hi; {
			o, j := r/inner, r%inner
			cols := min(hi-r, inner-j) // the columns of this outer index
			vec.SoftmaxColumns32(out.f, in.f, o*n*inner+j, n, inner, cols, *sp)
			r += cols
		}
	})
	x.set(0, out)
	return nil
}

func runBatchNorm(x *exec, op *canon.BatchNorm) error {
	in := x.in(0)
	if in.isF64() {
		return runBatchNormF64(x, in, op)
	}
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	if len(in.shape) < 2 {
		return fmt.Errorf("X has shape %v, want rank >= 2 (N, C, ...)", in.shape)
	}
	c := in.shape[1]
	names := [...]string{"", "scale", "bias", "mean", "var"}
	var ps [5][]float32
	for k := 1; k <= 4; k++ {
		t := x.in(k)
		if err := needFloat(t, names[k]); err != nil {
			return err
		}
		if len(t.f) != c {
			return fmt.Errorf("%s has shape %v, want [%d] (channels of X %v)", names[k], t.shape, c, in.shape)
		}
		ps[k] = t.f
	}
	scale, shift := make([]float32, c), make([]float32, c)
	for i := range c {
		s := float64(ps[1][i]) / math.Sqrt(float64(ps[4][i])+float64(op.Epsilon))
		scale[i] = float32(s)
		shift[i] = float32(float64(ps[2][i]) - float64(ps[3][i])*s)
	}
	out := x.take(0)
	if out == nil {
		out = x.newF(in.shape)
	}
	inner := numel(in.shape[2:])
	for nc := 0; nc < in.shape[0]*c; nc++ {
		s, b := scale[nc%c], shift[nc%c]
		src := in.f[nc*inner : (nc+1)*inner]
		dst := out.f[nc*inner : (nc+1)*inner]
		for i, v := range src {
			dst[i] = v*s + b
		}
	}
	x.set(0, out)
	return nil
}
