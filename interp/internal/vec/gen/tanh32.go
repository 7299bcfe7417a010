package main

import (
	"math"
)

// tanh32 in float32 lanes: vec's tanh32 (tanh32.go) lane by lane, both
// the fit below |x| = 0.625 and 1 - 2·e/(1+e), e = e^(-2|x|), computed in
// every lane, the fit kept where |x| < 0.625. Its constants are a table of
// its own (16 copies each), so that its file changes nothing else's.

const tanh32About = `// Float32-lane tanh for %s (see gen/tanh32.go): every lane is vec's
// scalar tanh32 bit for bit.

`

var tanh32Consts = append(append([]namedBits{{"sign", 0x80000000}, {"abs", 0x7fffffff}}, expfConsts...), []namedBits{
	{"negtwo", math.Float32bits(-2)},
	{"split", math.Float32bits(0.625)},
	{"t0", math.Float32bits(-5.70498872745e-3)},
	{"t1", math.Float32bits(2.06390887954e-2)},
	{"t2", math.Float32bits(-5.37397155531e-2)},
	{"t3", math.Float32bits(1.33314422036e-1)},
	{"t4", math.Float32bits(-3.33332819422e-1)},
}...)

// t32 is constant name's place in the table.
func (e *emitter) t32(name string) string {
	return (&constTable{"tanh32", tanh32Consts}).at(name)
}

// tanh32Table emits the constant table, 16 copies of each.
func (e *emitter) tanh32Table() { e.float32Table(&constTable{"tanh32", tanh32Consts}) }

// tanh32 emits tanh32(n, dst, src): n a multiple of the lanes.
func (e *emitter) tanh32() {
	lanes := 2 * e.t.lanes
	v := func(r int) string { return e.v(vreg(r)) }
	c := e.t32
	small := "Y14"
	if e.t.wide {
		small = "K1"
	}
	e.header("tanh32", "(n int, dst, src *float32)", "$0-24",
		"Registers: 0 x, 10 |x|, 9 the fit, 1–8 the exponential form (see gen/tanh32.go).")
	e.args3()
	e.line("SHRQ $%d, CX", log2(lanes))
	e.line("JEQ tanh32done")
	e.raw("\n")
	e.label("tanh32loop")
	e.line("VMOVUPS 0(SI), %s", v(0))
	e.line("%s %s, %s, %s", e.bitwise("and"), c("abs"), v(0), v(10))
	// The fit: a + a·s·P(s), s = a² (8), P (9).
	e.line("VMULPS %s, %s, %s", v(10), v(10), v(8))
	e.line("VMOVUPS %s, %s", c("t0"), v(9))
	for _, k := range []string{"t1", "t2", "t3", "t4"} {
		e.line("VFMADD213PS %s, %s, %s", c(k), v(8), v(9))
	}
	e.line("VMULPS %s, %s, %s", v(8), v(9), v(9))
	e.line("VFMADD213PS %s, %s, %s", v(10), v(10), v(9))
	// t = max(-2a, -104) (1): a NaN passes (VMAXPS returns its r/m
	// operand when one is NaN).
	e.line("VMULPS %s, %s, %s", c("negtwo"), v(10), v(1))
	e.line("VMOVUPS %s, %s", c("lo"), v(7))
	e.line("VMAXPS %s, %s, %s", v(1), v(7), v(1))
	// e = exp(t) (5), as sigmoid32 computes it.
	e.line("VMULPS %s, %s, %s", c("log2e"), v(1), v(2))
	e.line("VCVTPS2DQ %s, %s", v(2), v(3))
	e.line("VCVTDQ2PS %s, %s", v(3), v(2))
	e.line("VMOVAPS %s, %s", v(1), v(4))
	e.line("VFNMADD231PS %s, %s, %s", c("ln2hi"), v(2), v(4))
	e.line("VFNMADD231PS %s, %s, %s", c("ln2lo"), v(2), v(4))
	e.line("VMULPS %s, %s, %s", v(4), v(4), v(6))
	e.line("VMOVUPS %s, %s", c("p0"), v(5))
	for _, k := range []string{"p1", "p2", "p3", "p4", "p5"} {
		e.line("VFMADD213PS %s, %s, %s", c(k), v(4), v(5))
	}
	e.line("VFMADD213PS %s, %s, %s", v(4), v(6), v(5))
	e.line("VADDPS %s, %s, %s", c("one"), v(5), v(5))
	e.scaleByPow2(v(5), v(2), v(3), v(7), c("bias"))
	// q = e/(1+e) corrected as sigmoid32 corrects it: d (6), dlo (4),
	// inv (3), q (2), the remainder (1).
	e.line("VADDPS %s, %s, %s", c("one"), v(5), v(6))
	e.line("VMOVUPS %s, %s", c("one"), v(4))
	e.line("VSUBPS %s, %s, %s", v(6), v(4), v(4))
	e.line("VADDPS %s, %s, %s", v(5), v(4), v(4))
	e.line("VMOVAPS %s, %s", v(5), v(1))
	e.line("VMOVUPS %s, %s", c("one"), v(3))
	e.line("VDIVPS %s, %s, %s", v(6), v(3), v(3))
	e.line("VMULPS %s, %s, %s", v(3), v(1), v(2))
	e.line("VFNMADD231PS %s, %s, %s", v(6), v(2), v(1))
	e.line("VFNMADD231PS %s, %s, %s", v(4), v(2), v(1))
	e.line("VFMADD213PS %s, %s, %s", v(2), v(3), v(1))
	// 1 - 2q (1).
	e.line("VADDPS %s, %s, %s", v(1), v(1), v(1))
	e.line("VMOVUPS %s, %s", c("one"), v(4))
	e.line("VSUBPS %s, %s, %s", v(1), v(4), v(1))
	// The fit where a < 0.625 (NaN not among them), then x's sign bit.
	e.line("VCMPPS $1, %s, %s, %s", c("split"), v(10), small)
	if e.t.wide {
		e.line("VMOVAPS %s, %s, %s", v(9), small, v(1))
	} else {
		e.line("VBLENDVPS %s, %s, %s, %s", small, v(9), v(1), v(1))
	}
	e.line("%s %s, %s, %s", e.bitwise("and"), c("sign"), v(0), v(2))
	e.line("%s %s, %s, %s", e.bitwise("or"), v(2), v(1), v(1))
	e.line("VMOVUPS %s, 0(DI)", v(1))
	e.line("ADDQ $%d, SI", 4*lanes)
	e.line("ADDQ $%d, DI", 4*lanes)
	e.line("DECQ CX")
	e.line("JNE tanh32loop")
	e.raw("\n")
	e.label("tanh32done")
	e.vzeroRet()
	e.raw("\n")
}
