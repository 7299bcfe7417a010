package vec

import "math"

// Exponential family: elementwise functions built on math.Exp's
// operations, and softmax. The vector routines compute in float64 lanes
// with the standard library's own operations and constants, so each
// element equals its reference below bit for bit.

// sqrt2OverPi is √(2/π), GeluTanh's scale.
var sqrt2OverPi = math.Sqrt(2 / math.Pi)

func exp64Ref(d, s []float64) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = math.Exp(v)
	}
}

func sigmoidRef(d, s []float32) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = float32(1 / (1 + math.Exp(-float64(v))))
	}
}

func sigmoid64Ref(d, s []float64) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = 1 / (1 + math.Exp(-v))
	}
}

func tanhRef(d, s []float32) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = float32(math.Tanh(float64(v)))
	}
}

func tanh64Ref(d, s []float64) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = math.Tanh(v)
	}
}

// geluRef is 0.5·x·erfc(-x/√2) with erfc from the Chebyshev fit of
// Numerical Recipes (erfcc), in float64, each step rounded.
func geluRef(d, s []float32) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = Gelu1(v)
	}
}

// Gelu1 is gelu for float32 data, x·Φ(x) with erfc from the Chebyshev fit
// of Numerical Recipes (erfcc: fractional error below 1.2e-7 for every
// argument, about one float32 ulp), one exponential where math.Erfc sums
// a series: several times faster than float64 gelu, its float32 result
// within a few ulps of it. z = |x|·(1/√2) and the fit's Horner steps are
// fused multiply-adds (math.FMA, as the vector kernels' FMA instructions
// compute them), which leaves one division.
func Gelu1(v float32) float32 {
	x := float64(v)
	z := math.Abs(x) * invSqrt2
	t := 1 / math.FMA(0.5, z, 1)
	p := erfcFit[0]
	for _, c := range erfcFit[1:] {
		p = math.FMA(p, t, c)
	}
	r := t * math.Exp(math.FMA(-z, z, p)) // erfc(|x|/√2)
	if x > 0 {
		r = 2 - r // erfc(-z) = 2 - erfc(z)
	}
	return float32(0.5 * x * r)
}

// invSqrt2 is 1/√2, rounded once.
const invSqrt2 = 0.707106781186547524400844362104849039

// erfcFit is erfcc's polynomial in t, highest power first.
var erfcFit = [10]float64{0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807,
	-0.18628806, 0.09678418, 0.37409196, 1.00002368, -1.26551223}

// geluTanhRef is x/(1+exp(-2u)), u = √(2/π)·(x+0.044715·x³), in float64.
func geluTanhRef(d, s []float32) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = float32(GeluTanh1(float64(v)))
	}
}

// GeluTanh1 is 0.5·x·(1+tanh(u)) with u = √(2/π)·(x+0.044715·x³), written
// as x/(1+exp(-2u)) (the same function, since 1+tanh(u) = 2/(1+exp(-2u)))
// so that very negative x does not cancel to 0 as 1+tanh(u) does.
func GeluTanh1(x float64) float64 {
	u := sqrt2OverPi * (x + 0.044715*x*x*x)
	return x / (1 + math.Exp(-2*u))
}

func erfRef(d, s []float32) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = float32(math.Erf(float64(v)))
	}
}

func erf64Ref(d, s []float64) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = math.Erf(v)
	}
}

// softmaxStridedRef writes the softmax of the n values of src at base,
// base+stride, ... to the same places of dst (which may be src): the
// maximum, then exp(x - max) in float64 added in order, then each scaled
// by 1/sum.
func softmaxStridedRef(dst, src []float32, base, n, stride int) {
	m := float32(math.Inf(-1))
	for k := 0; k < n; k++ {
		m = max(m, src[base+k*stride])
	}
	var sum float64
	for k := 0; k < n; k++ {
		e := math.Exp(float64(src[base+k*stride] - m))
		dst[base+k*stride] = float32(e)
		sum += e
	}
	inv := 1 / sum
	for k := 0; k < n; k++ {
		dst[base+k*stride] = float32(float64(dst[base+k*stride]) * inv)
	}
}

// softmax64Ref replaces row by its softmax: the maximum, exp(x - max)
// added in order, each divided by the sum.
func softmax64Ref(row []float64) {
	m := math.Inf(-1)
	for _, s := range row {
		m = math.Max(m, s)
	}
	var sum float64
	for j, s := range row {
		e := math.Exp(s - m)
		row[j] = e
		sum += e
	}
	for j := range row {
		row[j] /= sum
	}
}
