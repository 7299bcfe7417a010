package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
)

// runTimeUpsample is aten::upsample_* with output sizes known only at run
// time (interpolate's floor(in·scale) of a scale computed from the image
// size): a Resize whose sizes input is built by Concat. Without scale
// factors torch maps output index d by in/out, which is ONNX's half_pixel
// (or align_corners) with the scale out/in that sizes give, so linear and
// cubic modes follow as with static sizes. done is false when every size
// is known at import.
func runTimeUpsample(c *opCall, x *tensorVal, kind upsampleKind, op *canon.Resize, nsp int, sizesAlone bool) (value, bool, error) {
	items, ok := listItems(c.bound[1])
	if !ok || !hasDynInt(items) {
		return nil, false, nil
	}
	if !sizesAlone {
		return nil, true, c.errf("output sizes known only at run time together with scale factors: torch maps coordinates by the scales, and ONNX Resize cannot take both")
	}
	if kind != upLinear && kind != upCubic {
		return nil, true, c.errf("nearest upsampling to sizes known only at run time: torch picks floor(d·(in/out)) with in/out rounded to float32, and ONNX Resize's asymmetric mapping divides by out/in instead, which can pick a neighbouring entry; give --input-shape so that the sizes are known at import")
	}
	if len(items) == 1 && nsp > 1 {
		for len(items) < nsp {
			items = append(items, items[0])
		}
	}
	if len(items) != nsp {
		return nil, true, c.errf("output_size has %d values, want %d", len(items), nsp)
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
