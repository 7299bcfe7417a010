package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// Ops whose parameters may arrive as run-time inputs instead of attributes
// (canon's rule: an input, when present, replaces the unset attribute). The
// kernels resolve them here into an effective op before doing the work.

// intsParam returns run-time parameter input k (a 1-D integer tensor) as a
// fresh, non-nil slice, or attr when the input is absent.
func (x *exec) intsParam(k int, attr []int64, what string) ([]int64, error) {
	t := x.in(k)
	if t == nil {
		return attr, nil
	}
	if t.dt.IsFloat() || len(t.shape) != 1 {
		return nil, fmt.Errorf("%s input is %s%v, want a 1-D i64 tensor", what, t.dt, t.shape)
	}
	return append(make([]int64, 0, len(t.i)), t.i...), nil
}

// scalarParam returns run-time input k, which must hold exactly one value
// of the same storage kind as data, or nil when the input is absent.
func (x *exec) scalarParam(k int, data *tensor, what string) (*tensor, error) {
	t := x.in(k)
	if t == nil {
		return nil, nil
	}
	if t.size() != 1 {
		return nil, fmt.Errorf("%s input has shape %v, want a scalar", what, t.shape)
	}
	if t.isFloat() != data.isFloat() || t.isF64() != data.isF64() {
		return nil, fmt.Errorf("%s input is %s but the data is %s; they must have the same dtype", what, t.dt, data.dt)
	}
	return t, nil
}

// runClip bounds input 0 by the Min/Max attributes or the run-time bounds.
func runClip(x *exec, op *canon.Clip) error {
	in := x.in(0)
	lo, err := x.scalarParam(1, in, "Min")
	if err != nil {
		return err
	}
	hi, err := x.scalarParam(2, in, "Max")
	if err != nil {
		return err
	}
	if in.isF64() {
		l, h := float64(op.Min), float64(op.Max)
		if lo != nil {
			l = lo.d[0]
		}
		if hi != nil {
			h = hi.d[0]
		}
		return runUnaryF64(x, unaryOp{fn: uClip}, l, h)
	}
	if in.isFloat() {
		u := unaryOp{fn: uClip, a: op.Min, b: op.Max}
		if lo != nil {
			u.a = lo.f[0]
		}
		if hi != nil {
			u.b = hi.f[0]
		}
		return runUnary(x, u)
	}
	// Integer data with integer bounds: clip exactly, without a float detour.
	if in.dt == canon.Uint64 {
		ulo, uhi := uint64Bounds(true, op.Min, op.Max)
		if lo != nil {
			ulo = uint64(lo.i[0])
		}
		if hi != nil {
			uhi = uint64(hi.i[0])
		}
		out := x.take(0)
		if out == nil {
			out = x.newI(in.dt, in.shape)
		}
		clipUint64(out.i, in.i, ulo, uhi)
		x.set(0, out)
		return nil
	}
	var l, h int64 = math.MinInt64, math.MaxInt64
	if !math.IsInf(float64(op.Min), -1) {
		l = int64(math.Ceil(float64(op.Min)))
	}
	if !math.IsInf(float64(op.Max), 1) {
		h = int64(math.Floor(float64(op.Max)))
	}
	if lo != nil {
		l = lo.i[0]
	}
	if hi != nil {
		h = hi.i[0]
	}
	out := x.take(0)
	if out == nil {
		out = x.newI(in.dt, in.shape)
	}
	for i, v := range in.i {
		out.i[i] = min(max(v, l), h)
	}
	x.set(0, out)
	return nil
}

// padParams resolves Pad's run-time pads (scattered over op.Axes when set)
// into per-axis PadsBegin/PadsEnd for data of rank r.
func (x *exec) padParams(op *canon.Pad, r int) (*canon.Pad, error) {
	pads, err := x.intsParam(1, nil, "pads")
	if err != nil || x.in(1) == nil {
		return op, err
	}
	eff := *op
	eff.Axes = nil
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	axesAttr := op.Axes
	if x.in(3) != nil {
		if axesAttr, err = x.intsParam(3, nil, "axes"); err != nil {
			return nil, err
		}
	}
	if axesAttr != nil {
		axes = axes[:0]
		seen := make([]bool, r)
		for _, a := range axesAttr {
			ax, err := normAxis(a, r)
			if err != nil {
				return nil, err
			}
			if seen[ax] {
				return nil, fmt.Errorf("axes %v repeat axis %d", axesAttr, ax)
			}
			seen[ax] = true
			axes = append(axes, ax)
		}
	}
	if len(pads) != 2*len(axes) {
		return nil, fmt.Errorf("pads input has %d values, want %d (begin and end for each of %d axes)", len(pads), 2*len(axes), len(axes))
	}
	eff.PadsBegin, eff.PadsEnd = make([]int64, r), make([]int64, r)
	for i, a := range axes {
		eff.PadsBegin[a], eff.PadsEnd[a] = pads[i], pads[len(axes)+i]
	}
	return &eff, nil
}

// sliceParams resolves Slice's run-time starts, ends, axes and steps.
func (x *exec) sliceParams(op *canon.Slice) (*canon.Slice, error) {
	if len(x.s.in) <= 1 {
		return op, nil
	}
	eff := *op
	var err error
	for k, f := range []*[]int64{&eff.Starts, &eff.Ends, &eff.Axes, &eff.Steps} {
		if *f, err = x.intsParam(k+1, *f, []string{"starts", "ends", "axes", "steps"}[k]); err != nil {
			return nil, err
		}
	}
	return &eff, nil
}

// resizeParams resolves Resize's run-time scales or sizes.
func (x *exec) resizeParams(op *canon.Resize) (*canon.Resize, error) {
	eff := *op
	if t := x.in(1); t != nil {
		if !t.isFloat() || len(t.shape) != 1 {
			return nil, fmt.Errorf("scales input is %s%v, want a 1-D f32 tensor", t.dt, t.shape)
		}
		eff.Scales = append(make([]float32, 0, len(t.f)), t.f...)
	}
	sizes, err := x.intsParam(2, op.Sizes, "sizes")
	if err != nil {
		return nil, err
	}
	eff.Sizes = sizes
	if t := x.in(3); t != nil {
		if !t.isFloat() || len(t.shape) != 1 {
			return nil, fmt.Errorf("roi input is %s%v, want a 1-D f32 tensor", t.dt, t.shape)
		}
		eff.Roi = append(make([]float32, 0, len(t.f)), t.f...)
	}
	return &eff, nil
}
