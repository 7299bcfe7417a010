package canon

import "math"

// Inference for ops whose parameters may arrive as run-time inputs (Clip,
// Pad, Slice, Split, Squeeze, Unsqueeze, Resize). When the input's content
// is known (an initializer, a Constant, shape arithmetic) the parameter is
// substituted into a copy of the op and inferred exactly as the attribute
// form; otherwise the output keeps what can be known without the value.

// paramInts checks run-time integer parameter input i (a 1-D i64 tensor)
// and returns its value when known before run time.
func (c *InferCtx) paramInts(i int, what string) ([]int64, bool, error) {
	p := c.in[i]
	if p.DType != Undefined && p.DType != Int64 && p.DType != Int32 {
		return nil, false, c.errf("%s input %q is %s, want i64", what, c.n.Inputs[i], p.DType)
	}
	if p.RankKnown && len(p.Shape) != 1 {
		return nil, false, c.errf("%s input %q has shape %s, want a 1-D tensor", what, c.n.Inputs[i], fmtShape(p))
	}
	if p.Const == nil {
		return nil, false, nil
	}
	v, err := p.Const.Int64s()
	if err != nil {
		return nil, false, c.errf("%s input %q: %v", what, c.n.Inputs[i], err)
	}
	if v == nil {
		v = []int64{}
	}
	return v, true, nil
}

// paramLen is the entry count of 1-D parameter input i, or -1 when unknown.
func (c *InferCtx) paramLen(i int) int64 {
	p := c.in[i]
	if !p.RankKnown || len(p.Shape) != 1 || !p.Shape[0].Known() {
		return -1
	}
	return p.Shape[0].Size
}

// checkEffective validates the attributes of op, an effective copy of the
// node's op with known run-time parameters filled in.
func (c *InferCtx) checkEffective(op Op) error {
	return checkAttrs(&Node{Name: c.n.Name, Op: op, Inputs: c.n.Inputs[:1], Outputs: c.n.Outputs})
}

// scalarParam checks that run-time input i is a one-element tensor of X's
// dtype (Clip bounds, Pad's fill value).
func (c *InferCtx) scalarParam(i int, what string) error {
	if !c.present(i) {
		return nil
	}
	if err := c.sameDType(0, i); err != nil {
		return err
	}
	p := c.in[i]
	if s, ok := p.StaticShape(); ok && NumElements(s) != 1 {
		return c.errf("%s input %q has shape %s, want a scalar", what, c.n.Inputs[i], fmtShape(p))
	}
	return nil
}

func (c *InferCtx) clip() (ValueInfo, error) {
	if err := c.scalarParam(1, "Min"); err != nil {
		return ValueInfo{}, err
	}
	if err := c.scalarParam(2, "Max"); err != nil {
		return ValueInfo{}, err
	}
	return c.elementwise()
}

func (c *InferCtx) dynPad(op *Pad) (ValueInfo, error) {
	if err := c.scalarParam(2, "Value"); err != nil {
		return ValueInfo{}, err
	}
	if !c.present(1) {
		return c.pad(op)
	}
	if c.present(3) {
		return c.padRunTimeAxes()
	}
	x := c.in[0]
	pads, known, err := c.paramInts(1, "Pads")
	if err != nil {
		return ValueInfo{}, err
	}
	axes := op.Axes
	if x.RankKnown && axes != nil {
		if axes, err = c.normAxesList(op.Axes, len(x.Shape)); err != nil {
			return ValueInfo{}, err
		}
	}
	want := int64(-1) // expected entry count of the Pads input
	switch {
	case axes != nil:
		want = 2 * int64(len(axes))
	case x.RankKnown:
		want = 2 * int64(len(x.Shape))
	}
	n := c.paramLen(1)
	if known {
		n = int64(len(pads))
	}
	if n >= 0 && want >= 0 && n != want {
		return ValueInfo{}, c.errf("Pads input %q has %d entries, want %d (begin and end pads for each of %s)", c.n.Inputs[1], n, want, c.padAxesWord(axes))
	}
	if n >= 0 && n%2 != 0 {
		return ValueInfo{}, c.errf("Pads input %q has %d entries, want an even count (begins then ends)", c.n.Inputs[1], n)
	}
	if !x.RankKnown {
		if axes == nil && n >= 0 {
			return shaped(x.DType, unknownDims(int(n/2))), nil
		}
		return ValueInfo{DType: x.DType}, nil
	}
	r := len(x.Shape)
	if !known {
		out := cloneDims(x.Shape)
		for i := range out {
			if axes == nil || containsInt64(axes, int64(i)) {
				out[i] = unknownDim
			}
		}
		return shaped(x.DType, out), nil
	}
	eff := *op
	eff.Axes = nil
	half := len(pads) / 2
	if axes == nil {
		eff.PadsBegin, eff.PadsEnd = pads[:half], pads[half:]
	} else {
		eff.PadsBegin, eff.PadsEnd = make([]int64, r), make([]int64, r)
		for i, a := range axes {
			eff.PadsBegin[a], eff.PadsEnd[a] = pads[i], pads[half+i]
		}
	}
	if err := c.checkEffective(&eff); err != nil {
		return ValueInfo{}, err
	}
	return c.pad(&eff)
}

func (c *InferCtx) padAxesWord(axes []int64) string {
	if axes == nil {
		return "every axis of input X"
	}
	return "the Axes attribute"
}

// normAxesList normalizes axes against rank r, refusing repeats.
func (c *InferCtx) normAxesList(axes []int64, r int) ([]int64, error) {
	out := make([]int64, len(axes))
	for i, a := range axes {
		ax, ok := normAxis(a, r)
		if !ok {
			return nil, c.errf("axis %d is out of range for input X of rank %d", a, r)
		}
		if containsInt64(out[:i], int64(ax)) {
			return nil, c.errf("axis %d is listed twice in Axes %v", ax, axes)
		}
		out[i] = int64(ax)
	}
	return out, nil
}

func containsInt64(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func (c *InferCtx) dynSlice(op *Slice) (ValueInfo, error) {
	eff := *op
	fields := []*[]int64{&eff.Starts, &eff.Ends, &eff.Axes, &eff.Steps}
	names := []string{"Starts", "Ends", "Axes", "Steps"}
	allKnown := true
	count := int64(-1) // how many axes are sliced, when known
	for i, f := range fields {
		if !c.present(i + 1) {
			if *f != nil || i < 2 {
				count = int64(len(*f))
			}
			continue
		}
		v, known, err := c.paramInts(i+1, names[i])
		if err != nil {
			return ValueInfo{}, err
		}
		if known {
			*f = v
			count = int64(len(v))
		} else {
			allKnown = false
			if n := c.paramLen(i + 1); n >= 0 {
				count = n
			}
		}
	}
	if allKnown {
		if err := c.checkEffective(&eff); err != nil {
			return ValueInfo{}, err
		}
		return c.slice(&eff)
	}
	x := c.in[0]
	if !x.RankKnown {
		return ValueInfo{DType: x.DType}, nil
	}
	r := len(x.Shape)
	out := cloneDims(x.Shape)
	axesKnown := !c.present(3) || eff.Axes != nil
	switch {
	case axesKnown && eff.Axes != nil:
		axes, err := c.normAxesList(eff.Axes, r)
		if err != nil {
			return ValueInfo{}, err
		}
		for _, a := range axes {
			out[a] = unknownDim
		}
	case axesKnown && count >= 0 && count <= int64(r):
		for i := 0; i < int(count); i++ { // the leading axes
			out[i] = unknownDim
		}
	default:
		out = unknownDims(r)
	}
	return shaped(x.DType, out), nil
}

func (c *InferCtx) dynSplit(op *Split) ([]ValueInfo, error) {
	if !c.present(1) {
		return c.split(op)
	}
	sizes, known, err := c.paramInts(1, "Sizes")
	if err != nil {
		return nil, err
	}
	if known {
		eff := *op
		eff.Sizes = sizes
		if err := c.checkEffective(&eff); err != nil {
			return nil, err
		}
		return c.split(&eff)
	}
	if n := c.paramLen(1); n >= 0 && n != int64(len(c.n.Outputs)) {
		return nil, c.errf("has %d outputs but the Sizes input %q has %d entries", len(c.n.Outputs), c.n.Inputs[1], n)
	}
	x := c.in[0]
	outs := make([]ValueInfo, len(c.n.Outputs))
	if !x.RankKnown {
		for i := range outs {
			outs[i] = ValueInfo{DType: x.DType}
		}
		return outs, nil
	}
	axis, ok := normAxis(op.Axis, len(x.Shape))
	if !ok {
		return nil, c.errf("axis %d is out of range for input X of shape %s", op.Axis, fmtShape(x))
	}
	for i := range outs {
		dims := cloneDims(x.Shape)
		dims[axis] = unknownDim
		outs[i] = shaped(x.DType, dims)
	}
	return outs, nil
}

func (c *InferCtx) dynSqueeze(op *Squeeze) (ValueInfo, error) {
	if !c.present(1) {
		return c.squeeze(op)
	}
	axes, known, err := c.paramInts(1, "Axes")
	if err != nil {
		return ValueInfo{}, err
	}
	if !known {
		return ValueInfo{DType: c.in[0].DType}, nil
	}
	eff := *op
	eff.Axes = axes
	if len(axes) == 0 {
		eff.Axes = nil // an empty list squeezes every size-1 axis
	}
	return c.squeeze(&eff)
}

func (c *InferCtx) dynUnsqueeze(op *Unsqueeze) (ValueInfo, error) {
	if !c.present(1) {
		return c.unsqueeze(op)
	}
	axes, known, err := c.paramInts(1, "Axes")
	if err != nil {
		return ValueInfo{}, err
	}
	x := c.in[0]
	if !known {
		if n := c.paramLen(1); n >= 0 && x.RankKnown {
			return shaped(x.DType, unknownDims(len(x.Shape)+int(n))), nil
		}
		return ValueInfo{DType: x.DType}, nil
	}
	eff := *op
	eff.Axes = axes
	return c.unsqueeze(&eff)
}

func (c *InferCtx) dynResize(op *Resize) (ValueInfo, error) {
	x := c.in[0]
	eff := *op
	if c.present(3) {
		// A run-time roi moves no output size; a constant one is checked.
		if p := c.in[3]; p.Const != nil {
			v, err := p.Const.Float64s()
			if err != nil {
				return ValueInfo{}, c.errf("Roi input %q: %v", c.n.Inputs[3], err)
			}
			eff.Roi = make([]float32, len(v))
			for i, s := range v {
				eff.Roi[i] = float32(s)
			}
		}
	}
	known := true
	n := int64(-1)
	switch {
	case c.present(1):
		p := c.in[1]
		if p.DType != Undefined && !p.DType.IsFloat() {
			return ValueInfo{}, c.errf("Scales input %q is %s, want f32", c.n.Inputs[1], p.DType)
		}
		if p.RankKnown && len(p.Shape) != 1 {
			return ValueInfo{}, c.errf("Scales input %q has shape %s, want a 1-D tensor", c.n.Inputs[1], fmtShape(p))
		}
		n = c.paramLen(1)
		if p.Const == nil {
			known = false
			break
		}
		v, err := p.Const.Float64s()
		if err != nil {
			return ValueInfo{}, c.errf("Scales input %q: %v", c.n.Inputs[1], err)
		}
		eff.Scales = make([]float32, len(v))
		for i, s := range v {
			eff.Scales[i] = float32(s)
		}
	case c.present(2):
		v, ok, err := c.paramInts(2, "Sizes")
		if err != nil {
			return ValueInfo{}, err
		}
		n = c.paramLen(2)
		known = ok
		eff.Sizes = v
	default:
		return c.resize(&eff)
	}
	if known {
		if err := c.checkEffective(&eff); err != nil {
			return ValueInfo{}, err
		}
		return c.resize(&eff)
	}
	if !x.RankKnown {
		if n >= 0 && n <= math.MaxInt32 {
			return shaped(x.DType, unknownDims(int(n))), nil
		}
		return ValueInfo{DType: x.DType}, nil
	}
	want := int64(len(x.Shape))
	if op.Axes != nil {
		want = int64(len(op.Axes))
	}
	if n >= 0 && n != want {
		return ValueInfo{}, c.errf("has %d scales/sizes but input X has shape %s; want one per resized axis", n, fmtShape(x))
	}
	out := unknownDims(len(x.Shape))
	if axes, err := op.ResizeAxes(len(x.Shape)); err == nil && op.Axes != nil {
		// Axes not resized keep their size.
		copy(out, x.Shape)
		for _, a := range axes {
			out[a] = unknownDim
		}
	}
	return shaped(x.DType, out), nil
}

// padRunTimeAxes infers a Pad whose Axes arrive at run time: any axis may
// change size, so only the rank is known.
func (c *InferCtx) padRunTimeAxes() (ValueInfo, error) {
	x := c.in[0]
	if _, _, err := c.paramInts(3, "Axes"); err != nil {
		return ValueInfo{}, err
	}
	if a, p := c.paramLen(3), c.paramLen(1); a >= 0 && p >= 0 && p != 2*a {
		return ValueInfo{}, c.errf("Pads input %q has %d entries, want %d (begin and end pads for each of the %d run-time axes)", c.n.Inputs[1], p, 2*a, a)
	}
	if !x.RankKnown {
		return ValueInfo{DType: x.DType}, nil
	}
	return shaped(x.DType, unknownDims(len(x.Shape))), nil
}
