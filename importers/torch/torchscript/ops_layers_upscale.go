package torchscript

import "math"

// float32ScaleAgrees checks that a torch scale factor s that float32
// rounds may be given to Resize as float32(s). PyTorch makes
// floor(in·s) outputs and maps output d to input coordinate
// d·float32(1/s) (nearest) or (d + 0.5)·float32(1/s) − 0.5 (linear,
// cubic); Resize maps with a division by float32(s). The two coordinates
// differ by a few float32 rounding steps: linear and cubic taps move
// continuously, so their values agree to float rounding, while nearest
// must pick the same input index at every output position, which is
// checked here (in float32 and float64 arithmetic, as runtimes differ).
func float32ScaleAgrees(c *opCall, x *tensorVal, kind upsampleKind, axis int, s float64) error {
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return err
	}
	in := shape[axis]
	s32 := float32(s)
	out := int64(math.Floor(float64(in) * s))
	if out != int64(math.Floor(float64(in)*float64(s32))) {
		return c.errf("scale factor %v makes %d outputs from %d, but its float32 rounding %v (ONNX Resize scales are float32) makes %d", s, out, in, s32, int64(math.Floor(float64(in)*float64(s32))))
	}
	if kind != upNearest && kind != upNearestExact {
		return nil
	}
	r := float32(1 / s)
	for d := range out {
		var want int64
		var got32, got64 float64
		if kind == upNearest {
			switch {
			case out == in:
				want = d
			case out == 2*in:
				want = d >> 1
			default:
				want = min(int64(math.Floor(float64(float32(d)*r))), in-1)
			}
			got32 = math.Floor(float64(float32(d) / s32))
			got64 = math.Floor(float64(d) / float64(s32))
		} else {
			want = min(int64(math.Floor(float64((float32(d)+0.5)*r))), in-1)
			got32 = math.Floor(float64((float32(d) + 0.5) / s32))
			got64 = math.Floor((float64(d) + 0.5) / float64(s32))
		}
		if min(int64(got32), in-1) != want || min(int64(got64), in-1) != want {
			return c.errf("scale factor %v is not exactly a float32 (ONNX Resize scales are): output %d along axis %d takes input %d in torch but %v with the float32 scale %v", s, d, axis, want, got32, s32)
		}
	}
	return nil
}
