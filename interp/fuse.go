package interp

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// fuseEpilogues turns fuseConvEpilogues on (tests compare both ways).
var fuseEpilogues = true

// fuseConvEpilogues folds, at plan time, what follows a float32 Conv with
// constant weights into the Conv's own epilogue: a BatchNormalization with
// constant parameters (folded into the weights and bias, as ONNX Runtime
// does), then an Add of a residual of the same shape, then a Relu or a
// Clip with constant bounds (applied to each output slab as the GEMM
// finishes it). Only values read by nothing else are
// fused away; keep marks the graph outputs.
func (p *Program) fuseConvEpilogues(keep []bool) {
	if !fuseEpilogues {
		return
	}
	f := p.newFusion(keep)
	uses, taken, follower := f.uses, f.taken, f.follower
	for i, s := range p.steps {
		conv, ok := s.node.Op.(*canon.Conv)
		if !ok || taken[i] || len(s.in) > 3 || !p.f32Consts(s.in[1:]) || !p.fusibleOut(s, uses, keep) {
			continue
		}
		w := p.consts[s.in[1]]
		cout := w.shape[0]
		var bias []float32
		if len(s.in) > 2 && s.in[2] >= 0 {
			if bias = p.consts[s.in[2]].f; len(bias) != cout {
				continue
			}
		}
		var (
			scale, shift []float32
			ep           = noClamp
			last         = s
			absorbed     []int
			residual     = -1
		)
		if next, ns := follower(s); ns != nil {
			if bn, ok := ns.node.Op.(*canon.BatchNorm); ok && ns.in[0] == s.out[0] && len(ns.in) == 5 && p.f32Consts(ns.in[1:]) && p.fusibleOut(ns, nil, nil) {
				if scale, shift = foldBN(p, ns.in[1:], bn.Epsilon, cout); scale != nil {
					absorbed, last = append(absorbed, next), ns
				}
			}
		}
		if next, as := follower(last); as != nil {
			if r, ok := p.residualOf(as, last); ok {
				residual, absorbed, last = r, append(absorbed, next), as
			}
		}
		if next, as := follower(last); as != nil {
			if e, ok := p.clampOf(as); ok && as.in[0] == last.out[0] && p.fusibleOut(as, nil, nil) {
				ep, absorbed, last = e, append(absorbed, next), as
			}
		}
		if len(absorbed) == 0 {
			continue // a plain Conv: its kernel already adds the bias
		}
		fs := &step{node: s.node, in: []int{s.in[0], s.in[1], -1}, out: last.out, f64: s.f64, outDT: last.outDT}
		at := i
		if residual >= 0 {
			// The residual may be computed after the Conv: the fused step
			// runs where the last absorbed step ran.
			fs.in = append(fs.in, residual)
			at = absorbed[len(absorbed)-1]
		}
		if scale != nil {
			wf := make([]float32, len(w.f))
			per := len(w.f) / cout
			nb := make([]float32, cout)
			for o := 0; o < cout; o++ {
				for k := o * per; k < (o+1)*per; k++ {
					wf[k] = w.f[k] * scale[o]
				}
				var b float32
				if bias != nil {
					b = bias[o]
				}
				nb[o] = b*scale[o] + shift[o]
			}
			fs.in[1] = p.addConst(&tensor{dt: canon.Float32, shape: w.shape, f: wf})
			fs.in[2] = p.addConst(&tensor{dt: canon.Float32, shape: []int{cout}, f: nb})
		} else if bias != nil {
			fs.in[2] = s.in[2]
		}
		fs.run = func(x *exec) error { return runConvEp(x, conv, ep) }
		f.replace(at, append(absorbed, i), fs)
	}
	f.finish()
}

// fusibleOut reports a step with one float32 output that only one later
// step reads (when uses is given) and that is no graph output.
func (p *Program) fusibleOut(s *step, uses []int, keep []bool) bool {
	if len(s.out) != 1 || s.out[0] < 0 || len(s.outDT) != 1 || s.outDT[0] != canon.Float32 {
		return false
	}
	if uses != nil && (uses[s.out[0]] != 1 || keep[s.out[0]]) {
		return false
	}
	return true
}

// f32Consts reports that every present slot holds a float32 constant.
func (p *Program) f32Consts(slots []int) bool {
	for _, id := range slots {
		if id >= 0 && (p.consts[id] == nil || p.consts[id].dt != canon.Float32) {
			return false
		}
	}
	return true
}

// residualOf recognizes an Add of prev's output and another float32 value
// of the same static shape (no broadcasting), and returns that value's slot.
func (p *Program) residualOf(add, prev *step) (int, bool) {
	op, ok := add.node.Op.(*canon.Binary)
	if !ok || op.Fn != canon.Add || len(add.in) != 2 || !p.fusibleOut(add, nil, nil) || p.g.Values == nil {
		return -1, false
	}
	k := 0
	if add.in[0] != prev.out[0] {
		k = 1
	}
	other := 1 - k
	if add.in[k] != prev.out[0] || add.in[other] < 0 || add.in[other] == prev.out[0] {
		return -1, false
	}
	a, aok := p.g.Values.Lookup(add.node.Inputs[k])
	b, bok := p.g.Values.Lookup(add.node.Inputs[other])
	if !aok || !bok || b.DType != canon.Float32 || !staticSameShape(a, b) {
		return -1, false
	}
	return add.in[other], true
}

// staticSameShape reports two values whose shapes are fully known and equal.
func staticSameShape(a, b canon.ValueInfo) bool {
	if !a.RankKnown || !b.RankKnown || len(a.Shape) != len(b.Shape) {
		return false
	}
	for i, d := range a.Shape {
		if !d.Known() || d.Size != b.Shape[i].Size {
			return false
		}
	}
	return true
}

// foldBN returns BatchNorm's per-channel scale and shift, or nil when its
// parameters do not have one value per channel.
func foldBN(p *Program, params []int, eps float32, c int) (scale, shift []float32) {
	var ps [4][]float32
	for k, id := range params {
		if id < 0 || len(p.consts[id].f) != c {
			return nil, nil
		}
		ps[k] = p.consts[id].f
	}
	scale, shift = make([]float32, c), make([]float32, c)
	for i := range c {
		s := float64(ps[0][i]) / math.Sqrt(float64(ps[3][i])+float64(eps))
		scale[i] = float32(s)
		shift[i] = float32(float64(ps[1][i]) - float64(ps[2][i])*s)
	}
	return scale, shift
}

// clampOf recognizes Relu and Clip with constant bounds.
func (p *Program) clampOf(s *step) (clampEp, bool) {
	switch op := s.node.Op.(type) {
	case *canon.Unary:
		if op.Fn == canon.Relu && len(s.in) == 1 {
			return clampEp{lo: 0, hi: float32(math.Inf(1)), clamp: true}, true
		}
	case *canon.Clip:
		ep := clampEp{lo: op.Min, hi: op.Max, clamp: true}
		for k, dst := range []*float32{&ep.lo, &ep.hi} {
			if k+1 >= len(s.in) || s.in[k+1] < 0 {
				continue
			}
			t := p.consts[s.in[k+1]]
			if t == nil || t.dt != canon.Float32 || len(t.f) != 1 {
				return clampEp{}, false
			}
			*dst = t.f[0]
		}
		if math.IsNaN(float64(ep.lo)) || math.IsNaN(float64(ep.hi)) || ep.lo > ep.hi {
			return clampEp{}, false
		}
		return ep, true
	}
	return clampEp{}, false
}

func (p *Program) addConst(t *tensor) int {
	p.consts = append(p.consts, t)
	p.slots++
	return p.slots - 1
}

// readers counts the steps reading each slot (uses) and, for a slot read by
// one step, which step that is (consumer: the last reader's index).
func (p *Program) readers() (uses, consumer []int) {
	uses, consumer = make([]int, p.slots), make([]int, p.slots)
	for i, s := range p.steps {
		for _, id := range s.in {
			if id >= 0 {
				uses[id]++
				consumer[id] = i
			}
		}
	}
	return uses, consumer
}

// soleReader is the one step reading st's single output, unless that output
// is read more than once, is a graph output (keep), or its reader is
// already taken by a fusion.
func (p *Program) soleReader(st *step, uses, consumer []int, keep, taken []bool) (int, *step) {
	if len(st.out) != 1 {
		return -1, nil
	}
	id := st.out[0]
	if id < 0 || uses[id] != 1 || keep[id] || taken[consumer[id]] {
		return -1, nil
	}
	return consumer[id], p.steps[consumer[id]]
}

// fusion is one plan-time fusion pass's bookkeeping over p.steps.
type fusion struct {
	p    *Program
	keep []bool // the graph outputs
	// uses counts each value's readers; consumer is a step reading it.
	uses, consumer []int
	// dead marks absorbed steps; taken also marks where fused steps run.
	dead, taken []bool
}

func (p *Program) newFusion(keep []bool) *fusion {
	uses, consumer := p.readers()
	return &fusion{p: p, keep: keep, uses: uses, consumer: consumer, dead: make([]bool, len(p.steps)), taken: make([]bool, len(p.steps))}
}

// follower is the one step reading st's output, unless that output is
// read more than once, is a graph output, or the step is taken.
func (f *fusion) follower(st *step) (int, *step) {
	return f.p.soleReader(st, f.uses, f.consumer, f.keep, f.taken)
}

// replace runs fs where step at ran, the other steps of absorbed (which
// holds at) absorbed into it.
func (f *fusion) replace(at int, absorbed []int, fs *step) {
	for _, j := range absorbed {
		f.dead[j], f.taken[j] = j != at, true
	}
	f.p.steps[at] = fs
}

// finish removes the absorbed steps.
func (f *fusion) finish() { f.p.dropDead(f.dead) }

// dropDead removes the steps a fusion absorbed.
func (p *Program) dropDead(dead []bool) {
	kept := p.steps[:0]
	for i, s := range p.steps {
		if !dead[i] {
			kept = append(kept, s)
		}
	}
	p.steps = kept
}
