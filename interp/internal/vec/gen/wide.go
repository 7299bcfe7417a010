package main

// The routines AVX-512 alone has: four softmax rows at once, eight
// softmax columns at once, and the float64 softmax's steps.

// softmaxExp4: softmaxExp on four rows ld apart, their sums overlapping.
func (e *emitter) softmaxExp4() {
	e.header("softmaxExp4", "(n, ld int, dst, src *float32, m *[4]float32, sums *[4]float64)", "$0-48",
		"softmaxExpAVX512 on four rows ld elements apart at once, row r's",
		"maximum in m[r] and its sum into sums[r]: the four rows' additions,",
		"each in its row's order, overlap.")
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ ld+8(FP), R8")
	e.line("MOVQ dst+16(FP), DI")
	e.line("MOVQ src+24(FP), SI")
	e.line("MOVQ m+32(FP), AX")
	e.line("MOVQ sums+40(FP), BX")
	e.line("SHLQ $2, R8")
	e.line("LEAQ (R8)(R8*2), R9")
	e.expConsts()
	accs := []int{6, 13, 14, 15}
	for _, a := range accs {
		e.line("VXORPD X%d, X%d, X%d", a, a, a)
	}
	rows := [][2]string{{"0(SI)", "0(DI)"}, {"(SI)(R8*1)", "(DI)(R8*1)"}, {"(SI)(R8*2)", "(DI)(R8*2)"}, {"(SI)(R9*1)", "(DI)(R9*1)"}}
	e.loop("s4", 4, func() {
		for r, rw := range rows {
			e.line("VBROADCASTSS %d(AX), Y0", 4*r)
			e.line("VMOVUPS %s, Y1", rw[0])
			e.line("VSUBPS Y0, Y1, Y0")
			e.cvtps2pd("Y0", 0)
			e.exp()
			e.cvtpd2ps(3, 4)
			e.line("VMOVUPS Y4, %s", rw[1])
			e.hsum(3, accs[r], 4)
		}
	}, "SI", "DI")
	for r, a := range accs {
		e.line("VMOVSD X%d, %d(BX)", a, 8*r)
	}
	e.vzeroRet()
	e.raw("\n")
}

// maxRow64: the maximum of n float64 values and whether any is NaN.
func (e *emitter) maxRow64() {
	e.header("maxRow64", "(n int, src *float64) (m float64, nan bool)", "$0-25",
		"The maximum of src[0:n], n a multiple of 8 and above 0, and whether any",
		"of them is NaN (then m is meaningless). A zero maximum may come out with",
		"either sign.")
	for _, l := range []string{
		"MOVQ n+0(FP), CX", "MOVQ src+8(FP), SI", "SHRQ $3, CX", "VMOVUPD 0(SI), Z1", "KXORW K1, K1, K1",
	} {
		e.line("%s", l)
	}
	e.raw("\n")
	e.label("max64loop")
	for _, l := range []string{
		"VMOVUPD 0(SI), Z2", "VMAXPD Z2, Z1, Z1", "VCMPPD $3, Z2, Z2, K2", "KORW K2, K1, K1",
		"ADDQ $64, SI", "DECQ CX", "JNE max64loop",
	} {
		e.line("%s", l)
	}
	e.raw("\n")
	for _, l := range []string{
		"VEXTRACTF64X4 $1, Z1, Y2", "VMAXPD Y2, Y1, Y1", "VEXTRACTF128 $1, Y1, X2", "VMAXPD X2, X1, X1",
		"VPERMILPD $1, X1, X2", "VMAXPD X2, X1, X1", "VMOVSD X1, m+16(FP)", "KORTESTW K1, K1", "SETNE nan+24(FP)",
	} {
		e.line("%s", l)
	}
	e.vzeroRet()
	e.raw("\n")
}

// softmaxExp64: row[i] = exp(row[i] - m), their sum in order.
func (e *emitter) softmaxExp64() {
	e.header("softmaxExp64", "(n int, row *float64, m float64) float64", "$0-32",
		"row[i] = math.Exp(row[i]-m) for i in [0, n), n a multiple of 8, and",
		"returns their sum added in order from 0.")
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ row+8(FP), DI")
	e.line("VBROADCASTSD m+16(FP), Z14")
	e.expConsts()
	e.line("VXORPD X15, X15, X15")
	e.loop("sx64", 8, func() {
		e.line("VMOVUPD 0(DI), Z0")
		e.op("VSUBPD", vreg(14), 0, 0)
		e.exp()
		e.line("VMOVUPD Z3, 0(DI)")
		e.hsum(3, 15, 4)
	}, "DI")
	e.line("VMOVSD X15, ret+24(FP)")
	e.vzeroRet()
	e.raw("\n")
}

// divRow64: row[i] /= s.
func (e *emitter) divRow64() {
	e.header("divRow64", "(n int, row *float64, s float64)", "$0-24",
		"row[i] /= s for i in [0, n), n a multiple of 8.")
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ row+8(FP), DI")
	e.line("VBROADCASTSD s+16(FP), Z1")
	e.loop("div64", 8, func() {
		e.line("VMOVUPD 0(DI), Z0")
		e.line("VDIVPD Z1, Z0, Z0")
		e.line("VMOVUPD Z0, 0(DI)")
	}, "DI")
	e.vzeroRet()
	e.raw("\n")
}

// softmaxCols: softmaxStridedRef on eight adjacent columns, a lane each.
func (e *emitter) softmaxCols() {
	e.header("softmaxCols", "(n, stride int, dst, src *float32) (nan bool)", "$0-33",
		"softmaxStridedRef on eight adjacent columns at once, a lane each: column c",
		"is the n values src[c], src[c+stride], ... (n above 0). Each lane finds",
		"its maximum, adds its exponentials in order and scales by 1/sum, as the",
		"scalar loop does for one column. If a column holds a NaN it reports",
		"true, having written nothing. dst may be src.")
	for _, l := range []string{
		"MOVQ n+0(FP), CX", "MOVQ stride+8(FP), R8", "MOVQ dst+16(FP), DI", "MOVQ src+24(FP), SI", "SHLQ $2, R8",
		"// the maxima, and any NaN", "MOVQ SI, AX", "MOVQ CX, DX", "VMOVUPS 0(SI), Y14", "VXORPS Y4, Y4, Y4",
	} {
		e.line("%s", l)
	}
	e.raw("\n")
	e.label("colmax")
	for _, l := range []string{
		"VMOVUPS 0(AX), Y2", "VMAXPS Y2, Y14, Y14", "VCMPPS $3, Y2, Y2, Y3", "VORPS Y3, Y4, Y4", "ADDQ R8, AX",
		"DECQ DX", "JNE colmax", "VMOVMSKPS Y4, AX", "TESTL AX, AX", "JNE colnan",
	} {
		e.line("%s", l)
	}
	e.raw("\n")
	e.line("// exponentials and their sums")
	e.expConsts()
	for _, l := range []string{"VPXORQ Z15, Z15, Z15", "MOVQ SI, AX", "MOVQ DI, BX", "MOVQ CX, DX"} {
		e.line("%s", l)
	}
	e.raw("\n")
	e.label("colexp")
	e.line("VMOVUPS 0(AX), Y0")
	e.line("VSUBPS Y14, Y0, Y0")
	e.cvtps2pd("Y0", 0)
	e.exp()
	e.line("VADDPD Z3, Z15, Z15")
	e.cvtpd2ps(3, 6)
	for _, l := range []string{"VMOVUPS Y6, 0(BX)", "ADDQ R8, AX", "ADDQ R8, BX", "DECQ DX", "JNE colexp"} {
		e.line("%s", l)
	}
	e.raw("\n")
	e.line("// scale by 1/sum")
	e.opK("VDIVPD", vreg(15), k("one"), 15, 15)
	e.line("MOVQ DI, BX")
	e.raw("\n")
	e.label("colscale")
	for _, l := range []string{
		"VCVTPS2PD 0(BX), Z0", "VMULPD Z15, Z0, Z0", "VCVTPD2PS Z0, Y0", "VMOVUPS Y0, 0(BX)", "ADDQ R8, BX",
		"DECQ CX", "JNE colscale", "MOVB $0, nan+32(FP)", "VZEROUPPER", "RET",
	} {
		e.line("%s", l)
	}
	e.raw("\n")
	e.label("colnan")
	e.line("MOVB $1, nan+32(FP)")
	e.vzeroRet()
	e.raw("\n")
}
