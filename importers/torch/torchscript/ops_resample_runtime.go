package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
)

// runTimeUpsample is aten::upsample_* with output sizes known only at run
// time (interpolate's floor(in·scale) of a scale computed from the image
// size): a Resize whose sizes input is built by Concat. Without scale
// factors torch maps output index d by in/out, which is ONNX's half_pixel
// (or align_corners) with the scale out/in that sizes give, so linear and
// cubic modes follow as with static sizes; nearest modes are written as
// torch picks (runTimeNearest). done is false when every size
// is known at import.
func runTimeUpsample(c *opCall, x *tensorVal, kind upsampleKind, op *canon.Resize, nsp int, sizesAlone bool) (value, bool, error) {
	items, ok := listItems(c.bound[1])
	if !ok || !hasDynInt(items) {
		return nil, false, nil
	}
	if !sizesAlone {
		return nil, true, c.errf("output sizes known only at run time together with scale factors: torch maps coordinates by the scales, and ONNX Resize cannot take both")
	}
	if len(items) == 1 && nsp > 1 {
		for len(items) < nsp {
			items = append(items, items[0])
		}
	}
	if len(items) != nsp {
		return nil, true, c.errf("output_size has %d values, want %d", len(items), nsp)
	}
	if kind == upNearest || kind == upNearestExact {
		if op.CoordTransform == canon.AlignCorners {
			return nil, true, c.errf("nearest upsampling with align_corners is not defined")
		}
		v, err := runTimeNearest(c, x, kind, items)
		return v, true, err
	}
	if kind != upLinear && kind != upCubic {
		return nil, true, c.errf("this upsampling mode to sizes known only at run time is not supported")
	}
	parts := make([]*tensorVal, nsp)
	for i, it := range items {
		t, ok := intTensor(it)
		if !ok {
			return nil, true, c.errf("output_size element %d is a %s, not an int", i, typeName(it))
		}
		parts[i] = t
	}
	sizes := parts[0]
	var err error
	if nsp > 1 {
		if sizes, err = c.b().emit1(c.scope, &canon.Concat{Axis: 0}, parts...); err != nil {
			return nil, true, err
		}
	}
	op.Axes = spatialAxes(nsp)
	out, err := c.b().emit(c.scope, op, []*tensorVal{x, nil, sizes}, 1)
	if err != nil {
		return nil, true, err
	}
	return out[0], true, nil
}

// runTimeNearest is nearest (or nearest-exact) upsampling to sizes known
// only at run time, written as torch computes its picks so that no
// rounding can choose a neighbour: along each spatial axis, output index d
// reads input min(floor(d·s), in-1) (nearest-exact: floor((d+0.5)·s)) with
// s = in/out divided and multiplied in float32, as aten's
// nearest_neighbor_compute_source_index does; a Gather takes the picks.
func runTimeNearest(c *opCall, x *tensorVal, kind upsampleKind, items []value) (value, error) {
	b := c.b()
	out := x
	for i, it := range items {
		axis := int64(2 + i)
		outSize, ok := intTensor(it)
		if !ok {
			return nil, c.errf("output_size element %d is a %s, not an int", i, typeName(it))
		}
		inSize, err := b.emit1(c.scope, &canon.ShapeOf{Start: axis, End: axis + 1}, x)
		if err != nil {
			return nil, err
		}
		f32 := func(t *tensorVal) (*tensorVal, error) { return b.emit1(c.scope, &canon.Cast{To: canon.Float32}, t) }
		inF, err := f32(inSize)
		if err != nil {
			return nil, err
		}
		outF, err := f32(outSize)
		if err != nil {
			return nil, err
		}
		scale, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Div}, inF, outF)
		if err != nil {
			return nil, err
		}
		n, err := b.emit1(c.scope, &canon.Reshape{}, outSize, scalarShape())
		if err != nil {
			return nil, err
		}
		zero := &tensorVal{konst: canon.NewInt64Tensor("", []int64{}, []int64{0})}
		one := &tensorVal{konst: canon.NewInt64Tensor("", []int64{}, []int64{1})}
		d, err := b.emit1(c.scope, &canon.Range{}, zero, n, one)
		if err != nil {
			return nil, err
		}
		if d, err = f32(d); err != nil {
			return nil, err
		}
		if kind == upNearestExact {
			half := &tensorVal{konst: canon.NewFloat32Tensor("", []int64{}, []float32{0.5})}
			if d, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, d, half); err != nil {
				return nil, err
			}
		}
		src, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, d, scale)
		if err != nil {
			return nil, err
		}
		if src, err = b.emit1(c.scope, &canon.Math{Fn: canon.MathFloor}, src); err != nil {
			return nil, err
		}
		if src, err = b.emit1(c.scope, &canon.Cast{To: canon.Int64}, src); err != nil {
			return nil, err
		}
		last, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Sub}, inSize, &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{1})})
		if err != nil {
			return nil, err
		}
		if src, err = b.emit1(c.scope, &canon.Variadic{Fn: canon.VarMin}, src, last); err != nil {
			return nil, err
		}
		if out, err = b.emit1(c.scope, &canon.Gather{Axis: axis}, out, src); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// refuseRunTimeScales refuses scale factors known only at run time that
// interpolate passes on (recompute_scale_factor not set): torch then sizes
// the output as floor(in·scale) and maps coordinates by the double
// 1/scale, and ONNX Resize's scales are float32, so neither is
// reproduced exactly.
func refuseRunTimeScales(c *opCall, i int) error {
	items, ok := listItems(c.bound[i])
	if !ok || !hasDynFloat(items) {
		return nil
	}
	return c.errf("a scale factor known only at run time: torch maps coordinates by its double reciprocal, and ONNX Resize takes float32 scales, which may round the mapping and the output size differently; call interpolate with recompute_scale_factor=True (the resize then maps by the size ratio, which is exact) or give the input sizes (--input-shape)")
}

// nearestToSizes is nearest (or nearest-exact) upsampling to sizes known at
// import. torch picks floor(d·r) with r = in/out in float32; Resize with
// sizes divides by out/in instead (ONNX Runtime in float32), which picks a
// neighbour for some sizes (14 to 16: output 8 reads input 7 in torch, 6
// in ONNX Runtime). Where any pick differs the picks are written as a
// Gather per axis; where the input's sizes are not known at import they
// are computed at run time as torch does (runTimeNearest). done is false
// when Resize picks what torch picks.
func nearestToSizes(c *opCall, x *tensorVal, kind upsampleKind, sizes []int64) (value, bool, error) {
	if kind != upNearest && kind != upNearestExact {
		return nil, false, nil
	}
	exact := kind == upNearestExact
	vi := c.b().info(x)
	if !vi.RankKnown || len(vi.Shape) != 2+len(sizes) {
		return nil, false, nil
	}
	picks := make([][]int64, len(sizes))
	agree := true
	for i, out := range sizes {
		d := vi.Shape[2+i]
		if !d.Known() {
			items := make([]value, len(sizes))
			for k, n := range sizes {
				items[k] = n
			}
			v, err := runTimeNearest(c, x, kind, items)
			return v, true, err
		}
		in := d.Size
		if out <= 0 || in <= 0 {
			return nil, false, nil
		}
		r := float32(in) / float32(out)
		s32 := float32(out) / float32(in)
		picks[i] = make([]int64, out)
		for o := range out {
			p := torchNearestIndex(exact, o, in, r)
			picks[i][o] = p
			agree = agree && canonNearestIndex(exact, o, in, s32, true) == p && canonNearestIndex(exact, o, in, s32, false) == p
		}
	}
	if agree {
		return nil, false, nil
	}
	y := x
	for i, p := range picks {
		var err error
		idx := &tensorVal{konst: canon.NewInt64Tensor("", []int64{int64(len(p))}, p)}
		if y, err = c.b().emit1(c.scope, &canon.Gather{Axis: int64(2 + i)}, y, idx); err != nil {
			return nil, true, err
		}
	}
	return y, true, nil
}
