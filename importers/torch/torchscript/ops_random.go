package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Operators that draw random numbers map to canon's sampling kinds
// (RandomUniform, RandomNormal, their Like forms, Multinomial): the draws
// follow PyTorch's distribution, not its generator's stream, so a model's
// outputs computed from them are compared by shape, dtype and range
// (canon.DrawnValues). Operators whose distribution no canonical kind
// samples exactly are refused by name.
func init() {
	const noGamma = "it draws from a gamma distribution, which no ONNX or canonical sampling op (uniform, normal, Bernoulli, multinomial) draws in a fixed number of steps: pass the draws in as an input before saving"
	const otherFill = "it refills a tensor with draws of a distribution no canonical sampling op (uniform, normal, Bernoulli, multinomial) draws: pass the draws in as an input before saving"
	entries := map[string]opEntry{
		"torch.rand":        entry(opRand(false), "RandomUniform", "RandomUniformLike", "ConstantOfShape", "Concat"),
		"torch.randn":       entry(opRand(true), "RandomNormal", "RandomNormalLike", "ConstantOfShape", "Concat"),
		"torch.rand_like":   entry(opRandLike(false), "RandomUniformLike"),
		"torch.randn_like":  entry(opRandLike(true), "RandomNormalLike"),
		"torch.bernoulli":   entry(opBernoulli, "Bernoulli", "RandomUniformLike", "Less", "Cast"),
		"torch.normal":      entry(opNormal, "RandomNormal", "RandomNormalLike", "Add", "Mul", "ConstantOfShape", "Concat"),
		"torch.multinomial": entry(opMultinomial, "Multinomial", "Log", "RandomUniformLike", "Neg", "Add", "TopK", "Unsqueeze", "Squeeze"),
	}
	for _, op := range []string{"_standard_gamma", "_sample_dirichlet", "poisson", "binomial"} {
		entries["torch."+op] = entry(refuseOp(noGamma))
		refusedOps["torch."+op] = noGamma
	}
	for _, op := range []string{"randint", "randint_like", "randperm"} {
		entries["torch."+op] = entry(refuseOp("it draws random integers, which the importer does not read yet: pass the draws in as an input before saving"))
	}
	entries["torch.uniform_"] = entry(inPlace(opFillDraws(false)), "RandomUniformLike")
	entries["torch.normal_"] = entry(inPlace(opFillDraws(true)), "RandomNormalLike")
	entries["torch.bernoulli_"] = entry(inPlace(opBernoulli), "Bernoulli", "RandomUniformLike", "Less", "Cast")
	for _, op := range []string{"exponential_", "random_", "cauchy_", "log_normal_", "geometric_"} {
		entries["torch."+op] = entry(refuseOp(otherFill))
	}
	optable.Add(&opTable, entries)
}

// drawDType is a factory's dtype argument for float draws (float32 when
// None).
func drawDType(c *opCall, i int, dflt canon.DType) (canon.DType, error) {
	dt, err := factoryDType(c, i, dflt)
	if err != nil {
		return 0, err
	}
	if !dt.IsFloat() {
		return 0, c.errf("draws of dtype %s: PyTorch samples floating-point tensors only", dt)
	}
	return dt, nil
}

// drawShaped emits a draw of a size list: RandomUniform/RandomNormal when
// the sizes are known at import, else the Like form over a zero tensor of
// that run-time shape.
func drawShaped(c *opCall, size value, fixed func(shape []int64) canon.Op, like func() canon.Op) (value, error) {
	if items, ok := listItems(size); ok && hasDynInt(items) {
		zeros, err := callWith(c, opFull("zeros"), []value{size}, nil)
		if err != nil {
			return nil, err
		}
		z, ok := zeros.(*tensorVal)
		if !ok {
			return nil, c.errf("the size %s is not a shape", typeName(size))
		}
		return c.b().emit1(c.scope, like(), z)
	}
	sz := &opCall{in: c.in, name: c.name, scope: c.scope, bound: []value{size}}
	shape, err := sz.ints(0, 0)
	if err != nil {
		return nil, err
	}
	for _, d := range shape {
		if d < 0 {
			return nil, c.errf("size %v has a negative entry", shape)
		}
	}
	return c.b().emit1(c.scope, fixed(shape))
}

// opRand: rand(size, *, generator, dtype, ...) and randn.
func opRand(normal bool) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind(append([]string{"size"}, append(append([]string{}, factoryTail...), "generator=None", "names=None")...)...); err != nil {
			return nil, err
		}
		dt, err := drawDType(c, 1, canon.Float32)
		if err != nil {
			return nil, err
		}
		if normal {
			return drawShaped(c, c.bound[0],
				func(s []int64) canon.Op { return &canon.RandomNormal{Scale: 1, DType: dt, Shape: s} },
				func() canon.Op { return &canon.RandomNormalLike{Scale: 1, DType: dt} })
		}
		return drawShaped(c, c.bound[0],
			func(s []int64) canon.Op { return &canon.RandomUniform{High: 1, DType: dt, Shape: s} },
			func() canon.Op { return &canon.RandomUniformLike{High: 1, DType: dt} })
	}
}

// opRandLike: rand_like(input, *, dtype, ..., memory_format) and randn_like.
func opRandLike(normal bool) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput(append(append([]string{"input"}, factoryTail...), "memory_format=None")...)
		if err != nil {
			return nil, err
		}
		dt, err := drawDType(c, 1, c.b().info(x).DType)
		if err != nil {
			return nil, err
		}
		if normal {
			return c.b().emit1(c.scope, &canon.RandomNormalLike{Scale: 1, DType: dt}, x)
		}
		return c.b().emit1(c.scope, &canon.RandomUniformLike{High: 1, DType: dt}, x)
	}
}

// opBernoulli: bernoulli(input) draws 1 with each element's probability;
// bernoulli(input, p) with probability p for every element, in input's
// dtype (Cast(RandomUniformLike(input) < p)).
func opBernoulli(c *opCall) (value, error) {
	x, err := c.bindInput("input", "p=None", "generator=None")
	if err != nil {
		return nil, err
	}
	dt := c.b().info(x).DType
	if !dt.IsFloat() {
		return nil, c.errf("the input is %s; bernoulli reads (or fills) a floating-point tensor", dt)
	}
	if c.isNone(1) {
		return c.b().emit1(c.scope, &canon.Bernoulli{DType: dt}, x)
	}
	if _, isTensor := c.bound[1].(*tensorVal); isTensor {
		return nil, c.errf("a tensor p is not read yet (only a number, or the input's own probabilities)")
	}
	p, err := c.float(1)
	if err != nil {
		return nil, err
	}
	if !(p >= 0 && p <= 1) {
		return nil, c.errf("p is %g; a probability is in [0, 1]", p)
	}
	e := newExpander(c, x)
	u := e.emit(&canon.RandomUniformLike{High: 1, DType: dt}, x)
	hit := e.cmp(canon.CmpLess, u, e.num(p))
	out := e.emit(&canon.Cast{To: dt}, hit)
	return out, e.err
}

// opNormal: normal(mean, std) with tensors or numbers for either, and
// normal(mean, std, size) with numbers: mean + std·N(0, 1), drawn in the
// broadcast shape of the tensors.
func opNormal(c *opCall) (value, error) {
	if err := c.bind(append([]string{"mean", "std=1.0", "size=None"}, append(append([]string{}, factoryTail...), "generator=None")...)...); err != nil {
		return nil, err
	}
	mt, mTensor := c.bound[0].(*tensorVal)
	st, sTensor := c.bound[1].(*tensorVal)
	if !mTensor && !sTensor {
		mean, err := c.float(0)
		if err != nil {
			return nil, err
		}
		std, err := c.float(1)
		if err != nil {
			return nil, err
		}
		if c.isNone(2) {
			return nil, c.errf("normal(mean, std) of two numbers needs a size")
		}
		if !(std >= 0) {
			return nil, c.errf("std is %g; want std >= 0", std)
		}
		dt, err := drawDType(c, 3, canon.Float32)
		if err != nil {
			return nil, err
		}
		m, s := float32(mean), float32(std)
		return drawShaped(c, c.bound[2],
			func(shape []int64) canon.Op { return &canon.RandomNormal{Mean: m, Scale: s, DType: dt, Shape: shape} },
			func() canon.Op { return &canon.RandomNormalLike{Mean: m, Scale: s, DType: dt} })
	}
	like := mt
	if !mTensor {
		like = st
	}
	e := newExpander(c, like)
	if !e.dt.IsFloat() {
		return nil, c.errf("mean and std are %s; normal draws floating-point tensors", e.dt)
	}
	mean, std := mt, st
	if !mTensor {
		v, err := c.float(0)
		if err != nil {
			return nil, err
		}
		mean = e.num(v)
	}
	if !sTensor {
		v, err := c.float(1)
		if err != nil {
			return nil, err
		}
		if !(v >= 0) {
			return nil, c.errf("std is %g; want std >= 0", v)
		}
		std = e.num(v)
	}
	// The draw takes the broadcast shape of mean and std (their sum's).
	shape := like
	if mTensor && sTensor {
		shape = e.add(mt, st)
	}
	z := e.emit(&canon.RandomNormalLike{Scale: 1, DType: e.dt}, shape)
	out := e.add(mean, e.mul(std, z))
	return out, e.err
}

// opMultinomial: multinomial(input, num_samples, replacement=False) draws
// class indices with probability proportional to input's non-negative
// weights. With replacement (or one sample) that is Multinomial of
// log(weights); without, the Gumbel-top-k draw: the num_samples largest of
// log(w) - log(-log(U)), in decreasing order, are distributed as
// successive draws without replacement.
func opMultinomial(c *opCall) (value, error) {
	x, err := c.bindInput("input", "num_samples", "replacement=False", "generator=None")
	if err != nil {
		return nil, err
	}
	k, err := c.int(1)
	if err != nil {
		return nil, err
	}
	repl, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, c.errf("num_samples is %d, must be >= 1", k)
	}
	e := newExpander(c, x)
	if !e.dt.IsFloat() {
		return nil, c.errf("the weights are %s; multinomial reads floating-point weights", e.dt)
	}
	r := e.rank(x)
	if e.err != nil {
		return nil, e.err
	}
	if r != 1 && r != 2 {
		return nil, c.errf("the weights have rank %d; multinomial takes a vector or a matrix", r)
	}
	w := x
	if r == 1 {
		w = e.unsqueeze(x, 0)
	}
	logw := e.log(w)
	var idx *tensorVal
	if repl || k == 1 {
		idx = e.emit(&canon.Multinomial{SampleSize: k, DType: canon.Int64}, logw)
	} else {
		if classes := e.shape(w, "the weights")[1]; classes >= 0 && k > classes {
			return nil, c.errf("cannot draw %d samples without replacement from %d classes", k, classes)
		}
		u := e.emit(&canon.RandomUniformLike{High: 1, DType: e.dt}, w)
		gumbel := e.neg(e.log(e.neg(e.log(u))))
		keys := e.add(logw, gumbel)
		if e.err != nil {
			return nil, e.err
		}
		outs, err := c.b().emit(c.scope, &canon.TopK{K: k, Axis: 1, Largest: true, Sorted: true}, []*tensorVal{keys}, 2)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		idx = outs[1]
	}
	if r == 1 {
		idx = e.squeeze(idx, 0)
	}
	return idx, e.err
}

// dropoutTraining is dropout in training mode: each element is kept with
// probability 1-p (RandomUniformLike(x) >= p) and scaled by 1/(1-p), as
// torch.dropout does; p = 1 drops every element.
func dropoutTraining(c *opCall, x *tensorVal, p float64) (value, error) {
	if !(p >= 0 && p <= 1) {
		return nil, c.errf("dropout probability %g is outside [0, 1]", p)
	}
	e := newExpander(c, x)
	if !e.dt.IsFloat() {
		return nil, c.errf("the input is %s; dropout reads a floating-point tensor", e.dt)
	}
	if p == 1 {
		out := e.mul(x, e.num(0))
		return out, e.err
	}
	u := e.emit(&canon.RandomUniformLike{High: 1, DType: e.dt}, x)
	keep := e.cast(e.cmp(canon.CmpGreaterOrEqual, u, e.num(p)), e.dt)
	out := e.mul(x, e.mul(keep, e.num(1/(1-p))))
	return out, e.err
}

// rreluTraining is rrelu in training mode: a negative element is scaled by
// a slope drawn uniformly from [lower, upper), one per element.
func rreluTraining(c *opCall, x *tensorVal, lo, hi float64) (value, error) {
	if !(lo <= hi) || math.IsInf(hi-lo, 0) {
		return nil, c.errf("lower %g and upper %g: want finite lower <= upper", lo, hi)
	}
	e := newExpander(c, x)
	if !e.dt.IsFloat() {
		return nil, c.errf("the input is %s; rrelu reads a floating-point tensor", e.dt)
	}
	a := e.emit(&canon.RandomUniformLike{Low: float32(lo), High: float32(hi), DType: e.dt}, x)
	out := e.where(e.cmp(canon.CmpGreaterOrEqual, x, e.num(0)), x, e.mul(x, a))
	return out, e.err
}

// isPlainDropout tells torch.dropout (and dropout_), whose training mask is
// elementwise, from the feature and alpha forms sharing its handler.
func isPlainDropout(c *opCall) bool {
	return c.name == "torch.dropout" || c.name == "torch.dropout_"
}

// opFillDraws: x.uniform_(from=0, to=1) and x.normal_(mean=0, std=1) refill
// x with draws of its shape and dtype (inPlace writes them into x).
func opFillDraws(normal bool) opHandler {
	return func(c *opCall) (value, error) {
		schema := []string{"input", "from=0.0", "to=1.0", "generator=None"}
		if normal {
			schema = []string{"input", "mean=0.0", "std=1.0", "generator=None"}
		}
		x, err := c.bindInput(schema...)
		if err != nil {
			return nil, err
		}
		dt := c.b().info(x).DType
		if !dt.IsFloat() {
			return nil, c.errf("the tensor is %s; PyTorch fills floating-point tensors only", dt)
		}
		a, err := c.float(1)
		if err != nil {
			return nil, err
		}
		b, err := c.float(2)
		if err != nil {
			return nil, err
		}
		if normal {
			if !(b >= 0) {
				return nil, c.errf("std is %g; want std >= 0", b)
			}
			return c.b().emit1(c.scope, &canon.RandomNormalLike{Mean: float32(a), Scale: float32(b), DType: dt}, x)
		}
		if !(a <= b) {
			return nil, c.errf("from %g and to %g: want from <= to", a, b)
		}
		return c.b().emit1(c.scope, &canon.RandomUniformLike{Low: float32(a), High: float32(b), DType: dt}, x)
	}
}
