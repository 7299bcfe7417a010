package torchscript

import "github.com/modelbridge/modelbridge/canon"

// maskPutAfter is x[:, ..., mask] = values (accumulate adds) with the mask
// on the axes from p on. One value fills the marked positions with a
// Where; values laid out as x[:, ..., mask] is (the p leading axes, the
// marked entries, the rest) are scattered on x transposed so that the
// mask's axes lead.
func maskPutAfter(c *opCall, x, mask *tensorVal, p int, vals *tensorVal, acc bool, rank int) (value, error) {
	xs, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	ms, err := c.shapeOf(mask, "the mask")
	if err != nil {
		return nil, err
	}
	if p+len(ms) > rank || !sameInts(xs[p:p+len(ms)], ms) {
		return nil, c.errf("the mask's shape %v does not match the input's sizes %v from dimension %d", ms, xs, p)
	}
	if vs, ok := c.b().info(vals).StaticShape(); ok && canon.NumElements(vs) == 1 {
		full := make([]int64, rank)
		for i := range full {
			full[i] = 1
		}
		copy(full[p:], ms)
		m, err := reshape(c, mask, full...)
		if err != nil {
			return nil, err
		}
		v := vals
		if len(vs) > 0 {
			if v, err = reshape(c, vals); err != nil {
				return nil, err
			}
		}
		if acc {
			if v, err = arith(c, canon.Add, x, v); err != nil {
				return nil, err
			}
		}
		return where(c, m, v, x)
	}
	vr, err := c.rankOf(vals, "the values")
	if err != nil {
		return nil, err
	}
	if want := rank - len(ms) + 1; vr != want {
		return nil, c.errf("values of rank %d for a masked assignment whose selection has rank %d; give values of the selection's shape or one value", vr, want)
	}
	axes := make([]int, len(ms))
	for i := range axes {
		axes[i] = p + i
	}
	perm, _ := frontPerm(rank, axes)
	xt, err := transpose(c, x, perm)
	if err != nil {
		return nil, err
	}
	vt, err := transpose(c, vals, toFront(vr, p, 1))
	if err != nil {
		return nil, err
	}
	nz, err := c.b().emit1(c.scope, &canon.NonZero{}, mask)
	if err != nil {
		return nil, err
	}
	idx, err := transpose(c, nz, []int64{1, 0})
	if err != nil {
		return nil, err
	}
	red := canon.ScatterNone
	if acc {
		red = canon.ScatterAdd
	}
	out, err := c.b().emit1(c.scope, &canon.ScatterND{Reduction: red}, xt, idx, vt)
	if err != nil {
		return nil, err
	}
	return transpose(c, out, inversePerm(perm))
}
