package main

import (
	"fmt"
	"math"
	"strings"
)

// gelu32Consts extend the act32 table for gelu32 (vec's gelu32.go holds
// the same fit; the reference there is the oracle).
var gelu32Consts = []namedBits{
	{"gabs", 0x7fffffff},
	{"ghalf", math.Float32bits(0.5)},
	{"gbig", math.Float32bits(15)},
	{"gnlog2e", math.Float32bits(-1.44269504088896341)},
	{"gcentre", math.Float32bits(0.5588235259056091)},
	{"gninf", math.Float32bits(float32(math.Inf(-1)))},
	{"gnan", 0x7fc00000},
}

var gelu32Tail = []float32{0.06811210513114929, -0.03258128836750984, -0.06668159365653992, 0.07923905551433563,
	-0.008075378835201263, -0.07450178265571594, 0.0830310806632042, 0.024401003494858742, -0.14430537819862366,
	0.0318046435713768, 0.3366587460041046, 0.35586780309677124}

func init() {
	for j, c := range gelu32Tail {
		gelu32Consts = append(gelu32Consts, namedBits{fmt.Sprintf("gt%d", j), math.Float32bits(c)})
	}
	act32Consts = append(act32Consts, gelu32Consts...)
}

// geluLanes32 emits geluLanes32(n, dst, src): vec's gelu32 lane by lane,
// x = -Inf giving NaN. With AVX-512 two vectors go through an iteration,
// their instructions interleaved one for one (registers 0–14 and mask K1
// for the first, 16–30 and K2 for the second): one vector's chain of dependent steps
// (the two polynomials, the division) is longer than the out-of-order
// window covers, and a second, independent chain beside it keeps the
// vector units busy (1.4× as fast over a vit_b_16 activation).
func (e *emitter) geluLanes32() {
	lanes := 2 * e.t.lanes
	e.header("geluLanes32", "(n int, dst, src *float32)", "$0-24",
		"Registers: 0 x, 1–14 the steps (see gen/gelu32.go).")
	e.args3()
	if !e.t.wide {
		e.line("SHRQ $%d, CX", log2(lanes))
		e.line("JEQ glanes32done")
		e.raw("\n")
		e.label("glanes32loop")
		e.geluBody(0, "Y15", 0)
		e.line("ADDQ $%d, SI", 4*lanes)
		e.line("ADDQ $%d, DI", 4*lanes)
		e.line("DECQ CX")
		e.line("JNE glanes32loop")
		e.raw("\n")
		e.label("glanes32done")
		e.vzeroRet()
		e.raw("\n")
		return
	}
	e.line("MOVQ CX, BX")
	e.line("SHRQ $%d, CX", log2(2*lanes))
	e.line("JEQ glanes32one")
	e.raw("\n")
	e.label("glanes32pair")
	first := e.captured(func() { e.geluBody(0, "K1", 0) })
	second := e.captured(func() { e.geluBody(16, "K2", 4*lanes) })
	for i := range first {
		e.raw(first[i])
		e.raw(second[i])
	}
	e.line("ADDQ $%d, SI", 8*lanes)
	e.line("ADDQ $%d, DI", 8*lanes)
	e.line("DECQ CX")
	e.line("JNE glanes32pair")
	e.raw("\n")
	e.label("glanes32one")
	e.line("TESTQ $%d, BX", lanes)
	e.line("JEQ glanes32done")
	e.geluBody(0, "K1", 0)
	e.raw("\n")
	e.label("glanes32done")
	e.vzeroRet()
	e.raw("\n")
}

// captured returns the lines emit writes, one string a line, instead of
// writing them out.
func (e *emitter) captured(emit func()) []string {
	saved := e.b
	e.b = strings.Builder{}
	emit()
	out := strings.SplitAfter(e.b.String(), "\n")
	e.b = saved
	return out[:len(out)-1]
}

// geluBody emits one vector's gelu32: x loaded from at(SI), the result
// stored to at(DI), vector registers off..off+14 and the mask (or, for
// AVX2, the register) special.
func (e *emitter) geluBody(off int, special string, at int) {
	v := func(r int) string { return e.v(vreg(r + off)) }
	c := e.a32
	// fma forms: dst = a·b + m (213 on dst = a), dst = a·m + dst (231).
	e.line("VMOVUPS %d(SI), %s", at, v(0))
	// a = min(|x|, 15), a NaN kept (VMINPS returns its r/m operand, here
	// a, when one is NaN).
	e.line("%s %s, %s, %s", e.bitwise("and"), c("gabs"), v(0), v(1))
	e.line("VMOVUPS %s, %s", c("gbig"), v(14))
	e.line("VMINPS %s, %s, %s", v(1), v(14), v(1))
	e.line("VMULPS %s, %s, %s", c("ghalf"), v(1), v(2)) // ha
	e.line("VMULPS %s, %s, %s", v(1), v(2), v(3))       // hi
	e.line("VMOVAPS %s, %s", v(3), v(4))
	e.line("VFMSUB231PS %s, %s, %s", v(1), v(2), v(4)) // lo = ha·a - hi
	e.line("VMULPS %s, %s, %s", c("gnlog2e"), v(3), v(5))
	e.line("VCVTPS2DQ %s, %s", v(5), v(7))
	e.line("VCVTDQ2PS %s, %s", v(7), v(6)) // k
	e.line("VMOVAPS %s, %s", v(3), v(8))
	e.line("VFNMSUB231PS %s, %s, %s", c("ln2hi"), v(6), v(8)) // r = -k·ln2hi - hi
	e.line("VFNMADD231PS %s, %s, %s", c("ln2lo"), v(6), v(8))
	e.line("VSUBPS %s, %s, %s", v(4), v(8), v(8))
	e.line("VMULPS %s, %s, %s", v(8), v(8), v(9))
	e.line("VMOVUPS %s, %s", c("p0"), v(10))
	for _, p := range []string{"p1", "p2", "p3", "p4", "p5"} {
		e.line("VFMADD213PS %s, %s, %s", c(p), v(8), v(10))
	}
	e.line("VFMADD213PS %s, %s, %s", v(8), v(9), v(10)) // em1
	// t = 1/(1 + ha), w = t - centre, P(w).
	e.line("VADDPS %s, %s, %s", c("one"), v(2), v(11))
	e.line("VMOVUPS %s, %s", c("one"), v(12))
	e.line("VDIVPS %s, %s, %s", v(11), v(12), v(12)) // t
	e.line("VSUBPS %s, %s, %s", c("gcentre"), v(12), v(13))
	e.line("VMOVUPS %s, %s", c("gt0"), v(3))
	for j := 1; j < len(gelu32Tail); j++ {
		e.line("VFMADD213PS %s, %s, %s", c(fmt.Sprintf("gt%d", j)), v(13), v(3))
	}
	// u = t·P, v = u·em1 + u, m = xc·v, xc = a with x's sign.
	e.line("VMULPS %s, %s, %s", v(12), v(3), v(3))
	e.line("VFMADD213PS %s, %s, %s", v(3), v(10), v(3))
	if e.t.wide {
		// (a & abs) | (x & ^abs) in one bitwise select.
		e.line("VPTERNLOGD $0xe4, %s, %s, %s", c("gabs"), v(0), v(1))
	} else {
		e.line("%s %s, %s, %s", e.bitwise("and"), c("sign"), v(0), v(2))
		e.line("%s %s, %s, %s", e.bitwise("or"), v(2), v(1), v(1))
	}
	e.line("VMULPS %s, %s, %s", v(3), v(1), v(1))
	// ·2^k (k in 6 as a float, 7 as an integer).
	e.scaleByPow2(v(1), v(6), v(7), v(5), c("bias"))
	// m where x's sign bit is set, else x - m; NaN for x = -Inf.
	e.line("VSUBPS %s, %s, %s", v(1), v(0), v(4))
	e.line("VPSRAD $31, %s, %s", v(0), v(5))
	if e.t.wide {
		// One bitwise select: (5 & m) | (^5 & (x - m)).
		e.line("VPTERNLOGD $0xe2, %s, %s, %s", v(4), v(5), v(1))
	} else {
		e.line("%s %s, %s, %s", e.bitwise("and"), v(5), v(1), v(1))
		e.line("%s %s, %s, %s", e.bitwise("andn"), v(4), v(5), v(5))
		e.line("%s %s, %s, %s", e.bitwise("or"), v(5), v(1), v(1))
	}
	e.line("VCMPPS $0, %s, %s, %s", c("gninf"), v(0), special)
	if e.t.wide {
		e.line("VMOVUPS %s, %s, %s", c("gnan"), special, v(1))
	} else {
		e.line("VBLENDVPS %s, %s, %s, %s", special, c("gnan"), v(1), v(1))
	}
	e.line("VMOVUPS %s, %d(DI)", v(1), at)
}
