package tfliteimport

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// TFLite's int8 SOFTMAX (reference_ops::Softmax with gemmlowp fixed
// point): x - max(x) is rescaled by a fixed-point beta·scale multiplier,
// exponentiated with gemmlowp's exp_on_negative_values (Q5.26 in, Q0.31
// out), summed in Q12.19, and each exp is multiplied by the sum's
// reciprocal (gemmlowp's one_over_one_plus_x_for_x_in_0_1, three
// Newton-Raphson steps) and shifted to 8 bits. An int8 difference has 256
// values, so the per-element exponentials are tables computed here with
// the kernel's own integer steps; the per-row sum, reciprocal and final
// shift are written as exact int64 canonical ops.

// srdhm is gemmlowp's SaturatingRoundingDoublingHighMul for int32.
func srdhm(a, b int32) int32 {
	if a == math.MinInt32 && b == math.MinInt32 {
		return math.MaxInt32
	}
	ab := int64(a) * int64(b)
	nudge := int64(1 << 30)
	if ab < 0 {
		nudge = 1 - (1 << 30)
	}
	return int32((ab + nudge) / (1 << 31))
}

// rdbp is gemmlowp's RoundingDivideByPOT.
func rdbp(x int32, e uint) int32 {
	mask := int32(1)<<e - 1
	rem := x & mask
	thr := mask >> 1
	if x < 0 {
		thr++
	}
	r := x >> e
	if rem > thr {
		r++
	}
	return r
}

// satShiftLeft is SaturatingRoundingMultiplyByPOT with a positive exponent.
func satShiftLeft(x int32, e uint) int32 {
	v := int64(x) << e
	return int32(max(min(v, math.MaxInt32), math.MinInt32))
}

// expOnNegativeValues is gemmlowp's exp_on_negative_values for a Q5.26
// input, giving Q0.31.
func expOnNegativeValues(a int32) int32 {
	const fracBits = 26
	const oneQuarter = int32(1) << (fracBits - 2)
	mask := oneQuarter - 1
	aModQuarterMinusQuarter := (a & mask) - oneQuarter
	result := expOnInterval(satShiftLeft(aModQuarterMinusQuarter, 5))
	remainder := aModQuarterMinusQuarter - a
	for k, mult := range []int32{1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242} {
		exp := k - 2
		if remainder&(int32(1)<<uint(fracBits+exp)) != 0 {
			result = srdhm(result, mult)
		}
	}
	if a == 0 {
		return math.MaxInt32
	}
	return result
}

// expOnInterval is exp_on_interval_between_negative_one_quarter_and_0_excl
// (Q0.31 in and out).
func expOnInterval(a int32) int32 {
	const constantTerm = 1895147668
	const oneThird = 715827883
	x := a + 1<<28
	x2 := srdhm(x, x)
	x3 := srdhm(x2, x)
	x4 := srdhm(x2, x2)
	x4Over4 := rdbp(x4, 2)
	poly := rdbp(srdhm(x4Over4+x3, oneThird)+x2, 1)
	return constantTerm + srdhm(constantTerm, x+poly)
}

// softmaxInt8Params are the kernel's constants (PreprocessSoftmaxScaling
// and CalculateInputRadius with 5 integer bits).
type softmaxInt8Params struct {
	mult      int32
	leftShift int
	diffMin   int64
}

func newSoftmaxInt8Params(beta, inputScale float32) softmaxInt8Params {
	const intBits = 5
	real := min(float64(beta)*float64(inputScale)*float64(int64(1)<<(31-intBits)), float64(int64(1)<<31)-1)
	q, shift := quantizeMultiplier(real)
	radius := math.Floor(float64((1<<intBits)-1) * float64(int64(1)<<(31-intBits)) / float64(int64(1)<<uint(max(shift, 0))))
	return softmaxInt8Params{mult: int32(q), leftShift: shift, diffMin: -int64(radius)}
}

// tables returns, for d = x - max(x) in [-255, 0] at index d+255, the
// Q0.31 exponential and its Q12.19 rescaling (0 where d < diff_min: such
// elements neither count in the sum nor get more than the minimum).
func (p softmaxInt8Params) tables() (exp0, exp12 []int64) {
	exp0, exp12 = make([]int64, 256), make([]int64, 256)
	for i := range 256 {
		d := int64(i - 255)
		if d < p.diffMin {
			continue
		}
		rescaled := srdhm(int32(d*(int64(1)<<uint(p.leftShift))), p.mult)
		e := expOnNegativeValues(rescaled)
		exp0[i], exp12[i] = int64(e), int64(rdbp(e, 12))
	}
	return exp0, exp12
}

// softmaxInt8Ref is the kernel on one row, for tests.
func softmaxInt8Ref(p softmaxInt8Params, row []int8) []int8 {
	exp0, exp12 := p.tables()
	mx := int8(math.MinInt8)
	for _, v := range row {
		mx = max(mx, v)
	}
	var sum int32
	for _, v := range row {
		sum += int32(exp12[int(v)-int(mx)+255])
	}
	if sum <= 0 {
		return nil
	}
	hp1 := 0
	for u := uint32(sum); u&(1<<31) == 0; u <<= 1 {
		hp1++
	}
	bitsOverUnit := 12 - hp1
	shiftedMinusOne := int32((uint32(sum) << uint(hp1)) - (1 << 31))
	scale := oneOverOnePlusX(shiftedMinusOne)
	out := make([]int8, len(row))
	for i, v := range row {
		e := int32(exp0[int(v)-int(mx)+255])
		u := rdbp(srdhm(scale, e), uint(bitsOverUnit+31-8)) - 128
		out[i] = int8(max(min(u, 127), -128))
	}
	return out
}

// oneOverOnePlusX is gemmlowp's one_over_one_plus_x_for_x_in_0_1 (Q0.31).
func oneOverOnePlusX(a int32) int32 {
	halfDen := int32((int64(a) + math.MaxInt32 + 1) / 2)
	x := 1515870810 + srdhm(halfDen, -1010580540)
	for range 3 {
		oneMinus := int32(1<<29) - srdhm(halfDen, x)
		x += satShiftLeft(srdhm(x, oneMinus), 2)
	}
	return satShiftLeft(x, 1)
}

// quantSoftmax writes the int8 kernel over the last axis of x (a value
// in file order) as canonical integer ops.
func (c *opCtx) quantSoftmax(x int, beta float32) error {
	b := c.b
	y := c.out(0)
	xt, yt := b.tensor(x), b.tensor(y)
	if xt.dtype != yt.dtype || xt.dtype != tflitefb.TensorTypeINT8 {
		return c.errf("quantized SOFTMAX is supported for int8 input and output")
	}
	xs, _, err := c.quantOf(x)
	if err != nil {
		return err
	}
	ys, yzp, err := c.quantOf(y)
	if err != nil {
		return err
	}
	if ys != 1.0/256 || yzp != -128 {
		return c.errf("int8 SOFTMAX output must have scale 1/256 and zero point -128 (TFLite's kernel assumes it); it has %g and %d", ys, yzp)
	}
	rank := len(xt.shape)
	if rank == 0 || xt.shape[rank-1] >= 4096 {
		return c.errf("int8 SOFTMAX needs a last axis of fewer than 4096 values (its Q12.19 sum would overflow)")
	}
	p := newSoftmaxInt8Params(beta, xs)
	if p.leftShift < 0 {
		return c.errf("beta·input_scale is too small for TFLite's kernel (its multiplier must be at least 1)")
	}
	exp0, exp12 := p.tables()
	xv, err := b.value(x, fileForm)
	if err != nil {
		return err
	}
	name := b.base(y)
	r := rescaler{b: b, base: name}
	i64 := func(what string, v int64) string { return b.constI64(name+"/"+what, []int64{}, []int64{v}) }
	last := []int64{int64(rank - 1)}
	xi := r.toInt64(xv, 0)
	mx := b.node(name+"/max", &canon.Reduce{Fn: canon.ReduceMax, Axes: last, KeepDims: true}, xi, "")
	idx := r.bin("index", canon.Add, r.bin("diff", canon.Sub, xi, mx), i64("255", 255))
	e0 := b.node(name+"/exp", &canon.Gather{Axis: 0}, b.constI64(name+"/exp_table", []int64{256}, exp0), idx)
	e12 := b.node(name+"/exp_q12", &canon.Gather{Axis: 0}, b.constI64(name+"/exp_q12_table", []int64{256}, exp12), idx)
	sum := b.node(name+"/sum", &canon.Reduce{Fn: canon.ReduceSum, Axes: last, KeepDims: true}, e12, "")
	// floor(log2(sum)) = #{k in 1..31 : sum >= 2^k}; the leading zeros of
	// the 32-bit sum are 31 minus that.
	pows := make([]int64, 31)
	for k := range pows {
		pows[k] = int64(1) << uint(k+1)
	}
	su := b.node(name+"/sum_u", &canon.Unsqueeze{Axes: []int64{int64(rank)}}, sum)
	ge := b.node(name+"/sum_ge", &canon.Compare{Fn: canon.CmpGreaterOrEqual}, su, b.constI64(name+"/pow2_1_31", []int64{31}, pows))
	lg := b.node(name+"/log2", &canon.Reduce{Fn: canon.ReduceSum, Axes: []int64{int64(rank)}}, b.node(name+"/ge_i64", &canon.Cast{To: canon.Int64}, ge), "")
	hp1 := r.bin("headroom", canon.Sub, i64("31", 31), lg)
	pow2 := make([]int64, 36)
	for k := range pow2 {
		pow2[k] = int64(1) << uint(k)
	}
	pow2Table := b.constI64(name+"/pow2_table", []int64{36}, pow2)
	shifted := r.bin("shifted", canon.Sub, r.bin("shifted_sum", canon.Mul, sum, b.node(name+"/pow_hp1", &canon.Gather{Axis: 0}, pow2Table, hp1)), i64("2^31", 1<<31))
	// one_over_one_plus_x_for_x_in_0_1
	mulHigh := func(what, a, bb string) string {
		p := r.bin(what+"_prod", canon.Mul, a, bb)
		p = r.bin(what+"_nudge", canon.Add, p, i64(what+"_2^30", 1<<30))
		return r.floorDiv(what, p, []int64{1 << 31})
	}
	satLeft := func(what, v string, e int) string {
		v = r.bin(what, canon.Mul, v, i64(what+"_pot", int64(1)<<uint(e)))
		v = b.node(name+"/"+what+"_lo", &canon.Variadic{Fn: canon.VarMax}, v, i64(what+"_min", math.MinInt32))
		return b.node(name+"/"+what+"_hi", &canon.Variadic{Fn: canon.VarMin}, v, i64(what+"_maxv", math.MaxInt32))
	}
	halfDen := r.bin("half_den", canon.Div, r.bin("half_den_sum", canon.Add, shifted, i64("2^31", 1<<31)), i64("2", 2))
	xr := r.bin("nr_x0", canon.Add, i64("48_17", 1515870810), mulHigh("nr_hd", halfDen, i64("neg_32_17", -1010580540)))
	for k := range 3 {
		s := "nr" + string(rune('1'+k))
		oneMinus := r.bin(s+"_one_minus", canon.Sub, i64(s+"_one", 1<<29), mulHigh(s+"_hdx", halfDen, xr))
		xr = r.bin(s+"_x", canon.Add, xr, satLeft(s+"_step", mulHigh(s+"_xo", xr, oneMinus), 2))
	}
	scale := satLeft("recip", xr, 1)
	// Each output: rdbp(scale · exp, bits_over_unit + 23) - 128 with
	// bits_over_unit = 12 - headroom, a per-row rounding shift.
	prod := mulHigh("out", scale, e0)
	e := r.bin("out_exp", canon.Sub, i64("35", 35), hp1)
	half := b.node(name+"/out_half", &canon.Gather{Axis: 0}, pow2Table, r.bin("out_exp_1", canon.Sub, e, i64("1", 1)))
	div := b.node(name+"/out_pot", &canon.Gather{Axis: 0}, pow2Table, e)
	sign := b.node(name+"/out_sign", &canon.Math{Fn: canon.MathSign}, prod)
	q := r.bin("out_q", canon.Div, r.bin("out_round", canon.Add, prod, r.bin("out_halfs", canon.Mul, sign, half)), div)
	b.define(y, r.clampCast(q, -128, -128, 127, canon.Int8), fileForm)
	return nil
}
