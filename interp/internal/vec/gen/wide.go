package main

// The routines AVX-512 alone has: the float64 softmax's steps.

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
