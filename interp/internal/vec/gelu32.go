package vec

import "math"

// gelu32 is the exact GELU, x·Φ(x) = 0.5·x·(1+erf(x/√2)), in float32
// operations. Below |x| = 0.5 it is x·(0.5 + x·S(x²)), S a fit of
// 0.5·erf(x/√2)/x, the last step one fused multiply-add; from 0.5 up,
// q = Φ(-|x|) = exp(-x²/2)·t·P(t) with t = 1/(1+|x|/2), x²/2 split exactly
// into hi + lo by a fused multiply-add so that exp(-hi-lo) loses nothing
// to the split, and exp by Cephes expf's reduction and polynomial; the
// result is x·q for x < 0 and x - x·q for x > 0, x·q scaled by 2^k in two
// halves so that a subnormal result rounds once. t, P(t) and the products
// t·P·e^r·x are carried as float32 pairs (exact FMA remainders, Fast2Sum),
// so that each pair's sum rounds once: within 1.72 ulp of the correctly
// rounded gelu (TestGelu32Accuracy; docs/performance.md). The fits are
// relative-error least squares in float64, iterated towards minimax, their
// coefficients rounded to float32 one at a time, highest first, the rest
// refitted after each.
//
// The vector routines (gen/gelu32.go) are these operations lane by lane.
func gelu32(x float32) float32 {
	if x != x || x < -math.MaxFloat32 {
		return float32(math.NaN()) // -Inf·Φ(-Inf), as float64 gelu gives
	}
	a := math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
	if a < gelu32Split {
		u := float32(x * x)
		s := gelu32Small[0]
		for _, c := range gelu32Small[1:] {
			s = fma32(s, u, c)
		}
		h := float32(x * s)
		return fma32(x, h, float32(0.5*x))
	}
	xc := x
	if a > gelu32Big {
		a = gelu32Big
		xc = math.Float32frombits(math.Float32bits(x)&(1<<31) | math.Float32bits(gelu32Big))
	}
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
	// t = 1/(1+a/2) as tt + tl: d's rounding error dlo is exact (d - 1
	// and ha - (d-1) are), and so is 1 - tt·d by an FMA.
	d := ha + 1
	dlo := ha - (d - 1)
	tt := 1 / d
	e1 := fma32(-tt, d, 1)
	e1 = fma32(-tt, dlo, e1)
	tl := float32(tt * e1)
	// P(w) = c0 + w·R(w) as ph + pl (c0 itself a pair; |w·R| < c0).
	w := tt - gelu32TailCentre
	rr := gelu32Tail[0]
	for _, c := range gelu32Tail[1:] {
		rr = fma32(rr, w, c)
	}
	sh := float32(w * rr)
	sl := fma32(w, rr, -sh)
	ph := gelu32TailC0 + sh
	pl := ((gelu32TailC0 - ph) + sh) + (sl + gelu32TailC0Lo)
	// U = t·P as uh + ul, then V = U·(1 + em1) as vh + vl, then x·V.
	uh := float32(tt * ph)
	ul := fma32(tt, ph, -uh)
	ul = fma32(tt, pl, ul)
	ul = fma32(tl, ph, ul)
	wh := float32(uh * em1)
	wl := fma32(uh, em1, -wh)
	vh := uh + wh
	vl := ((uh - vh) + wh) + fma32(ul, em1, ul+wl)
	mh := float32(xc * vh)
	ml := fma32(xc, vh, -mh)
	m := mh + fma32(xc, vl, ml)
	k1 := ki >> 1
	m = float32(m * pow2f(k1))
	m = float32(m * pow2f(ki-k1))
	if x < 0 {
		return m
	}
	return x - m
}

const (
	gelu32Split = float32(0.5)
	gelu32Big   = float32(15) // x·Φ(-x) is below float32's least subnormal
)

// gelu32Small fits 0.5·erf(x/√2)/x in x² on |x| < 0.5, highest power first.
var gelu32Small = [6]float32{-8.959013030107599e-06, 0.0001152992554125376, -0.0011873106705024838,
	0.00997355580329895, -0.06649038195610046, 0.3989422917366028}

// gelu32Tail fits Φ(-a)·exp(a²/2)/t in t = 1/(1+a/2) on 0.5 ≤ a ≤ 14.6,
// highest power first.
const gelu32TailCentre = float32(0.4588235318660736)

var gelu32Tail = [11]float32{0.08386300504207611, -0.12246514856815338, -0.001149326446466148, 0.11796383559703827,
	-0.08882703632116318, -0.04256133362650871, 0.12084611505270004, -0.027355216443538666, -0.14434964954853058,
	0.07562204450368881, 0.32591691613197327}

// gelu32TailC0 + gelu32TailC0Lo is the fit's constant term.
const (
	gelu32TailC0   = float32(0.322665810585022)
	gelu32TailC0Lo = float32(9.42348243881952e-09)
)

// GeluOne32 is gelu32(x): Gelu32's value for one element.
func GeluOne32(x float32) float32 { return gelu32(x) }

func geluLanes32Ref(d, s []float32) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = gelu32(v)
	}
}
