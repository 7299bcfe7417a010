package vec

import "math"

// gelu32 is the exact GELU, x·Φ(x) = 0.5·x·(1+erf(x/√2)), in float32
// operations, one formula over the whole line: with a = |x| (clamped at
// 15, where x·Φ(-x) is below float32's least subnormal), q = Φ(-a) =
// e^(-a²/2)·t·P(t), t = 1/(1+a/2) and P a fit in t; the result is x·q for
// x ≤ -0 and x - x·q otherwise (q ≤ 0.5, so the subtraction does not
// magnify q's error). a²/2 is split exactly into hi + lo by a fused
// multiply-add so that e^(-hi-lo) loses nothing to the split; the
// exponential is Cephes expf's reduction and polynomial, its last step
// folded into the product t·P·(1 + (e^r - 1)) by one fused multiply-add;
// the scaling by 2^k in two halves rounds a subnormal result once.
// Within 5.03 ulp of the correctly rounded gelu over every float32
// (TestGelu32Accuracy with MODELBRIDGE_EXHAUSTIVE=1; the worst near x =
// -6.2, where 1 + a/2 and 1/(1 + a/2) both round). P is a relative-error least-squares fit in float64 iterated
// towards minimax (0.29 units of 2^-24 after rounding), its coefficients
// rounded to float32 one at a time, highest first, the rest refitted
// after each.
//
// The vector routines (gen/gelu32.go) are these operations lane by lane.
func gelu32(x float32) float32 {
	if x != x {
		return x
	}
	if x < -math.MaxFloat32 {
		return float32(math.NaN()) // -Inf·Φ(-Inf), as float64 gelu gives
	}
	a := min(math.Float32frombits(math.Float32bits(x)&^(1<<31)), gelu32Big)
	ha := 0.5 * a
	hi := float32(ha * a)
	lo := fma32(ha, a, -hi)
	ki := int32(math.RoundToEven(float64(float32(-hi * exp32Log2e))))
	k := float32(ki)
	r := fma32(-k, exp32Ln2Hi, -hi)
	r = fma32(-k, exp32Ln2Lo, r)
	r -= lo
	z := float32(r * r)
	p := exp32Poly[0]
	for _, c := range exp32Poly[1:] {
		p = fma32(p, r, c)
	}
	em1 := fma32(p, z, r) // e^r - 1
	t := 1 / (1 + ha)
	w := t - gelu32TailCentre
	pt := gelu32Tail[0]
	for _, c := range gelu32Tail[1:] {
		pt = fma32(pt, w, c)
	}
	u := float32(t * pt)
	v := fma32(u, em1, u)
	xc := math.Float32frombits(math.Float32bits(x)&(1<<31) | math.Float32bits(a))
	m := float32(xc * v)
	k1 := ki >> 1
	m = float32(m * pow2f(k1))
	m = float32(m * pow2f(ki-k1))
	if math.Signbit(float64(x)) {
		return m
	}
	return x - m
}

// x·Φ(-x) is below float32's least subnormal from here on.
const gelu32Big = float32(15)

// gelu32Tail fits Φ(-a)·exp(a²/2)/t in w = t - gelu32TailCentre, t =
// 1/(1+a/2), on 0 ≤ a ≤ 15, highest power first.
const gelu32TailCentre = float32(0.5588235259056091)

var gelu32Tail = [12]float32{0.06811210513114929, -0.03258128836750984, -0.06668159365653992, 0.07923905551433563,
	-0.008075378835201263, -0.07450178265571594, 0.0830310806632042, 0.024401003494858742, -0.14430537819862366,
	0.0318046435713768, 0.3366587460041046, 0.35586780309677124}

// GeluOne32 is gelu32(x): Gelu32's value for one element.
func GeluOne32(x float32) float32 { return gelu32(x) }

func geluLanes32Ref(d, s []float32) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = gelu32(v)
	}
}
