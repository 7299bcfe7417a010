package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// fuseGates fuses, at plan time, an activation whose output only
// multiplies its own input — SiLU exported as x·Sigmoid(x), HardSwish as
// x·HardSigmoid(x) — into one step that reads x once and writes the
// product, instead of writing the gate to memory and reading both back.
// The products are the Mul's own (float32 x times the float32 gate), bit
// for bit.
func (p *Program) fuseGates(keep []bool) {
	if !fuseEpilogues {
		return
	}
	uses, consumer := p.readers()
	dead := make([]bool, len(p.steps))
	for i, s := range p.steps {
		var act unaryOp
		switch o := s.node.Op.(type) {
		case *canon.HardSigmoid:
			act = unaryOp{fn: uHardSigmoid, a: o.Alpha, b: o.Beta}
		case *canon.Unary:
			if o.Fn != canon.Sigmoid {
				continue
			}
			act = unaryOp{fn: uSigmoid}
		default:
			continue
		}
		if dead[i] || len(s.in) != 1 || s.in[0] < 0 || !p.fusibleOut(s, uses, keep) {
			continue
		}
		j := consumer[s.out[0]]
		m := p.steps[j]
		mul, ok := m.node.Op.(*canon.Binary)
		if !ok || mul.Fn != canon.Mul || len(m.in) != 2 || !p.fusibleOut(m, nil, nil) {
			continue
		}
		x, g := s.in[0], s.out[0]
		if !(m.in[0] == x && m.in[1] == g || m.in[0] == g && m.in[1] == x) {
			continue
		}
		fs := &step{node: m.node, in: []int{x}, out: m.out, f64: m.f64, outDT: m.outDT}
		fs.run = func(e *exec) error { return runGate(e, act) }
		p.steps[j] = fs
		dead[i] = true
	}
	p.dropDead(dead)
}

// runGate computes x·act(x) for float32 x in one pass, the gate and the
// product in registers: the same float32 gate and product as the two steps.
func runGate(x *exec, act unaryOp) error {
	in := x.in(0)
	if in.dt != canon.Float32 {
		return fmt.Errorf("input is %s where the graph declares float32", in.dt)
	}
	out := x.take(0)
	if out == nil {
		out = x.newF(in.shape)
	}
	switch act.fn {
	case uHardSigmoid:
		parallelFor(len(out.f), 4, func(lo, hi int) {
			vec.HardSigmoidGate32(out.f[lo:hi], in.f[lo:hi], act.a, act.b)
		})
	case uSigmoid:
		parallelFor(len(out.f), unaryCost+1, func(lo, hi int) {
			vec.SiLU32(out.f[lo:hi], in.f[lo:hi])
		})
	default:
		return fmt.Errorf("no fused gate for activation %d", act.fn)
	}
	x.set(0, out)
	return nil
}
