package tfliteimport

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// TFLite's integer kernels rescale with fixed-point multipliers, not with
// float products: a real multiplier M is stored as a Q31 significand and a
// power-of-two shift (QuantizeMultiplier), and applied with gemmlowp's
// rounding (MultiplyByQuantizedMultiplier). The canonical quantized ops
// (QLinearConv, QuantizeLinear...) rescale in float with round-half-even,
// which differs from TFLite in the last step for some accumulators, so the
// importer writes TFLite's arithmetic itself, in int64 canonical ops whose
// integer semantics are exact (Div truncates, Mod takes the divisor's
// sign): the interpreter and ONNX Runtime then give TFLite's numbers.

// fixedMul is one multiplier per channel (or one for the tensor).
type fixedMul struct {
	mult  []int64 // Q31 significands, in [2^30, 2^31) or 0
	shift []int   // powers of two, positive to the left
}

// quantizeMultiplier is TFLite's QuantizeMultiplier: m = q·2^shift with q
// a Q31 number rounded half away from zero.
func quantizeMultiplier(m float64) (int64, int) {
	if m == 0 {
		return 0, 0
	}
	q, shift := math.Frexp(m)
	qf := int64(math.Round(q * (1 << 31)))
	if qf == 1<<31 {
		qf /= 2
		shift++
	}
	if shift < -31 {
		shift, qf = 0, 0
	}
	return qf, shift
}

// makeFixedMul quantizes every real multiplier in ms.
func makeFixedMul(ms []float64) fixedMul {
	var f fixedMul
	for _, m := range ms {
		q, s := quantizeMultiplier(m)
		f.mult = append(f.mult, q)
		f.shift = append(f.shift, s)
	}
	return f
}

// chanShape is the shape of a per-channel constant for a value of rank r
// whose channels are along axis: C there and 1 after it (NumPy
// broadcasting aligns the trailing axes). One value is a scalar.
func chanShape(n, r, axis int) []int64 {
	if n == 1 {
		return []int64{}
	}
	s := make([]int64, r-axis)
	for k := range s {
		s[k] = 1
	}
	s[0] = int64(n)
	return s
}

// rescaler emits the fixed-point arithmetic on int64 values whose channel
// constants have shape cs.
type rescaler struct {
	b    *builder
	base string
	cs   []int64
}

func (r rescaler) konst(what string, v []int64) string {
	shape := r.cs
	if len(v) == 1 {
		shape = []int64{}
	}
	return r.b.constI64(r.base+"/"+what, shape, v)
}

func (r rescaler) bin(what string, fn canon.BinaryFn, x, y string) string {
	return r.b.node(r.base+"/"+what, &canon.Binary{Fn: fn}, x, y)
}

func allEqual(v []int64, want int64) bool {
	for _, x := range v {
		if x != want {
			return false
		}
	}
	return true
}

func pow2(e int) int64 { return int64(1) << uint(e) }

// floorDiv is floor(x / d) for positive constants d: x - (x mod d) is a
// multiple of d, so the truncating division is exact.
func (r rescaler) floorDiv(what, x string, d []int64) string {
	dv := r.konst(what+"_d", d)
	m := r.b.node(r.base+"/"+what+"_mod", &canon.Mod{}, x, dv)
	return r.bin(what+"_div", canon.Div, r.bin(what+"_sub", canon.Sub, x, m), dv)
}

// roundingDivideByPOT is gemmlowp's RoundingDivideByPOT: x / 2^e rounded
// half away from zero, as trunc((x + sign(x)·2^(e-1)) / 2^e).
func (r rescaler) roundingDivideByPOT(x string, e []int) string {
	half, div := make([]int64, len(e)), make([]int64, len(e))
	any := false
	for k, v := range e {
		div[k] = pow2(v)
		if v > 0 {
			half[k] = pow2(v - 1)
			any = true
		}
	}
	if !any {
		return x
	}
	s := r.b.node(r.base+"/rdbp_sign", &canon.Math{Fn: canon.MathSign}, x)
	t := r.bin("rdbp_add", canon.Add, x, r.bin("rdbp_half", canon.Mul, s, r.konst("rdbp_half", half)))
	return r.bin("rdbp", canon.Div, t, r.konst("rdbp_pot", div))
}

// mul32 is MultiplyByQuantizedMultiplier(int32 x, M, shift) with TFLite's
// default double rounding: x·2^left, then SaturatingRoundingDoubling-
// HighMul (floor((a·b + 2^30) / 2^31); its saturating case needs a
// negative multiplier, which QuantizeMultiplier never makes), then a
// rounding right shift.
func (r rescaler) mul32(x string, f fixedMul) string {
	left, right := make([]int64, len(f.shift)), make([]int, len(f.shift))
	for k, s := range f.shift {
		left[k] = pow2(max(s, 0))
		right[k] = max(-s, 0)
	}
	if !allEqual(left, 1) {
		x = r.bin("lshift", canon.Mul, x, r.konst("lshift", left))
	}
	p := r.bin("hmul", canon.Mul, x, r.konst("mult", f.mult))
	p = r.bin("hmul_nudge", canon.Add, p, r.konst("nudge", []int64{1 << 30}))
	p = r.floorDiv("hmul", p, []int64{1 << 31})
	return r.roundingDivideByPOT(p, right)
}

// mul64 is MultiplyByQuantizedMultiplier(int64 x, M, shift), the form
// TFLite's 16-bit convolutions use: the multiplier reduced to 15 bits,
// then one rounding shift, floor((x·m + 2^(14-shift)) / 2^(15-shift)).
func (r rescaler) mul64(x string, f fixedMul) string {
	red, round, div := make([]int64, len(f.mult)), make([]int64, len(f.mult)), make([]int64, len(f.mult))
	for k, m := range f.mult {
		if m < 0x7FFF0000 {
			red[k] = (m + 1<<15) >> 16
		} else {
			red[k] = 0x7FFF
		}
		total := 15 - f.shift[k]
		round[k] = pow2(total - 1)
		div[k] = pow2(total)
	}
	p := r.bin("rmul", canon.Mul, x, r.konst("rmult", red))
	p = r.bin("rmul_round", canon.Add, p, r.konst("rround", round))
	return r.floorDiv("rshift", p, div)
}

// clampCast adds zero point zp, clamps to [lo, hi] and casts to dt.
func (r rescaler) clampCast(x string, zp, lo, hi int64, dt canon.DType) string {
	b := r.b
	if zp != 0 {
		x = r.bin("zp", canon.Add, x, b.constI64(r.base+"/zp", []int64{}, []int64{zp}))
	}
	x = b.node(r.base+"/max", &canon.Variadic{Fn: canon.VarMax}, x, b.constI64(r.base+"/lo", []int64{}, []int64{lo}))
	x = b.node(r.base+"/min", &canon.Variadic{Fn: canon.VarMin}, x, b.constI64(r.base+"/hi", []int64{}, []int64{hi}))
	return b.node(r.base+"/cast", &canon.Cast{To: dt}, x)
}

// toInt64 casts an integer value to int64, subtracting zero point zp.
func (r rescaler) toInt64(x string, zp int64) string {
	x = r.b.node(r.base+"/i64", &canon.Cast{To: canon.Int64}, x)
	if zp != 0 {
		x = r.bin("unzp", canon.Sub, x, r.b.constI64(r.base+"/in_zp", []int64{}, []int64{zp}))
	}
	return x
}
