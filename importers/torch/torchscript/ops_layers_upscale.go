package torchscript

import (
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// Scale factors of torch's upsampling that the plain Resize mapping does
// not reproduce: scales float32 cannot hold, axes whose size a scale
// keeps, and ONNX Runtime's copy of a Resize whose output shape equals
// its input's.

// float32ScaleAgrees checks that a linear or cubic torch scale factor s
// that float32 rounds may be given to Resize as float32(s): the output
// size floor(in·s) must not change. PyTorch maps output d to
// (d + 0.5)·float32(1/s) − 0.5 and Resize to (d + 0.5)/float32(s) − 0.5;
// the coordinates differ by a few float32 steps, and linear and cubic
// taps move continuously with them, so the values agree to float
// rounding. (Nearest picks are checked one by one, nearestUpsample.)
func float32ScaleAgrees(c *opCall, x *tensorVal, axis int, s float64) error {
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return err
	}
	in := shape[axis]
	s32 := float32(s)
	out := int64(math.Floor(float64(in) * s))
	if out32 := int64(math.Floor(float64(in) * float64(s32))); out != out32 {
		return c.errf("scale factor %v makes %d outputs from %d, but its float32 rounding %v (ONNX Resize scales are float32) makes %d", s, out, in, s32, out32)
	}
	return nil
}

// torchAxisScale is the scale Resize needs on an axis where PyTorch's
// linear kernels ignore the scale factor s, or 0 where they map by s:
// they copy an axis whose output size floor(in·s) equals its input size
// (bicubic resamples it with the scale). Only scales in (1, 2) can do
// that, and then the input size must be known.
func torchAxisScale(c *opCall, x *tensorVal, kind upsampleKind, axis int, s float64) (float32, error) {
	if kind != upLinear {
		return 0, nil
	}
	if s == 1 {
		return 1, nil
	}
	if s < 1 || s >= 2 {
		return 0, nil
	}
	shape, ok := c.b().info(x).StaticShape()
	if !ok {
		return 0, c.errf("scale factor %v: PyTorch copies an axis whose output size equals its input size and resamples it otherwise; give the input shape (--input-shape) to decide which", s)
	}
	if int64(math.Floor(float64(shape[axis])*s)) == shape[axis] {
		return 1, nil
	}
	return 0, nil
}

// resizeKeepsShape refuses a Resize whose output shape equals its input's
// but whose mapping is not the identity: ONNX Runtime copies such a
// Resize, while PyTorch (and ONNX) resample.
func resizeKeepsShape(c *opCall, x *tensorVal, scales []float32) error {
	shape, ok := c.b().info(x).StaticShape()
	if !ok {
		return nil
	}
	same, identity := true, true
	for i, s := range scales {
		same = same && int64(math.Floor(float64(shape[i])*float64(s))) == shape[i]
		identity = identity && s == 1
	}
	if same && !identity {
		return c.errf("scale factors %v keep the shape %v but move the sampling points; ONNX Runtime copies a Resize whose output shape equals its input's, so no exported Resize would match PyTorch", scales[2:], shape)
	}
	return nil
}

// torchNearestIndex is the input index PyTorch's generic nearest kernel
// reads for output d, with r = float32(1/s): floor(d·r) (nearest) or
// floor((d + 0.5)·r) with the product in double (nearest-exact), at most
// in − 1.
func torchNearestIndex(exact bool, d, in int64, r float32) int64 {
	var v float64
	if exact {
		v = float64(float32((float64(d) + 0.5) * float64(r)))
	} else {
		v = float64(float32(d) * r)
	}
	return min(int64(math.Floor(v)), in-1)
}

// canonNearestIndex is the index Resize picks with scale s32 (asymmetric
// floor, or half-pixel round-prefer-ceil), in float32 (f32) or float64
// arithmetic, clamped to the input.
func canonNearestIndex(exact bool, d, in int64, s32 float32, f32 bool) int64 {
	var v float64
	switch {
	case !exact && f32:
		v = math.Floor(float64(float32(d) / s32))
	case !exact:
		v = math.Floor(float64(d) / float64(s32))
	case f32:
		w := (float32(d)+0.5)/s32 - 0.5
		v = math.Floor(float64(w))
		if float64(w)-v >= 0.5 {
			v++
		}
	default:
		w := (float64(d)+0.5)/float64(s32) - 0.5
		v = math.Floor(w)
		if w-v >= 0.5 {
			v++
		}
	}
	return max(0, min(int64(v), in-1))
}

// nearestUpsample writes torch's nearest and nearest-exact upsampling by
// scale factors. Each axis' picks are computed as PyTorch's generic kernel
// makes them; a single channel of a 4-D or 5-D input goes through its
// channels-last kernel instead, which copies an axis whose size is kept
// and halves indices where it doubles: when the two kernels disagree the
// result depends on the input's memory layout, and the call is refused.
// When Resize with the float32 scales picks the same entries (and ONNX
// Runtime does not take it for a copy) it is a Resize; otherwise a
// Gather per axis of the picked indices, exact in every runtime.
func nearestUpsample(c *opCall, x *tensorVal, kind upsampleKind, op *canon.Resize, scales []float64) (value, error) {
	exact := kind == upNearestExact
	nsp := len(scales)
	op.Scales = make([]float32, nsp+2)
	op.Scales[0], op.Scales[1] = 1, 1
	for i, s := range scales {
		op.Scales[2+i] = float32(s)
	}
	shape, ok := c.b().info(x).StaticShape()
	if !ok {
		for _, s := range scales {
			if float64(float32(s)) != s || (s > 1 && s < 3 && s != 2) {
				return nil, c.errf("scale factor %v: the entries PyTorch picks depend on the input size; give the input shape (--input-shape)", s)
			}
		}
		return c.b().emit1(c.scope, op, x)
	}
	picks := make([][]int64, nsp)
	resizeOK, sameShape, identity := true, true, true
	for i, s := range scales {
		in := shape[2+i]
		out := int64(math.Floor(float64(in) * s))
		if out <= 0 {
			return nil, c.errf("scale factor %v makes an empty axis from size %d", s, in)
		}
		r := float32(1 / s)
		s32 := float32(s)
		resizeOK = resizeOK && int64(math.Floor(float64(in)*float64(s32))) == out
		sameShape = sameShape && out == in
		channelsLast := !exact && shape[1] == 1 && len(shape) >= 4 && (out == in || out == 2*in)
		picks[i] = make([]int64, out)
		for d := range out {
			p := torchNearestIndex(exact, d, in, r)
			if channelsLast {
				alt := d
				if out == 2*in {
					alt = d >> 1
				}
				if alt != p {
					return nil, c.errf("scale factor %v on a single channel: for output %d PyTorch reads input %d through its generic kernel (a strided input) but %d through its channels-last kernel (a contiguous one, which copies or halves this axis), so the result depends on the input's memory layout; give a scale of exactly 1 or 2, or an output size", s, d, p, alt)
				}
			}
			picks[i][d] = p
			identity = identity && p == d
			resizeOK = resizeOK && canonNearestIndex(exact, d, in, s32, true) == p && canonNearestIndex(exact, d, in, s32, false) == p
		}
	}
	if resizeOK && (!sameShape || identity) {
		return c.b().emit1(c.scope, op, x)
	}
	e := layerEmit{c}
	y := x
	for i, p := range picks {
		in := shape[2+i]
		if int64(len(p)) == in && slices.IsSorted(p) && (len(p) == 0 || p[len(p)-1] == in-1) && p[0] == 0 && distinct(p) {
			continue // the identity
		}
		var err error
		if y, err = e.op(&canon.Gather{Axis: int64(2 + i)}, y, i64s([]int64{int64(len(p))}, p)); err != nil {
			return nil, err
		}
	}
	return y, nil
}

// distinct tells whether a sorted list has no repeats.
func distinct(p []int64) bool {
	for i := 1; i < len(p); i++ {
		if p[i] == p[i-1] {
			return false
		}
	}
	return true
}
