package main

import (
	"fmt"
	"strings"
)

// A target is one vector width the description is emitted for. Both
// compute in float64 lanes: AVX-512 has 8 in a ZMM register, opmask
// registers for lane masks and 32 registers, so the hot constants stay in
// registers; AVX2 has 4 in a YMM register, keeps masks in vector registers
// (blends instead of masked instructions) and reads every constant from a
// table of 4 copies each.
type target struct {
	name  string // the routines' suffix: AVX512 or AVX2
	lanes int    // float64 lanes a vector
	wide  bool   // AVX-512
	table string // the constant table's symbol
}

var (
	avx512 = &target{name: "AVX512", lanes: 8, wide: true, table: "c512<>"}
	avx2   = &target{name: "AVX2", lanes: 4, table: "c2<>"}
)

// vreg is a vector register number, the same in both widths (Z3 or Y3).
type vreg int

// mask is a lane mask: opmask register k for AVX-512, vector register y
// for AVX2 (all ones in a lane that is set).
type mask struct{ k, y int }

// operand is a vector register or a named constant broadcast to every lane.
type operand interface{ isOperand() }

func (vreg) isOperand()  {}
func (konst) isOperand() {}

// emitter writes one target's assembly.
type emitter struct {
	t *target
	b strings.Builder
	// resident maps the constants EXP_CONSTS keeps in AVX-512 registers.
	resident map[string]int
	// pre is the next routine's setup before its loop.
	pre func()
}

func (e *emitter) line(format string, args ...any) {
	fmt.Fprintf(&e.b, "\t"+format+"\n", args...)
}

func (e *emitter) raw(s string) { e.b.WriteString(s) }

// v is a full vector register: Zn or Yn.
func (e *emitter) v(r vreg) string {
	if e.t.wide {
		return fmt.Sprintf("Z%d", r)
	}
	return fmt.Sprintf("Y%d", r)
}

// h is the half-width register holding as many float32 (or int32) values
// as v holds float64: Yn or Xn.
func (e *emitter) h(r vreg) string {
	if e.t.wide {
		return fmt.Sprintf("Y%d", r)
	}
	return fmt.Sprintf("X%d", r)
}

// m is a mask's register.
func (e *emitter) m(k mask) string {
	if e.t.wide {
		return fmt.Sprintf("K%d", k.k)
	}
	return fmt.Sprintf("Y%d", k.y)
}

// mem is a constant's place in this target's table.
func (e *emitter) mem(c konst) string {
	return fmt.Sprintf("%s+%d(SB)", e.t.table, constOffset(c, e.t))
}

// src renders an operand in the r/m place of an instruction, returning the
// mnemonic suffix it needs (.BCST for an AVX-512 constant in memory).
func (e *emitter) src(o operand) (string, string) {
	switch o := o.(type) {
	case vreg:
		return e.v(o), ""
	case konst:
		if r, ok := e.resident[o.name]; ok && e.t.wide {
			return fmt.Sprintf("Z%d", r), ""
		}
		if e.t.wide {
			return e.mem(o), ".BCST"
		}
		return e.mem(o), ""
	}
	panic("operand")
}

// op emits dst = a ∘ b for a two-source instruction (Go operand order:
// op a, b, dst), a in the r/m place.
func (e *emitter) op(name string, a operand, b, dst vreg) {
	if vex, ok := evexLogic[name]; ok && !e.t.wide {
		name = vex
	}
	s, sfx := e.src(a)
	e.line("%s%s %s, %s, %s", name, sfx, s, e.v(b), e.v(dst))
}

// evexLogic maps AVX-512F's bitwise instructions to their AVX forms.
var evexLogic = map[string]string{"VPANDQ": "VANDPD", "VPORQ": "VORPD", "VPXORQ": "VXORPD", "VPANDNQ": "VANDNPD"}

// logic ops have other names on AVX-512F (the PD forms need AVX512DQ).
func (e *emitter) logic(and string, a operand, b, dst vreg) {
	name := map[string][2]string{
		"and": {"VPANDQ", "VANDPD"}, "or": {"VPORQ", "VORPD"}, "xor": {"VPXORQ", "VXORPD"}, "andn": {"VPANDNQ", "VANDNPD"},
	}[and]
	if e.t.wide {
		e.op(name[0], a, b, dst)
	} else {
		e.op(name[1], a, b, dst)
	}
}

// load sets dst to a constant in every lane.
func (e *emitter) load(c konst, dst vreg) {
	switch r, ok := e.resident[c.name]; {
	case e.t.wide && ok:
		e.line("VMOVAPD Z%d, %s", r, e.v(dst))
	case e.t.wide && c.integer:
		e.line("VPBROADCASTQ %s, %s", e.mem(c), e.v(dst))
	case e.t.wide:
		e.line("VBROADCASTSD %s, %s", e.mem(c), e.v(dst))
	default:
		e.line("VMOVUPD %s, %s", e.mem(c), e.v(dst))
	}
}

// mov copies a register.
func (e *emitter) mov(src, dst vreg) { e.line("VMOVAPD %s, %s", e.v(src), e.v(dst)) }

// zero clears a register.
func (e *emitter) zero(r vreg) { e.logic("xor", r, r, r) }

// cmp sets m where b (pred) a holds: VCMPPD's predicate imm.
func (e *emitter) cmp(pred int, a operand, b vreg, m mask) {
	s, sfx := e.src(a)
	e.line("VCMPPD%s $%#x, %s, %s, %s", sfx, pred, s, e.v(b), e.m(m))
}

// gtq sets m where the int64 lanes of b exceed those of a. b in the
// register place: an AVX2 constant goes through m's register first.
func (e *emitter) gtq(a operand, b operand, m mask) {
	as, asfx := e.src(a)
	if bc, ok := b.(konst); ok && !e.t.wide {
		e.load(bc, vreg(m.y))
		e.line("VPCMPGTQ%s %s, Y%d, Y%d", asfx, as, m.y, m.y)
		return
	}
	bs, _ := e.src(b)
	e.line("VPCMPGTQ%s %s, %s, %s", asfx, as, bs, e.m(m))
}

// blend sets dst = src in the lanes of m.
func (e *emitter) blend(m mask, src operand, dst vreg) {
	if !e.t.wide {
		s, _ := e.src(src)
		e.line("VBLENDVPD %s, %s, %s, %s", e.m(m), s, e.v(dst), e.v(dst))
		return
	}
	if c, ok := src.(konst); ok {
		if _, res := e.resident[c.name]; !res {
			e.line("VBROADCASTSD %s, %s, %s", e.mem(c), e.m(m), e.v(dst))
			return
		}
	}
	s, _ := e.src(src)
	e.line("VMOVAPD %s, %s, %s", s, e.m(m), e.v(dst))
}

// opMasked sets dst = a ∘ b in the lanes of m, leaving the others; AVX2
// computes into tmp and blends.
func (e *emitter) opMasked(name string, m mask, a operand, b, dst, tmp vreg) {
	if e.t.wide {
		s, sfx := e.src(a)
		e.line("%s%s %s, %s, %s, %s", name, sfx, s, e.v(b), e.m(m), e.v(dst))
		return
	}
	e.op(name, a, b, tmp)
	e.blend(m, tmp, dst)
}

// zeroWhere clears the lanes of dst that m sets.
func (e *emitter) zeroWhere(m mask, dst vreg) {
	if e.t.wide {
		e.line("VPXORQ %s, %s, %s, %s", e.v(dst), e.v(dst), e.m(m), e.v(dst))
		return
	}
	e.line("VPANDN %s, %s, %s", e.v(dst), e.m(m), e.v(dst))
}

// orMask sets dst = a | b, andnMask dst = b &^ a (lanes of b not in a).
func (e *emitter) orMask(a, b, dst mask) {
	if e.t.wide {
		e.line("KORW %s, %s, %s", e.m(a), e.m(b), e.m(dst))
		return
	}
	e.line("VORPD %s, %s, %s", e.m(a), e.m(b), e.m(dst))
}

func (e *emitter) andnMask(a, b, dst mask) {
	if e.t.wide {
		e.line("KANDNW %s, %s, %s", e.m(b), e.m(a), e.m(dst))
		return
	}
	e.line("VANDNPD %s, %s, %s", e.m(b), e.m(a), e.m(dst))
}

// jumpIfNone jumps to label when m sets no lane.
func (e *emitter) jumpIfNone(m mask, label string) {
	if e.t.wide {
		e.line("KORTESTW %s, %s", e.m(m), e.m(m))
	} else {
		e.line("VMOVMSKPD %s, AX", e.m(m))
		e.line("TESTL AX, AX")
	}
	e.line("JEQ %s", label)
}

func (e *emitter) label(l string) { e.raw(l + ":\n") }

// The conversions between float64 lanes and half-width int32 or float32.
func (e *emitter) cvtpd2dq(src, dst vreg) {
	if e.t.wide {
		e.line("VCVTPD2DQ %s, %s", e.v(src), e.h(dst))
	} else {
		e.line("VCVTPD2DQY %s, %s", e.v(src), e.h(dst))
	}
}

func (e *emitter) cvtdq2pd(src, dst vreg) { e.line("VCVTDQ2PD %s, %s", e.h(src), e.v(dst)) }
func (e *emitter) pmovsxdq(src, dst vreg) { e.line("VPMOVSXDQ %s, %s", e.h(src), e.v(dst)) }

// cvtps2pd widens the half register (or memory) src.
func (e *emitter) cvtps2pd(src string, dst vreg) { e.line("VCVTPS2PD %s, %s", src, e.v(dst)) }

// cvtpd2ps narrows into the half register dst.
func (e *emitter) cvtpd2ps(src, dst vreg) {
	if e.t.wide {
		e.line("VCVTPD2PS %s, %s", e.v(src), e.h(dst))
	} else {
		e.line("VCVTPD2PSY %s, %s", e.v(src), e.h(dst))
	}
}

// hsum adds the lanes of v to the scalar acc (an X register) in order,
// lane 0 first, as a scalar loop adds them; it uses X tmp.
func (e *emitter) hsum(v vreg, acc, tmp int) {
	for blk := 0; blk < e.t.lanes/2; blk++ {
		src := fmt.Sprintf("X%d", v)
		if blk > 0 {
			src = fmt.Sprintf("X%d", tmp)
			if e.t.wide {
				e.line("VEXTRACTF32X4 $%d, %s, X%d", blk, e.v(v), tmp)
			} else {
				e.line("VEXTRACTF128 $%d, %s, X%d", blk, e.v(v), tmp)
			}
		}
		e.line("VADDSD %s, X%d, X%d", src, acc, acc)
		e.line("VPERMILPD $1, %s, X%d", src, tmp)
		e.line("VADDSD X%d, X%d, X%d", tmp, acc, acc)
	}
}

// vzeroRet ends a routine.
func (e *emitter) vzeroRet() {
	e.line("VZEROUPPER")
	e.line("RET")
}
