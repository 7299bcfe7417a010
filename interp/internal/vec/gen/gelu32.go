package main

import (
	"fmt"
	"math"
	"strings"
)

// gelu32Consts extend the act32 table for gelu32 (vec's gelu32.go holds
// the same fits; the reference there is the oracle).
var gelu32Consts = []namedBits{
	{"gabs", 0x7fffffff},
	{"ghalf", math.Float32bits(0.5)},
	{"gbig", math.Float32bits(15)},
	{"gnlog2e", math.Float32bits(-1.44269504088896341)},
	{"gcentre", math.Float32bits(0.4588235318660736)},
	{"gc0", math.Float32bits(0.322665810585022)},
	{"gc0lo", math.Float32bits(9.42348243881952e-09)},
	{"gninf", math.Float32bits(float32(math.Inf(-1)))},
	{"gnan", 0x7fc00000},
}

var gelu32Small = []float32{-8.959013030107599e-06, 0.0001152992554125376, -0.0011873106705024838,
	0.00997355580329895, -0.06649038195610046, 0.3989422917366028}

var gelu32Tail = []float32{0.08386300504207611, -0.12246514856815338, -0.001149326446466148, 0.11796383559703827,
	-0.08882703632116318, -0.04256133362650871, 0.12084611505270004, -0.027355216443538666, -0.14434964954853058,
	0.07562204450368881, 0.32591691613197327}

func init() {
	for j, c := range gelu32Small {
		gelu32Consts = append(gelu32Consts, namedBits{fmt.Sprintf("gs%d", j), math.Float32bits(c)})
	}
	for j, c := range gelu32Tail {
		gelu32Consts = append(gelu32Consts, namedBits{fmt.Sprintf("gt%d", j), math.Float32bits(c)})
	}
	act32Consts = append(act32Consts, gelu32Consts...)
}

// geluLanes32 emits geluLanes32(n, dst, src): vec's gelu32 lane by lane, both the
// |x| < 0.5 form and the tail computed in every lane and the first kept
// where |x| < 0.5 fails to hold (or x is NaN), x = -Inf giving NaN. With
// AVX-512 two vectors go through an iteration, their instructions
// interleaved one for one (registers 0–15 and masks K1, K2 for the first,
// 16–31 and K3, K4 for the second): one vector's chain of dependent steps
// (the two polynomials, the division) is longer than the out-of-order
// window covers, and a second, independent chain beside it keeps the
// vector units busy (1.4× as fast over a vit_b_16 activation).
func (e *emitter) geluLanes32() {
	lanes := 2 * e.t.lanes
	e.header("geluLanes32", "(n int, dst, src *float32)", "$0-24",
		"Registers: 0 x, 15 the |x| < 0.5 result, 1–12 the tail (see gen/gelu32.go).")
	e.args3()
	if !e.t.wide {
		e.line("SHRQ $%d, CX", log2(lanes))
		e.line("JEQ glanes32done")
		e.raw("\n")
		e.label("glanes32loop")
		e.geluBody(0, "Y14", "Y13", 0)
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
	first := e.captured(func() { e.geluBody(0, "K1", "K2", 0) })
	second := e.captured(func() { e.geluBody(16, "K3", "K4", 4*lanes) })
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
	e.geluBody(0, "K1", "K2", 0)
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
// stored to at(DI), vector registers off..off+15 and masks (or, for AVX2,
// registers) small and special.
func (e *emitter) geluBody(off int, small, special string, at int) {
	v := func(r int) string { return e.v(vreg(r + off)) }
	c := e.a32
	// fma forms: dst = a·b + m (213 on dst = a), dst = a·m + dst (231).
	e.line("VMOVUPS %d(SI), %s", at, v(0))
	// |x| < 0.5: x·(0.5 + x·S(x²)) as fma(x, x·S, 0.5·x).
	e.line("VMULPS %s, %s, %s", v(0), v(0), v(2))
	e.line("VMOVUPS %s, %s", c("gs0"), v(15))
	for j := 1; j < len(gelu32Small); j++ {
		e.line("VFMADD213PS %s, %s, %s", c(fmt.Sprintf("gs%d", j)), v(2), v(15))
	}
	e.line("VMULPS %s, %s, %s", v(15), v(0), v(15))
	e.line("VMULPS %s, %s, %s", c("ghalf"), v(0), v(3))
	e.line("VFMADD213PS %s, %s, %s", v(3), v(0), v(15))
	// a = |x|; the small lanes: not (a ≥ 0.5), NaN among them.
	e.line("%s %s, %s, %s", e.bitwise("and"), c("gabs"), v(0), v(1))
	e.line("VCMPPS $9, %s, %s, %s", c("ghalf"), v(1), small)
	// Tail: a clamped at 15, xc = a with x's sign.
	e.line("VMINPS %s, %s, %s", c("gbig"), v(1), v(1))
	e.line("%s %s, %s, %s", e.bitwise("and"), c("sign"), v(0), v(2))
	e.line("%s %s, %s, %s", e.bitwise("or"), v(1), v(2), v(2))
	e.line("VMULPS %s, %s, %s", c("ghalf"), v(1), v(3)) // ha
	e.line("VMULPS %s, %s, %s", v(1), v(3), v(4))       // hi
	e.line("VMOVAPS %s, %s", v(4), v(5))
	e.line("VFMSUB231PS %s, %s, %s", v(1), v(3), v(5)) // lo = ha·a - hi
	e.line("VMULPS %s, %s, %s", c("gnlog2e"), v(4), v(6))
	e.line("VCVTPS2DQ %s, %s", v(6), v(7))
	e.line("VCVTDQ2PS %s, %s", v(7), v(6))
	e.line("VMOVAPS %s, %s", v(4), v(8))
	e.line("VFNMSUB231PS %s, %s, %s", c("ln2hi"), v(6), v(8)) // r = -k·ln2hi - hi
	e.line("VFNMADD231PS %s, %s, %s", c("ln2lo"), v(6), v(8))
	e.line("VSUBPS %s, %s, %s", v(5), v(8), v(8))
	e.line("VMULPS %s, %s, %s", v(8), v(8), v(9))
	e.line("VMOVUPS %s, %s", c("p0"), v(10))
	for _, p := range []string{"p1", "p2", "p3", "p4", "p5"} {
		e.line("VFMADD213PS %s, %s, %s", c(p), v(8), v(10))
	}
	e.line("VFMADD213PS %s, %s, %s", v(8), v(9), v(10)) // em1
	// t = tt + tl = 1/(1 + ha).
	e.line("VADDPS %s, %s, %s", c("one"), v(3), v(4)) // d
	e.line("VSUBPS %s, %s, %s", c("one"), v(4), v(5)) // d - 1
	e.line("VSUBPS %s, %s, %s", v(5), v(3), v(5))     // dlo
	e.line("VMOVUPS %s, %s", c("one"), v(6))
	e.line("VDIVPS %s, %s, %s", v(4), v(6), v(6)) // tt
	e.line("VMOVUPS %s, %s", c("one"), v(8))
	e.line("VFNMADD231PS %s, %s, %s", v(4), v(6), v(8))
	e.line("VFNMADD231PS %s, %s, %s", v(5), v(6), v(8)) // e1
	e.line("VMULPS %s, %s, %s", v(8), v(6), v(9))       // tl
	// P = ph + pl = c0 + w·R(w), w = tt - centre.
	e.line("VSUBPS %s, %s, %s", c("gcentre"), v(6), v(1))
	e.line("VMOVUPS %s, %s", c("gt0"), v(3))
	for j := 1; j < len(gelu32Tail); j++ {
		e.line("VFMADD213PS %s, %s, %s", c(fmt.Sprintf("gt%d", j)), v(1), v(3))
	}
	e.line("VMULPS %s, %s, %s", v(3), v(1), v(4)) // sh
	e.line("VMOVAPS %s, %s", v(4), v(5))
	e.line("VFMSUB231PS %s, %s, %s", v(3), v(1), v(5)) // sl
	e.line("VADDPS %s, %s, %s", c("gc0"), v(4), v(1))  // ph
	e.line("VMOVUPS %s, %s", c("gc0"), v(3))
	e.line("VSUBPS %s, %s, %s", v(1), v(3), v(3))
	e.line("VADDPS %s, %s, %s", v(4), v(3), v(3))
	e.line("VADDPS %s, %s, %s", c("gc0lo"), v(5), v(5))
	e.line("VADDPS %s, %s, %s", v(5), v(3), v(3)) // pl
	// U = t·P (4, 5), V = U·(1 + em1) (6, 3), m = xc·V (1).
	e.line("VMULPS %s, %s, %s", v(1), v(6), v(4))
	e.line("VMOVAPS %s, %s", v(4), v(5))
	e.line("VFMSUB231PS %s, %s, %s", v(1), v(6), v(5))
	e.line("VFMADD231PS %s, %s, %s", v(3), v(6), v(5))
	e.line("VFMADD231PS %s, %s, %s", v(1), v(9), v(5))
	e.line("VMULPS %s, %s, %s", v(10), v(4), v(1)) // wh
	e.line("VMOVAPS %s, %s", v(1), v(3))
	e.line("VFMSUB231PS %s, %s, %s", v(10), v(4), v(3)) // wl
	e.line("VADDPS %s, %s, %s", v(1), v(4), v(6))       // vh
	e.line("VADDPS %s, %s, %s", v(3), v(5), v(9))
	e.line("VFMADD231PS %s, %s, %s", v(10), v(5), v(9))
	e.line("VSUBPS %s, %s, %s", v(6), v(4), v(3))
	e.line("VADDPS %s, %s, %s", v(1), v(3), v(3))
	e.line("VADDPS %s, %s, %s", v(9), v(3), v(3)) // vl
	e.line("VMULPS %s, %s, %s", v(6), v(2), v(1)) // mh
	e.line("VMOVAPS %s, %s", v(1), v(4))
	e.line("VFMSUB231PS %s, %s, %s", v(6), v(2), v(4))
	e.line("VFMADD231PS %s, %s, %s", v(3), v(2), v(4))
	e.line("VADDPS %s, %s, %s", v(4), v(1), v(1))
	// ·2^k (k in 7; VSCALEFPS takes it as a float, in 5).
	if e.t.wide {
		e.line("VCVTDQ2PS %s, %s", v(7), v(5))
	}
	e.scaleByPow2(v(1), v(5), v(7), v(5), c("bias"))
	// m where x's sign bit is set, else x - m; then the small lanes, and
	// NaN for x = -Inf.
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
		e.line("VMOVAPS %s, %s, %s", v(15), small, v(1))
		e.line("VMOVUPS %s, %s, %s", c("gnan"), special, v(1))
	} else {
		e.line("VBLENDVPS %s, %s, %s, %s", small, v(15), v(1), v(1))
		e.line("VBLENDVPS %s, %s, %s, %s", special, c("gnan"), v(1), v(1))
	}
	e.line("VMOVUPS %s, %d(DI)", v(1), at)
}
