package canon

import "math"

// The normalization family: LayerNormalization, GroupNormalization,
// InstanceNormalization, RMSNormalization, LpNormalization and
// MeanVarianceNormalization (BatchNormalization and LRN live elsewhere).
// Every statistic is taken over a fixed set of axes of X; the scale and
// shift that follow are the ops' inputs.

func init() {
	for _, d := range normOps() {
		Register(withReason(d, normWithout))
	}
}

// ---- typed attributes ----

// LayerNorm normalizes X over its axes Axis..rank-1:
// Y = (X - mean) / sqrt(var + Epsilon) * Scale + B, with the population
// variance. Scale and B broadcast against X.shape[Axis:]. The optional
// outputs Mean and InvStdDev hold mean and 1/sqrt(var + Epsilon), of shape
// X.shape[:Axis] followed by ones, in dtype Stash (ONNX's stash_type: the
// precision the statistics are computed in).
type LayerNorm struct {
	Axis    int64
	Epsilon float32
	Stash   DType
}

func (*LayerNorm) Kind() string { return "LayerNormalization" }
func (*LayerNorm) Signature() Signature {
	return Signature{Inputs: []InputSpec{inX, {Name: "Scale", Role: RoleWeight}, {Name: "B", Role: RoleWeight, Optional: true}},
		MinOutputs: 1, MaxOutputs: 3}
}

// GroupNorm splits the C channels of X (N, C, spatial...) into NumGroups
// groups of consecutive channels, normalizes each (n, group) over its
// channels and spatial positions, then applies Scale and Bias per channel
// (ONNX GroupNormalization-21; the per-group scale of version 18 is
// repeated over each group's channels at import).
type GroupNorm struct {
	NumGroups int64
	Epsilon   float32
	Stash     DType
}

func (*GroupNorm) Kind() string { return "GroupNormalization" }
func (*GroupNorm) Signature() Signature {
	ch := func(n string) InputSpec { return InputSpec{Name: n, Role: RoleChannel} }
	return sig(1, inX, ch("Scale"), ch("Bias"))
}

// InstanceNorm normalizes each (n, c) plane of X (N, C, spatial...) over
// its spatial positions: Y = (X - mean) / sqrt(var + Epsilon) * Scale[c] + B[c].
type InstanceNorm struct {
	Epsilon float32
}

func (*InstanceNorm) Kind() string { return "InstanceNormalization" }
func (*InstanceNorm) Signature() Signature {
	ch := func(n string) InputSpec { return InputSpec{Name: n, Role: RoleChannel} }
	return sig(1, inX, ch("Scale"), ch("B"))
}

// RMSNorm scales X by the reciprocal root mean square over its axes
// Axis..rank-1: Y = X / sqrt(mean(X²) + Epsilon) * Scale (ONNX
// RMSNormalization-23).
type RMSNorm struct {
	Axis    int64
	Epsilon float32
	Stash   DType
}

func (*RMSNorm) Kind() string { return "RMSNormalization" }
func (*RMSNorm) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "Scale", Role: RoleWeight})
}

// LpNorm divides X by its L1 (P=1) or L2 (P=2) norm along Axis. A zero
// norm gives zeros (ONNX Runtime's behaviour; the spec leaves it open).
type LpNorm struct {
	Axis int64
	P    int64
}

func (*LpNorm) Kind() string         { return "LpNormalization" }
func (*LpNorm) Signature() Signature { return sig(1, inX) }

// MeanVarNorm is ONNX's MeanVarianceNormalization over Axes:
// Y = (X - mean) / (sqrt(var) + 1e-9), the epsilon added to the standard
// deviation as ONNX's function body does.
type MeanVarNorm struct {
	Axes []int64
}

func (*MeanVarNorm) Kind() string         { return "MeanVarianceNormalization" }
func (*MeanVarNorm) Signature() Signature { return sig(1, inX) }

// MeanVarNormEpsilon is the constant MeanVarianceNormalization adds to
// the standard deviation.
const MeanVarNormEpsilon = 1e-9

// ---- definitions ----

func checkEpsilon(c *CheckCtx, eps float32) error {
	if !(eps >= 0) || math.IsInf(float64(eps), 0) {
		return c.Errorf("Epsilon is %g, must be a finite value >= 0", eps)
	}
	return nil
}

func checkStash(c *CheckCtx, dt DType) error {
	if !dt.IsFloat() {
		return c.Errorf("Stash is %s, want a floating-point dtype", dt)
	}
	return nil
}

func normOps() []*OpDef {
	return []*OpDef{
		{
			Kind: "LayerNormalization", Summary: "normalize over the trailing axes from Axis, then scale and shift; optional Mean and InvStdDev outputs",
			Decompose:  layerNormExpand,
			HalfUnsafe: "the mean and variance accumulate over many elements",
			New:        func() Op { return &LayerNorm{Axis: -1, Epsilon: 1e-5, Stash: Float32} },
			Infer:      func(c *InferCtx) ([]ValueInfo, error) { return c.layerNorm(c.n.Op.(*LayerNorm)) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*LayerNorm)
				return firstErr(checkEpsilon(c, op.Epsilon), checkStash(c, op.Stash))
			},
			Example: func() Example {
				return Example{Op: &LayerNorm{Axis: -1, Epsilon: 1e-5, Stash: Float32},
					Inputs: []ExampleInput{exampleX, exampleF32(5), exampleF32(5)}}
			},
		},
		{
			Kind: "GroupNormalization", Summary: "normalize groups of channels over channels and space, then per-channel scale and bias",
			Decompose:  groupNormExpand,
			HalfUnsafe: "the mean and variance accumulate over many elements",
			New:        func() Op { return &GroupNorm{Epsilon: 1e-5, Stash: Float32} },
			Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.groupNorm(c.n.Op.(*GroupNorm))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*GroupNorm)
				if op.NumGroups < 1 {
					return c.Errorf("NumGroups is %d, must be >= 1", op.NumGroups)
				}
				return firstErr(checkEpsilon(c, op.Epsilon), checkStash(c, op.Stash))
			},
			Example: func() Example {
				return Example{Op: &GroupNorm{NumGroups: 2, Epsilon: 1e-5, Stash: Float32},
					Inputs: []ExampleInput{exampleX, exampleF32(4), exampleF32(4)}}
			},
		},
		{
			Kind: "InstanceNormalization", Summary: "normalize each (n, c) plane over space, then per-channel scale and shift",
			HalfUnsafe: "the mean and variance accumulate over many elements",
			New:        func() Op { return &InstanceNorm{Epsilon: 1e-5} },
			Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.instanceNorm()) },
			Check:      func(c *CheckCtx) error { return checkEpsilon(c, c.N.Op.(*InstanceNorm).Epsilon) },
			Example: func() Example {
				return Example{Op: &InstanceNorm{Epsilon: 1e-5}, Inputs: []ExampleInput{exampleX, exampleF32(4), exampleF32(4)}}
			},
		},
		{
			Kind: "RMSNormalization", Summary: "divide by the root mean square over the trailing axes from Axis, then scale",
			Decompose:  rmsNormExpand,
			HalfUnsafe: "the mean square accumulates over many elements",
			New:        func() Op { return &RMSNorm{Axis: -1, Epsilon: 1e-5, Stash: Float32} },
			Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.rmsNorm(c.n.Op.(*RMSNorm))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*RMSNorm)
				return firstErr(checkEpsilon(c, op.Epsilon), checkStash(c, op.Stash))
			},
			Example: func() Example {
				return Example{Op: &RMSNorm{Axis: -1, Epsilon: 1e-5, Stash: Float32}, Inputs: []ExampleInput{exampleX, exampleF32(5)}}
			},
		},
		{
			Kind: "LpNormalization", Summary: "divide by the L1 or L2 norm along one axis",
			HalfUnsafe: "the norm accumulates over many elements",
			New:        func() Op { return &LpNorm{Axis: -1, P: 2} },
			Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.lpNorm(c.n.Op.(*LpNorm))) },
			Check: func(c *CheckCtx) error {
				if p := c.N.Op.(*LpNorm).P; p != 1 && p != 2 {
					return c.Errorf("P is %d, must be 1 or 2", p)
				}
				return nil
			},
			Example: unaryExample(&LpNorm{Axis: 1, P: 2}),
		},
		{
			Kind: "MeanVarianceNormalization", Summary: "(x - mean) / (std + 1e-9) over the given axes",
			HalfUnsafe: "the mean and variance accumulate over many elements",
			New:        func() Op { return &MeanVarNorm{Axes: []int64{0, 2, 3}} },
			Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.meanVarNorm(c.n.Op.(*MeanVarNorm))) },
			Example:    unaryExample(&MeanVarNorm{Axes: []int64{0, 2, 3}}),
		},
	}
}

// ---- inference ----

// needFloatX refuses a non-floating-point X.
func (c *InferCtx) needFloatX(kind string) error {
	if dt := c.in[0].DType; dt != Undefined && !dt.IsFloat() {
		return c.errf("input X %q is %s: %s takes floating-point tensors only", c.n.Inputs[0], dt, kind)
	}
	return nil
}

// sameAsX checks that the present inputs from slot 1 on have X's dtype.
func (c *InferCtx) sameAsX() error {
	for i := 1; i < len(c.in); i++ {
		if !c.present(i) {
			continue
		}
		if err := c.sameDType(0, i); err != nil {
			return err
		}
	}
	return nil
}

// trailingAxis normalizes Axis against X's rank (-1 when the rank is
// unknown).
func (c *InferCtx) trailingAxis(axis int64) (int, error) {
	x := c.in[0]
	if !x.RankKnown {
		return -1, nil
	}
	a, ok := normAxis(axis, len(x.Shape))
	if !ok {
		return 0, c.errf("axis %d is out of range for input X of shape %s", axis, fmtShape(x))
	}
	return a, nil
}

// broadcastsTo checks that input i broadcasts against X.shape[from:].
func (c *InferCtx) broadcastsTo(i, from int) error {
	x, p := c.in[0], c.in[i]
	if !x.RankKnown || !p.RankKnown || from < 0 {
		return nil
	}
	tail := x.Shape[from:]
	if len(p.Shape) > len(tail) {
		return c.errf("%s %q has shape %s, which does not broadcast to the normalized shape %s", c.slot(i), c.n.Inputs[i], fmtShape(p), fmtDims(tail))
	}
	for k := range p.Shape {
		d, t := p.Shape[len(p.Shape)-1-k], tail[len(tail)-1-k]
		if d.Known() && t.Known() && d.Size != 1 && d.Size != t.Size {
			return c.errf("%s %q has shape %s, which does not broadcast to the normalized shape %s", c.slot(i), c.n.Inputs[i], fmtShape(p), fmtDims(tail))
		}
	}
	return nil
}

func (c *InferCtx) layerNorm(op *LayerNorm) ([]ValueInfo, error) {
	if err := firstErr(c.needFloatX("LayerNormalization"), c.sameAsX()); err != nil {
		return nil, err
	}
	a, err := c.trailingAxis(op.Axis)
	if err != nil {
		return nil, err
	}
	for i := 1; i < len(c.in); i++ {
		if c.present(i) {
			if err := c.broadcastsTo(i, a); err != nil {
				return nil, err
			}
		}
	}
	x := c.in[0]
	stat := ValueInfo{DType: op.Stash}
	if x.RankKnown {
		d := cloneDims(x.Shape)
		for i := a; i < len(d); i++ {
			d[i] = knownDim(1)
		}
		stat = shaped(op.Stash, d)
	}
	return []ValueInfo{shaped2(x), stat, stat}, nil
}

// perChannel checks inputs 1.. are vectors of X's C channels.
func (c *InferCtx) perChannel(kind string) error {
	x := c.in[0]
	if x.RankKnown && len(x.Shape) < 2 {
		return c.errf("input X has shape %s; %s needs (N, C, ...)", fmtShape(x), kind)
	}
	ch := dimAt(x, 1)
	for i := 1; i < len(c.in); i++ {
		p := c.in[i]
		if !c.present(i) || !p.RankKnown {
			continue
		}
		if len(p.Shape) != 1 {
			return c.errf("%s %q has shape %s, want a vector of %s channels", c.slot(i), c.n.Inputs[i], fmtShape(p), fmtDims([]Dim{ch}))
		}
		if d := p.Shape[0]; d.Known() && ch.Known() && d.Size != ch.Size {
			return c.errf("%s %q has %d entries but input X has %d channels", c.slot(i), c.n.Inputs[i], d.Size, ch.Size)
		}
	}
	return nil
}

func (c *InferCtx) groupNorm(op *GroupNorm) (ValueInfo, error) {
	if err := firstErr(c.needFloatX("GroupNormalization"), c.sameAsX(), c.perChannel("GroupNormalization")); err != nil {
		return ValueInfo{}, err
	}
	if ch := dimAt(c.in[0], 1); ch.Known() && op.NumGroups > 0 && ch.Size%op.NumGroups != 0 {
		return ValueInfo{}, c.errf("input X has %d channels, not a multiple of NumGroups %d", ch.Size, op.NumGroups)
	}
	return shaped2(c.in[0]), nil
}

func (c *InferCtx) instanceNorm() (ValueInfo, error) {
	if err := firstErr(c.needFloatX("InstanceNormalization"), c.sameAsX(), c.perChannel("InstanceNormalization")); err != nil {
		return ValueInfo{}, err
	}
	if x := c.in[0]; x.RankKnown && len(x.Shape) < 3 {
		return ValueInfo{}, c.errf("input X has shape %s; InstanceNormalization needs (N, C, spatial...)", fmtShape(x))
	}
	return shaped2(c.in[0]), nil
}

func (c *InferCtx) rmsNorm(op *RMSNorm) (ValueInfo, error) {
	if err := firstErr(c.needFloatX("RMSNormalization"), c.sameAsX()); err != nil {
		return ValueInfo{}, err
	}
	a, err := c.trailingAxis(op.Axis)
	if err != nil {
		return ValueInfo{}, err
	}
	if err := c.broadcastsTo(1, a); err != nil {
		return ValueInfo{}, err
	}
	return shaped2(c.in[0]), nil
}

func (c *InferCtx) lpNorm(op *LpNorm) (ValueInfo, error) {
	if err := c.needFloatX("LpNormalization"); err != nil {
		return ValueInfo{}, err
	}
	if _, err := c.trailingAxis(op.Axis); err != nil {
		return ValueInfo{}, err
	}
	return shaped2(c.in[0]), nil
}

func (c *InferCtx) meanVarNorm(op *MeanVarNorm) (ValueInfo, error) {
	if err := c.needFloatX("MeanVarianceNormalization"); err != nil {
		return ValueInfo{}, err
	}
	x := c.in[0]
	if x.RankKnown {
		seen := map[int]bool{}
		for _, a := range op.Axes {
			ax, ok := normAxis(a, len(x.Shape))
			if !ok {
				return ValueInfo{}, c.errf("axis %d is out of range for input X of shape %s", a, fmtShape(x))
			}
			if seen[ax] {
				return ValueInfo{}, c.errf("axis %d is listed twice in Axes %v", ax, op.Axes)
			}
			seen[ax] = true
		}
	}
	return shaped2(x), nil
}

// NormalizedAxes lists the axes from..rank-1.
func NormalizedAxes(from, rank int) []int64 {
	out := make([]int64, 0, rank-from)
	for i := from; i < rank; i++ {
		out = append(out, int64(i))
	}
	return out
}

// normWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var normWithout = Without{Accumulation: SumsNoProducts, RemapAxes: AxesFixed, Decompose: Primitive, Noop: NoNoopSetting}
