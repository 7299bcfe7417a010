package main

import "fmt"

// konst is a named constant, broadcast to every lane where it is used. Its
// value is written as the assembler reads it: a float64 literal, or an
// integer (hexadecimal for bit patterns).
type konst struct {
	name    string
	value   string
	integer bool // an int64 lane value (VPBROADCASTQ), not a float64
	comment string
}

func f(name, value, comment string) konst { return konst{name: name, value: value, comment: comment} }
func i(name, value, comment string) konst {
	return konst{name: name, value: value, integer: true, comment: comment}
}

// consts lists every constant the exponential family uses, in table order.
// The exponential's are math.Exp's on amd64 with FMA (the standard
// library's assembly, after Shibata's method); the others are gelu32's,
// geluTanh's, math.Tanh's and math.Erf's (erf.go), each from its highest
// term down.
var consts = []konst{
	f("log2e", "1.4426950408889634073599246810018920", "log2 e"),
	f("ln2hi", "0.69314718055966295651160180568695068359375", "ln2, upper part"),
	f("ln2lo", "0.28235290563031577122588448175013436025525412068e-12", "ln2, lower part"),
	f("sixteenth", "0.0625", ""),
	f("t8", "2.4801587301587301587e-5", "1/8!"),
	f("t7", "1.9841269841269841270e-4", ""),
	f("t6", "1.3888888888888888889e-3", ""),
	f("t5", "8.3333333333333333333e-3", ""),
	f("t4", "4.1666666666666666667e-2", ""),
	f("t3", "1.6666666666666666667e-1", ""),
	f("half", "0.5", ""),
	f("one", "1.0", ""),
	f("two", "2.0", ""),
	f("expmax", "7.09782712893384e+02", "above: +Inf"),
	i("inf", "0x7FF0000000000000", "+Inf"),
	i("tiny", "0x0010000000000000", "2^-1022"),
	i("bias", "1023", ""),
	i("bias1", "1022", ""),
	i("i1", "1", ""),
	i("im52", "-52", ""),
	i("i2046", "2046", ""),
	i("sign", "0x8000000000000000", "sign bit"),
	i("abs", "0x7FFFFFFFFFFFFFFF", "all but the sign bit"),
	// gelu32: 1/√2, then its erfc polynomial; geluTanh's cubic term and -2.
	f("rsqrt2", "0.707106781186547524400844362104849039", ""),
	f("g9", "0.17087277", ""),
	f("g8", "-0.82215223", ""),
	f("g7", "1.48851587", ""),
	f("g6", "-1.13520398", ""),
	f("g5", "0.27886807", ""),
	f("g4", "-0.18628806", ""),
	f("g3", "0.09678418", ""),
	f("g2", "0.37409196", ""),
	f("g1", "1.00002368", ""),
	f("g0", "-1.26551223", ""),
	f("cubic", "0.044715", ""),
	f("minus2", "-2.0", ""),
	// math.Tanh: its rational function's numerator and denominator, the
	// thresholds.
	f("tp0", "-9.64399179425052238628e-1", ""),
	f("tp1", "-9.92877231001918586564e1", ""),
	f("tp2", "-1.61468768441708447952e3", ""),
	f("tq0", "1.12811678491632931402e2", ""),
	f("tq1", "2.23548839060100448583e3", ""),
	f("tq2", "4.84406305325125486048e3", ""),
	f("tanhmax", "44.014845965556527147994", "0.5·log(2^127)"),
	f("tanhmid", "0.625", ""),
	// math.Erf: its branch edges, the tiny-x factors, the fits on
	// [0, 0.84375) and [0.84375, 1.25), then the two fits of erfc from
	// 1.25 up, below 1/0.35 (ra, sa) and above (rb, sb), the second padded
	// with a leading 0 so both run the same Horner steps.
	f("erx1", "0.84375", ""),
	f("erx2", "1.25", ""),
	f("erx3", "6.0", ""),
	i("erftiny", "0x3E30000000000000", "2^-28"),
	i("erfsub", "0x0080000000000000", "2.848094538889218e-306"),
	f("efx", "1.28379167095512586316e-01", ""),
	f("efx8", "1.02703333676410069053e+00", ""),
	f("eight", "8.0", ""),
	f("eighth", "0.125", ""),
	f("pp0", "1.28379167095512558561e-01", ""),
	f("pp1", "-3.25042107247001499370e-01", ""),
	f("pp2", "-2.84817495755985104766e-02", ""),
	f("pp3", "-5.77027029648944159157e-03", ""),
	f("pp4", "-2.37630166566501626084e-05", ""),
	f("qq1", "3.97917223959155352819e-01", ""),
	f("qq2", "6.50222499887672944485e-02", ""),
	f("qq3", "5.08130628187576562776e-03", ""),
	f("qq4", "1.32494738004321644526e-04", ""),
	f("qq5", "-3.96022827877536812320e-06", ""),
	f("erx", "8.45062911510467529297e-01", ""),
	f("pa0", "-2.36211856075265944077e-03", ""),
	f("pa1", "4.14856118683748331666e-01", ""),
	f("pa2", "-3.72207876035701323847e-01", ""),
	f("pa3", "3.18346619901161753674e-01", ""),
	f("pa4", "-1.10894694282396677476e-01", ""),
	f("pa5", "3.54783043256182359371e-02", ""),
	f("pa6", "-2.16637559486879084300e-03", ""),
	f("qa1", "1.06420880400844228286e-01", ""),
	f("qa2", "5.40397917702171048937e-01", ""),
	f("qa3", "7.18286544141962662868e-02", ""),
	f("qa4", "1.26171219808761642112e-01", ""),
	f("qa5", "1.36370839120290507362e-02", ""),
	f("qa6", "1.19844998467991074170e-02", ""),
	i("erx4", "0x4006DB6DB6DB6DB7", "1/0.35"),
	f("ra7", "-9.81432934416914548592e+00", ""),
	f("ra6", "-8.12874355063065934246e+01", ""),
	f("ra5", "-1.84605092906711035994e+02", ""),
	f("ra4", "-1.62396669462573470355e+02", ""),
	f("ra3", "-6.23753324503260060396e+01", ""),
	f("ra2", "-1.05586262253232909814e+01", ""),
	f("ra1", "-6.93858572707181764372e-01", ""),
	f("ra0", "-9.86494403484714822705e-03", ""),
	f("rb7", "0.0", ""),
	f("rb6", "-4.83519191608651397019e+02", ""),
	f("rb5", "-1.02509513161107724954e+03", ""),
	f("rb4", "-6.37566443368389627722e+02", ""),
	f("rb3", "-1.60636384855821916062e+02", ""),
	f("rb2", "-1.77579549177547519889e+01", ""),
	f("rb1", "-7.99283237680523006574e-01", ""),
	f("rb0", "-9.86494292470009928597e-03", ""),
	f("sa8", "-6.04244152148580987438e-02", ""),
	f("sa7", "6.57024977031928170135e+00", ""),
	f("sa6", "1.08635005541779435134e+02", ""),
	f("sa5", "4.29008140027567833386e+02", ""),
	f("sa4", "6.45387271733267880336e+02", ""),
	f("sa3", "4.34565877475229228821e+02", ""),
	f("sa2", "1.37657754143519042600e+02", ""),
	f("sa1", "1.96512716674392571292e+01", ""),
	f("sb8", "0.0", ""),
	f("sb7", "-2.24409524465858183362e+01", ""),
	f("sb6", "4.74528541206955367215e+02", ""),
	f("sb5", "2.55305040643316442583e+03", ""),
	f("sb4", "3.19985821950859553908e+03", ""),
	f("sb3", "1.53672958608443695994e+03", ""),
	f("sb2", "3.25792512996573918826e+02", ""),
	f("sb1", "3.03380607434824582924e+01", ""),
	f("erfz", "0.5625", ""),
	i("erfcut", "0xFFFFFFFF00000000", "x to 20 bits"),
	i("nan", "0x7FF8000000000001", "math.NaN()"),
}

var constIndex = func() map[string]int {
	m := map[string]int{}
	for n, c := range consts {
		if _, dup := m[c.name]; dup {
			panic("constant " + c.name + " twice")
		}
		m[c.name] = n
	}
	return m
}()

// k names a constant.
func k(name string) konst {
	n, ok := constIndex[name]
	if !ok {
		panic("no constant " + name)
	}
	return consts[n]
}

// constOffset is c's byte offset in t's table: a copy a lane for AVX2.
func constOffset(c konst, t *target) int {
	width := 8
	if !t.wide {
		width = 8 * t.lanes
	}
	return constIndex[c.name] * width
}

// table writes t's constant table.
func (e *emitter) table() {
	copies := 1
	if !e.t.wide {
		copies = e.t.lanes
	}
	for _, c := range consts {
		for j := range copies {
			comment := ""
			if j == 0 && c.comment != "" {
				comment = " // " + c.comment
			}
			e.raw(fmt.Sprintf("DATA %s+%d(SB)/8, $%s%s\n", e.t.table, constOffset(c, e.t)+8*j, c.value, comment))
		}
	}
	e.raw(fmt.Sprintf("GLOBL %s(SB), RODATA|NOPTR, $%d\n\n", e.t.table, len(consts)*8*copies))
}
