package main

// The rows of a LayerNorm computed as its exported chain (interp's
// layerNormRow): float32 lanes, each operation the chain's own, rounded
// as its step rounds it, so every lane equals the scalar loop bit for bit.

// rowLoop32 emits a float32 loop over CX elements, lanes at a time, with
// the pointers in regs advanced after each body.
func (e *emitter) rowLoop32(label string, body func(), regs ...string) {
	e.rowLoop(label, 2*e.t.lanes, body, regs...)
}

// rowLoop emits a loop over CX float32 elements, lanes at a time, with
// the pointers in regs advanced after each body.
func (e *emitter) rowLoop(label string, lanes int, body func(), regs ...string) {
	e.line("SHRQ $%d, CX", log2(lanes))
	e.line("JEQ %sdone", label)
	e.raw("\n")
	e.label(label + "loop")
	body()
	for _, r := range regs {
		e.line("ADDQ $%d, %s", 4*lanes, r)
	}
	e.line("DECQ CX")
	e.line("JNE %sloop", label)
	e.raw("\n")
	e.label(label + "done")
	e.vzeroRet()
	e.raw("\n")
}

// lnCenter32 emits lnCenter32(n, dst, sq, src, m): dst = src - m and
// sq = dst·dst.
func (e *emitter) lnCenter32() {
	v := func(r int) string { return e.v(vreg(r)) }
	e.header("lnCenter32", "(n int, dst, sq, src *float32, m float32)", "$0-36")
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ dst+8(FP), DI")
	e.line("MOVQ sq+16(FP), DX")
	e.line("MOVQ src+24(FP), SI")
	e.line("VBROADCASTSS m+32(FP), %s", v(8))
	e.rowLoop32("lnc32", func() {
		e.line("VMOVUPS 0(SI), %s", v(0))
		e.line("VSUBPS %s, %s, %s", v(8), v(0), v(0))
		e.line("VMULPS %s, %s, %s", v(0), v(0), v(1))
		e.line("VMOVUPS %s, 0(DI)", v(0))
		e.line("VMOVUPS %s, 0(DX)", v(1))
	}, "SI", "DI", "DX")
}

// lnScale32 emits lnScale32(n, dst, scale, bias, den): dst = dst/den ·
// scale + bias, each operation rounded (no fused multiply-add).
func (e *emitter) lnScale32() {
	v := func(r int) string { return e.v(vreg(r)) }
	e.header("lnScale32", "(n int, dst, scale, bias *float32, den float32)", "$0-36")
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ dst+8(FP), DI")
	e.line("MOVQ scale+16(FP), SI")
	e.line("MOVQ bias+24(FP), DX")
	e.line("VBROADCASTSS den+32(FP), %s", v(8))
	e.rowLoop32("lns32", func() {
		e.line("VMOVUPS 0(DI), %s", v(0))
		e.line("VDIVPS %s, %s, %s", v(8), v(0), v(0))
		e.line("VMULPS 0(SI), %s, %s", v(0), v(0))
		e.line("VADDPS 0(DX), %s, %s", v(0), v(0))
		e.line("VMOVUPS %s, 0(DI)", v(0))
	}, "SI", "DI", "DX")
}

// lnAffine64 emits lnAffine64(n, dst, src, scale, bias, m, inv): dst =
// float32((src - m)·inv·scale + bias) in float64 lanes, each operation
// rounded to float64 on its own (no fused multiply-add), as the
// LayerNormalization op computes a row.
func (e *emitter) lnAffine64() {
	v := func(r int) string { return e.v(vreg(r)) }
	e.header("lnAffine64", "(n int, dst, src, scale, bias *float32, m, inv float64)", "$0-56")
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ dst+8(FP), DI")
	e.line("MOVQ src+16(FP), SI")
	e.line("MOVQ scale+24(FP), BX")
	e.line("MOVQ bias+32(FP), DX")
	e.line("VBROADCASTSD m+40(FP), %s", v(8))
	e.line("VBROADCASTSD inv+48(FP), %s", v(9))
	e.rowLoop("lna64", e.t.lanes, func() {
		e.cvtps2pd("0(SI)", 0)
		e.line("VSUBPD %s, %s, %s", v(8), v(0), v(0))
		e.line("VMULPD %s, %s, %s", v(9), v(0), v(0))
		e.cvtps2pd("0(BX)", 1)
		e.line("VMULPD %s, %s, %s", v(1), v(0), v(0))
		e.cvtps2pd("0(DX)", 2)
		e.line("VADDPD %s, %s, %s", v(2), v(0), v(0))
		e.cvtpd2ps(0, 0)
		e.line("VMOVUPS %s, 0(DI)", e.h(0))
	}, "SI", "DI", "BX", "DX")
}
