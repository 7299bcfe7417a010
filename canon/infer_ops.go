package canon

import (
	"fmt"
)

// InferCtx carries one node and its input types through an op's inference.
type InferCtx struct {
	n  *Node
	in []ValueInfo
}

func (c *InferCtx) errf(format string, args ...any) error {
	return nodeErrorf(c.n, format, args...)
}

// present reports whether optional input i is given.
func (c *InferCtx) present(i int) bool {
	return i < len(c.n.Inputs) && c.n.Inputs[i] != ""
}

// slot names input i by its signature slot, e.g. "input X" or "W".
func (c *InferCtx) slot(i int) string {
	specs := c.n.Op.Signature().Inputs
	switch {
	case len(specs) == 0:
		return fmt.Sprintf("input %d", i)
	case i < len(specs) && !specs[i].Variadic:
		if i == 0 {
			return "input " + specs[i].Name
		}
		return specs[i].Name
	}
	return fmt.Sprintf("input %d", i)
}

// outName is the name of output i, used to name computed constants.
func (c *InferCtx) outName(i int) string {
	if i < len(c.n.Outputs) {
		return c.n.Outputs[i]
	}
	return ""
}

// needRank fails unless input i has the given rank (or an unknown rank).
func (c *InferCtx) needRank(i, rank int, why string) error {
	v := c.in[i]
	if v.RankKnown && len(v.Shape) != rank {
		return c.errf("%s has rank %d (shape %s), %s needs rank %d", c.slot(i), len(v.Shape), fmtShape(v), why, rank)
	}
	return nil
}

// sameDType fails when two inputs have different known dtypes.
func (c *InferCtx) sameDType(i, j int) error {
	a, b := c.in[i].DType, c.in[j].DType
	if a != Undefined && b != Undefined && a != b {
		return c.errf("%s is %s but %s is %s; %s needs equal types", c.slot(i), a, c.slot(j), b, opKind(c.n.Op))
	}
	return nil
}

func (c *InferCtx) overflow(what string) error {
	return c.errf("%s overflows int64", what)
}

func one(v ValueInfo, err error) ([]ValueInfo, error) {
	if err != nil {
		return nil, err
	}
	return []ValueInfo{v}, nil
}

// infer runs the op's own inference from the registry.
func (c *InferCtx) infer() ([]ValueInfo, error) {
	d := DefOf(c.n.Op)
	if d == nil {
		return nil, c.errf("no shape inference for op kind %s (%T): it is not a registered canonical op", opKind(c.n.Op), c.n.Op)
	}
	if err := c.checkTensorInputs(); err != nil {
		return nil, err
	}
	return d.Infer(c)
}

// Node is the node being inferred.
func (c *InferCtx) Node() *Node { return c.n }

// In is the type of input i (the zero ValueInfo for an absent input).
func (c *InferCtx) In(i int) ValueInfo {
	if i < len(c.in) {
		return c.in[i]
	}
	return ValueInfo{}
}

// Errorf is an error naming the node.
func (c *InferCtx) Errorf(format string, args ...any) error { return c.errf(format, args...) }

// SameAsInput is the type of an op whose single output has input i's dtype
// and shape.
func (c *InferCtx) SameAsInput(i int) ([]ValueInfo, error) {
	x := c.In(i)
	return []ValueInfo{{DType: x.DType, Shape: cloneDims(x.Shape), RankKnown: x.RankKnown}}, nil
}

// ---- convolutions and pooling ----

// spatialRank decides how many spatial axes a conv-like node has: from the
// weight's rank, else the data's, else the attributes.
func (c *InferCtx) spatialRank(attrLen int, w int) int {
	if w >= 0 && c.in[w].RankKnown {
		return len(c.in[w].Shape) - 2
	}
	if c.in[0].RankKnown {
		return len(c.in[0].Shape) - 2
	}
	return attrLen
}

// checkSpatialAttrs requires every per-axis attribute to have ns entries:
// canonical attributes are explicit, so a missing one is an importer bug.
func (c *InferCtx) checkSpatialAttrs(ns int, attrs ...namedInts) error {
	if ns < 1 {
		return c.errf("needs at least 1 spatial axis; input X has shape %s%s", fmtShape(c.in[0]), c.weightShape())
	}
	for _, a := range attrs {
		if len(a.v) != ns {
			return c.errf("%s has %d values %v, want %d (one per spatial axis)", a.name, len(a.v), a.v, ns)
		}
	}
	return nil
}

// weightShape describes input W for errors about conv-like nodes.
func (c *InferCtx) weightShape() string {
	switch c.n.Op.(type) {
	case *Conv, *ConvTranspose:
		if len(c.in) > 1 && c.in[1].RankKnown {
			return ", W has shape " + fmtShape(c.in[1])
		}
	}
	return ""
}

type namedInts struct {
	name string
	v    []int64
}

func (c *InferCtx) conv(op *Conv) (ValueInfo, error) {
	x, w := c.in[0], c.in[1]
	ns := c.spatialRank(len(op.Strides), 1)
	if err := c.checkSpatialAttrs(ns, namedInts{"Strides", op.Strides}, namedInts{"Dilations", op.Dilations},
		namedInts{"PadsBegin", op.PadsBegin}, namedInts{"PadsEnd", op.PadsEnd}); err != nil {
		return ValueInfo{}, err
	}
	if err := c.needRank(0, ns+2, fmt.Sprintf("a Conv with %d spatial axes", ns)); err != nil {
		return ValueInfo{}, err
	}
	if err := c.sameDType(0, 1); err != nil {
		return ValueInfo{}, err
	}
	g := op.Group
	cin, cout, wi := dimAt(x, 1), dimAt(w, 0), dimAt(w, 1)
	if cin.Known() && wi.Known() {
		var a arith
		want := a.mul(wi.Size, g)
		if a.overflow {
			return ValueInfo{}, c.overflow(fmt.Sprintf("W input channels %d * group %d", wi.Size, g))
		}
		if cin.Size != want {
			return ValueInfo{}, c.errf("input X has %d channels but W expects %d (W shape %s, group %d)", cin.Size, want, fmtShape(w), g)
		}
	}
	if cin.Known() && cin.Size%g != 0 {
		return ValueInfo{}, c.errf("input X has %d channels, not divisible by group %d", cin.Size, g)
	}
	if cout.Known() && cout.Size%g != 0 {
		return ValueInfo{}, c.errf("W has %d output channels (W shape %s), not divisible by group %d", cout.Size, fmtShape(w), g)
	}
	if err := c.checkBias(2, cout); err != nil {
		return ValueInfo{}, err
	}
	out := make([]Dim, ns+2)
	out[0], out[1] = dimAt(x, 0), cout
	for i := 0; i < ns; i++ {
		d, err := c.convAxis(i, dimAt(x, 2+i), dimAt(w, 2+i), op.Strides[i], op.Dilations[i], op.PadsBegin[i], op.PadsEnd[i], false)
		if err != nil {
			return ValueInfo{}, err
		}
		out[2+i] = d
	}
	return shaped(x.DType, out), nil
}

func (c *InferCtx) convTranspose(op *ConvTranspose) (ValueInfo, error) {
	x, w := c.in[0], c.in[1]
	ns := c.spatialRank(len(op.Strides), 1)
	if err := c.checkSpatialAttrs(ns, namedInts{"Strides", op.Strides}, namedInts{"Dilations", op.Dilations},
		namedInts{"PadsBegin", op.PadsBegin}, namedInts{"PadsEnd", op.PadsEnd}, namedInts{"OutputPadding", op.OutputPadding}); err != nil {
		return ValueInfo{}, err
	}
	if err := c.needRank(0, ns+2, fmt.Sprintf("a ConvTranspose with %d spatial axes", ns)); err != nil {
		return ValueInfo{}, err
	}
	if err := c.sameDType(0, 1); err != nil {
		return ValueInfo{}, err
	}
	g := op.Group
	cin, wi, wo := dimAt(x, 1), dimAt(w, 0), dimAt(w, 1)
	if cin.Known() && cin.Size%g != 0 {
		return ValueInfo{}, c.errf("input X has %d channels, not divisible by group %d", cin.Size, g)
	}
	if cin.Known() && wi.Known() && cin.Size != wi.Size {
		return ValueInfo{}, c.errf("input X has %d channels but W expects %d (W shape %s in layout IO..., group %d)", cin.Size, wi.Size, fmtShape(w), g)
	}
	cout := unknownDim
	if wo.Known() {
		var a arith
		cout = knownDim(a.mul(wo.Size, g))
		if a.overflow {
			return ValueInfo{}, c.overflow(fmt.Sprintf("output channels %d*%d", wo.Size, g))
		}
	}
	if err := c.checkBias(2, cout); err != nil {
		return ValueInfo{}, err
	}
	out := make([]Dim, ns+2)
	out[0], out[1] = dimAt(x, 0), cout
	for i := 0; i < ns; i++ {
		in, k := dimAt(x, 2+i), dimAt(w, 2+i)
		if !in.Known() || !k.Known() {
			out[2+i] = unknownDim
			continue
		}
		if in.Size < 1 || k.Size < 1 {
			return ValueInfo{}, c.errf("spatial axis %d: input size %d and kernel size %d must be >= 1", i, in.Size, k.Size)
		}
		var a arith
		ek := a.add(a.mul(k.Size-1, op.Dilations[i]), 1)
		full := a.add(a.add(a.mul(op.Strides[i], in.Size-1), op.OutputPadding[i]), ek)
		size := a.sub(a.sub(full, op.PadsBegin[i]), op.PadsEnd[i])
		if a.overflow {
			return ValueInfo{}, c.overflow(fmt.Sprintf("spatial axis %d output size", i))
		}
		if size < 1 {
			return ValueInfo{}, c.errf("spatial axis %d: pads %d+%d crop the whole output of size %d", i, op.PadsBegin[i], op.PadsEnd[i], full)
		}
		out[2+i] = knownDim(size)
	}
	return shaped(x.DType, out), nil
}

// checkBias checks the optional bias input i against the output channels.
func (c *InferCtx) checkBias(i int, cout Dim) error {
	if !c.present(i) {
		return nil
	}
	b := c.in[i]
	if !b.RankKnown {
		return nil
	}
	if len(b.Shape) != 1 {
		return c.errf("bias B has shape %s, want a vector of %d output channels", fmtShape(b), cout.Size)
	}
	if d := b.Shape[0]; d.Known() && cout.Known() && d.Size != cout.Size {
		return c.errf("bias B has %d entries but the node has %d output channels", d.Size, cout.Size)
	}
	return nil
}

// convAxis is the output size of one spatial axis of a convolution or pool:
// floor((in + pb + pe - ((k-1)*d+1)) / s) + 1, or with ceil the last window
// kept only if it starts inside the input or the left padding (ONNX and
// PyTorch agree on that rule).
func (c *InferCtx) convAxis(i int, in, k Dim, s, d, pb, pe int64, ceil bool) (Dim, error) {
	if !in.Known() || !k.Known() {
		return unknownDim, nil
	}
	if k.Size < 1 {
		return Dim{}, c.errf("spatial axis %d: kernel size %d must be >= 1", i, k.Size)
	}
	var a arith
	ek := a.add(a.mul(k.Size-1, d), 1)
	padded := a.add(a.add(in.Size, pb), pe)
	span := a.sub(padded, ek)
	if a.overflow {
		return Dim{}, c.overflow(fmt.Sprintf("spatial axis %d window arithmetic", i))
	}
	if span < 0 {
		return Dim{}, c.errf("spatial axis %d: kernel %d (dilation %d, effective %d) is larger than the padded input %d (%d + pads %d+%d)",
			i, k.Size, d, ek, padded, in.Size, pb, pe)
	}
	out := span/s + 1
	if ceil && span%s != 0 {
		out++
		if last := a.mul(out-1, s); a.overflow || last >= in.Size+pb {
			out--
		}
	}
	return knownDim(out), nil
}

func (c *InferCtx) pool(kernel, strides, dils, pb, pe []int64, ceil bool) (ValueInfo, error) {
	x := c.in[0]
	ns := c.spatialRank(len(kernel), -1)
	if err := c.checkSpatialAttrs(ns, namedInts{"Kernel", kernel}, namedInts{"Strides", strides}, namedInts{"Dilations", dils},
		namedInts{"PadsBegin", pb}, namedInts{"PadsEnd", pe}); err != nil {
		return ValueInfo{}, err
	}
	out := make([]Dim, ns+2)
	out[0], out[1] = dimAt(x, 0), dimAt(x, 1)
	for i := 0; i < ns; i++ {
		d, err := c.convAxis(i, dimAt(x, 2+i), knownDim(kernel[i]), strides[i], dils[i], pb[i], pe[i], ceil)
		if err != nil {
			return ValueInfo{}, err
		}
		out[2+i] = d
	}
	return shaped(x.DType, out), nil
}

func (c *InferCtx) globalPool() (ValueInfo, error) {
	x := c.in[0]
	if !x.RankKnown {
		return ValueInfo{DType: x.DType}, nil
	}
	if len(x.Shape) < 2 {
		return ValueInfo{}, c.errf("input X has shape %s, needs (N, C, spatial...)", fmtShape(x))
	}
	out := cloneDims(x.Shape)
	for i := 2; i < len(out); i++ {
		out[i] = knownDim(1)
	}
	return shaped(x.DType, out), nil
}

// ---- normalization and dense layers ----

func (c *InferCtx) batchNorm() (ValueInfo, error) {
	x := c.in[0]
	if x.RankKnown && len(x.Shape) < 2 {
		return ValueInfo{}, c.errf("input X has shape %s, needs (N, C, ...)", fmtShape(x))
	}
	ch := dimAt(x, 1)
	for i := 1; i < len(c.in); i++ {
		p := c.in[i]
		if !p.RankKnown {
			continue
		}
		if len(p.Shape) != 1 {
			return ValueInfo{}, c.errf("%s %q has shape %s, want a vector of %s channels", c.slot(i), c.n.Inputs[i], fmtShape(p), fmtDims([]Dim{ch}))
		}
		if d := p.Shape[0]; d.Known() && ch.Known() && d.Size != ch.Size {
			return ValueInfo{}, c.errf("%s %q has %d entries but input X has %d channels", c.slot(i), c.n.Inputs[i], d.Size, ch.Size)
		}
	}
	return ValueInfo{DType: x.DType, Shape: cloneDims(x.Shape), RankKnown: x.RankKnown}, nil
}

func (c *InferCtx) linear() (ValueInfo, error) {
	a, w := c.in[0], c.in[1]
	if err := c.needRank(0, 2, "Linear"); err != nil {
		return ValueInfo{}, err
	}
	if err := c.needRank(1, 2, "Linear"); err != nil {
		return ValueInfo{}, err
	}
	if err := c.sameDType(0, 1); err != nil {
		return ValueInfo{}, err
	}
	k1, k2 := dimAt(a, 1), dimAt(w, 1)
	if k1.Known() && k2.Known() && k1.Size != k2.Size {
		return ValueInfo{}, c.errf("input A %s has %d features but W %s (layout OI) expects %d", fmtShape(a), k1.Size, fmtShape(w), k2.Size)
	}
	out := []Dim{dimAt(a, 0), dimAt(w, 0)}
	if c.present(2) && c.in[2].RankKnown {
		cv := c.in[2]
		if len(cv.Shape) > 2 {
			return ValueInfo{}, c.errf("C has shape %s, which does not broadcast to (M, N) = %s", fmtShape(cv), fmtDims(out))
		}
		for j := range cv.Shape {
			d, t := cv.Shape[len(cv.Shape)-1-j], out[1-j]
			if d.Known() && t.Known() && d.Size != 1 && d.Size != t.Size {
				return ValueInfo{}, c.errf("C has shape %s, which does not broadcast to (M, N) = %s", fmtShape(cv), fmtDims(out))
			}
		}
	}
	return shaped(a.DType, out), nil
}

func (c *InferCtx) matMul() (ValueInfo, error) {
	a, b := c.in[0], c.in[1]
	if err := c.sameDType(0, 1); err != nil {
		return ValueInfo{}, err
	}
	if !a.RankKnown || !b.RankKnown {
		return ValueInfo{DType: a.DType}, nil
	}
	if len(a.Shape) == 0 || len(b.Shape) == 0 {
		return ValueInfo{}, c.errf("inputs A %s and B %s must have rank >= 1", fmtShape(a), fmtShape(b))
	}
	as, bs := cloneDims(a.Shape), cloneDims(b.Shape)
	if len(as) == 1 { // a vector is a row: (1, K)
		as = []Dim{knownDim(1), as[0]}
	}
	if len(bs) == 1 { // a vector is a column: (K, 1)
		bs = []Dim{bs[0], knownDim(1)}
	}
	ka, kb := as[len(as)-1], bs[len(bs)-2]
	if ka.Known() && kb.Known() && ka.Size != kb.Size {
		return ValueInfo{}, c.errf("inputs A %s and B %s: inner dimensions %d and %d differ", fmtShape(a), fmtShape(b), ka.Size, kb.Size)
	}
	batch, ax, ok := broadcastDims(as[:len(as)-2], bs[:len(bs)-2])
	if !ok {
		return ValueInfo{}, c.errf("inputs A %s and B %s: batch dimensions cannot be broadcast (axis %d)", fmtShape(a), fmtShape(b), ax)
	}
	out := batch
	if len(a.Shape) > 1 {
		out = append(out, as[len(as)-2])
	}
	if len(b.Shape) > 1 {
		out = append(out, bs[len(bs)-1])
	}
	if out == nil {
		out = []Dim{}
	}
	return shaped(a.DType, out), nil
}

// ---- elementwise ----

// broadcastDims applies NumPy broadcasting. An unknown dim against 1 stays
// unknown; against a known d != 1 it must be d. On a mismatch it returns the
// offending axis counted from the end (-1 is the last).
func broadcastDims(a, b []Dim) ([]Dim, int, bool) {
	n := max(len(a), len(b))
	out := make([]Dim, n)
	for i := 1; i <= n; i++ {
		da, db := knownDim(1), knownDim(1)
		if i <= len(a) {
			da = a[len(a)-i]
		}
		if i <= len(b) {
			db = b[len(b)-i]
		}
		var d Dim
		switch {
		case da.Known() && db.Known():
			switch {
			case da.Size == db.Size || db.Size == 1:
				d = da
			case da.Size == 1:
				d = db
			default:
				return nil, -i, false
			}
		case da.Known():
			d = da
			if da.Size == 1 {
				d = Dim{Size: -1, Param: db.Param}
			}
		case db.Known():
			d = db
			if db.Size == 1 {
				d = Dim{Size: -1, Param: da.Param}
			}
		default:
			d = unknownDim
			if da.Param != "" && da.Param == db.Param {
				d.Param = da.Param
			}
		}
		out[n-i] = d
	}
	return out, 0, true
}

func (c *InferCtx) binary(op *Binary) (ValueInfo, error) {
	a, b := c.in[0], c.in[1]
	if err := c.sameDType(0, 1); err != nil {
		return ValueInfo{}, err
	}
	dt := a.DType
	if dt == Undefined {
		dt = b.DType
	}
	if !a.RankKnown || !b.RankKnown {
		return ValueInfo{DType: dt}, nil
	}
	out, ax, ok := broadcastDims(a.Shape, b.Shape)
	if !ok {
		return ValueInfo{}, c.errf("inputs A %q %s and B %q %s cannot be broadcast: axis %d has %s vs %s",
			c.n.Inputs[0], fmtShape(a), c.n.Inputs[1], fmtShape(b), ax, fmtDims([]Dim{dimFromEnd(a.Shape, ax)}), fmtDims([]Dim{dimFromEnd(b.Shape, ax)}))
	}
	v := shaped(dt, out)
	if ac, bc := constOf(a), constOf(b); ac != nil && bc != nil && ac.DType == bc.DType {
		t, err := c.binaryConst(op.Fn, ac, bc, out)
		if err != nil {
			return ValueInfo{}, err
		}
		v.Const = t
	}
	return v, nil
}

func dimFromEnd(s []Dim, ax int) Dim {
	if -ax <= len(s) {
		return s[len(s)+ax]
	}
	return knownDim(1)
}

func (c *InferCtx) elementwise() (ValueInfo, error) {
	x := c.in[0]
	return ValueInfo{DType: x.DType, Shape: cloneDims(x.Shape), RankKnown: x.RankKnown}, nil
}

func (c *InferCtx) prelu() (ValueInfo, error) {
	x, s := c.in[0], c.in[1]
	if err := c.sameDType(0, 1); err != nil {
		return ValueInfo{}, err
	}
	if x.RankKnown && s.RankKnown {
		// Slope broadcasts to X in one direction only: the output is X's shape.
		bad := len(s.Shape) > len(x.Shape)
		for i := 1; !bad && i <= len(s.Shape); i++ {
			ds, dx := s.Shape[len(s.Shape)-i], x.Shape[len(x.Shape)-i]
			bad = ds.Known() && dx.Known() && ds.Size != 1 && ds.Size != dx.Size
		}
		if bad {
			return ValueInfo{}, c.errf("Slope %q has shape %s, which does not broadcast to input X %s", c.n.Inputs[1], fmtShape(s), fmtShape(x))
		}
	}
	return ValueInfo{DType: x.DType, Shape: cloneDims(x.Shape), RankKnown: x.RankKnown}, nil
}

func (c *InferCtx) softmax(op *Softmax) (ValueInfo, error) {
	x := c.in[0]
	if x.RankKnown {
		if _, ok := normAxis(op.Axis, len(x.Shape)); !ok {
			return ValueInfo{}, c.errf("axis %d is out of range for input X of shape %s", op.Axis, fmtShape(x))
		}
	}
	return c.elementwise()
}

// ---- shape manipulation ----

func (c *InferCtx) concat(op *Concat) (ValueInfo, error) {
	rank := -1
	dt := Undefined
	for i, v := range c.in {
		if v.DType != Undefined {
			if dt != Undefined && v.DType != dt {
				return ValueInfo{}, c.errf("input %d %q is %s but earlier inputs are %s", i, c.n.Inputs[i], v.DType, dt)
			}
			dt = v.DType
		}
		if !v.RankKnown {
			continue
		}
		if rank >= 0 && len(v.Shape) != rank {
			return ValueInfo{}, c.errf("input %d %q has rank %d (shape %s) but earlier inputs have rank %d", i, c.n.Inputs[i], len(v.Shape), fmtShape(v), rank)
		}
		rank = len(v.Shape)
	}
	if rank < 0 {
		return ValueInfo{DType: dt}, nil
	}
	axis, ok := normAxis(op.Axis, rank)
	if !ok {
		return ValueInfo{}, c.errf("axis %d is out of range for inputs of rank %d", op.Axis, rank)
	}
	out := unknownDims(rank)
	sum := knownDim(0)
	var a arith
	for i, v := range c.in {
		if !v.RankKnown {
			sum = unknownDim
			continue
		}
		for j, d := range v.Shape {
			if j == axis {
				if sum.Known() && d.Known() {
					sum.Size = a.add(sum.Size, d.Size)
				} else {
					sum = unknownDim
				}
				continue
			}
			switch {
			case !d.Known():
				if !out[j].Known() && out[j].Param == "" {
					out[j] = d
				}
			case !out[j].Known():
				out[j] = d
			case out[j].Size != d.Size:
				return ValueInfo{}, c.errf("input %d %q has shape %s: axis %d is %d but earlier inputs have %d", i, c.n.Inputs[i], fmtShape(v), j, d.Size, out[j].Size)
			}
		}
	}
	if a.overflow {
		return ValueInfo{}, c.overflow("concatenated size")
	}
	out[axis] = sum
	v := shaped(dt, out)
	v.Const = c.concatConst(axis, out)
	if v.Const == nil {
		v.Const = c.concatFloatParams(out)
	}
	return v, nil
}

func (c *InferCtx) split(op *Split) ([]ValueInfo, error) {
	x := c.in[0]
	if len(op.Sizes) != len(c.n.Outputs) {
		return nil, c.errf("has %d outputs but Sizes %v lists %d parts", len(c.n.Outputs), op.Sizes, len(op.Sizes))
	}
	outs := make([]ValueInfo, len(op.Sizes))
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
	var a arith
	total := int64(0)
	for _, s := range op.Sizes {
		total = a.add(total, s)
	}
	if a.overflow {
		return nil, c.overflow(fmt.Sprintf("sum of Sizes %v", op.Sizes))
	}
	if d := x.Shape[axis]; d.Known() && d.Size != total {
		return nil, c.errf("Sizes %v add up to %d but input X %s has %d on axis %d", op.Sizes, total, fmtShape(x), d.Size, axis)
	}
	for i, s := range op.Sizes {
		dims := cloneDims(x.Shape)
		dims[axis] = knownDim(s)
		outs[i] = shaped(x.DType, dims)
	}
	return outs, nil
}

// reshapeTarget returns the target codes, or ok=false when they are not
// known before run time.
func (c *InferCtx) reshapeTarget(op *Reshape) ([]int64, bool, error) {
	if op.Shape != nil {
		return op.Shape, true, nil
	}
	s := c.in[1]
	if s.DType != Undefined && s.DType != Int64 && s.DType != Int32 {
		return nil, false, c.errf("Shape input %q is %s, want i64", c.n.Inputs[1], s.DType)
	}
	if s.RankKnown && len(s.Shape) != 1 {
		return nil, false, c.errf("Shape input %q has shape %s, want a 1-D tensor", c.n.Inputs[1], fmtShape(s))
	}
	if s.Const == nil {
		return nil, false, nil
	}
	v, err := s.Const.Int64s()
	if err != nil {
		return nil, false, c.errf("Shape input %q: %v", c.n.Inputs[1], err)
	}
	if err := checkReshapeCodes(v, op.AllowZero); err != nil {
		return nil, false, c.errf("Shape input %q: %v", c.n.Inputs[1], err)
	}
	return v, true, nil
}

// checkReshapeCodes checks ONNX reshape targets: sizes >= 0, at most one
// -1, and no 0 next to -1 when 0 means a real empty axis.
func checkReshapeCodes(target []int64, allowZero bool) error {
	neg, zero := 0, false
	for _, t := range target {
		switch {
		case t < -1:
			return fmt.Errorf("target shape %v has %d; only -1 (infer) and sizes >= 0 are allowed", target, t)
		case t == -1:
			neg++
		case t == 0:
			zero = true
		}
	}
	if neg > 1 {
		return fmt.Errorf("target shape %v has more than one -1", target)
	}
	if allowZero && zero && neg > 0 {
		return fmt.Errorf("target shape %v mixes -1 with 0 under AllowZero, so -1 cannot be inferred", target)
	}
	return nil
}

func (c *InferCtx) reshape(op *Reshape) (ValueInfo, error) {
	x := c.in[0]
	target, ok, err := c.reshapeTarget(op)
	if err != nil {
		return ValueInfo{}, err
	}
	if !ok {
		if s := c.in[1]; s.RankKnown && len(s.Shape) == 1 && s.Shape[0].Known() {
			if s.Shape[0].Size > 1<<20 {
				return ValueInfo{}, c.errf("Shape input %q has %d entries", c.n.Inputs[1], s.Shape[0].Size)
			}
			return shaped(x.DType, unknownDims(int(s.Shape[0].Size))), nil
		}
		return ValueInfo{DType: x.DType}, nil
	}
	out := make([]Dim, len(target))
	copied := make([]bool, len(target))
	neg := -1
	for i, t := range target {
		switch {
		case t == -1:
			neg = i
		case t == 0 && !op.AllowZero:
			copied[i] = true
			if x.RankKnown && i >= len(x.Shape) {
				return ValueInfo{}, c.errf("target shape %v copies axis %d (code 0) but input X has shape %s", target, i, fmtShape(x))
			}
			out[i] = dimAt(x, i)
		default:
			out[i] = knownDim(t)
		}
	}
	// Count elements on both sides, leaving out the copied axes, which
	// cancel (that keeps a dynamic batch from hiding the -1).
	var a arith
	inProd, inKnown := int64(1), x.RankKnown
	if x.RankKnown {
		for i, d := range x.Shape {
			if i < len(copied) && copied[i] {
				continue
			}
			if !d.Known() {
				inKnown = false
				break
			}
			inProd = a.mul(inProd, d.Size)
		}
	}
	outProd := int64(1)
	for i, d := range out {
		if i != neg && !copied[i] {
			outProd = a.mul(outProd, d.Size)
		}
	}
	if a.overflow {
		return ValueInfo{}, c.overflow(fmt.Sprintf("element count of input X %s or target %v", fmtShape(x), target))
	}
	switch {
	case neg >= 0 && !inKnown:
		out[neg] = unknownDim
	case neg >= 0:
		if outProd == 0 || inProd%outProd != 0 {
			return ValueInfo{}, c.errf("cannot reshape input X %s into %v: the -1 cannot be inferred", fmtShape(x), target)
		}
		out[neg] = knownDim(inProd / outProd)
	case inKnown && inProd != outProd:
		return ValueInfo{}, c.errf("cannot reshape input X %s into %v: element counts differ", fmtShape(x), target)
	}
	v := shaped(x.DType, out)
	v.Const = c.reshapeConst(x, out)
	return v, nil
}

func (c *InferCtx) flatten(op *Flatten) (ValueInfo, error) {
	x := c.in[0]
	if !x.RankKnown {
		if op.Axis == 0 {
			return shaped(x.DType, []Dim{knownDim(1), unknownDim}), nil
		}
		return shaped(x.DType, unknownDims(2)), nil
	}
	r := int64(len(x.Shape))
	axis := op.Axis
	if axis < -r || axis > r {
		return ValueInfo{}, c.errf("axis %d is out of range for input X of shape %s", op.Axis, fmtShape(x))
	}
	if axis < 0 {
		axis += r
	}
	prod := func(ds []Dim) (Dim, error) {
		if len(ds) == 1 {
			return ds[0], nil
		}
		var a arith
		p := int64(1)
		for _, d := range ds {
			if !d.Known() {
				return unknownDim, nil
			}
			p = a.mul(p, d.Size)
		}
		if a.overflow {
			return Dim{}, c.overflow(fmt.Sprintf("element count of input X %s", fmtShape(x)))
		}
		return knownDim(p), nil
	}
	d0, err := prod(x.Shape[:axis])
	if err != nil {
		return ValueInfo{}, err
	}
	d1, err := prod(x.Shape[axis:])
	if err != nil {
		return ValueInfo{}, err
	}
	out := []Dim{d0, d1}
	v := shaped(x.DType, out)
	v.Const = c.reshapeConst(x, out)
	return v, nil
}

func (c *InferCtx) transpose(op *Transpose) (ValueInfo, error) {
	x := c.in[0]
	if !x.RankKnown {
		return shaped(x.DType, unknownDims(len(op.Perm))), nil
	}
	if len(op.Perm) != len(x.Shape) {
		return ValueInfo{}, c.errf("Perm %v has %d entries but input X has shape %s", op.Perm, len(op.Perm), fmtShape(x))
	}
	out := make([]Dim, len(op.Perm))
	for i, p := range op.Perm {
		out[i] = x.Shape[p] // checkAttrs made Perm a permutation
	}
	return shaped(x.DType, out), nil
}

func (c *InferCtx) squeeze(op *Squeeze) (ValueInfo, error) {
	x := c.in[0]
	if !x.RankKnown {
		return ValueInfo{DType: x.DType}, nil
	}
	r := len(x.Shape)
	drop := make([]bool, r)
	if len(op.Axes) == 0 {
		for i, d := range x.Shape {
			if !d.Known() {
				// Whether this axis goes depends on run-time data.
				return ValueInfo{DType: x.DType}, nil
			}
			drop[i] = d.Size == 1
		}
	}
	for _, a := range op.Axes {
		ax, ok := normAxis(a, r)
		if !ok {
			return ValueInfo{}, c.errf("axis %d is out of range for input X of shape %s", a, fmtShape(x))
		}
		if drop[ax] {
			return ValueInfo{}, c.errf("axis %d is listed twice in Axes %v", ax, op.Axes)
		}
		if d := x.Shape[ax]; d.Known() && d.Size != 1 {
			return ValueInfo{}, c.errf("cannot squeeze axis %d of input X %s: its size is %d, not 1", ax, fmtShape(x), d.Size)
		}
		drop[ax] = true
	}
	out := []Dim{}
	for i, d := range x.Shape {
		if !drop[i] {
			out = append(out, d)
		}
	}
	v := shaped(x.DType, out)
	v.Const = c.reshapeConst(x, out)
	return v, nil
}

func (c *InferCtx) unsqueeze(op *Unsqueeze) (ValueInfo, error) {
	x := c.in[0]
	if !x.RankKnown {
		return ValueInfo{DType: x.DType}, nil
	}
	r := len(x.Shape) + len(op.Axes)
	ins := make([]bool, r)
	for _, a := range op.Axes {
		ax, ok := normAxis(a, r)
		if !ok {
			return ValueInfo{}, c.errf("axis %d is out of range for an output of rank %d (input X %s plus %d axes)", a, r, fmtShape(x), len(op.Axes))
		}
		if ins[ax] {
			return ValueInfo{}, c.errf("axis %d is listed twice in Axes %v", ax, op.Axes)
		}
		ins[ax] = true
	}
	out := make([]Dim, r)
	j := 0
	for i := range out {
		if ins[i] {
			out[i] = knownDim(1)
		} else {
			out[i] = x.Shape[j]
			j++
		}
	}
	v := shaped(x.DType, out)
	v.Const = c.reshapeConst(x, out)
	return v, nil
}

func (c *InferCtx) pad(op *Pad) (ValueInfo, error) {
	x := c.in[0]
	if !x.RankKnown {
		return shaped(x.DType, unknownDims(len(op.PadsBegin))), nil
	}
	r := len(x.Shape)
	if len(op.PadsBegin) != r || len(op.PadsEnd) != r {
		return ValueInfo{}, c.errf("PadsBegin %v and PadsEnd %v need %d entries each, one per axis of input X %s", op.PadsBegin, op.PadsEnd, r, fmtShape(x))
	}
	out := make([]Dim, r)
	for i, d := range x.Shape {
		pb, pe := op.PadsBegin[i], op.PadsEnd[i]
		if !d.Known() {
			out[i] = unknownDim
			if pb == 0 && pe == 0 {
				out[i] = d
			}
			continue
		}
		switch op.Mode {
		case PadReflect:
			if pb >= d.Size || pe >= d.Size {
				return ValueInfo{}, c.errf("reflect padding %d+%d on axis %d needs pads smaller than the axis size %d", pb, pe, i, d.Size)
			}
		case PadEdge, PadWrap:
			if d.Size == 0 && (pb > 0 || pe > 0) {
				return ValueInfo{}, c.errf("%s padding axis %d, which is empty", op.Mode, i)
			}
		}
		var a arith
		s := a.add(a.add(d.Size, pb), pe)
		if a.overflow {
			return ValueInfo{}, c.overflow(fmt.Sprintf("padded size of axis %d", i))
		}
		if s < 0 {
			return ValueInfo{}, c.errf("pads %d+%d crop axis %d of size %d below zero", pb, pe, i, d.Size)
		}
		out[i] = knownDim(s)
	}
	return shaped(x.DType, out), nil
}

// sliceRange applies ONNX Slice clamping to one axis of size d and returns
// the first index taken and how many are taken.
func sliceRange(d, start, end, step int64) (first, count int64) {
	if start < 0 {
		start += d
	}
	if end < 0 {
		end += d
	}
	var span int64
	if step > 0 {
		start = min(max(start, 0), d)
		end = min(max(end, 0), d)
		span = end - start
	} else {
		start = min(max(start, 0), d-1)
		end = min(max(end, -1), d-1)
		span = start - end
	}
	if span <= 0 {
		return start, 0
	}
	// |step| as unsigned so that step = MinInt64 does not overflow.
	mag := uint64(step)
	if step < 0 {
		mag = uint64(-step)
	}
	return start, int64((uint64(span)-1)/mag) + 1
}

// sliceAxes resolves Axes and Steps (nil means every leading axis and step
// 1, as in ONNX) against rank r.
func (c *InferCtx) sliceAxes(op *Slice, r int) ([]int, []int64, error) {
	axes := make([]int, len(op.Starts))
	seen := make([]bool, r)
	for i := range axes {
		a := int64(i)
		if op.Axes != nil {
			a = op.Axes[i]
		}
		ax, ok := normAxis(a, r)
		if !ok {
			return nil, nil, c.errf("axis %d is out of range for input X of rank %d", a, r)
		}
		if seen[ax] {
			return nil, nil, c.errf("axis %d is sliced twice (Axes %v)", ax, op.Axes)
		}
		seen[ax] = true
		axes[i] = ax
	}
	steps := op.Steps
	if steps == nil {
		steps = make([]int64, len(op.Starts))
		for i := range steps {
			steps[i] = 1
		}
	}
	return axes, steps, nil
}

func (c *InferCtx) slice(op *Slice) (ValueInfo, error) {
	x := c.in[0]
	if !x.RankKnown {
		return ValueInfo{DType: x.DType}, nil
	}
	axes, steps, err := c.sliceAxes(op, len(x.Shape))
	if err != nil {
		return ValueInfo{}, err
	}
	out := cloneDims(x.Shape)
	for i, ax := range axes {
		d := x.Shape[ax]
		if !d.Known() {
			out[ax] = unknownDim
			continue
		}
		_, n := sliceRange(d.Size, op.Starts[i], op.Ends[i], steps[i])
		out[ax] = knownDim(n)
	}
	v := shaped(x.DType, out)
	v.Const = c.sliceConst(op, x, axes, steps, out)
	return v, nil
}

func (c *InferCtx) gather(op *Gather) (ValueInfo, error) {
	data, idx := c.in[0], c.in[1]
	if idx.DType != Undefined && idx.DType != Int64 && idx.DType != Int32 {
		return ValueInfo{}, c.errf("Indices %q are %s, want i32 or i64", c.n.Inputs[1], idx.DType)
	}
	if !data.RankKnown {
		return ValueInfo{DType: data.DType}, nil
	}
	if len(data.Shape) == 0 {
		return ValueInfo{}, c.errf("Data %q is a scalar; Gather needs rank >= 1", c.n.Inputs[0])
	}
	axis, ok := normAxis(op.Axis, len(data.Shape))
	if !ok {
		return ValueInfo{}, c.errf("axis %d is out of range for Data %q of shape %s", op.Axis, c.n.Inputs[0], fmtShape(data))
	}
	var ids []int64
	if ic := constOf(idx); ic != nil {
		v, err := ic.Int64s()
		if err != nil {
			return ValueInfo{}, c.errf("Indices %q: %v", c.n.Inputs[1], err)
		}
		ids = v
		if d := data.Shape[axis]; d.Known() {
			for _, i := range ids {
				if i < -d.Size || i >= d.Size {
					return ValueInfo{}, c.errf("index %d is out of range for axis %d of Data %q %s (size %d)", i, axis, c.n.Inputs[0], fmtShape(data), d.Size)
				}
			}
		}
	}
	if !idx.RankKnown {
		return ValueInfo{DType: data.DType}, nil
	}
	out := make([]Dim, 0, len(data.Shape)-1+len(idx.Shape))
	out = append(out, data.Shape[:axis]...)
	out = append(out, idx.Shape...)
	out = append(out, data.Shape[axis+1:]...)
	v := shaped(data.DType, out)
	if ids != nil {
		v.Const = c.gatherConst(data, axis, ids, out)
	}
	return v, nil
}

func (c *InferCtx) shapeOf(op *ShapeOf) (ValueInfo, error) {
	x := c.in[0]
	if !x.RankKnown {
		return shaped(Int64, []Dim{unknownDim}), nil
	}
	r := int64(len(x.Shape))
	clamp := func(v int64) int64 {
		if v < 0 {
			v += r
		}
		return min(max(v, 0), r)
	}
	start, end := clamp(op.Start), clamp(op.End)
	n := max(end-start, 0)
	v := shaped(Int64, DimsOf(n))
	dims := make([]int64, 0, n)
	for _, d := range x.Shape[start : start+n] {
		if !d.Known() {
			return v, nil
		}
		dims = append(dims, d.Size)
	}
	if n <= maxConstElems {
		v.Const = NewInt64Tensor(c.outName(0), nil, dims)
	}
	return v, nil
}

func (c *InferCtx) resize(op *Resize) (ValueInfo, error) { return c.resizeInfer(op) }
