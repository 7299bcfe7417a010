package vec

import "math"

// tanh32 is tanh in float32 operations, within 1.12 ulp of the correctly
// rounded result (1.113 at most, measured by TestTanh32Accuracy over every
// input with 2^-30 ≤ |x| < 16 and a sweep of the rest). With
// a = |x|: below tanh32Split it is a + a·s·P(s), s = a², P Cephes tanhf's
// fit (its Horner steps and the last step fused multiply-adds); from the
// split up it is 1 - 2q, q = e/(1+e) with e = e^(-2a) computed exactly as
// sigmoid32Compensated(-2a) computes it, so 2q ≤ 0.45 and the subtraction rounds
// once. Either result takes x's sign bit (tanh(-0) = -0); NaN stays NaN.
//
// The vector routines (gen/tanh32.go) are these operations lane by lane.
func tanh32(x float32) float32 {
	sign := math.Float32bits(x) & (1 << 31)
	a := math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
	var r float32
	if a < tanh32Split {
		s := a * a
		p := tanh32Poly[0]
		for _, c := range tanh32Poly[1:] {
			p = fma32(p, s, c)
		}
		r = fma32(p*s, a, a)
	} else {
		q := sigmoid32Compensated(-2 * a)
		r = 1 - 2*q
	}
	return math.Float32frombits(math.Float32bits(r) | sign)
}

// tanh32Split is where the fit gives way to the exponential: above it
// 1 - 2q cancels less than one bit.
const tanh32Split = float32(0.625)

// tanh32Poly is Cephes tanhf's fit of (tanh(a) - a)/a³ in s = a², highest
// power first.
var tanh32Poly = [5]float32{-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1}

func tanh32Ref(d, s []float32) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = tanh32(v)
	}
}
