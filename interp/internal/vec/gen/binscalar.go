package main

import "fmt"

// The scalar-operand family, described once: a float32 row combined with
// another row, or with one value (a per-channel scale or shift broadcast over a plane, as
// squeeze-excite blocks and bias adds do), d[i] = a[i] ∘ k or k ∘ a[i] for
// Add, Sub, Mul and Div. Each lane is one IEEE float32 operation, the
// scalar loop's own, so the results are its bits. Four vectors an
// iteration, then one.

func init() {
	files = append(files,
		struct {
			name, about string
			t           *target
			body        func(e *emitter)
		}{"binscalar_avx512_amd64.s", binScalarAbout, avx512, func(e *emitter) { e.binScalars() }},
		struct {
			name, about string
			t           *target
			body        func(e *emitter)
		}{"binscalar_avx2_amd64.s", binScalarAbout, avx2, func(e *emitter) { e.binScalars() }},
	)
}

const binScalarAbout = `// The scalar-operand family for %s (see gen/binscalar.go): one IEEE
// float32 operation a lane, as the scalar loop.

`

// binScalarOps are the operations and their instructions.
var binScalarOps = []struct{ name, instr string }{
	{"Add", "VADDPS"}, {"Sub", "VSUBPS"}, {"Mul", "VMULPS"}, {"Div", "VDIVPS"},
}

func (e *emitter) binScalars() {
	for _, op := range binScalarOps {
		e.binScalar(op.name, op.instr)
	}
	for _, op := range binScalarOps {
		e.binRows(op.name, op.instr)
	}
	if e.t.wide {
		for _, op := range binScalarOps {
			e.binPerRow(op.name, op.instr)
		}
	}
}

// binPerRow emits binPerRow<Op>(rows, full int, d, a, k *float32, tail
// int, left bool) (AVX-512 only): for each of rows rows of full vectors
// and tail more floats (fewer than 16), d = a ∘ k[r] (k[r] ∘ a when
// left) — a per-channel scale or shift over small planes (7×7 is 3
// vectors and one float), one call for them all instead of one a row.
// The whole vectors of every row go first, then the tails through masked
// loads and stores: a row's masked store followed at once by the next
// row's load of the same bytes (in place) stalls the load until the
// store retires, 2.2× as slow on 7×7 planes.
func (e *emitter) binPerRow(name, instr string) {
	e.header("binPerRow"+name, "(rows, full int, d, a, k *float32, tail int, left bool)", "$0-49",
		"Registers: 0 a's vector, 15 k[r]; R8 rows left, R9 full, CX vectors left, R10 the tail in bytes,",
		"R11 a row in bytes, R12-R14 d, a and k; K1 the tail's mask.")
	e.line("MOVQ rows+0(FP), R8")
	e.line("MOVQ full+8(FP), R9")
	e.line("MOVQ d+16(FP), R12")
	e.line("MOVQ a+24(FP), R13")
	e.line("MOVQ k+32(FP), R14")
	e.line("MOVQ tail+40(FP), R10")
	e.line("MOVBLZX left+48(FP), AX")
	// K1 = (1 << tail) - 1; R11 = full·64 + tail·4.
	e.line("MOVL $1, BX")
	e.line("MOVQ R10, CX")
	e.line("SHLL CX, BX")
	e.line("DECL BX")
	e.line("KMOVW BX, K1")
	e.line("SHLQ $2, R10")
	e.line("MOVQ R9, R11")
	e.line("SHLQ $6, R11")
	e.line("ADDQ R10, R11")
	e.line("TESTQ R8, R8")
	e.line("JEQ bpr%sdone", name)
	for _, side := range []string{"R", "L"} {
		l := fmt.Sprintf("bpr%s%s", name, side)
		if side == "R" {
			e.line("TESTL AX, AX")
			e.line("JNE %s", fmt.Sprintf("bpr%sL", name))
		} else {
			e.label(l)
		}
		op := func() {
			if side == "R" {
				e.line("%s Z15, Z0, Z0", instr)
			} else {
				e.line("%s Z0, Z15, Z0", instr)
			}
		}
		// Whole vectors, row by row.
		e.line("MOVQ R12, DI")
		e.line("MOVQ R13, SI")
		e.line("MOVQ R14, DX")
		e.line("MOVQ R8, BX")
		e.line("TESTQ R9, R9")
		e.line("JEQ %stails", l)
		e.label(l + "row")
		e.line("VBROADCASTSS (DX), Z15")
		e.line("MOVQ R9, CX")
		e.label(l + "vec")
		e.line("VMOVUPS (SI), Z0")
		op()
		e.line("VMOVUPS Z0, (DI)")
		e.line("ADDQ $64, SI")
		e.line("ADDQ $64, DI")
		e.line("DECQ CX")
		e.line("JNE %svec", l)
		e.line("ADDQ R10, SI")
		e.line("ADDQ R10, DI")
		e.line("ADDQ $4, DX")
		e.line("DECQ BX")
		e.line("JNE %srow", l)
		// Then each row's tail.
		e.label(l + "tails")
		e.line("TESTQ R10, R10")
		e.line("JEQ bpr%sdone", name)
		e.line("MOVQ R9, CX")
		e.line("SHLQ $6, CX")
		e.line("LEAQ (R12)(CX*1), DI")
		e.line("LEAQ (R13)(CX*1), SI")
		e.line("MOVQ R14, DX")
		e.line("MOVQ R8, BX")
		e.label(l + "tail")
		e.line("VBROADCASTSS (DX), Z15")
		e.line("VMOVUPS.Z (SI), K1, Z0")
		op()
		e.line("VMOVUPS Z0, K1, (DI)")
		e.line("ADDQ R11, SI")
		e.line("ADDQ R11, DI")
		e.line("ADDQ $4, DX")
		e.line("DECQ BX")
		e.line("JNE %stail", l)
		e.line("JMP bpr%sdone", name)
	}
	e.label(fmt.Sprintf("bpr%sdone", name))
	e.vzeroRet()
	e.raw("\n")
}

// binRows emits binRows<Op>(n int, d, a, b *float32): d[i] = a[i] ∘ b[i]
// for i < n (a multiple of the vector width).
func (e *emitter) binRows(name, instr string) {
	sym := map[string]string{"Add": "+", "Sub": "-", "Mul": "*", "Div": "/"}[name]
	e.header("binRows"+name, "(n int, d, a, b *float32)", "$0-32",
		fmt.Sprintf("d[i] = a[i] %s b[i] for i < n, n a multiple of the vector width.", sym))
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ d+8(FP), DI")
	e.line("MOVQ a+16(FP), SI")
	e.line("MOVQ b+24(FP), DX")
	lanes := e.t.f32Lanes()
	l := fmt.Sprintf("br%s%s", name, e.t.name)
	for _, u := range []int{4, 1} {
		e.label(fmt.Sprintf("%s%d", l, u))
		e.line("CMPQ CX, $%d", u*lanes)
		e.line("JLT %s%ddone", l, u)
		for a := range u {
			e.line("VMOVUPS %d(SI), %s", 4*lanes*a, e.v(vreg(a)))
			e.line("%s %d(DX), %s, %s", instr, 4*lanes*a, e.v(vreg(a)), e.v(vreg(a)))
		}
		for a := range u {
			e.line("VMOVUPS %s, %d(DI)", e.v(vreg(a)), 4*lanes*a)
		}
		e.line("ADDQ $%d, SI", 4*lanes*u)
		e.line("ADDQ $%d, DX", 4*lanes*u)
		e.line("ADDQ $%d, DI", 4*lanes*u)
		e.line("SUBQ $%d, CX", lanes*u)
		e.line("JMP %s%d", l, u)
		e.label(fmt.Sprintf("%s%ddone", l, u))
	}
	e.vzeroRet()
	e.raw("\n")
}

// binScalar emits binScalar<Op>(n int, d, a *float32, k float32, left bool):
// d[i] = a[i] ∘ k, or k ∘ a[i] when left, for i < n (a multiple of the
// vector width).
func (e *emitter) binScalar(name, instr string) {
	e.header("binScalar"+name, "(n int, d, a *float32, k float32, left bool)", "$0-29",
		fmt.Sprintf("d[i] = a[i] %s k (k %s a[i] when left) for i < n, n a multiple of the", map[string]string{"Add": "+", "Sub": "-", "Mul": "*", "Div": "/"}[name], map[string]string{"Add": "+", "Sub": "-", "Mul": "*", "Div": "/"}[name]),
		"vector width.")
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ d+8(FP), DI")
	e.line("MOVQ a+16(FP), SI")
	e.line("VBROADCASTSS k+24(FP), %s", e.v(15))
	e.line("MOVBLZX left+28(FP), AX")
	lanes := e.t.f32Lanes()
	for _, side := range []string{"R", "L"} {
		// R: a[i] ∘ k (Go operand order: op k, a, d); L: k ∘ a[i].
		l := fmt.Sprintf("bs%s%s%s", name, side, e.t.name)
		if side == "R" {
			e.line("TESTL AX, AX")
			e.line("JNE %s4", fmt.Sprintf("bs%sL%s", name, e.t.name))
		}
		for _, u := range []int{4, 1} {
			e.label(fmt.Sprintf("%s%d", l, u))
			e.line("CMPQ CX, $%d", u*lanes)
			e.line("JLT %s%ddone", l, u)
			for a := range u {
				if side == "R" {
					e.line("VMOVUPS %d(SI), %s", 4*lanes*a, e.v(vreg(a)))
					e.line("%s %s, %s, %s", instr, e.v(15), e.v(vreg(a)), e.v(vreg(a)))
				} else {
					e.line("%s %d(SI), %s, %s", instr, 4*lanes*a, e.v(15), e.v(vreg(a)))
				}
			}
			for a := range u {
				e.line("VMOVUPS %s, %d(DI)", e.v(vreg(a)), 4*lanes*a)
			}
			e.line("ADDQ $%d, SI", 4*lanes*u)
			e.line("ADDQ $%d, DI", 4*lanes*u)
			e.line("SUBQ $%d, CX", lanes*u)
			e.line("JMP %s%d", l, u)
			e.label(fmt.Sprintf("%s%ddone", l, u))
		}
		e.vzeroRet()
	}
	e.raw("\n")
}
