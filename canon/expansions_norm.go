package canon

// Decompose of the normalizations ONNX defines by function bodies
// (LayerNormalization, RMSNormalization, GroupNormalization): statistics
// in the op's stash type, the input cast to it and the result cast back,
// as those bodies compute them.

// rankOf is input slot i's rank, or -1 when unknown.
func (e *Expander) rankOf(i int) int {
	if i < len(e.In) && e.In[i].RankKnown {
		return len(e.In[i].Shape)
	}
	return -1
}

// stashed is the node's input 0 in the stash dtype (cast when it differs
// from the input's; the input's own dtype when that is unknown) and that
// dtype.
func (e *Expander) stashed(stash DType) (string, DType) {
	x, dt := e.Input(0), e.DType(0)
	if dt == Undefined || dt == stash {
		return x, dt
	}
	return e.Op(&Cast{To: stash}, x), stash
}

// back casts v, computed in dtype work, to the input's dtype.
func (e *Expander) back(v string, work DType) string {
	if dt := e.DType(0); dt != work && dt != Undefined {
		return e.Op(&Cast{To: dt}, v)
	}
	return v
}

// standardized holds the values of (x - mean) / sqrt(var + eps).
type standardized struct {
	y, mean, std string
}

// standardize writes (x - mean) / sqrt(var + eps) over axes (kept), the
// mean written into meanOut when it is given.
func (e *Expander) standardize(x string, dt DType, axes []int64, eps float32, meanOut string) standardized {
	mean := e.Add(&Reduce{Fn: ReduceMean, Axes: axes, KeepDims: true}, []string{x}, meanOut)[0]
	dev := e.Op(&Binary{Fn: Sub}, x, mean)
	variance := e.Op(&Reduce{Fn: ReduceMean, Axes: axes, KeepDims: true}, e.Op(&Binary{Fn: Mul}, dev, dev))
	std := e.Op(&Math{Fn: MathSqrt}, e.Op(&Binary{Fn: Add}, variance, e.Scalar(dt, float64(eps))))
	return standardized{y: e.Op(&Binary{Fn: Div}, dev, std), mean: mean, std: std}
}

// scaleShift writes y·scale + bias (bias may be absent) into out.
func (e *Expander) scaleShift(y, scale, bias, out string) {
	if bias == "" {
		e.Add(&Binary{Fn: Mul}, []string{y, scale}, out)
		return
	}
	e.Add(&Binary{Fn: Add}, []string{e.Op(&Binary{Fn: Mul}, y, scale), bias}, out)
}

// trailingAxes are the axes from axis (negative counts from the end) to
// the last of input 0.
func (e *Expander) trailingAxes(axis int64) ([]int64, error) {
	r := e.rankOf(0)
	if r < 0 {
		return nil, e.Errorf("the expansion needs the rank of input %q, which is unknown; give the inputs full shapes", e.Input(0))
	}
	a, ok := normAxis(axis, r)
	if !ok {
		return nil, e.Errorf("axis %d is out of range for rank %d", axis, r)
	}
	return NormalizedAxes(a, r), nil
}

// layerNormExpand writes LayerNormalization: standardize over the
// trailing axes, then scale and shift; Mean and InvStdDev (1/std) when
// the node has those outputs.
func layerNormExpand(e *Expander) error {
	op := e.Node.Op.(*LayerNorm)
	axes, err := e.trailingAxes(op.Axis)
	if err != nil {
		return err
	}
	if !e.DType(0).IsFloat() && e.DType(0) != Undefined {
		return e.Errorf("needs floating-point input; %q is %s", e.Input(0), e.DType(0))
	}
	x, work := e.stashed(op.Stash)
	s := e.standardize(x, work, axes, op.Epsilon, e.Output(1))
	if inv := e.Output(2); inv != "" {
		e.Add(&Math{Fn: MathReciprocal}, []string{s.std}, inv)
	}
	e.scaleShift(e.back(s.y, work), e.Input(1), e.Input(2), e.Output(0))
	return nil
}

// rmsNormExpand writes RMSNormalization: x / sqrt(mean(x²) + eps) over
// the trailing axes, times scale.
func rmsNormExpand(e *Expander) error {
	op := e.Node.Op.(*RMSNorm)
	axes, err := e.trailingAxes(op.Axis)
	if err != nil {
		return err
	}
	if !e.DType(0).IsFloat() && e.DType(0) != Undefined {
		return e.Errorf("needs floating-point input; %q is %s", e.Input(0), e.DType(0))
	}
	x, work := e.stashed(op.Stash)
	ms := e.Op(&Reduce{Fn: ReduceMean, Axes: axes, KeepDims: true}, e.Op(&Binary{Fn: Mul}, x, x))
	rms := e.Op(&Math{Fn: MathSqrt}, e.Op(&Binary{Fn: Add}, ms, e.Scalar(work, float64(op.Epsilon))))
	y := e.back(e.Op(&Binary{Fn: Div}, x, rms), work)
	e.Add(&Binary{Fn: Mul}, []string{y, e.Input(1)}, e.Output(0))
	return nil
}

// groupNormExpand writes GroupNormalization: Reshape to (N, groups, -1),
// standardize over the last axis, Reshape back to the input's shape, then
// the per-channel scale and bias as (C, 1, ..., 1) columns.
func groupNormExpand(e *Expander) error {
	op := e.Node.Op.(*GroupNorm)
	r := e.rankOf(0)
	if r < 2 {
		return e.Errorf("the expansion needs input %q's rank (at least 2), which is unknown; give the inputs full shapes", e.Input(0))
	}
	if !e.DType(0).IsFloat() && e.DType(0) != Undefined {
		return e.Errorf("needs floating-point input; %q is %s", e.Input(0), e.DType(0))
	}
	x, work := e.stashed(op.Stash)
	grouped := e.Op(&Reshape{Shape: []int64{0, op.NumGroups, -1}}, x)
	s := e.standardize(grouped, work, []int64{2}, op.Epsilon, "")
	shape := e.Op(NewShapeOf(), e.Input(0))
	y := e.Op(&Reshape{}, e.back(s.y, work), shape)
	column := make([]int64, r-1)
	column[0] = -1
	for i := 1; i < len(column); i++ {
		column[i] = 1
	}
	scale := e.Op(&Reshape{Shape: column}, e.Input(1))
	bias := e.Op(&Reshape{Shape: column}, e.Input(2))
	e.scaleShift(y, scale, bias, e.Output(0))
	return nil
}
