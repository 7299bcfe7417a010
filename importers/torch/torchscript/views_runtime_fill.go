package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
)

// broadcastLikeRunTime is broadcastLike for a dst whose shape only a run
// tells: src in dst's dtype, expanded to dst's shape read at run time
// (copy_ broadcasts src to dst; Expand broadcasts both ways, which is
// torch's broadcast wherever torch does not raise), skipped when the shapes
// are the same symbolic sizes.
func broadcastLikeRunTime(c *opCall, dst, src *tensorVal) (value, error) {
	b := c.b()
	src, err := castTo(c, src, b.info(dst).DType)
	if err != nil {
		return nil, err
	}
	dv, sv := b.info(dst), b.info(src)
	if dv.RankKnown && sv.RankKnown && len(dv.Shape) == len(sv.Shape) {
		same := true
		for i := range dv.Shape {
			if dv.Shape[i].Known() != sv.Shape[i].Known() || (dv.Shape[i].Known() && dv.Shape[i].Size != sv.Shape[i].Size) ||
				(!dv.Shape[i].Known() && b.dimSymbol(dst, i) != b.dimSymbol(src, i)) {
				same = false
				break
			}
		}
		if same {
			return src, nil
		}
	}
	shape, err := b.emit1(c.scope, canon.NewShapeOf(), dst)
	if err != nil {
		return nil, err
	}
	out, err := b.emit(c.scope, &canon.Expand{}, []*tensorVal{src, shape}, 1)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// fillRunTime is dst.fill_(v) with a number known only at run time: v as
// a 0-d tensor, cast to dst's dtype and broadcast to its shape.
func fillRunTime(c *opCall, dst *tensorVal, v value) (value, error) {
	var t *tensorVal
	var err error
	switch x := v.(type) {
	case *dynFloat:
		t = x.t
	case *dynBool:
		t = x.t
	default:
		var ok bool
		if t, ok = intTensor(v); !ok {
			return nil, c.errf("value must be a number, got %s", typeName(v))
		}
	}
	if t, err = c.b().emit1(c.scope, &canon.Reshape{}, t, scalarShape()); err != nil {
		return nil, err
	}
	return broadcastLike(c, dst, t)
}
