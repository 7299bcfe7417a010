package main

// The exponential family, described once: each function below emits its
// routine for the emitter's target, the same operations in the same order
// on 8 (AVX-512) or 4 (AVX2) float64 lanes, so every lane equals the
// scalar loop bit for bit at either width.

// expResident are the constants EXP keeps in AVX-512 registers.
var expResident = []struct {
	name string
	reg  int
}{
	{"log2e", 16}, {"ln2hi", 17}, {"ln2lo", 18}, {"sixteenth", 19}, {"t8", 20}, {"t7", 21},
	{"t6", 22}, {"t5", 23}, {"t4", 24}, {"t3", 25}, {"half", 26}, {"one", 27}, {"two", 28},
	{"expmax", 29}, {"inf", 30}, {"tiny", 31}, {"bias", 8}, {"bias1", 9}, {"i1", 10}, {"im52", 11}, {"i2046", 12},
}

// expConsts loads the resident constants (AVX-512; AVX2 reads them from
// its table).
func (e *emitter) expConsts() {
	if !e.t.wide {
		return
	}
	e.resident = map[string]int{}
	for _, c := range expResident {
		kc := k(c.name)
		if kc.integer {
			e.line("VPBROADCASTQ %s, Z%d", e.mem(kc), c.reg)
		} else {
			e.line("VBROADCASTSD %s, Z%d", e.mem(kc), c.reg)
		}
		e.resident[c.name] = c.reg
	}
}

// opK sets dst = b ∘ a with the constant b in the register place: a
// resident AVX-512 register, else loaded into tmp.
func (e *emitter) opK(name string, a operand, b konst, dst, tmp vreg) {
	if r, ok := e.resident[b.name]; ok && e.t.wide {
		s, sfx := e.src(a)
		e.line("%s%s %s, Z%d, %s", name, sfx, s, r, e.v(dst))
		return
	}
	e.load(b, tmp)
	e.op(name, a, tmp, dst)
}

// opKMasked is opK in the lanes of m only.
func (e *emitter) opKMasked(name string, m mask, a operand, b konst, dst, tmp vreg) {
	if r, ok := e.resident[b.name]; ok && e.t.wide {
		s, sfx := e.src(a)
		e.line("%s%s %s, Z%d, %s, %s", name, sfx, s, r, e.m(m), e.v(dst))
		return
	}
	e.load(b, tmp)
	e.op(name, a, tmp, tmp)
	e.blend(m, tmp, dst)
}

// scaleMasked multiplies the lanes of m of dst by the constant c. AVX2
// multiplies every lane by c or 1 (blended first), not every lane by c:
// a product that underflows into the subnormals costs a microcode assist
// per instruction, which the lanes outside m must not pay.
func (e *emitter) scaleMasked(m mask, c konst, dst, tmp vreg) {
	if e.t.wide {
		e.opMasked("VMULPD", m, c, dst, dst, tmp)
		return
	}
	e.load(k("one"), tmp)
	e.blend(m, c, tmp)
	e.op("VMULPD", tmp, dst, dst)
}

// exp sets v3 to exp(v0) lane by lane with math.Exp's operations: k =
// round(x·log2 e), r = (x − k·ln2 upper − k·ln2 lower)/16, a Taylor
// polynomial of e^r − 1 squared up four times, then scaled by 2^k, twice
// for results below the normal range. Lanes: k+1023 in [1, 2046] scale by
// 2^k; in [-52, 0] by 2^(k+1022) then 2^-1022 (rounding once into the
// subnormals, as math.Exp does); below -52 give 0; above 2046, or x above
// 709.78, +Inf; NaN gives x. It uses v1, v2, v5, v7, K1–K5 (AVX-512) or
// Y7–Y10 (AVX2).
func (e *emitter) exp() {
	k1, k2, k3 := mask{1, 8}, mask{2, 9}, mask{3, 10}
	k4, k5 := mask{4, 7}, mask{5, 7}
	e.op("VMULPD", k("log2e"), 0, 1)
	e.cvtpd2dq(1, 2)
	e.cvtdq2pd(2, 1)
	e.mov(0, 3)
	e.op("VFNMADD231PD", k("ln2hi"), 1, 3)
	e.op("VFNMADD231PD", k("ln2lo"), 1, 3)
	e.op("VMULPD", k("sixteenth"), 3, 3)
	e.load(k("t8"), 7)
	for _, c := range []string{"t7", "t6", "t5", "t4", "t3", "half", "one"} {
		e.op("VFMADD213PD", k(c), 3, 7)
	}
	e.op("VMULPD", vreg(7), 3, 3)
	for range 3 {
		e.op("VADDPD", k("two"), 3, 7)
		e.op("VMULPD", vreg(7), 3, 3)
	}
	e.op("VADDPD", k("two"), 3, 7)
	e.op("VFMADD213PD", k("one"), 7, 3)
	e.pmovsxdq(2, 5)
	e.op("VPADDQ", k("bias"), 5, 5)
	e.gtq(vreg(5), k("i1"), k1)
	e.gtq(vreg(5), k("im52"), k2)
	e.gtq(k("i2046"), vreg(5), k3)
	e.opMasked("VPADDQ", k1, k("bias1"), 5, 5, 7)
	e.line("VPSLLQ $52, %s, %s", e.v(5), e.v(5))
	e.op("VMULPD", vreg(5), 3, 3)
	e.scaleMasked(k1, k("tiny"), 3, 7)
	e.zeroWhere(k2, 3)
	e.cmp(0x1e, k("expmax"), 0, k4)
	e.orMask(k4, k3, k3)
	e.blend(k3, k("inf"), 3)
	e.cmp(3, vreg(0), 0, k5)
	e.blend(k5, vreg(0), 3)
}

// loop emits a routine's loop over n elements of elem bytes, lanes at a
// time: CX counts steps, SI and DI walk src and dst (either may be unused).
func (e *emitter) loop(label string, elem int, body func(), walk ...string) {
	e.line("SHRQ $%d, CX", log2(e.t.lanes))
	e.line("JEQ %sdone", label)
	e.raw("\n")
	e.label(label + "loop")
	body()
	for _, r := range walk {
		e.line("ADDQ $%d, %s", elem*e.t.lanes, r)
	}
	e.line("DECQ CX")
	e.line("JNE %sloop", label)
	e.raw("\n")
	e.label(label + "done")
}

func log2(n int) int {
	l := 0
	for n > 1 {
		n, l = n/2, l+1
	}
	return l
}

// header starts a routine: its comment, TEXT line and the arguments
// n, dst, src into CX, DI, SI.
func (e *emitter) header(name, sig, frame string, doc ...string) {
	e.resident = nil
	e.raw("// func " + name + e.t.name + sig + "\n")
	for _, d := range doc {
		e.raw("// " + d + "\n")
	}
	e.raw("TEXT ·" + name + e.t.name + "(SB), NOSPLIT, " + frame + "\n")
}

// prelude runs the routine's setup before its loop, once.
func (e *emitter) prelude() {
	if e.pre != nil {
		e.pre()
		e.pre = nil
	}
}

func (e *emitter) args3() {
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ dst+8(FP), DI")
	e.line("MOVQ src+16(FP), SI")
}

// unary32 emits a float32 routine dst[i] = f(src[i]) computed in float64
// lanes by body (input v in, output v out).
func (e *emitter) unary32(name, label string, in, out vreg, body func(), doc ...string) {
	e.header(name, "(n int, dst, src *float32)", "$0-24", doc...)
	e.args3()
	e.expConsts()
	e.prelude()
	e.loop(label, 4, func() {
		e.cvtps2pd("0(SI)", in)
		body()
		e.cvtpd2ps(out, out)
		e.line("VMOVUPS %s, 0(DI)", e.h(out))
	}, "SI", "DI")
	e.vzeroRet()
	e.raw("\n")
}

// unary64 is unary32 for float64 data.
func (e *emitter) unary64(name, label string, in, out vreg, body func(), doc ...string) {
	e.header(name, "(n int, dst, src *float64)", "$0-24", doc...)
	e.args3()
	e.expConsts()
	e.prelude()
	e.loop(label, 8, func() {
		e.line("VMOVUPD 0(SI), %s", e.v(in))
		body()
		e.line("VMOVUPD %s, 0(DI)", e.v(out))
	}, "SI", "DI")
	e.vzeroRet()
	e.raw("\n")
}

func (e *emitter) expF64() {
	e.unary64("expF64", "exp", 0, 3, e.exp,
		"dst[i] = math.Exp(src[i]) for i in [0, n), n a multiple of 8. dst may be src.")
}

// sigmoidBody: 1 / (1 + exp(-x)), x in v0, the result in v3.
func (e *emitter) sigmoidBody() {
	e.logic("xor", k("sign"), 0, 0)
	e.exp()
	e.op("VADDPD", k("one"), 3, 3)
	e.opK("VDIVPD", vreg(3), k("one"), 3, 4)
}

func (e *emitter) sigmoid() {
	e.unary32("sigmoid", "sg", 0, 3, e.sigmoidBody,
		"dst[i] = float32(1 / (1 + math.Exp(-float64(src[i])))) for i in [0, n),",
		"n a multiple of 8. dst may be src.")
}

func (e *emitter) sigmoid64() {
	e.unary64("sigmoid64", "sg64", 0, 3, e.sigmoidBody,
		"dst[i] = 1 / (1 + math.Exp(-src[i])) for i in [0, n), n a multiple of 8.",
		"dst may be src.")
}

// gelu32 with its operations in its order: z = |x|/√2, t = 1/(1 + z/2),
// p by Horner from the highest coefficient, r = t·exp(-z·z + p), 2 - r
// where x > 0, the result (x/2)·r.
func (e *emitter) gelu32() {
	pos := mask{1, 11}
	e.unary32("gelu32", "ge", 4, 4, func() {
		e.logic("and", k("abs"), 4, 6)
		e.op("VMULPD", k("rsqrt2"), 6, 6)
		e.load(k("half"), 1)
		e.op("VFMADD213PD", k("one"), 6, 1)
		e.opK("VDIVPD", vreg(1), k("one"), 14, 14)
		e.load(k("g9"), 0)
		for _, c := range []string{"g8", "g7", "g6", "g5", "g4", "g3", "g2", "g1", "g0"} {
			e.op("VFMADD213PD", k(c), 14, 0)
		}
		e.op("VFNMADD231PD", vreg(6), 6, 0)
		e.exp()
		e.op("VMULPD", vreg(14), 3, 3)
		e.zero(13)
		e.cmp(0x1e, vreg(13), 4, pos)
		e.opKMasked("VSUBPD", pos, vreg(3), k("two"), 3, 12)
		e.op("VMULPD", k("half"), 4, 4)
		e.op("VMULPD", vreg(4), 3, 4)
	}, "dst[i] = gelu32(src[i]) for i in [0, n), n a multiple of 8, with gelu32's",
		"operations in its order. dst may be src.")
}

// geluTanh: x / (1 + exp(-2·u)), u = scale·(x + 0.044715·x·x·x).
func (e *emitter) geluTanh() {
	e.header("geluTanh", "(n int, dst, src *float32, scale float64)", "$0-32",
		"dst[i] = float32(geluTanh(float64(src[i]))) for i in [0, n), n a",
		"multiple of 8, scale being √(2/π) as geluTanh has it. dst may be src.")
	e.args3()
	e.expConsts()
	e.line("VBROADCASTSD scale+24(FP), %s", e.v(14))
	e.loop("gt", 4, func() {
		e.cvtps2pd("0(SI)", 4)
		e.load(k("cubic"), 1)
		for range 3 {
			e.op("VMULPD", vreg(4), 1, 1)
		}
		e.op("VADDPD", vreg(1), 4, 1)
		e.op("VMULPD", vreg(14), 1, 1)
		e.op("VMULPD", k("minus2"), 1, 0)
		e.exp()
		e.op("VADDPD", k("one"), 3, 3)
		e.op("VDIVPD", vreg(3), 4, 3)
		e.cvtpd2ps(3, 3)
		e.line("VMOVUPS %s, 0(DI)", e.h(3))
	}, "SI", "DI")
	e.vzeroRet()
	e.raw("\n")
}

// maxRow: the maximum of n float32 values and whether any is NaN.
func (e *emitter) maxRow() {
	step, shift := 64, 4
	if !e.t.wide {
		step, shift = 32, 3
	}
	e.header("maxRow", "(n int, src *float32) (m float32, nan bool)", "$0-21",
		"The maximum of src[0:n], n a multiple of 16 and above 0, and whether",
		"any of them is NaN (then m is meaningless). A zero maximum may come out",
		"with either sign.")
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ src+8(FP), SI")
	e.line("SHRQ $%d, CX", shift)
	e.line("VMOVUPS 0(SI), %s", e.v(1))
	if e.t.wide {
		e.line("KXORW K1, K1, K1")
	} else {
		e.line("VXORPS Y3, Y3, Y3")
	}
	e.raw("\n")
	e.label("maxloop")
	e.line("VMOVUPS 0(SI), %s", e.v(2))
	e.line("VMAXPS %s, %s, %s", e.v(2), e.v(1), e.v(1))
	if e.t.wide {
		e.line("VCMPPS $3, Z2, Z2, K2")
		e.line("KORW K2, K1, K1")
	} else {
		e.line("VCMPPS $3, Y2, Y2, Y4")
		e.line("VORPS Y4, Y3, Y3")
	}
	e.line("ADDQ $%d, SI", step)
	e.line("DECQ CX")
	e.line("JNE maxloop")
	e.raw("\n")
	if e.t.wide {
		e.line("VEXTRACTF64X4 $1, Z1, Y2")
		e.line("VMAXPS Y2, Y1, Y1")
	}
	e.line("VEXTRACTF128 $1, Y1, X2")
	e.line("VMAXPS X2, X1, X1")
	e.line("VPERMILPS $0x4e, X1, X2")
	e.line("VMAXPS X2, X1, X1")
	e.line("VPERMILPS $0xb1, X1, X2")
	e.line("VMAXPS X2, X1, X1")
	e.line("VMOVSS X1, m+16(FP)")
	if e.t.wide {
		e.line("KORTESTW K1, K1")
	} else {
		e.line("VMOVMSKPS Y3, AX")
		e.line("TESTL AX, AX")
	}
	e.line("SETNE nan+20(FP)")
	e.vzeroRet()
	e.raw("\n")
}

// scaleRow: dst[i] = float32(float64(dst[i]) * s).
func (e *emitter) scaleRow() {
	e.header("scaleRow", "(n int, dst *float32, s float64)", "$0-24",
		"dst[i] = float32(float64(dst[i]) * s) for i in [0, n), n a multiple of 8.")
	e.line("MOVQ n+0(FP), CX")
	e.line("MOVQ dst+8(FP), DI")
	e.line("VBROADCASTSD s+16(FP), %s", e.v(1))
	e.loop("sc", 4, func() {
		e.cvtps2pd("0(DI)", 0)
		e.op("VMULPD", vreg(1), 0, 0)
		e.cvtpd2ps(0, 0)
		e.line("VMOVUPS %s, 0(DI)", e.h(0))
	}, "DI")
	e.vzeroRet()
	e.raw("\n")
}
