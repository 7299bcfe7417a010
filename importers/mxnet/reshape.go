package mxnetimport

import (
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// mxReshape computes MXNet's Reshape target from the input shape and the
// shape attribute with its special codes (src/operator/tensor/matrix_op-inl.h):
// 0 copies the next input dim, -1 is inferred, -2 copies all remaining dims,
// -3 merges the next two, -4 splits the next one into the two values that
// follow (one of which may be -1). reverse applies the codes right to left.
func mxReshape(in, codes []int64, reverse bool) ([]int64, error) {
	if reverse {
		in = slices.Clone(in)
		codes = slices.Clone(codes)
		slices.Reverse(in)
		slices.Reverse(codes)
	}
	var out []int64
	src, inf := 0, -1
	next := func() (int64, error) {
		if src >= len(in) {
			return 0, fmt.Errorf("shape %v consumes more dims than the input %v has", codes, in)
		}
		src++
		return in[src-1], nil
	}
	for i := 0; i < len(codes); i++ {
		switch p := codes[i]; {
		case p > 0:
			out = append(out, p)
			src++
		case p == 0:
			d, err := next()
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		case p == -1:
			if inf >= 0 {
				return nil, fmt.Errorf("shape %v has more than one -1", codes)
			}
			inf = len(out)
			out = append(out, 1)
			src++
		case p == -2:
			out = append(out, in[min(src, len(in)):]...)
			src = len(in)
		case p == -3:
			d1, err := next()
			if err != nil {
				return nil, err
			}
			d2, err := next()
			if err != nil {
				return nil, err
			}
			out = append(out, d1*d2)
		case p == -4:
			if i+2 >= len(codes) {
				return nil, fmt.Errorf("shape %v: -4 must be followed by two values", codes)
			}
			d0, err := next()
			if err != nil {
				return nil, err
			}
			d1, d2 := codes[i+1], codes[i+2]
			i += 2
			if d1 == -1 && d2 == -1 || d1 < -1 || d2 < -1 || d1 == 0 || d2 == 0 {
				return nil, fmt.Errorf("shape %v: -4 needs two positive sizes, at most one -1", codes)
			}
			if d1 == -1 {
				d1 = d0 / d2
			}
			if d2 == -1 {
				d2 = d0 / d1
			}
			if d1*d2 != d0 {
				return nil, fmt.Errorf("shape %v: cannot split dim %d into %d x %d", codes, d0, d1, d2)
			}
			out = append(out, d1, d2)
		default:
			return nil, fmt.Errorf("shape %v has the unknown code %d", codes, p)
		}
	}
	if inf >= 0 {
		known := int64(1)
		for i, d := range out {
			if i != inf {
				known *= d
			}
		}
		total := canon.NumElements(in)
		if known == 0 || total%known != 0 {
			return nil, fmt.Errorf("shape %v cannot hold the %d elements of %v", codes, total, in)
		}
		out[inf] = total / known
	}
	if canon.NumElements(out) != canon.NumElements(in) {
		return nil, fmt.Errorf("shape %v gives %v, which does not hold the %d elements of %v", codes, out, canon.NumElements(in), in)
	}
	if reverse {
		slices.Reverse(out)
	}
	return out, nil
}

// onnxCompatible reports whether the codes mean the same under ONNX
// Reshape rules (positive sizes, 0 = copy the dim at the same index, one
// -1), so that the target need not be resolved against a static shape.
func onnxCompatible(codes []int64) bool {
	inf := 0
	for _, p := range codes {
		switch {
		case p == -1:
			inf++
		case p < -1:
			return false
		}
	}
	return inf <= 1
}

func convReshape(b *builder, c *nodeCtx) ([]string, error) {
	shape, err := c.a.ints("shape", nil)
	if err != nil {
		return nil, err
	}
	reverse, err := c.a.bool("reverse", false)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	if len(shape) == 0 && c.a.has("target_shape") {
		// Deprecated form: 0 marks the one inferred dim; keep_highest keeps
		// the first input dim in front.
		t, err := c.a.ints("target_shape", nil)
		if err != nil {
			return nil, err
		}
		keep, err := c.a.bool("keep_highest", false)
		if err != nil {
			return nil, err
		}
		for _, d := range t {
			if d == 0 {
				d = -1
			}
			shape = append(shape, d)
		}
		if keep {
			shape = append([]int64{0}, shape...)
		}
	}
	if len(shape) == 0 {
		return nil, c.errf("Reshape needs a shape attribute")
	}
	target := shape
	if reverse || !onnxCompatible(shape) {
		s, err := b.staticShape(x, c.n.Name, fmt.Sprintf("Reshape with shape %v", shape))
		if err != nil {
			return nil, err
		}
		if target, err = mxReshape(s, shape, reverse); err != nil {
			return nil, c.errf("%v", err)
		}
	} else if s, ok := b.vals[x].StaticShape(); ok {
		if target, err = mxReshape(s, shape, false); err != nil {
			return nil, c.errf("%v", err)
		}
		// Keep a leading 0/-1 batch code symbolic-friendly only when the
		// shape was not static; here it is, so the target is explicit.
	}
	return single(b, c, &canon.Reshape{Shape: target})
}
