package main

// The panel GEMV, described once: out[16p+q] = the product of panel p's
// row q with h (see ../gemv.go), four partial sums by k mod 4, each one
// ZMM register (AVX-512) or two YMM registers (AVX2), four k steps an
// iteration, then (s0+s1)+(s2+s3) stored. AVX-512 takes two panels at a
// time, one broadcast of h[k] feeding both (a broadcast costs a load, and
// loads are what limit the loop); AVX2 has registers for one. The panels
// are read front to back, which the hardware prefetcher follows
// (prefetching in the loop measured 10–30% slower on a 4 MB matrix).

const gemvAbout = `// The panel GEMV for %s (see gen/gemv.go): each panel row's product
// with h in four float32 partial sums by k mod 4, fused multiply-adds in
// k order, added (s0+s1)+(s2+s3).

`

func (e *emitter) gemvPanels() {
	l := "gemv" + e.t.name
	e.resident = nil
	e.header("gemvPanels", "(n, k int, h, panels, out *float32)", "$0-40",
		"out[16p+q] = the product of row q of panel p (k groups of 16 floats)",
		"with h[:k], for p < n; n, k > 0.")
	for _, a := range []string{"MOVQ n+0(FP), R8", "MOVQ k+8(FP), R9", "MOVQ h+16(FP), R10",
		"MOVQ panels+24(FP), DI", "MOVQ out+32(FP), DX", "MOVQ R9, R11", "SHLQ $6, R11"} {
		e.line("%s", a) // R11: one panel's bytes
	}
	if e.t.wide {
		e.line("CMPQ R8, $2")
		e.line("JLT %sone", l)
		e.gemvRun(l+"two", 2)
		e.line("SUBQ $2, R8")
		e.line("CMPQ R8, $2")
		e.line("JGE %stwo", l)
		e.line("TESTQ R8, R8")
		e.line("JEQ %sdone", l)
		e.raw("\n")
		e.label(l + "one")
		e.gemvRun(l+"one1", 1)
		e.label(l + "done")
	} else {
		e.gemvRun(l+"one", 1)
		e.line("DECQ R8")
		e.line("JNE %sone", l)
	}
	e.vzeroRet()
	e.raw("\n")
}

// gemvRun emits one pass over h for np panels at DI (the next at
// DI+R11), storing their 16·np sums at DX and moving DI and DX past them.
func (e *emitter) gemvRun(label string, np int) {
	vecs := 16 / e.t.f32Lanes()
	acc := func(p, a, v int) string { return e.v(vreg((p*4+a)*vecs + v)) }
	e.raw("\n")
	e.label(label)
	for p := range np {
		for a := range 4 {
			for v := range vecs {
				if e.t.wide {
					e.line("VPXORD %s, %s, %s", acc(p, a, v), acc(p, a, v), acc(p, a, v))
				} else {
					e.line("VXORPS %s, %s, %s", acc(p, a, v), acc(p, a, v), acc(p, a, v))
				}
			}
		}
	}
	e.line("MOVQ R10, SI")
	e.line("LEAQ (DI)(R11*1), R12")
	e.line("MOVQ R9, BX")
	e.line("SHRQ $2, BX")
	e.line("MOVQ R9, CX")
	e.line("ANDQ $3, CX")
	e.line("TESTQ BX, BX")
	e.line("JEQ %stail", label)
	// step adds k step j of the iteration (h at 4j(SI), each panel's group
	// at 64j from DI or R12) to partial sum a.
	step := func(j, a int) {
		b := 24 + j
		if e.t.wide {
			e.line("VBROADCASTSS %d(SI), Z%d", 4*j, b)
		} else {
			b = 8 + j
			e.line("VBROADCASTSS %d(SI), Y%d", 4*j, b)
		}
		for p, base := range []string{"DI", "R12"}[:np] {
			for v := range vecs {
				e.line("VFMADD231PS %d(%s), %s, %s", 64*j+4*e.t.f32Lanes()*v, base, e.v(vreg(b)), acc(p, a, v))
			}
		}
	}
	advance := func(hb, pb int) {
		e.line("ADDQ $%d, SI", hb)
		e.line("ADDQ $%d, DI", pb)
		if np > 1 {
			e.line("ADDQ $%d, R12", pb)
		}
	}
	e.raw("\n")
	e.label(label + "loop4")
	for j := range 4 {
		step(j, j)
	}
	advance(16, 256)
	e.line("DECQ BX")
	e.line("JNE %sloop4", label)
	e.raw("\n")
	e.label(label + "tail")
	// The last k mod 4 steps go to partial sums 0, 1, 2 in turn.
	for j := range 3 {
		e.line("TESTQ CX, CX")
		e.line("JEQ %ssum", label)
		step(0, j)
		advance(4, 64)
		e.line("DECQ CX")
	}
	e.raw("\n")
	e.label(label + "sum")
	for p := range np {
		for v := range vecs {
			e.line("VADDPS %s, %s, %s", acc(p, 1, v), acc(p, 0, v), acc(p, 0, v))
			e.line("VADDPS %s, %s, %s", acc(p, 3, v), acc(p, 2, v), acc(p, 2, v))
			e.line("VADDPS %s, %s, %s", acc(p, 2, v), acc(p, 0, v), acc(p, 0, v))
			e.line("VMOVUPS %s, %d(DX)", acc(p, 0, v), 64*p+4*e.t.f32Lanes()*v)
		}
	}
	e.line("ADDQ $%d, DX", 64*np)
	// DI has passed its own panel: past the second one too.
	if np > 1 {
		e.line("ADDQ R11, DI")
	}
}
