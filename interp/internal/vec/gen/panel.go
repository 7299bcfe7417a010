package main

// The panel family, described once: packing one 16-float row of a GEMM
// panel a tap at a time, in vectors of 16 float32 lanes (AVX-512, one a
// row) or 8 (AVX2, two a row).

// f32Lanes is how many float32 values a vector holds.
func (t *target) f32Lanes() int { return 2 * t.lanes }

// panelRows emits the loop over n taps: BX walks taps, DI the panel rows
// (64 bytes each); body packs one row.
func (e *emitter) panelRows(label string, body func()) {
	e.raw("\n")
	e.label(label)
	body()
	e.line("ADDQ $4, BX")
	e.line("ADDQ $64, DI")
	e.line("DECQ CX")
	e.line("JNE %s", label)
	e.vzeroRet()
	e.raw("\n")
}

// panelTaps2 takes every other float of the 32 from a tap.
func (e *emitter) panelTaps2() {
	w, vecs := e.t.f32Lanes(), 16/e.t.f32Lanes()
	e.header("panelTaps2", "(n int, taps *int32, src, dst *float32)", "$0-32",
		"dst[16p+i] = src[taps[p]+2i] for p < n, i < 16; reads src[taps[p]:][:32].")
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ taps+8(FP), BX")
	e.line("MOVQ src+16(FP), SI")
	e.line("MOVQ dst+24(FP), DI")
	if e.t.wide {
		e.line("VMOVUPS evenIdx<>(SB), Z31")
	}
	e.panelRows("taps2"+e.t.name, func() {
		e.line("MOVLQSX (BX), AX")
		e.line("LEAQ (SI)(AX*4), R8")
		for v := range vecs {
			lo, hi := 8*w*v, 8*w*v+4*w // the two vectors whose evens make vector v
			e.evens(lo, hi, vreg(v))
			e.line("VMOVUPS %s, %d(DI)", e.v(vreg(v)), 4*w*v)
		}
	})
}

// evens sets dst to the even floats of the two vectors at lo(R8) and
// hi(R8): a two-source permute (AVX-512, indices in Z31), or an in-lane
// shuffle whose lane order 0 1 4 5 2 3 6 7 VPERMPD $0xD8 undoes (AVX2).
func (e *emitter) evens(lo, hi int, dst vreg) {
	if e.t.wide {
		e.line("VMOVUPS %d(R8), %s", lo, e.v(dst))
		e.line("VPERMT2PS %d(R8), Z31, %s", hi, e.v(dst))
		return
	}
	e.line("VMOVUPS %d(R8), Y14", lo)
	e.line("VMOVUPS %d(R8), Y15", hi)
	e.line("VSHUFPS $0x88, Y15, Y14, %s", e.v(dst))
	e.line("VPERMPD $0xD8, %s, %s", e.v(dst), e.v(dst))
}

// panelGather gathers one row at a time: a tap plus 16 column offsets.
func (e *emitter) panelGather() {
	w, vecs := e.t.f32Lanes(), 16/e.t.f32Lanes()
	e.header("panelGather", "(n int, taps, cols *int32, src, dst *float32)", "$0-40",
		"dst[16p+i] = src[taps[p]+cols[i]] for p < n, i < 16: one vector",
		"gather a vector of the panel row.")
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ taps+8(FP), BX")
	e.line("MOVQ cols+16(FP), DX")
	e.line("MOVQ src+24(FP), SI")
	e.line("MOVQ dst+32(FP), DI")
	cols := func(v int) vreg { return vreg(14 + v) }
	for v := range vecs {
		if e.t.wide {
			e.line("VMOVDQU32 %d(DX), %s", 4*w*v, e.v(cols(v)))
		} else {
			e.line("VMOVDQU %d(DX), %s", 4*w*v, e.v(cols(v)))
		}
	}
	e.panelRows("gather"+e.t.name, func() {
		e.line("VPBROADCASTD (BX), %s", e.v(0))
		for v := range vecs {
			idx, got := vreg(1+2*v), vreg(2+2*v)
			e.line("VPADDD %s, %s, %s", e.v(cols(v)), e.v(0), e.v(idx))
			// The gathers clear their masks: all ones again each time.
			if e.t.wide {
				e.line("KXNORW K0, K0, K1")
				e.line("VGATHERDPS (SI)(%s*4), K1, %s", e.v(idx), e.v(got))
			} else {
				e.line("VPCMPEQD Y13, Y13, Y13")
				e.line("VGATHERDPS Y13, (SI)(%s*4), %s", e.v(idx), e.v(got))
			}
		}
		for v := range vecs {
			e.line("VMOVUPS %s, %d(DI)", e.v(vreg(2+2*v)), 4*w*v)
		}
	})
}

// panelTable is the AVX-512 permute's indices: the even places of 32.
func (e *emitter) panelTable() {
	if !e.t.wide {
		return
	}
	for j := range 16 {
		e.raw(sprintf("DATA evenIdx<>+%d(SB)/4, $%d\n", 4*j, 2*j))
	}
	e.raw("GLOBL evenIdx<>(SB), RODATA|NOPTR, $64\n\n")
}
