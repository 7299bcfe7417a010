package tfliteimport

import "math"

// gemmlowp's fixed-point math on int16 raw values, as TFLite's integer
// LSTM kernel applies it to its Q3.12 gate values (ApplySigmoid and
// ApplyTanh): a value with k integer bits has 15-k fractional bits. Raw
// adds wrap as int16 arithmetic does; constants are the int32 ones
// rounded to 16 bits (RoundingDivideByPOT by 16).

// wrap16 keeps the low 16 bits of an int16 sum, as the cast back does.
func wrap16(v int32) int16 { return int16(v) }

// srdhm16 is SaturatingRoundingDoublingHighMul for int16.
func srdhm16(a, b int16) int16 {
	if a == math.MinInt16 && b == math.MinInt16 {
		return math.MaxInt16
	}
	ab := int32(a) * int32(b)
	nudge := int32(1 << 14)
	if ab < 0 {
		nudge = 1 - (1 << 14)
	}
	return int16((ab + nudge) / (1 << 15))
}

// rdbp16 is RoundingDivideByPOT on an int16 value.
func rdbp16(x int16, e uint) int16 { return int16(rdbp(int32(x), e)) }

// satShift16 is SaturatingRoundingMultiplyByPOT with a positive exponent.
func satShift16(x int16, e uint) int16 {
	v := int32(x) << e
	return int16(max(min(v, math.MaxInt16), math.MinInt16))
}

// satAdd16 is SaturatingAdd for int16.
func satAdd16(a, b int16) int16 {
	return int16(max(min(int32(a)+int32(b), math.MaxInt16), math.MinInt16))
}

// const16 is GEMMLOWP_CHECKED_FIXEDPOINT_CONSTANT for an int16 raw type.
func const16(raw32 int32) int16 { return int16(rdbp(raw32, 16)) }

// expOnInterval16 is exp_on_interval_between_negative_one_quarter_and_0_excl
// (Q0.15 in and out).
func expOnInterval16(a int16) int16 {
	constantTerm := const16(1895147668)
	oneThird := const16(715827883)
	x := wrap16(int32(a) + 1<<12)
	x2 := srdhm16(x, x)
	x3 := srdhm16(x2, x)
	x4 := srdhm16(x2, x2)
	x4Over4 := rdbp16(x4, 2)
	poly := rdbp16(wrap16(int32(srdhm16(wrap16(int32(x4Over4)+int32(x3)), oneThird))+int32(x2)), 1)
	return satAdd16(constantTerm, srdhm16(constantTerm, wrap16(int32(x)+int32(poly))))
}

// expOnNegativeValues16 is exp_on_negative_values for a value with
// intBits integer bits (at most 5), giving Q0.15.
func expOnNegativeValues16(a int16, intBits int) int16 {
	fracBits := 15 - intBits
	oneQuarter := int16(1) << uint(fracBits-2)
	mask := oneQuarter - 1
	aModQuarterMinusQuarter := wrap16(int32(a&mask) - int32(oneQuarter))
	result := expOnInterval16(satShift16(aModQuarterMinusQuarter, uint(intBits)))
	remainder := wrap16(int32(aModQuarterMinusQuarter) - int32(a))
	for k, mult := range []int32{1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242} {
		exp := k - 2
		if intBits <= exp {
			break
		}
		if int32(remainder)&(int32(1)<<uint(fracBits+exp)) != 0 {
			result = srdhm16(result, const16(mult))
		}
	}
	if a == 0 {
		return math.MaxInt16
	}
	return result
}

// roundingHalfSum16 is RoundingHalfSum for int16.
func roundingHalfSum16(a, b int16) int16 {
	sum := int32(a) + int32(b)
	sign := int32(1)
	if sum < 0 {
		sign = -1
	}
	return int16((sum + sign) / 2)
}

// newtonDivide16 runs the three Newton-Raphson steps of gemmlowp's
// one_over_one_plus_x / one_minus_x_over_one_plus_x on a Q0.15 half
// denominator, returning x ≈ 1/half_denominator in Q2.13.
func newtonDivide16(halfDen int16) int16 {
	x := wrap16(int32(const16(1515870810)) + int32(srdhm16(halfDen, const16(-1010580540))))
	for range 3 {
		oneMinus := wrap16(int32(1<<13) - int32(srdhm16(halfDen, x)))
		x = wrap16(int32(x) + int32(satShift16(srdhm16(x, oneMinus), 2)))
	}
	return x
}

// logistic16 is gemmlowp's logistic of a value with intBits integer
// bits, in Q0.15.
func logistic16(a int16, intBits int) int16 {
	if a == 0 {
		return 1 << 14
	}
	abs := a
	if a < 0 {
		abs = wrap16(-int32(a))
	}
	e := expOnNegativeValues16(wrap16(-int32(abs)), intBits)
	// one_over_one_plus_x_for_x_in_0_1: Rescale<0> of x / 2 (Q1.14 → Q0.15).
	pos := satShift16(newtonDivide16(roundingHalfSum16(e, math.MaxInt16)), 1)
	if a > 0 {
		return pos
	}
	return wrap16(math.MaxInt16 - int32(pos))
}

// tanh16 is gemmlowp's tanh of a value with intBits integer bits, in Q0.15.
func tanh16(a int16, intBits int) int16 {
	if a == 0 {
		return 0
	}
	n := a
	if a > 0 {
		n = wrap16(-int32(a))
	}
	// exp(2n): the same raw read with one more integer bit.
	e := expOnNegativeValues16(n, intBits+1)
	// one_minus_x_over_one_plus_x_for_x_in_0_1: Rescale<0>(x - 1), Q2.13 → Q0.15.
	t := satShift16(wrap16(int32(newtonDivide16(roundingHalfSum16(e, math.MaxInt16)))-(1<<13)), 2)
	if a < 0 {
		return wrap16(-int32(t))
	}
	return t
}
