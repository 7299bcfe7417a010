package main

import (
	"fmt"
	"math"
)

// Activations in float32 lanes (16 a ZMM register, 8 a YMM one), each
// lane the scalar reference's operations in the same order (vec's
// sigmoid32: Cephes expf's reduction and polynomial, fused multiply-adds
// where the reference calls fma32), so both widths equal it bit for bit.
// Every constant sits in the file's own table as 16 copies, read as a
// full-width memory operand.

const act32About = `// Float32-lane activations and LayerNorm rows for %s (see gen/act32.go,
// gen/norm32.go): every lane is vec's scalar reference bit for bit.

`

// expfConsts are Cephes expf's: its range, ln 2 split in two, its
// polynomial and the exponent bias, shared by every table whose kernel
// computes e^x in float32.
var expfConsts = []namedBits{
	{"lo", math.Float32bits(-104)}, // exp underflows to 0 below -103.97
	{"log2e", math.Float32bits(1.44269504088896341)},
	{"ln2hi", math.Float32bits(0.693359375)},
	{"ln2lo", math.Float32bits(-2.12194440e-4)},
	{"p0", math.Float32bits(1.9875691500e-4)},
	{"p1", math.Float32bits(1.3981999507e-3)},
	{"p2", math.Float32bits(8.3334519073e-3)},
	{"p3", math.Float32bits(4.1665795894e-2)},
	{"p4", math.Float32bits(1.6666665459e-1)},
	{"p5", math.Float32bits(5.0000001201e-1)},
	{"one", math.Float32bits(1)},
	{"bias", 127},
}

// act32Consts are the table's constants, in order, as float32 bits.
var act32Consts = append(append([]namedBits{{"sign", 0x80000000}}, expfConsts...), namedBits{"zero", 0})

// a32 is constant name's place in the table.
func (e *emitter) a32(name string) string {
	return (&constTable{"act32", act32Consts}).at(name)
}

// act32Table emits the constant table, 16 copies of each.
func (e *emitter) act32Table() { e.float32Table(&constTable{"act32", act32Consts}) }

// bitwise renders AND, ANDN and OR for the target (the D forms are
// AVX-512F's, the PD/PS forms on ZMM need AVX512DQ).
func (e *emitter) bitwise(op string) string {
	if e.t.wide {
		return map[string]string{"and": "VPANDD", "andn": "VPANDND", "or": "VPORD"}[op]
	}
	return map[string]string{"and": "VPAND", "andn": "VPANDN", "or": "VPOR"}[op]
}

// scaleByPow2 emits p·2^k rounded once into p. With AVX-512, one VSCALEFPS
// by k as a float (kf). Otherwise 2^k = 2^(k>>1)·2^(k - k>>1), built from
// k as an integer (ki, overwritten; tmp scratch) with bias the table's
// 127: both halves are normal for k ≥ -150 and the first product is
// exact, so either way only the last product rounds, as the scalar
// references' two halves do.
func (e *emitter) scaleByPow2(p, kf, ki, tmp, bias string) {
	if e.t.wide {
		e.line("VSCALEFPS %s, %s, %s", kf, p, p)
		return
	}
	e.line("VPSRAD $1, %s, %s", ki, tmp)
	e.line("VPSUBD %s, %s, %s", tmp, ki, ki)
	for _, r := range []string{tmp, ki} {
		e.line("VPADDD %s, %s, %s", bias, r, r)
		e.line("VPSLLD $23, %s, %s", r, r)
		e.line("VMULPS %s, %s, %s", r, p, p)
	}
}

// sigmoid32 emits sigmoid32(n, dst, src): n a multiple of the lanes. With
// t = -|x| clamped below at -104 (a NaN passes: VMAXPS returns its r/m
// operand when one is NaN), e = exp(t) in (0, 1] as Cephes expf computes
// it, scaled by 2^k in two halves so a subnormal result rounds once; the
// result is 1/(1+e) for x ≥ +0, e/(1+e) for x ≤ -0 (the sign bit chooses),
// one division.
func (e *emitter) sigmoid32() { e.sigmoidRoutine32("sigmoid32", "sig32", false) }

// silu32 emits silu32(n, dst, src): x·sigmoid32(x), the product rounded
// once more, as a Mul step after the Sigmoid step rounds it.
func (e *emitter) silu32() { e.sigmoidRoutine32("silu32", "silu32", true) }

func (e *emitter) sigmoidRoutine32(name, label string, gate bool) {
	lanes := 2 * e.t.lanes
	v := func(r int) string { return e.v(vreg(r)) }
	e.header(name, "(n int, dst, src *float32)", "$0-24",
		"Registers: 0 x, 1 t and the numerator, 2 k (float), 3 k (int), 4 r, 5 p, 6 r² and 1+e, 7 scratch.")
	e.args3()
	// With AVX-512 the constants stay in registers 16–27 (a memory
	// operand a constant would load 64 bytes an instruction).
	resident := []string{"sign", "lo", "log2e", "ln2hi", "ln2lo", "p0", "p1", "p2", "p3", "p4", "p5", "one"}
	cst := func(name string) string {
		if e.t.wide {
			for i, n := range resident {
				if n == name {
					return fmt.Sprintf("Z%d", 16+i)
				}
			}
		}
		return e.a32(name)
	}
	if e.t.wide {
		for _, n := range resident {
			e.line("VMOVUPS %s, %s", e.a32(n), cst(n))
		}
	}
	e.line("SHRQ $%d, CX", log2(lanes))
	e.line("JEQ %sdone", label)
	e.raw("\n")
	e.label(label + "loop")
	e.line("VMOVUPS 0(SI), %s", v(0))
	e.line("%s %s, %s, %s", e.bitwise("or"), cst("sign"), v(0), v(1))
	if e.t.wide {
		e.line("VMAXPS %s, %s, %s", v(1), cst("lo"), v(1))
	} else {
		e.line("%s %s, %s", e.move32(), cst("lo"), v(7))
		e.line("VMAXPS %s, %s, %s", v(1), v(7), v(1))
	}
	e.line("VMULPS %s, %s, %s", cst("log2e"), v(1), v(2))
	if e.t.wide {
		// k rounded to the nearest integer (ties to even, as VCVTPS2DQ
		// rounds), kept as a float for VSCALEFPS below.
		e.line("VRNDSCALEPS $0, %s, %s", v(2), v(2))
	} else {
		e.line("VCVTPS2DQ %s, %s", v(2), v(3))
		e.line("VCVTDQ2PS %s, %s", v(3), v(2))
	}
	e.line("VMOVAPS %s, %s", v(1), v(4))
	e.line("VFNMADD231PS %s, %s, %s", cst("ln2hi"), v(2), v(4))
	e.line("VFNMADD231PS %s, %s, %s", cst("ln2lo"), v(2), v(4))
	e.line("VMULPS %s, %s, %s", v(4), v(4), v(6))
	e.line("%s %s, %s", e.move32(), cst("p0"), v(5))
	for _, c := range []string{"p1", "p2", "p3", "p4", "p5"} {
		e.line("VFMADD213PS %s, %s, %s", cst(c), v(4), v(5))
	}
	e.line("VFMADD213PS %s, %s, %s", v(4), v(6), v(5))
	e.line("VADDPS %s, %s, %s", cst("one"), v(5), v(5))
	e.scaleByPow2(v(5), v(2), v(3), v(7), cst("bias"))
	// d = 1+e (6).
	e.line("VADDPS %s, %s, %s", cst("one"), v(5), v(6))
	// num (1): e where x's sign bit is set, else 1.
	e.line("VPSRAD $31, %s, %s", v(0), v(7))
	if e.t.wide {
		// One bitwise select: (7 & e) | (^7 & 1).
		e.line("%s %s, %s", e.move32(), cst("one"), v(1))
		e.line("VPTERNLOGD $0xb8, %s, %s, %s", v(5), v(7), v(1))
	} else {
		e.line("%s %s, %s, %s", e.bitwise("and"), v(7), v(5), v(1))
		e.line("%s %s, %s, %s", e.bitwise("andn"), cst("one"), v(7), v(2))
		e.line("%s %s, %s, %s", e.bitwise("or"), v(2), v(1), v(1))
	}
	// num/d, rounded once (1).
	e.line("VDIVPS %s, %s, %s", v(6), v(1), v(1))
	if gate {
		e.line("VMULPS %s, %s, %s", v(1), v(0), v(1))
	}
	e.line("VMOVUPS %s, 0(DI)", v(1))
	e.line("ADDQ $%d, SI", 4*lanes)
	e.line("ADDQ $%d, DI", 4*lanes)
	e.line("DECQ CX")
	e.line("JNE %sloop", label)
	e.raw("\n")
	e.label(label + "done")
	e.vzeroRet()
	e.raw("\n")
}

// expShift32 emits expShift32(n, dst, src, m): dst = e^(x - m) for x in
// src, with t = x - m clamped below at -104 (a NaN passes) and e^t as
// Cephes expf computes it, scaled by 2^k in two halves as sigmoid32 does:
// a softmax's exponentials in float32 lanes (t ≤ 0 where m is the row's
// maximum).
func (e *emitter) expShift32() {
	lanes := 2 * e.t.lanes
	v := func(r int) string { return e.v(vreg(r)) }
	e.header("expShift32", "(n int, dst, src *float32, m float32)", "$0-28",
		"Registers: 0 m, 1 t, 2 k (float), 3 k (int), 4 r, 5 p, 6 r², 7 scratch.")
	e.args3()
	e.line("VBROADCASTSS m+24(FP), %s", v(0))
	e.line("SHRQ $%d, CX", log2(lanes))
	e.line("JEQ exps32done")
	e.raw("\n")
	e.label("exps32loop")
	e.line("VMOVUPS 0(SI), %s", v(1))
	e.line("VSUBPS %s, %s, %s", v(0), v(1), v(1))
	e.line("VMOVUPS %s, %s", e.a32("lo"), v(7))
	e.line("VMAXPS %s, %s, %s", v(1), v(7), v(1))
	e.line("VMULPS %s, %s, %s", e.a32("log2e"), v(1), v(2))
	e.line("VCVTPS2DQ %s, %s", v(2), v(3))
	e.line("VCVTDQ2PS %s, %s", v(3), v(2))
	e.line("VMOVAPS %s, %s", v(1), v(4))
	e.line("VFNMADD231PS %s, %s, %s", e.a32("ln2hi"), v(2), v(4))
	e.line("VFNMADD231PS %s, %s, %s", e.a32("ln2lo"), v(2), v(4))
	e.line("VMULPS %s, %s, %s", v(4), v(4), v(6))
	e.line("VMOVUPS %s, %s", e.a32("p0"), v(5))
	for _, c := range []string{"p1", "p2", "p3", "p4", "p5"} {
		e.line("VFMADD213PS %s, %s, %s", e.a32(c), v(4), v(5))
	}
	e.line("VFMADD213PS %s, %s, %s", v(4), v(6), v(5))
	e.line("VADDPS %s, %s, %s", e.a32("one"), v(5), v(5))
	e.scaleByPow2(v(5), v(2), v(3), v(7), e.a32("bias"))
	e.line("VMOVUPS %s, 0(DI)", v(5))
	e.line("ADDQ $%d, SI", 4*lanes)
	e.line("ADDQ $%d, DI", 4*lanes)
	e.line("DECQ CX")
	e.line("JNE exps32loop")
	e.raw("\n")
	e.label("exps32done")
	e.vzeroRet()
	e.raw("\n")
}

// hardSigmoidGate32 emits hardSigmoidGate32(n, dst, src, a, b): dst =
// x·max(0, min(1, a·x + b)), the product and the sum rounded apart, for a
// finite a ≠ 0 and a finite b (the caller's to check). a·x+b is then NaN
// only where x is, and there VMINPS's r/m operand, 1, makes the gate 1
// where the scalar gate is NaN: x·1 and x·NaN are both NaN. VMAXPS
// returns its r/m operand, +0, for max(+0, -0), as Go's max does.
func (e *emitter) hardSigmoidGate32() {
	lanes := 2 * e.t.lanes
	v := func(r int) string { return e.v(vreg(r)) }
	e.header("hardSigmoidGate32", "(n int, dst, src *float32, a, b float32)", "$0-32",
		"Registers: 0 x, 1 the gate, 8 a, 9 b, 10 one, 11 zero.")
	e.args3()
	e.line("VBROADCASTSS a+24(FP), %s", v(8))
	e.line("VBROADCASTSS b+28(FP), %s", v(9))
	e.line("VMOVUPS %s, %s", e.a32("one"), v(10))
	e.line("VMOVUPS %s, %s", e.a32("zero"), v(11))
	e.line("SHRQ $%d, CX", log2(lanes))
	e.line("JEQ hsg32done")
	e.raw("\n")
	e.label("hsg32loop")
	e.line("VMOVUPS 0(SI), %s", v(0))
	e.line("VMULPS %s, %s, %s", v(8), v(0), v(1))
	e.line("VADDPS %s, %s, %s", v(9), v(1), v(1))
	e.line("VMINPS %s, %s, %s", v(10), v(1), v(1))
	e.line("VMAXPS %s, %s, %s", v(11), v(1), v(1))
	e.line("VMULPS %s, %s, %s", v(1), v(0), v(1))
	e.line("VMOVUPS %s, 0(DI)", v(1))
	e.line("ADDQ $%d, SI", 4*lanes)
	e.line("ADDQ $%d, DI", 4*lanes)
	e.line("DECQ CX")
	e.line("JNE hsg32loop")
	e.raw("\n")
	e.label("hsg32done")
	e.vzeroRet()
	e.raw("\n")
}

// move32 is the register-to-register (or load) move for a constant:
// VMOVAPS when the constants stay in registers (AVX-512), else VMOVUPS
// from the table.
func (e *emitter) move32() string {
	if e.t.wide {
		return "VMOVAPS"
	}
	return "VMOVUPS"
}
