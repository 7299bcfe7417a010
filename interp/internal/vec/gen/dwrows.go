package main

import "fmt"

// The depthwise row-run kernels (AVX-512 only): dwTaps for a window whose
// taps come in rows of L consecutive offsets (stride 1, no dilation: tap
// (ky, kx) reads offs[ky·L] + kx). Each row's input is loaded once as
// whole vectors, one more than the group has outputs, and the vector a
// tap kx further on is built from two neighbours with VALIGND instead of
// an unaligned load of its own (most of which split cache lines), so each
// kernel row costs u+1 loads instead of u·L. The sums are dwTaps': each
// output its bias plus its taps by fused multiply-adds in the taps' order.

func init() {
	files = append(files, struct {
		name, about string
		t           *target
		body        func(e *emitter)
	}{"dwrows_avx512_amd64.s", dwRowsAbout, avx512, func(e *emitter) {
		for _, l := range []int{5, 7} {
			e.dwRows(l)
		}
	}})
}

const dwRowsAbout = `// The depthwise row-run kernels for %s (see gen/dwrows.go): each output
// its bias plus its taps by fused multiply-adds in the taps' order.

`

// dwRows emits dwRows<L>(n int, src *float32, offs *int32, rows int, w *float32, bias float32, dst *float32).
func (e *emitter) dwRows(L int) {
	name := fmt.Sprintf("dwRows%d", L)
	e.header(name, "(n int, src *float32, offs *int32, rows int, w *float32, bias float32, dst *float32)", "$0-56",
		fmt.Sprintf("dst[i] = bias + Σ_r Σ_kx w[r·%d+kx]·src[offs[r·%d]+kx+i] for i < n (a multiple", L, L),
		"of 16), one fused multiply-add a tap in (r, kx) order; rows ≥ 1. Reads up to",
		"src[offs[r·L]+n+15] for every row. Registers: 0–7 sums, 8–16 a row's",
		"input vectors, 17 the weight, 18 a shifted vector, 20 the bias.")
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ src+8(FP), SI")
	e.line("MOVQ offs+16(FP), BX")
	e.line("MOVQ rows+24(FP), DX")
	e.line("MOVQ w+32(FP), R8")
	e.line("MOVQ dst+48(FP), DI")
	e.line("VBROADCASTSS bias+40(FP), Z20")
	for _, u := range []int{8, 4, 2, 1} {
		l := fmt.Sprintf("dwr%dg%d", L, u)
		e.label(l)
		e.line("CMPQ CX, $%d", 16*u)
		e.line("JLT %sdone", l)
		for a := range u {
			e.line("VMOVAPS Z20, Z%d", a)
		}
		e.line("MOVQ BX, R9")
		e.line("MOVQ R8, R10")
		e.line("MOVQ DX, R11")
		e.label(l + "row")
		e.line("MOVLQSX (R9), AX")
		e.line("LEAQ (SI)(AX*4), R12")
		for a := 0; a <= u; a++ {
			e.line("VMOVUPS %d(R12), Z%d", 64*a, 8+a)
		}
		for kx := range L {
			e.line("VBROADCASTSS %d(R10), Z17", 4*kx)
			for a := range u {
				if kx == 0 {
					e.line("VFMADD231PS Z%d, Z17, Z%d", 8+a, a)
					continue
				}
				// Z18 = the 16 values kx further on: the top of a's
				// vector, then the bottom of the next.
				e.line("VALIGND $%d, Z%d, Z%d, Z18", kx, 8+a, 9+a)
				e.line("VFMADD231PS Z18, Z17, Z%d", a)
			}
		}
		e.line("ADDQ $%d, R9", 4*L)
		e.line("ADDQ $%d, R10", 4*L)
		e.line("DECQ R11")
		e.line("JNE %srow", l)
		for a := range u {
			e.line("VMOVUPS Z%d, %d(DI)", a, 64*a)
		}
		e.line("ADDQ $%d, SI", 64*u)
		e.line("ADDQ $%d, DI", 64*u)
		e.line("SUBQ $%d, CX", 16*u)
		e.line("JMP %s", l)
		e.label(l + "done")
	}
	e.vzeroRet()
	e.raw("\n")
}
