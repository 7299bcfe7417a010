package main

// tanhBody sets v4 to math.Tanh(v6) lane by lane, with its three
// branches as lanes: ±1 above 44.01, 1 - 2/(exp(2|x|)+1) with x's sign
// from 0.625 up, the rational function below, x itself at ±0. It needs
// v13 = the sign bit and uses v0–v3, v5, v7, v14, v15 and masks 1–3, 6
// (AVX2: Y8, Y9, Y11, Y12).
func (e *emitter) tanhBody() {
	big, huge, zero, neg := mask{1, 12}, mask{2, 8}, mask{3, 9}, mask{6, 11}
	e.logic("andn", vreg(6), 13, 14)
	e.op("VADDPD", vreg(14), 14, 0)
	e.exp()
	e.op("VADDPD", k("one"), 3, 3)
	e.opK("VDIVPD", vreg(3), k("two"), 3, 2)
	e.opK("VSUBPD", vreg(3), k("one"), 15, 2)
	e.zero(4)
	e.cmp(0x11, vreg(4), 6, neg)
	e.opMasked("VPXORQ", neg, vreg(13), 15, 15, 2)
	e.op("VMULPD", vreg(6), 6, 4)
	e.load(k("tp0"), 1)
	e.op("VMULPD", vreg(4), 1, 1)
	e.op("VADDPD", k("tp1"), 1, 1)
	e.op("VMULPD", vreg(4), 1, 1)
	e.op("VADDPD", k("tp2"), 1, 1)
	e.op("VADDPD", k("tq0"), 4, 3)
	e.op("VMULPD", vreg(4), 3, 3)
	e.op("VADDPD", k("tq1"), 3, 3)
	e.op("VMULPD", vreg(4), 3, 3)
	e.op("VADDPD", k("tq2"), 3, 3)
	e.op("VMULPD", vreg(4), 6, 4)
	e.op("VMULPD", vreg(1), 4, 4)
	e.op("VDIVPD", vreg(3), 4, 4)
	e.op("VADDPD", vreg(4), 6, 4)
	e.cmp(0x1d, k("tanhmid"), 14, big)
	e.blend(big, vreg(15), 4)
	e.cmp(0x1e, k("tanhmax"), 14, huge)
	e.load(k("one"), 3)
	e.opMasked("VPXORQ", neg, vreg(13), 3, 3, 2)
	e.blend(huge, vreg(3), 4)
	e.zero(2)
	e.cmp(0, vreg(2), 6, zero)
	e.blend(zero, vreg(6), 4)
}

func (e *emitter) tanhRoutines() {
	for _, f64 := range []bool{false, true} {
		name, label, doc := "tanh", "t32", "dst[i] = float32(math.Tanh(float64(src[i]))) for i in [0, n), n a"
		if f64 {
			name, label, doc = "tanh64", "t64", "dst[i] = math.Tanh(src[i]) for i in [0, n), n a"
		}
		body := e.tanhBody
		e.pre = func() { e.load(k("sign"), 13) }
		if f64 {
			e.unary64(name, label, 6, 4, body, doc, "multiple of 8. dst may be src.")
		} else {
			e.unary32(name, label, 6, 4, body, doc, "multiple of 8. dst may be src.")
		}
	}
}

// erfBody sets v13 to math.Erf(v4) lane by lane with erf.go's operations
// on |x|, then gives it x's sign (math.NaN() for NaN): each range that
// holds a lane is computed in all lanes and kept in its own, the others
// skipped. Below 0.84375, x + x·(r/s), or x + efx·x below 2^-28 (and the
// scaled form below 2^-1015); to 1.25, erx + P/Q at |x| - 1; to 6, 1 - r/|x|
// with r = exp(-z·z - 0.5625)·exp((z-x)(z+x) + R/S), z being x cut to 20
// bits; 1 from 6 up. Each a + v·(...) rounds twice, as erf.go's unfused
// Go does. It uses v0–v3, v5–v7, v14, v15, masks 6 and 7 (AVX2: Y11, Y12)
// and labels with prefix l.
func (e *emitter) erfBody(l string) {
	k6, k7 := mask{6, 11}, mask{7, 12}
	term := func(acc, v vreg, c string) {
		e.op("VMULPD", v, acc, acc)
		e.op("VADDPD", k(c), acc, acc)
	}
	// erfcTerm: acc = acc·v1 + (a, or b in the lanes of k7).
	erfcCoef := func(a, b string, dst vreg) {
		e.load(k(a), dst)
		e.blend(k7, k(b), dst)
	}
	e.logic("and", k("abs"), 4, 6)
	e.load(k("one"), 13)
	e.cmp(1, k("erx1"), 6, k6)
	e.jumpIfNone(k6, l+"A")
	e.op("VMULPD", vreg(6), 6, 1)
	e.op("VMULPD", k("pp4"), 1, 2)
	e.op("VADDPD", k("pp3"), 2, 2)
	for _, c := range []string{"pp2", "pp1", "pp0"} {
		term(2, 1, c)
	}
	e.op("VMULPD", k("qq5"), 1, 3)
	e.op("VADDPD", k("qq4"), 3, 3)
	for _, c := range []string{"qq3", "qq2", "qq1"} {
		term(3, 1, c)
	}
	e.op("VMULPD", vreg(1), 3, 3)
	e.op("VADDPD", k("one"), 3, 3)
	e.op("VDIVPD", vreg(3), 2, 2)
	e.op("VMULPD", vreg(6), 2, 2)
	e.op("VADDPD", vreg(6), 2, 2)
	e.cmp(1, k("erftiny"), 6, k7)
	e.op("VMULPD", k("efx"), 6, 3)
	e.opMasked("VADDPD", k7, vreg(6), 3, 2, 3)
	e.cmp(1, k("erfsub"), 6, k7)
	e.op("VMULPD", k("eight"), 6, 3)
	e.op("VMULPD", k("efx8"), 6, 5)
	e.op("VADDPD", vreg(5), 3, 3)
	e.opMasked("VMULPD", k7, k("eighth"), 3, 2, 3) // no subnormal outside k7: x ≥ 2^-1015 there
	e.blend(k6, vreg(2), 13)
	e.label(l + "A")
	e.cmp(1, k("erx2"), 6, k7)
	e.andnMask(k6, k7, k6)
	e.jumpIfNone(k6, l+"B")
	e.op("VSUBPD", k("one"), 6, 1)
	e.op("VMULPD", k("pa6"), 1, 2)
	e.op("VADDPD", k("pa5"), 2, 2)
	for _, c := range []string{"pa4", "pa3", "pa2", "pa1", "pa0"} {
		term(2, 1, c)
	}
	e.op("VMULPD", k("qa6"), 1, 3)
	e.op("VADDPD", k("qa5"), 3, 3)
	for _, c := range []string{"qa4", "qa3", "qa2", "qa1"} {
		term(3, 1, c)
	}
	e.op("VMULPD", vreg(1), 3, 3)
	e.op("VADDPD", k("one"), 3, 3)
	e.op("VDIVPD", vreg(3), 2, 2)
	e.opMasked("VADDPD", k6, k("erx"), 2, 13, 2)
	e.label(l + "B")
	e.cmp(1, k("erx3"), 6, k6)
	e.andnMask(k7, k6, k6)
	e.jumpIfNone(k6, l+"C")
	e.cmp(0x1d, k("erx4"), 6, k7)
	e.op("VMULPD", vreg(6), 6, 1)
	e.opK("VDIVPD", vreg(1), k("one"), 1, 2)
	erfcCoef("ra7", "rb7", 14)
	for j := 6; j >= 0; j-- {
		erfcCoef(fmt2("ra", j), fmt2("rb", j), 2)
		e.op("VMULPD", vreg(1), 14, 14)
		e.op("VADDPD", vreg(2), 14, 14)
	}
	erfcCoef("sa8", "sb8", 15)
	for j := 7; j >= 1; j-- {
		erfcCoef(fmt2("sa", j), fmt2("sb", j), 2)
		e.op("VMULPD", vreg(1), 15, 15)
		e.op("VADDPD", vreg(2), 15, 15)
	}
	e.op("VMULPD", vreg(1), 15, 15)
	e.op("VADDPD", k("one"), 15, 15)
	e.op("VDIVPD", vreg(15), 14, 14)
	e.logic("and", k("erfcut"), 6, 15)
	e.op("VSUBPD", vreg(6), 15, 0)
	e.op("VADDPD", vreg(6), 15, 1)
	e.op("VMULPD", vreg(1), 0, 0)
	e.op("VADDPD", vreg(0), 14, 14)
	e.op("VMULPD", vreg(15), 15, 0)
	e.logic("xor", k("sign"), 0, 0)
	e.op("VSUBPD", k("erfz"), 0, 0)
	e.exp()
	e.mov(3, 15)
	e.mov(14, 0)
	e.exp()
	e.op("VMULPD", vreg(3), 15, 3)
	e.op("VDIVPD", vreg(6), 3, 3)
	e.opKMasked("VSUBPD", k6, vreg(3), k("one"), 13, 2)
	e.label(l + "C")
	e.logic("and", k("sign"), 4, 5)
	e.logic("or", vreg(5), 13, 13)
	e.cmp(3, vreg(4), 4, k6)
	e.blend(k6, k("nan"), 13)
}

func fmt2(p string, j int) string { return p + string(rune('0'+j)) }

func (e *emitter) erfRoutines() {
	e.unary32("erf", "erf32", 4, 13, func() { e.erfBody("erf32") },
		"dst[i] = float32(math.Erf(float64(src[i]))) for i in [0, n), n a",
		"multiple of 8. dst may be src.")
	e.unary64("erf64", "erf64", 4, 13, func() { e.erfBody("erf64") },
		"dst[i] = math.Erf(src[i]) for i in [0, n), n a multiple of 8. dst may",
		"be src.")
}
