package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Ops that move, stack or turn axes: movedim, the numpy-style stacks,
// fliplr/flipud and rot90. Each is a Transpose, Concat or Slice of the
// canonical set.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.movedim":      entry(opMovedim, "Transpose"),
		"torch.moveaxis":     entry(opMovedim, "Transpose"),
		"torch.hstack":       entry(opNumpyStack("hstack"), "Reshape", "Concat"),
		"torch.vstack":       entry(opNumpyStack("vstack"), "Reshape", "Concat"),
		"torch.row_stack":    entry(opNumpyStack("vstack"), "Reshape", "Concat"),
		"torch.dstack":       entry(opNumpyStack("dstack"), "Reshape", "Concat"),
		"torch.column_stack": entry(opNumpyStack("column_stack"), "Reshape", "Concat"),
		"torch.fliplr":       entry(opFlipAxis(1), "Slice"),
		"torch.flipud":       entry(opFlipAxis(0), "Slice"),
		"torch.rot90":        entry(opRot90, "Slice", "Transpose", "Identity"),
	})
}

// opMovedim moves the source axes to the destinations; the other axes keep
// their order in the remaining places (torch.movedim's rule).
func opMovedim(c *opCall) (value, error) {
	x, err := c.bindInput("input", "source", "destination")
	if err != nil {
		return nil, err
	}
	src, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	dst, err := c.ints(2, 0)
	if err != nil {
		return nil, err
	}
	if len(src) != len(dst) {
		return nil, c.errf("source has %d axes, destination %d", len(src), len(dst))
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	perm := make([]int64, r)
	for i := range perm {
		perm[i] = -1
	}
	moved := make([]bool, r)
	for i := range src {
		s, err := c.axis(src[i], r)
		if err != nil {
			return nil, err
		}
		d, err := c.axis(dst[i], r)
		if err != nil {
			return nil, err
		}
		if moved[s] || perm[d] != -1 {
			return nil, c.errf("repeated axis in source %v or destination %v", src, dst)
		}
		perm[d], moved[s] = s, true
	}
	next := int64(0)
	for i := range perm {
		if perm[i] != -1 {
			continue
		}
		for moved[next] {
			next++
		}
		perm[i] = next
		next++
	}
	return transpose(c, x, perm)
}

// opNumpyStack: hstack concatenates on axis 1 (axis 0 for vectors), vstack
// on axis 0 after making each at least 2-D, dstack on axis 2 after making
// each at least 3-D, column_stack on axis 1 with vectors as columns.
func opNumpyStack(kind string) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("tensors"); err != nil {
			return nil, err
		}
		ts, err := tensorList(c, 0)
		if err != nil {
			return nil, err
		}
		ins := make([]*tensorVal, len(ts))
		axis := int64(0)
		for i, t := range ts {
			shape, err := c.shapeOf(t, "each tensor")
			if err != nil {
				return nil, err
			}
			var want []int64
			switch kind {
			case "hstack":
				if len(shape) == 0 {
					want = []int64{1}
				}
				if i == 0 && len(shape) > 1 {
					axis = 1
				}
			case "vstack":
				if len(shape) < 2 {
					want = []int64{1, canon.NumElements(shape)}
				}
			case "dstack":
				axis = 2
				switch len(shape) {
				case 0:
					want = []int64{1, 1, 1}
				case 1:
					want = []int64{1, shape[0], 1}
				case 2:
					want = []int64{shape[0], shape[1], 1}
				}
			case "column_stack":
				axis = 1
				if len(shape) < 2 {
					want = []int64{canon.NumElements(shape), 1}
				}
			}
			ins[i] = t
			if want != nil {
				if ins[i], err = reshape(c, t, want...); err != nil {
					return nil, err
				}
			}
		}
		return c.b().emit1(c.scope, &canon.Concat{Axis: axis}, ins...)
	}
}

// opFlipAxis reverses axis d (fliplr: 1, flipud: 0).
func opFlipAxis(d int64) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input")
		if err != nil {
			return nil, err
		}
		r, err := c.rankOf(x, "the input")
		if err != nil {
			return nil, err
		}
		if int(d) >= r {
			return nil, c.errf("the input must have at least %d dimensions", d+1)
		}
		return callWith(c, opFlip, []value{x, &listVal{items: []value{d}}}, nil)
	}
}

// opRot90 turns the plane of dims by k quarter turns from the first axis
// towards the second: k=1 flips the second axis and swaps them, k=2 flips
// both, k=3 flips the first and swaps (torch's own steps).
func opRot90(c *opCall) (value, error) {
	x, err := c.bindInput("input", "k=1", "dims=[0;1]")
	if err != nil {
		return nil, err
	}
	k, err := c.int(1)
	if err != nil {
		return nil, err
	}
	dims, err := c.ints(2, 0)
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(dims) != 2 {
		return nil, c.errf("dims must name two axes, got %v", dims)
	}
	d0, err := c.axis(dims[0], r)
	if err != nil {
		return nil, err
	}
	d1, err := c.axis(dims[1], r)
	if err != nil {
		return nil, err
	}
	if d0 == d1 {
		return nil, c.errf("dims must name two different axes, got %v", dims)
	}
	flip := func(axes ...int64) (*tensorVal, error) {
		items := make([]value, len(axes))
		for i, a := range axes {
			items[i] = a
		}
		v, err := callWith(c, opFlip, []value{x, &listVal{items: items}}, nil)
		if err != nil {
			return nil, err
		}
		return v.(*tensorVal), nil
	}
	swap := func(t *tensorVal) (value, error) {
		perm := make([]int64, r)
		for i := range perm {
			perm[i] = int64(i)
		}
		perm[d0], perm[d1] = d1, d0
		return transpose(c, t, perm)
	}
	switch ((k % 4) + 4) % 4 {
	case 1:
		t, err := flip(d1)
		if err != nil {
			return nil, err
		}
		return swap(t)
	case 2:
		return flip(d0, d1)
	case 3:
		t, err := flip(d0)
		if err != nil {
			return nil, err
		}
		return swap(t)
	}
	return c.b().emit1(c.scope, &canon.Identity{}, x)
}

// rollFlat is roll without dims: the flattened tensor rolled, then given
// its shape back.
func rollFlat(c *opCall, x *tensorVal, shifts []int64) (value, error) {
	if len(shifts) != 1 {
		return nil, c.errf("without dims, roll takes one shift, got %v", shifts)
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	flat, err := reshape(c, x, -1)
	if err != nil {
		return nil, err
	}
	v, err := callWith(c, opRoll, []value{flat, &listVal{items: []value{shifts[0]}}, &listVal{items: []value{int64(0)}}}, nil)
	if err != nil {
		return nil, err
	}
	return reshape(c, v.(*tensorVal), shape...)
}

// squeezeDims is squeeze with a list of axes: those of size 1 go, the
// others stay (torch leaves a non-1 axis alone).
func squeezeDims(c *opCall, x *tensorVal) (value, error) {
	dims, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	vi := c.b().info(x)
	if !vi.RankKnown {
		return nil, c.errf("the rank of the input is not known at import; give the input shape (--input-shape NAME=D1,D2,...)")
	}
	var axes []int64
	for _, d := range dims {
		a, err := c.axis(d, len(vi.Shape))
		if err != nil {
			return nil, err
		}
		if !vi.Shape[a].Known() {
			return nil, c.errf("the size of dimension %d is not known at import; give the input shape (--input-shape NAME=D1,D2,...)", a)
		}
		if vi.Shape[a].Size == 1 {
			axes = append(axes, a)
		}
	}
	if len(axes) == 0 {
		return x, nil
	}
	return squeeze(c, x, axes...)
}
