package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The pad family: F.pad traces to torch.pad (PyTorch 1.13) or
// torch.constant_pad_nd and the reflection/replication pads (older
// versions, and what torch.pad dispatches to). torch's pad list runs from
// the last axis backwards: (last_begin, last_end, prev_begin, ...).

func init() {
	t := map[string]opEntry{
		"torch.pad":             entry(opPad, "Pad", "Slice", "Concat"),
		"torch.constant_pad_nd": entry(opConstantPadND, "Pad"),
	}
	for _, n := range []string{"1d", "2d", "3d"} {
		t["torch.reflection_pad"+n] = entry(opModePad(canon.PadReflect), "Pad")
		t["torch.replication_pad"+n] = entry(opModePad(canon.PadEdge), "Pad")
	}
	optable.Add(&opTable, t)
}

// emitPad reads torch's pad list against x's rank and emits the Pad.
func emitPad(c *opCall, x *tensorVal, pads []int64, mode canon.PadMode, v float64) (value, error) {
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(pads)%2 != 0 || len(pads) > 2*r {
		return nil, c.errf("the pad list %v must have an even length of at most twice the rank %d", pads, r)
	}
	begin, end := make([]int64, r), make([]int64, r)
	for k := 0; k < len(pads)/2; k++ {
		begin[r-1-k], end[r-1-k] = pads[2*k], pads[2*k+1]
	}
	if mode == canon.PadReflect {
		if shape, ok := c.b().info(x).StaticShape(); ok {
			for i := range shape {
				if begin[i] >= shape[i] || end[i] >= shape[i] {
					return nil, c.errf("reflection pads %d and %d must be below the size %d of dimension %d", begin[i], end[i], shape[i], i)
				}
			}
		}
	}
	return c.b().emit1(c.scope, &canon.Pad{Mode: mode, PadsBegin: begin, PadsEnd: end, Value: float32(v)}, x)
}

// opPad: torch.pad(input, pad, mode="constant", value=None).
func opPad(c *opCall) (value, error) {
	x, err := c.bindInput("input", "pad", "mode=None", "value=None")
	if err != nil {
		return nil, err
	}
	pads, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	mode := canon.PadConstant
	m, _ := c.bound[2].(string)
	if c.isNone(2) {
		m = "constant"
	}
	switch m {
	case "constant":
	case "reflect":
		mode = canon.PadReflect
	case "replicate":
		mode = canon.PadEdge
	case "circular":
		return circularPad(c, x, pads)
	default:
		return nil, c.errf("mode %v is not supported (constant, reflect or replicate)", c.bound[2])
	}
	v := 0.0
	if !c.isNone(3) {
		if mode != canon.PadConstant {
			return nil, c.errf("a fill value is only meaningful with mode \"constant\"")
		}
		if v, err = c.float(3); err != nil {
			return nil, err
		}
	}
	return emitPad(c, x, pads, mode, v)
}

func opConstantPadND(c *opCall) (value, error) {
	x, err := c.bindInput("input", "pad", "value=0")
	if err != nil {
		return nil, err
	}
	pads, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	v, err := c.float(2)
	if err != nil {
		return nil, err
	}
	return emitPad(c, x, pads, canon.PadConstant, v)
}

func opModePad(mode canon.PadMode) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input", "padding")
		if err != nil {
			return nil, err
		}
		pads, err := c.ints(1, 0)
		if err != nil {
			return nil, err
		}
		return emitPad(c, x, pads, mode, 0)
	}
}

// circularPad wraps each padded axis around as torch's circular mode
// does: negative pads first crop the axis, then the last b entries of
// what is left go before it and its first e after (a Slice and a Concat
// per axis).
func circularPad(c *opCall, x *tensorVal, pads []int64) (value, error) {
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	r := len(shape)
	if len(pads)%2 != 0 || len(pads) > 2*r {
		return nil, c.errf("the pad list %v must have an even length of at most twice the rank %d", pads, r)
	}
	e := layerEmit{c}
	slice := func(t *tensorVal, axis int, from, to int64) (*tensorVal, error) {
		return e.op(&canon.Slice{Starts: []int64{from}, Ends: []int64{to}, Axes: []int64{int64(axis)}, Steps: []int64{1}}, t)
	}
	y := x
	for k := 0; k < len(pads)/2; k++ {
		axis := r - 1 - k
		begin, end := pads[2*k], pads[2*k+1]
		if begin == 0 && end == 0 {
			continue
		}
		n := shape[axis]
		if begin < 0 || end < 0 {
			if y, err = slice(y, axis, max(-begin, 0), n-max(-end, 0)); err != nil {
				return nil, err
			}
			n -= max(-begin, 0) + max(-end, 0)
			begin, end = max(begin, 0), max(end, 0)
		}
		if n < 0 || begin > n || end > n {
			return nil, c.errf("circular pads %d and %d of dimension %d must not exceed its size %d (after cropping)", pads[2*k], pads[2*k+1], axis, n)
		}
		if begin == 0 && end == 0 {
			continue
		}
		var parts []*tensorVal
		if begin > 0 {
			tail, err := slice(y, axis, n-begin, n)
			if err != nil {
				return nil, err
			}
			parts = append(parts, tail)
		}
		parts = append(parts, y)
		if end > 0 {
			head, err := slice(y, axis, 0, end)
			if err != nil {
				return nil, err
			}
			parts = append(parts, head)
		}
		if y, err = e.op(&canon.Concat{Axis: int64(axis)}, parts...); err != nil {
			return nil, err
		}
	}
	return y, nil
}
