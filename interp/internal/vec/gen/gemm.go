package main

import "fmt"

// The GEMM micro-kernels, described once: C[rows×16] (+)= A·B over k
// steps, A packed as k groups of floats (one a row), one accumulator
// vector per 16/lanes columns of a row, each step's B row meeting every
// row's A value by a fused multiply-add, four steps an iteration, then
// the sums stored into C or added to it. The widths differ in what they
// hold: AVX-512 keeps 16 (or 8) rows of one ZMM accumulator, reads B in
// place (ldb apart, four rows loaded ahead) and broadcasts A straight into
// its FMAs, with optional prefetching; AVX2 keeps 6 rows of two YMM
// accumulators and reads B packed, 16 floats a step.

// gemmShape is one kernel of the family.
type gemmShape struct {
	name    string
	rows    int // rows of C
	aStride int // bytes from one k group of A to the next
}

func (e *emitter) gemmKernel(s gemmShape) {
	vecs := 16 / e.t.f32Lanes()
	acc := func(r, v int) string { return e.v(vreg(r*vecs + v)) }
	l := fmt.Sprintf("k%d", s.rows)
	e.resident = nil
	addArg := "add+40(FP)"
	if e.t.wide {
		e.raw(fmt.Sprintf("// func %s(k int, a, b *float32, ldb int, c *float32, ldc int, add, prefetch bool)\n", s.name))
		e.raw(fmt.Sprintf("// C[%dx16] += A·B (or = A·B when add is false) over k steps, with A packed\n", s.rows))
		e.raw(fmt.Sprintf("// as k groups of %d floats (the first %d per row) and B as k rows of 16\n", s.aStride/4, s.rows))
		e.raw("// floats ldb floats apart (16 when packed); C has row stride ldc. With\n")
		e.raw("// prefetch, B's rows two panels ahead are prefetched (and C's next strip\n")
		e.raw("// for 16 rows). Needs AVX-512F.\n")
		e.raw(fmt.Sprintf("TEXT ·%s(SB), NOSPLIT, $0-50\n", s.name))
		for _, a := range []string{"MOVQ k+0(FP), CX", "MOVQ a+8(FP), SI", "MOVQ b+16(FP), DI", "MOVQ ldb+24(FP), R9",
			"SHLQ $2, R9", "LEAQ (R9)(R9*2), R10", "LEAQ (R9*4), R11", "MOVQ c+32(FP), DX", "MOVQ ldc+40(FP), R8",
			"SHLQ $2, R8", "MOVBLZX prefetch+49(FP), R12"} {
			e.line("%s", a)
		}
		addArg = "add+48(FP)"
	} else {
		e.raw(fmt.Sprintf("// func %s(k int, a, b, c *float32, ldc int, add bool)\n", s.name))
		e.raw(fmt.Sprintf("// C[%dx16] += A·B (or = A·B when add is false) over k steps, with A packed\n", s.rows))
		e.raw(fmt.Sprintf("// as k groups of %d floats (one per row) and B packed as k groups of 16\n", s.rows))
		e.raw("// floats; C has row stride ldc. Needs AVX2 and FMA3.\n")
		e.raw(fmt.Sprintf("TEXT ·%s(SB), NOSPLIT, $0-41\n", s.name))
		for _, a := range []string{"MOVQ k+0(FP), CX", "MOVQ a+8(FP), SI", "MOVQ b+16(FP), DI", "MOVQ c+24(FP), DX",
			"MOVQ ldc+32(FP), R8", "SHLQ $2, R8"} {
			e.line("%s", a)
		}
	}
	for r := range s.rows {
		for v := range vecs {
			if e.t.wide {
				e.line("VPXORD %s, %s, %s", acc(r, v), acc(r, v), acc(r, v))
			} else {
				e.line("VXORPS %s, %s, %s", acc(r, v), acc(r, v), acc(r, v))
			}
		}
	}
	e.line("MOVQ CX, BX")
	e.line("SHRQ $2, BX")
	e.line("ANDQ $3, CX")
	e.line("TESTQ BX, BX")
	e.line("JEQ %stail", l)
	if e.t.wide {
		e.line("TESTL R12, R12")
		if s.rows == 16 {
			e.line("JEQ %sloop4", l)
			e.cprefetch16()
			e.line("JMP %sloop4pf", l)
		} else {
			e.line("JNE %sloop4pf", l)
		}
	}
	// step is one k step: B's row j of the iteration's four meets the A
	// values at aoff(SI).
	step := func(j, aoff int) {
		if e.t.wide {
			for r := range s.rows {
				e.line("VFMADD231PS.BCST %d(SI), Z%d, %s", aoff+4*r, 16+j, acc(r, 0))
			}
			return
		}
		for v := range vecs {
			e.line("VMOVUPS %d(DI), Y%d", 64*j+32*v, 12+v)
		}
		for r := range s.rows {
			a := 14 + r%2
			e.line("VBROADCASTSS %d(SI), Y%d", aoff+4*r, a)
			for v := range vecs {
				e.line("VFMADD231PS Y%d, Y%d, %s", 12+v, a, acc(r, v))
			}
		}
	}
	loop4 := func(label string, prefetch bool) {
		e.raw("\n")
		e.label(label)
		if e.t.wide {
			e.line("VMOVUPS (DI), Z16")
			e.line("VMOVUPS (DI)(R9*1), Z17")
			e.line("VMOVUPS (DI)(R9*2), Z18")
			e.line("VMOVUPS (DI)(R10*1), Z19")
			if prefetch {
				// B's same four rows two 16-column panels ahead: far apart
				// when B is a large feature map read in place.
				for _, a := range []string{"128(DI)", "128(DI)(R9*1)", "128(DI)(R9*2)", "128(DI)(R10*1)"} {
					e.line("PREFETCHT0 %s", a)
				}
			}
		}
		for j := range 4 {
			step(j, j*s.aStride)
		}
		e.line("ADDQ $%d, SI", 4*s.aStride)
		if e.t.wide {
			e.line("ADDQ R11, DI")
		} else {
			e.line("ADDQ $256, DI")
		}
		e.line("DECQ BX")
		e.line("JNE %s", label)
	}
	loop4(l+"loop4", false)
	if e.t.wide {
		e.line("JMP %stail", l)
		loop4(l+"loop4pf", true)
	}
	e.raw("\n")
	e.label(l + "tail")
	e.line("TESTQ CX, CX")
	e.line("JEQ %sstore", l)
	e.raw("\n")
	e.label(l + "loop1")
	if e.t.wide {
		e.line("VMOVUPS (DI), Z16")
	}
	step(0, 0)
	e.line("ADDQ $%d, SI", s.aStride)
	if e.t.wide {
		e.line("ADDQ R9, DI")
	} else {
		e.line("ADDQ $64, DI")
	}
	e.line("DECQ CX")
	e.line("JNE %sloop1", l)
	e.raw("\n")
	e.label(l + "store")
	e.line("MOVBLZX %s, AX", addArg)
	e.line("TESTL AX, AX")
	e.line("JEQ %sset", l)
	store := func(add bool) {
		for r := range s.rows {
			for v := range vecs {
				if add {
					e.line("VADDPS %d(DX), %s, %s", 32*v, acc(r, v), acc(r, v))
				}
				e.line("VMOVUPS %s, %d(DX)", acc(r, v), 32*v)
			}
			if r < s.rows-1 {
				e.line("ADDQ R8, DX")
			}
		}
		e.vzeroRet()
	}
	store(true)
	e.raw("\n")
	e.label(l + "set")
	store(false)
	e.raw("\n")
}

// cprefetch16 asks for the 16 rows of C (R8 bytes apart from DX) two
// 16-column strips ahead: when B is a large feature map, so is C, and its
// strips are written far from where the last ones were.
func (e *emitter) cprefetch16() {
	e.line("MOVQ DX, AX")
	e.line("PREFETCHT0 128(AX)")
	e.line("PREFETCHT0 128(AX)(R8*1)")
	e.line("PREFETCHT0 128(AX)(R8*2)")
	for range 6 {
		e.line("LEAQ (AX)(R8*2), AX")
		e.line("PREFETCHT0 128(AX)(R8*1)")
		e.line("PREFETCHT0 128(AX)(R8*2)")
	}
	e.line("LEAQ (AX)(R8*2), AX")
	e.line("PREFETCHT0 128(AX)(R8*1)")
}
