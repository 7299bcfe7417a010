package interp

import "math"

// selectBits sets out[i] to a[i] where c[i] is nonzero, else b[i], moving
// the bits (NaN payloads and signed zeros as they are) without a branch:
// (c | -c) >> 63 is all ones exactly when c is not zero.
func selectBits(out []float32, c []int64, a, b []float32) {
	c, a, b = c[:len(out)], a[:len(out)], b[:len(out)]
	for i := range out {
		m := uint32((c[i] | -c[i]) >> 63)
		out[i] = math.Float32frombits(math.Float32bits(a[i])&m | math.Float32bits(b[i])&^m)
	}
}
