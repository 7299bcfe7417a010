package torchscript

import "github.com/modelbridge/modelbridge/canon"

// isUnbatched tells whether x has nsp+1 axes (C, spatial...): torch's
// convolutions and pools accept that form and add the batch axis
// themselves.
func isUnbatched(c *opCall, x *tensorVal, nsp int) bool {
	xi := c.b().info(x)
	return xi.RankKnown && len(xi.Shape) == nsp+1
}

// unbatched runs f on x with a leading batch axis and removes that axis
// from every tensor f returns.
func unbatched(c *opCall, x *tensorVal, f func(*tensorVal) (value, error)) (value, error) {
	b := c.b()
	xb, err := b.emit1(c.scope, &canon.Unsqueeze{Axes: []int64{0}}, x)
	if err != nil {
		return nil, err
	}
	out, err := f(xb)
	if err != nil {
		return nil, err
	}
	squeeze := func(v value) (value, error) {
		t, ok := v.(*tensorVal)
		if !ok {
			return v, nil
		}
		return b.emit1(c.scope, &canon.Squeeze{Axes: []int64{0}}, t)
	}
	if tup, ok := out.(*tupleVal); ok {
		items := make([]value, len(tup.items))
		for i, it := range tup.items {
			if items[i], err = squeeze(it); err != nil {
				return nil, err
			}
		}
		return &tupleVal{items: items}, nil
	}
	return squeeze(out)
}

// foldedBatch runs f, an op on (N, C, H, W), on x of shape (*, C, H, W):
// the leading axes (none, or several) are folded into one batch axis and
// restored on the result.
func foldedBatch(c *opCall, x *tensorVal, f func(*tensorVal) (*tensorVal, error)) (value, error) {
	xi := c.b().info(x)
	if xi.RankKnown && len(xi.Shape) == 4 {
		return f(x)
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	lead := shape[:len(shape)-3]
	n := int64(1)
	for _, d := range lead {
		n *= d
	}
	b := c.b()
	x4, err := b.emit1(c.scope, &canon.Reshape{Shape: append([]int64{n}, shape[len(shape)-3:]...), AllowZero: true}, x)
	if err != nil {
		return nil, err
	}
	y, err := f(x4)
	if err != nil {
		return nil, err
	}
	ys, err := c.shapeOf(y, "the result")
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Reshape{Shape: append(clone(lead), ys[1:]...), AllowZero: true}, y)
}
