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
