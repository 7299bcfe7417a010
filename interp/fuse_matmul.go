package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// matMulEp is what a MatMul by a constant weight matrix applies to its
// output as each strip of it is finished: the Add of a bias over the last
// axis, then either an exact (erf) Gelu or the Add of a residual of the
// output's shape, in the order the graph has them.
type matMulEp struct {
	bias []float32 // n values, one per column; nil when there is none
	gelu bool
	res  []float32 // laid out as the output; nil when there is none
}

// fuseMatMulWeights plans, for each float32 MatMul whose right operand is
// a constant k×n matrix (a transformer's projections and feed-forward
// layers, as exported), a step that multiplies reading the weights where
// they lie instead of copying them into packed panels on every run, and
// that takes in the Add of a constant bias (n values), then a Gelu (erf)
// or a residual Add, when only the next op reads each. Every output element
// is the plain path's: the same products summed in the same order, then
// the same float32 operations in the graph's order.
func (p *Program) fuseMatMulWeights(keep []bool) {
	if !fuseEpilogues {
		return
	}
	f := p.newFusion(keep)
	taken, follower := f.taken, f.follower
	for i, s := range p.steps {
		if _, ok := s.node.Op.(*canon.MatMul); !ok || taken[i] || !p.matMulByWeights(s) {
			continue
		}
		n := p.consts[s.in[1]].shape[1]
		fs := &step{node: s.node, in: []int{s.in[0], s.in[1], -1, -1}, out: s.out, f64: s.f64, outDT: s.outDT}
		var absorbed []int
		last, gelu := s, false
		if next, as := follower(last); as != nil {
			if bias, ok := p.biasOf(as, last, n); ok {
				fs.in[2], absorbed, last = bias, append(absorbed, next), as
			}
		}
		if next, gs := follower(last); gs != nil {
			if g, ok := gs.node.Op.(*canon.Gelu); ok && g.Approximate == canon.GeluExact && gs.in[0] == last.out[0] && p.fusibleOut(gs, nil, nil) {
				gelu, absorbed, last = true, append(absorbed, next), gs
			}
		}
		at := i
		if next, as := follower(last); as != nil && !gelu {
			if r, ok := p.residualOf(as, last); ok {
				// The residual may be computed after the MatMul: the fused
				// step runs where the Add ran.
				fs.in[3], absorbed, last, at = r, append(absorbed, next), as, next
			}
		}
		fs.out, fs.outDT = last.out, last.outDT
		fs.run = func(x *exec) error { return runMatMulWeights(x, gelu) }
		f.replace(at, append(absorbed, i), fs)
	}
	f.finish()
}

// matMulByWeights reports a MatMul of a float32 value of rank ≥ 2 (its
// shape's rank known) by a constant float32 matrix, with an output of one
// float32 value.
func (p *Program) matMulByWeights(s *step) bool {
	if len(s.in) != 2 || s.in[0] < 0 || p.consts[s.in[0]] != nil || !p.f32Consts(s.in[1:]) || !p.fusibleOut(s, nil, nil) || p.g.Values == nil {
		return false
	}
	if w := p.consts[s.in[1]]; len(w.shape) != 2 || w.shape[0] == 0 || w.shape[1] == 0 {
		return false
	}
	a, ok := p.g.Values.Lookup(s.node.Inputs[0])
	return ok && a.DType == canon.Float32 && a.RankKnown && len(a.Shape) >= 2
}

// float32ConstAddend recognizes add as a fusible Add of prev's output and
// a float32 constant, in either order, and returns the constant's slot.
func (p *Program) float32ConstAddend(add, prev *step) (int, bool) {
	op, ok := add.node.Op.(*canon.Binary)
	if !ok || op.Fn != canon.Add || len(add.in) != 2 || !p.fusibleOut(add, nil, nil) {
		return -1, false
	}
	k := 0
	if add.in[0] != prev.out[0] {
		k = 1
	}
	c := add.in[1-k]
	if add.in[k] != prev.out[0] || c < 0 || c == prev.out[0] || p.consts[c] == nil || p.consts[c].dt != canon.Float32 {
		return -1, false
	}
	return c, true
}

// biasOf recognizes an Add of prev's output and a float32 constant of n
// values over the last axis (shape (n), (1, n), (1, 1, n), ...) of no
// higher rank than the output, and returns the constant's slot.
func (p *Program) biasOf(add, prev *step, n int) (int, bool) {
	other, ok := p.float32ConstAddend(add, prev)
	if !ok {
		return -1, false
	}
	b := p.consts[other]
	if len(b.shape) == 0 || b.shape[len(b.shape)-1] != n || len(b.f) != n {
		return -1, false
	}
	out, ok := p.g.Values.Lookup(prev.node.Outputs[0])
	if !ok || !out.RankKnown || len(b.shape) > len(out.Shape) {
		return -1, false
	}
	return other, true
}

// runMatMulWeights runs a step fuseMatMulWeights planned: inputs A, the
// weights W (k×n), the bias (or absent) and the residual (or absent).
func runMatMulWeights(x *exec, gelu bool) error {
	a, w := x.in(0), x.in(1)
	if a.dt != canon.Float32 || a.isF64() {
		return fmt.Errorf("A is %s, want float32 as the graph declares", a.dt)
	}
	if len(a.shape) < 2 || a.shape[len(a.shape)-1] != w.shape[0] {
		return fmt.Errorf("shapes %v and %v: inner dimensions differ", a.shape, w.shape)
	}
	k, n := w.shape[0], w.shape[1]
	m := numel(a.shape) / k
	shape := append(append([]int{}, a.shape[:len(a.shape)-1]...), n)
	ep := matMulEp{gelu: gelu}
	if b := x.in(2); b != nil {
		ep.bias = b.f
	}
	if r := x.in(3); r != nil {
		if r.dt != canon.Float32 || numel(r.shape) != m*n || len(r.shape) != len(shape) {
			return fmt.Errorf("residual has shape %v (%s), want float32 %v", r.shape, r.dt, shape)
		}
		ep.res = r.f
	}
	y := x.newF(shape)
	if m > 0 {
		gemmByWeights(m, n, k, a.f, w.f, x.constPackedB(1, 0, false, w.f, k, n), y.f, &ep)
	}
	x.set(0, y)
	return nil
}

// move moves rows i..i+mb, columns j..j+nb of a scratch (src its first
// element, lds columns a row) into c (n columns a row) with the bias and
// residual Adds in the same pass; with a Gelu it adds only the bias, and
// finish runs the Gelu and the residual Add once the rows' columns are all
// moved.
func (ep *matMulEp) move(c []float32, n, i, mb, j, nb int, src []float32, lds int) {
	var bias, res []float32
	if ep.bias != nil {
		bias = ep.bias[j : j+nb]
	}
	if ep.res != nil && !ep.gelu {
		res = ep.res[i*n+j:]
	}
	stripMove(c[i*n+j:], n, src, lds, mb, nb, bias, res)
}

// finish runs the Gelu, then the residual Add, on rows i..i+mb, columns
// j..j+nb of c (n columns a row), when the epilogue has a Gelu: a row's
// run of columns a call, not a 16-column strip's (the call costs more
// than 16 values take).
func (ep *matMulEp) finish(c []float32, n, i, mb, j, nb int) {
	if !ep.gelu {
		return
	}
	for r := i; r < i+mb; r++ {
		row := c[r*n+j : r*n+j+nb]
		geluRow(row)
		if ep.res != nil {
			for q, v := range ep.res[r*n+j : r*n+j+nb] {
				row[q] = v + row[q]
			}
		}
	}
}

// apply runs the epilogue on rows i..i+mb, columns j..j+nb of c (n columns
// a row), in the graph's order: bias, then Gelu or residual.
func (ep *matMulEp) apply(c []float32, n, i, mb, j, nb int) {
	for r := i; r < i+mb; r++ {
		row := c[r*n+j : r*n+j+nb]
		if ep.bias != nil {
			for q, b := range ep.bias[j : j+nb] {
				row[q] = b + row[q]
			}
		}
		if ep.gelu {
			geluRow(row)
		}
		if ep.res != nil {
			for q, v := range ep.res[r*n+j : r*n+j+nb] {
				row[q] = v + row[q]
			}
		}
	}
}
