package main

import "fmt"

// The depthwise-taps family, described once: a run of n outputs of one
// depthwise plane, each its bias plus every tap of the window by a fused
// multiply-add in the taps' order, where tap t reads the input offs[t]
// floats after the output's own place (the caller lays the plane out so
// that every tap of every output is such a fixed offset: a padded copy,
// split into stride phases). The sums stay in registers over the whole
// window: groups of 8, 4, 2, then 1 vectors of outputs, the taps in the inner
// loop, each weight broadcast once and met by one FMA a vector with the
// input straight from memory. (Groups of 2 keep two FMA chains going on
// the short runs of 7×7 and 14×14 planes.)

func init() {
	files = append(files,
		struct {
			name, about string
			t           *target
			body        func(e *emitter)
		}{"dwtaps_avx512_amd64.s", dwTapsAbout, avx512, func(e *emitter) { e.dwTaps() }},
		struct {
			name, about string
			t           *target
			body        func(e *emitter)
		}{"dwtaps_avx2_amd64.s", dwTapsAbout, avx2, func(e *emitter) { e.dwTaps() }},
	)
}

const dwTapsAbout = `// The depthwise-taps family for %s (see gen/dwtaps.go): each output its
// bias plus its taps by fused multiply-adds in the taps' order.

`

// dwTaps emits dwTaps(n int, src *float32, offs *int32, taps int, w *float32, bias float32, dst *float32).
func (e *emitter) dwTaps() {
	e.header("dwTaps", "(n int, src *float32, offs *int32, taps int, w *float32, bias float32, dst *float32)", "$0-56",
		"dst[i] = bias + Σ_t w[t]·src[offs[t]+i] for i < n (a multiple of the",
		"vector width), one fused multiply-add a tap in t order; taps ≥ 1.")
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ src+8(FP), SI")
	e.line("MOVQ offs+16(FP), BX")
	e.line("MOVQ taps+24(FP), DX")
	e.line("MOVQ w+32(FP), R8")
	e.line("MOVQ dst+48(FP), DI")
	bias, wt := vreg(15), vreg(14)
	e.line("VBROADCASTSS bias+40(FP), %s", e.v(bias))
	lanes := e.t.f32Lanes()
	for _, u := range []int{8, 4, 2, 1} {
		l := fmt.Sprintf("dwt%d%s", u, e.t.name)
		e.label(l)
		e.line("CMPQ CX, $%d", u*lanes)
		e.line("JLT %sdone", l)
		for a := range u {
			e.line("VMOVAPS %s, %s", e.v(bias), e.v(vreg(a)))
		}
		e.line("MOVQ BX, R9")
		e.line("MOVQ R8, R10")
		e.line("MOVQ DX, R11")
		e.label(l + "tap")
		e.line("MOVLQSX (R9), AX")
		e.line("LEAQ (SI)(AX*4), R12")
		e.line("VBROADCASTSS (R10), %s", e.v(wt))
		for a := range u {
			e.line("VFMADD231PS %d(R12), %s, %s", 4*lanes*a, e.v(wt), e.v(vreg(a)))
		}
		e.line("ADDQ $4, R9")
		e.line("ADDQ $4, R10")
		e.line("DECQ R11")
		e.line("JNE %stap", l)
		for a := range u {
			e.line("VMOVUPS %s, %d(DI)", e.v(vreg(a)), 4*lanes*a)
		}
		e.line("ADDQ $%d, SI", 4*lanes*u)
		e.line("ADDQ $%d, DI", 4*lanes*u)
		e.line("SUBQ $%d, CX", lanes*u)
		e.line("JMP %s", l)
		e.label(l + "done")
	}
	e.vzeroRet()
	e.raw("\n")
}
