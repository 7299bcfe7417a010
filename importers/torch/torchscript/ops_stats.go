package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Statistics and tests over axes that have no canonical reduction of their
// own: std and var (with std_mean and var_mean), all, any, count_nonzero,
// aminmax and cumprod.

var statsKinds = []string{"ReduceMean", "ReduceSum", "Sub", "Mul", "Div", "Sqrt", "Cast", "Shape", "Gather", "ReduceProd", "Max"}

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.std":           entry(opVariance(true, false), statsKinds...),
		"torch.var":           entry(opVariance(false, false), statsKinds...),
		"torch.std_mean":      entry(opVariance(true, true), statsKinds...),
		"torch.var_mean":      entry(opVariance(false, true), statsKinds...),
		"torch.all":           entry(opAllAny(true), "Cast", "Not", "ReduceSum", "Equal", "Greater"),
		"torch.any":           entry(opAllAny(false), "Cast", "Not", "ReduceSum", "Equal", "Greater"),
		"torch.count_nonzero": entry(opCountNonzero, "Equal", "Not", "Cast", "ReduceSum"),
		"torch.aminmax":       entry(opAminmax, "ReduceMin", "ReduceMax"),
		"torch.cumprod":       entry(opCumProd, "Slice", "Pad", "Mul", "Cast"),
		"torch.cumprod_":      entry(inPlace(opCumProd), "Slice", "Pad", "Mul", "Cast"),
		"torch.cummax":        entry(opCumExtreme(true), "Slice", "Pad", "Where", "Less", "GreaterOrEqual", "LessOrEqual", "IsNaN", "Or", "And", "Not", "Expand"),
		"torch.cummin":        entry(opCumExtreme(false), "Slice", "Pad", "Where", "Less", "GreaterOrEqual", "LessOrEqual", "IsNaN", "Or", "And", "Not", "Expand"),
		"torch.trace":         entry(opTrace, "Reshape", "Gather", "ReduceSum", "Cast"),
		"torch.logcumsumexp":  entry(opLogCumSumExp, append([]string{"Slice", "Pad"}, expansionKinds...)...),
	})
}

// varianceArgs are the arguments of std/var and their _mean forms, in any
// of their overloads: (x, unbiased), (x, dim, unbiased, keepdim) and
// (x, dim, *, correction, keepdim); .pt2 files pass correction
// positionally.
type varianceArgs struct {
	axes       []int64
	correction float64
	keep       bool
}

func bindVariance(c *opCall) (*tensorVal, varianceArgs, error) {
	va := varianceArgs{correction: 1}
	if len(c.args) == 0 {
		return nil, va, c.errf("needs the input tensor")
	}
	x, ok := c.args[0].(*tensorVal)
	if !ok {
		return nil, va, c.errf("argument input must be a Tensor, got %s", typeName(c.args[0]))
	}
	var dim, third, keep value = noneVal{}, nil, false
	rest := c.args[1:]
	if len(rest) > 0 {
		if b, isBool := rest[0].(bool); isBool {
			third, rest = b, rest[1:]
			if len(rest) > 0 {
				return nil, va, c.errf("unexpected arguments after unbiased")
			}
		} else {
			dim, rest = rest[0], rest[1:]
		}
	}
	if len(rest) > 0 {
		third, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		keep, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		return nil, va, c.errf("takes at most 4 arguments, %d given", len(c.args))
	}
	for k, v := range c.kwargs {
		switch k {
		case "dim":
			dim = v
		case "unbiased", "correction":
			third = v
		case "keepdim":
			keep = v
		default:
			return nil, va, c.errf("unexpected keyword argument %s", k)
		}
	}
	switch t := third.(type) {
	case nil, noneVal:
	case bool:
		if !t {
			va.correction = 0
		}
	default:
		s, ok := scalarOf(t)
		if !ok {
			return nil, va, c.errf("correction must be a number, got %s", typeName(t))
		}
		va.correction = s.f
	}
	var err error
	c.params, c.bound = []string{"input", "dim", "keepdim"}, []value{x, dim, keep}
	if va.axes, err = reduceAxes(c, 1, x); err != nil {
		return nil, va, err
	}
	if va.keep, err = c.bool(2); err != nil {
		return nil, va, err
	}
	return x, va, nil
}

// opVariance: sum((x - mean)²) / max(N - correction, 0), computed in
// float64 for narrower floats as torch accumulates; std is its square
// root. The _mean forms return (std or var, mean).
func opVariance(std, withMean bool) opHandler {
	return func(c *opCall) (value, error) {
		x, va, err := bindVariance(c)
		if err != nil {
			return nil, err
		}
		e := newExpansion(c)
		dt := e.dtype(x)
		if !dt.IsFloat() && dt != canon.Undefined {
			return nil, c.errf("std and var take floating-point tensors; x is %s", dt)
		}
		wide := e.cast(x, canon.Float64)
		mean := e.reduce(canon.ReduceMean, wide, va.axes, true)
		d := e.sub(wide, mean)
		v := e.div(e.reduce(canon.ReduceSum, e.mul(d, d), va.axes, va.keep), varianceDivisor(e, x, va))
		if std {
			v = e.fn(canon.MathSqrt, v)
		}
		v = e.cast(v, dt)
		if !withMean {
			return e.result(v)
		}
		m := e.cast(e.reduce(canon.ReduceMean, wide, va.axes, va.keep), dt)
		return e.result(&tupleVal{items: []value{v, m}})
	}
}

// varianceDivisor is max(N - correction, 0) in float64, N the count of
// reduced entries: a constant for a static shape, else computed from the
// shape at run time.
func varianceDivisor(e *expansion, x *tensorVal, va varianceArgs) *tensorVal {
	if shape, ok := e.c.b().info(x).StaticShape(); ok {
		n := int64(1)
		for i, d := range shape {
			if va.axes == nil || containsInt64(va.axes, int64(i)) {
				n *= d
			}
		}
		return e.numOf(math.Max(float64(n)-va.correction, 0), canon.Float64)
	}
	sizes := e.op(canon.NewShapeOf(), x)
	if va.axes != nil {
		sizes = e.op(&canon.Gather{}, sizes, &tensorVal{konst: canon.NewInt64Tensor("", []int64{int64(len(va.axes))}, va.axes)})
	}
	n := e.cast(e.reduce(canon.ReduceProd, sizes, nil, false), canon.Float64)
	return e.max(e.sub(n, e.numOf(va.correction, canon.Float64)), e.numOf(0, canon.Float64))
}

// opAllAny: torch.all/any over every axis or one dim, read as a count of
// the false (true) entries, which is exact and gives all() = true and
// any() = false over nothing. uint8 inputs give uint8, others bool.
func opAllAny(all bool) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input", "dim=None", "keepdim=False")
		if err != nil {
			return nil, err
		}
		axes, err := reduceAxes(c, 1, x)
		if err != nil {
			return nil, err
		}
		keep, err := c.bool(2)
		if err != nil {
			return nil, err
		}
		e := newExpansion(c)
		in := e.dtype(x)
		b := x
		if in != canon.Bool {
			b = e.cast(x, canon.Bool)
		}
		if all {
			b = e.not(b)
		}
		count := e.reduce(canon.ReduceSum, e.cast(b, canon.Int64), axes, keep)
		var r *tensorVal
		if all {
			r = e.cmp(canon.CmpEqual, count, e.numOf(0, canon.Int64))
		} else {
			r = e.cmp(canon.CmpGreater, count, e.numOf(0, canon.Int64))
		}
		if in == canon.Uint8 {
			r = e.cast(r, canon.Uint8)
		}
		return e.result(r)
	}
}

// opCountNonzero counts entries that are not 0 (NaN counts) as int64.
func opCountNonzero(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim=None")
	if err != nil {
		return nil, err
	}
	axes, err := reduceAxes(c, 1, x)
	if err != nil {
		return nil, err
	}
	e := newExpansion(c)
	nz := e.not(e.cmp(canon.CmpEqual, x, e.num(0, x)))
	return e.result(e.reduce(canon.ReduceSum, e.cast(nz, canon.Int64), axes, false))
}

// opAminmax: torch.aminmax(x, *, dim=None, keepdim=False) is (amin, amax).
func opAminmax(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim=None", "keepdim=False")
	if err != nil {
		return nil, err
	}
	var axes []int64
	if !c.isNone(1) {
		d, err := indexingDim(c, 1, x)
		if err != nil {
			return nil, err
		}
		axes = []int64{d}
	}
	keep, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	e := newExpansion(c)
	lo := e.reduce(canon.ReduceMin, x, axes, keep)
	hi := e.reduce(canon.ReduceMax, x, axes, keep)
	return e.result(&tupleVal{items: []value{lo, hi}})
}

// opCumProd is the running product along dim as a scan of ⌈log2 n⌉
// steps: each multiplies the entries by those `shift` places before
// (ones before the start), shift doubling. Zeros, signs and infinities
// multiply as they do in torch's loop; only the grouping of the
// products differs.
func opCumProd(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "dtype=None")
	if err != nil {
		return nil, err
	}
	d, err := indexingDim(c, 1, x)
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if d >= int64(len(shape)) {
		return nil, c.errf("dimension %d is out of range for a rank-%d tensor", d, len(shape))
	}
	e := newExpansion(c)
	if x, err = reduceDType(c, x, 2); err != nil {
		return nil, err
	}
	if dt := e.dtype(x); c.isNone(2) && (dt == canon.Bool || (dt.IsInt() && dt != canon.Int64)) {
		x = e.cast(x, canon.Int64) // torch multiplies integers in int64
	}
	n := shape[d]
	y := x
	for shift := int64(1); shift < n; shift *= 2 {
		head := e.op(&canon.Slice{Starts: []int64{0}, Ends: []int64{n - shift}, Axes: []int64{d}}, y)
		begin, end := make([]int64, len(shape)), make([]int64, len(shape))
		begin[d] = shift
		before := e.op(&canon.Pad{Mode: canon.PadConstant, PadsBegin: begin, PadsEnd: end, Value: 1}, head)
		y = e.mul(y, before)
	}
	return e.result(y)
}

// reduceDType casts x to the dtype argument i of a reduction (None keeps
// it), as torch converts the input before reducing.
func reduceDType(c *opCall, x *tensorVal, i int) (*tensorVal, error) {
	if c.isNone(i) {
		return x, nil
	}
	dt, err := factoryDType(c, i, canon.Undefined)
	if err != nil {
		return nil, err
	}
	return castTo(c, x, dt)
}

// opLogCumSumExp is the running log-sum-exp along dim, the same scan as
// cumprod's with logaddexp in place of the product (-inf before the
// start, which logaddexp leaves out exactly).
func opLogCumSumExp(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim")
	if err != nil {
		return nil, err
	}
	d, err := indexingDim(c, 1, x)
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if d >= int64(len(shape)) {
		return nil, c.errf("dimension %d is out of range for a rank-%d tensor", d, len(shape))
	}
	e := newExpansion(c)
	if !e.dtype(x).IsFloat() {
		return nil, c.errf("logcumsumexp takes floating-point tensors")
	}
	n := shape[d]
	y := x
	for shift := int64(1); shift < n; shift *= 2 {
		head := e.op(&canon.Slice{Starts: []int64{0}, Ends: []int64{n - shift}, Axes: []int64{d}}, y)
		begin, end := make([]int64, len(shape)), make([]int64, len(shape))
		begin[d] = shift
		before := e.op(&canon.Pad{Mode: canon.PadConstant, PadsBegin: begin, PadsEnd: end, Value: float32(math.Inf(-1))}, head)
		y = logAddExp(e, y, before, func(negDist *tensorVal) *tensorVal { return e.log1p(e.fn(canon.MathExp, negDist)) })
	}
	return e.result(y)
}

// opCumExtreme is torch.cummax (cummin): the running maximum along dim
// and the index where it was taken, the latest among equals, NaN winning
// once seen, as torch's loop keeps them. It is the cumprod scan over
// (value, index) pairs; padded places have index -1 and never win.
func opCumExtreme(isMax bool) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input", "dim")
		if err != nil {
			return nil, err
		}
		d, err := indexingDim(c, 1, x)
		if err != nil {
			return nil, err
		}
		shape, err := c.shapeOf(x, "the input")
		if err != nil {
			return nil, err
		}
		if d >= int64(len(shape)) {
			return nil, c.errf("dimension %d is out of range for a rank-%d tensor", d, len(shape))
		}
		n := shape[d]
		e := newExpansion(c)
		float := e.dtype(x).IsFloat()
		pos := make([]int64, n)
		for i := range pos {
			pos[i] = int64(i)
		}
		along := make([]int64, len(shape))
		for i := range along {
			along[i] = 1
		}
		along[d] = n
		idx := e.op(&canon.Expand{Shape: shape}, &tensorVal{konst: canon.NewInt64Tensor("", along, pos)})
		wins := canon.CmpGreaterOrEqual
		if !isMax {
			wins = canon.CmpLessOrEqual
		}
		y := x
		for shift := int64(1); shift < n; shift *= 2 {
			begin, end := make([]int64, len(shape)), make([]int64, len(shape))
			begin[d] = shift
			prev := func(t *tensorVal, fill float32) *tensorVal {
				head := e.op(&canon.Slice{Starts: []int64{0}, Ends: []int64{n - shift}, Axes: []int64{d}}, t)
				return e.op(&canon.Pad{Mode: canon.PadConstant, PadsBegin: begin, PadsEnd: end, Value: fill}, head)
			}
			vPrev, iPrev := prev(y, 0), prev(idx, -1)
			later := e.cmp(wins, y, vPrev)
			if float {
				later = e.or(e.isNaN(y), e.and(e.not(e.isNaN(vPrev)), later))
			}
			later = e.or(e.cmp(canon.CmpLess, iPrev, e.numOf(0, canon.Int64)), later)
			y = e.where(later, y, vPrev)
			idx = e.where(later, idx, iPrev)
		}
		return e.result(&tupleVal{items: []value{y, idx}})
	}
}

// opTrace is the sum of a matrix's diagonal: entries i·(cols+1) of the
// flattened matrix, summed (integers in int64, as torch sums them).
func opTrace(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 {
		return nil, c.errf("trace takes a matrix; the input has shape %v", shape)
	}
	if x, err = int64Input(c, x); err != nil {
		return nil, err
	}
	n := min(shape[0], shape[1])
	at := make([]int64, n)
	for i := range at {
		at[i] = int64(i) * (shape[1] + 1)
	}
	e := newExpansion(c)
	flat := e.op(&canon.Reshape{Shape: []int64{-1}}, x)
	diag := e.op(&canon.Gather{}, flat, &tensorVal{konst: canon.NewInt64Tensor("", []int64{n}, at)})
	return e.result(e.reduce(canon.ReduceSum, diag, nil, false))
}
