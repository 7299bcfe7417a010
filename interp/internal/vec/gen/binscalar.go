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
