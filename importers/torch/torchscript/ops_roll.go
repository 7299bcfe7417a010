package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Window ops of the vision transformers. torch.roll (Swin's shifted
// windows): each rolled axis is its last k entries followed by the others,
// two Slices and a Concat.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.roll": entry(opRoll, "Slice", "Concat", "Reshape"),
		// swapaxes/swapdims are transpose under other names (MaxViT's
		// window partitions); traced code passes the axes by position.
		"torch.swapaxes": entry(opTranspose, "Transpose"),
		"torch.swapdims": entry(opTranspose, "Transpose"),
	})
}

func opRoll(c *opCall) (value, error) {
	x, err := c.bindInput("input", "shifts", "dims=[]")
	if err != nil {
		return nil, err
	}
	shifts, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	dims, err := c.ints(2, 0)
	if err != nil {
		return nil, err
	}
	if len(dims) == 0 {
		return rollFlat(c, x, shifts)
	}
	if len(shifts) != len(dims) {
		return nil, c.errf("%d shifts for %d dims", len(shifts), len(dims))
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	for i, d := range dims {
		if d, err = c.axis(d, len(shape)); err != nil {
			return nil, err
		}
		n := shape[d]
		if n <= 0 {
			continue
		}
		k := ((shifts[i] % n) + n) % n
		if k == 0 {
			continue
		}
		tail, err := c.b().emit1(c.scope, &canon.Slice{Starts: []int64{n - k}, Ends: []int64{n}, Axes: []int64{d}, Steps: []int64{1}}, x)
		if err != nil {
			return nil, err
		}
		head, err := c.b().emit1(c.scope, &canon.Slice{Starts: []int64{0}, Ends: []int64{n - k}, Axes: []int64{d}, Steps: []int64{1}}, x)
		if err != nil {
			return nil, err
		}
		if x, err = c.b().emit1(c.scope, &canon.Concat{Axis: d}, tail, head); err != nil {
			return nil, err
		}
	}
	return x, nil
}
