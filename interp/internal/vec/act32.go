package vec

import "math"

// Float32 activations: where the float64-lane kernels (Sigmoid, ...) give
// math.Exp's result rounded once to float32, these compute in float32
// lanes, as ONNX Runtime does, and stay within a small bound of the
// correctly rounded result (sigmoid32: 2.40 ulp at most, measured by
// TestSigmoid32Accuracy over every input with 2^-26 ≤ |x| < 128 and a
// sweep of the rest). The scalar references below are the oracle: the
// vector routines equal them bit for bit.

// Constants of Cephes' expf: ln 2 split so k·ln2hi is exact for the k
// sigmoid32 needs, and the polynomial for e^r on |r| ≤ ln2/2.
const (
	exp32Log2e = float32(1.44269504088896341)
	exp32Ln2Hi = float32(0.693359375)
	exp32Ln2Lo = float32(-2.12194440e-4)
	exp32Lo    = float32(-104) // e^t rounds to 0 in float32 below -103.97
)

var exp32Poly = [6]float32{1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1}

// sigmoid32 is 1/(1+e^-x) for x ≥ +0 and e^x/(1+e^x) for x ≤ -0, one
// division, with e = exp(-|x|) in (0, 1] from Cephes expf's reduction and
// polynomial (each multiply-add fused, as the vector routines do) scaled
// by 2^k in two halves, so that a subnormal e rounds once. Within 2.40
// ulp; correcting the quotient for the rounding of 1+e (as
// sigmoid32Compensated does, 1.48 ulp) took seven more vector operations
// of some thirty: 4–5% of efficientnet_b0's time, where the SiLU is a
// quarter of it (alternated run by run).
func sigmoid32(x float32) float32 {
	if x != x {
		return x
	}
	e := expNeg32(math.Float32frombits(math.Float32bits(x) | 1<<31))
	num := float32(1)
	if math.Float32bits(x)>>31 != 0 {
		num = e
	}
	return num / (1 + e)
}

// sigmoid32Compensated is sigmoid32 with the quotient corrected for the
// roundings of 1+e, 1/d and num·(1/d) (tanh32 builds on it).
func sigmoid32Compensated(x float32) float32 {
	if x != x {
		return x
	}
	e := expNeg32(math.Float32frombits(math.Float32bits(x) | 1<<31))
	num := float32(1)
	if math.Float32bits(x)>>31 != 0 {
		num = e
	}
	// q = num·(1/d) is rounded three times (d = 1+e, 1/d, the product):
	// dlo is d's rounding error (exact, as 1 ≥ e), num - q·d is exact with
	// a fused multiply-add, so q + (num - q·d - q·dlo)/d rounds num/(1+e)
	// once more instead, the small correction divided by d as a product
	// with 1/d (one division in all).
	d := 1 + e
	dlo := (1 - d) + e
	inv := 1 / d
	q := num * inv
	rem := fma32(-q, d, num)
	rem = fma32(-q, dlo, rem)
	return fma32(rem, inv, q)
}

// expNeg32 is e^t for t ≤ 0 (or NaN) as Cephes expf computes it: t
// clamped below at -104, the reduction by k·ln 2 in two parts, the
// polynomial with each multiply-add fused, and 2^k applied in two halves
// so that a subnormal result rounds once.
func expNeg32(t float32) float32 {
	if t < exp32Lo {
		t = exp32Lo
	}
	ki := int32(math.RoundToEven(float64(t * exp32Log2e)))
	k := float32(ki)
	r := fma32(-k, exp32Ln2Hi, t)
	r = fma32(-k, exp32Ln2Lo, r)
	z := r * r
	p := exp32Poly[0]
	for _, c := range exp32Poly[1:] {
		p = fma32(p, r, c)
	}
	p = fma32(p, z, r)
	p += 1
	k1 := ki >> 1
	e := p * pow2f(k1)
	return e * pow2f(ki-k1)
}

// expShift32Ref sets d[i] = expNeg32(s[i] - m): a softmax row's
// exponentials, m its maximum.
func expShift32Ref(d, s []float32, m float32) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = expNeg32(v - m)
	}
}

// pow2f is 2^k for k in float32's normal exponent range.
func pow2f(k int32) float32 { return math.Float32frombits(uint32(k+127) << 23) }

func silu32Ref(d, s []float32) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = v * sigmoid32(v)
	}
}

func sigmoid32Ref(d, s []float32) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = sigmoid32(v)
	}
}

// hardSigmoidGate32Ref sets d[i] = x·max(0, min(1, a·x+b)) for x = s[i],
// each product and the sum rounded to float32 on its own.
func hardSigmoidGate32Ref(d, s []float32, a, b float32) {
	s = s[:len(d)]
	for i, x := range s {
		d[i] = x * max(0, min(1, float32(a*x)+b))
	}
}
