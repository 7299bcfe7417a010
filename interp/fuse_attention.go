package interp

import (
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// attnPattern is scaled dot-product attention as exporters write it out:
// MatMul(Q, Kᵀ), then optionally a Div or Mul by one constant, then
// optionally the Add of a constant mask over the keys, then Softmax over
// the last axis, then MatMul by V.
type attnPattern struct {
	scaleFn binFn // binDiv or binMul; scaled false when there is none
	scale   float32
	scaled  bool
}

// attnRowBlock is how many query rows one task of the fused attention
// takes: their scores (rows × keys) stay in L2 from the first product to
// the second. Whole heads up to 256 queries: smaller blocks pack K and V
// again for each (BERT's 128: 1.70 → 1.60 ms of CPU a layer's attention
// on one core, against 1.53 unfused). Tests set it lower.
var attnRowBlock = 256

// fuseAttention plans each attnPattern whose intermediate values nothing
// else reads as one step that computes, for a block of query rows of one
// head at a time, the scores, their scaling, mask and softmax and their
// product with V while the block is in cache, instead of writing the
// heads × queries × keys scores out and reading them back once per op.
// Each element is computed by the same operations as the ops it replaces
// (the same GEMM sums, the same float32 division, addition and softmax
// row kernel), so results are the plain path's bit for bit.
func (p *Program) fuseAttention(keep []bool) {
	if !fuseEpilogues || p.g.Values == nil {
		return
	}
	f := p.newFusion(keep)
	taken, follower := f.taken, f.follower
	for i, s := range p.steps {
		if _, ok := s.node.Op.(*canon.MatMul); !ok || taken[i] || !p.fusibleOut(s, nil, nil) {
			continue
		}
		qs, ks, ok := p.attnOperands(s, 0, 1)
		if !ok {
			continue
		}
		m, n := qs[len(qs)-2], ks[len(ks)-1]
		var pat attnPattern
		mask := -1
		absorbed := []int{i}
		last := s
		next, ns := follower(last)
		if ns != nil {
			if fn, v, ok := p.scalarBinary(ns, last); ok {
				pat = attnPattern{scaleFn: fn, scale: v, scaled: true}
				absorbed, last = append(absorbed, next), ns
				next, ns = follower(last)
			}
		}
		if ns != nil {
			if id, ok := p.keyMaskOf(ns, last, int64(len(qs)), n); ok {
				mask, absorbed, last = id, append(absorbed, next), ns
				next, ns = follower(last)
			}
		}
		if ns == nil {
			continue
		}
		if sm, ok := ns.node.Op.(*canon.Softmax); !ok || (sm.Axis != -1 && int(sm.Axis) != len(qs)-1) || !p.fusibleOut(ns, nil, nil) {
			continue
		}
		absorbed, last = append(absorbed, next), ns
		next, ns = follower(last)
		if ns == nil {
			continue
		}
		if _, ok := ns.node.Op.(*canon.MatMul); !ok || ns.in[0] != last.out[0] || !p.fusibleOut(ns, nil, nil) {
			continue
		}
		ps, vs, ok := p.attnOperands(ns, 0, 1)
		if !ok || ps[len(ps)-2] != m || !slices.Equal(vs[:len(vs)-2], qs[:len(qs)-2]) || vs[len(vs)-2] != n {
			continue
		}
		absorbed = append(absorbed, next)
		at := next // V may be computed after the scores: run where ·V ran
		fs := &step{node: ns.node, in: []int{s.in[0], s.in[1], ns.in[1], mask}, out: ns.out, f64: ns.f64, outDT: ns.outDT}
		fs.run = func(x *exec) error { return runAttentionPattern(x, pat) }
		f.replace(at, absorbed, fs)
	}
	f.finish()
}

// attnOperands returns the static shapes of a MatMul's two computed
// float32 operands when they have the same rank ≥ 3, the same leading
// (batch, head) dimensions and matching inner dimensions.
func (p *Program) attnOperands(s *step, ka, kb int) (a, b []int64, ok bool) {
	if len(s.in) != 2 || s.in[ka] < 0 || s.in[kb] < 0 || p.consts[s.in[ka]] != nil || p.consts[s.in[kb]] != nil {
		return nil, nil, false
	}
	av, aok := p.g.Values.Lookup(s.node.Inputs[ka])
	bv, bok := p.g.Values.Lookup(s.node.Inputs[kb])
	if !aok || !bok || av.DType != canon.Float32 || bv.DType != canon.Float32 {
		return nil, nil, false
	}
	as, aok := av.StaticShape()
	bs, bok := bv.StaticShape()
	r := len(as)
	if !aok || !bok || r < 3 || len(bs) != r || !slices.Equal(as[:r-2], bs[:r-2]) || as[r-1] != bs[r-2] {
		return nil, nil, false
	}
	return as, bs, true
}

// scalarBinary recognizes a Div of prev's output by a float32 constant of
// one element, or a Mul of it by one, and returns the op and the value.
func (p *Program) scalarBinary(s, prev *step) (binFn, float32, bool) {
	op, ok := s.node.Op.(*canon.Binary)
	if !ok || len(s.in) != 2 || !p.fusibleOut(s, nil, nil) || (op.Fn != canon.Div && op.Fn != canon.Mul) {
		return 0, 0, false
	}
	k := 0
	if s.in[0] != prev.out[0] {
		if op.Fn == canon.Div {
			return 0, 0, false
		}
		k = 1
	}
	c := s.in[1-k]
	if s.in[k] != prev.out[0] || c < 0 || c == prev.out[0] || p.consts[c] == nil || p.consts[c].dt != canon.Float32 || len(p.consts[c].f) != 1 || len(p.consts[c].shape) > 2 {
		return 0, 0, false
	}
	if op.Fn == canon.Div {
		return binDiv, p.consts[c].f[0], true
	}
	return binMul, p.consts[c].f[0], true
}

// keyMaskOf recognizes an Add of prev's output (rank r, n keys) and a
// float32 constant of n values over the last axis, of rank ≤ r (BERT's
// (1, 1, 1, n) additive mask), and returns the constant's slot.
func (p *Program) keyMaskOf(add, prev *step, r, n int64) (int, bool) {
	c, ok := p.float32ConstAddend(add, prev)
	if !ok {
		return -1, false
	}
	t := p.consts[c]
	if len(t.shape) == 0 || int64(len(t.shape)) > r || int64(t.shape[len(t.shape)-1]) != n || int64(len(t.f)) != n {
		return -1, false
	}
	return c, true
}

// runAttentionPattern runs a step fuseAttention planned: inputs Q
// (..., m, d), Kᵀ (..., d, n), V (..., n, dv) and the key mask (n values)
// or absent.
func runAttentionPattern(x *exec, pat attnPattern) error {
	q, kt, v := x.in(0), x.in(1), x.in(2)
	for _, t := range []*tensor{q, kt, v} {
		if t.dt != canon.Float32 || t.isF64() {
			return fmt.Errorf("attention operand is %s, want float32 as the graph declares", t.dt)
		}
	}
	r := len(q.shape)
	if r < 3 || len(kt.shape) != r || len(v.shape) != r || !slices.Equal(q.shape[:r-2], kt.shape[:r-2]) || !slices.Equal(q.shape[:r-2], v.shape[:r-2]) ||
		q.shape[r-1] != kt.shape[r-2] || kt.shape[r-1] != v.shape[r-2] {
		return fmt.Errorf("attention operands have shapes %v, %v and %v, want (..., m, d), (..., d, n) and (..., n, dv)", q.shape, kt.shape, v.shape)
	}
	m, d, n, dv := q.shape[r-2], q.shape[r-1], kt.shape[r-1], v.shape[r-1]
	var mask []float32
	if t := x.in(3); t != nil {
		if len(t.f) != n {
			return fmt.Errorf("mask has %d values, want %d (one per key)", len(t.f), n)
		}
		mask = t.f
	}
	heads := numel(q.shape[:r-2])
	y := x.newF(append(slices.Clone(q.shape[:r-2]), m, dv))
	if heads*m*dv == 0 {
		x.set(0, y)
		return nil
	}
	blocks := (m + attnRowBlock - 1) / attnRowBlock
	// Tasks (a head's block of rows each) are taken as workers come free;
	// each worker has its own scores buffer.
	workers := workersFor(heads*blocks, 2*min(m, attnRowBlock)*n*(d+dv))
	scratch := make([]*[]float32, workers)
	packs := make([]attnScratch, workers)
	for i := range scratch {
		scratch[i] = getPack(min(m, attnRowBlock) * n)
	}
	parallelTasks(heads*blocks, workers, func(wk, t int) {
		h, i := t/blocks, t%blocks*attnRowBlock
		rows := min(attnRowBlock, m-i)
		sc := (*scratch[wk])[:rows*n]
		attnGemm(&packs[wk], rows, n, d, q.f[(h*m+i)*d:], d, kt.f[h*d*n:], n, sc, n)
		pat.scoreRows(sc, n, mask)
		softmaxRows(sc, n)
		attnGemm(&packs[wk], rows, dv, n, sc, n, v.f[h*n*dv:], dv, y.f[(h*m+i)*dv:], dv)
	})
	for i, s := range scratch {
		packPool.Put(s)
		packs[i].release()
	}
	x.set(0, y)
	return nil
}

// scoreRows scales each row of n scores in sc and adds the mask, as the
// Div or Mul and the Add do.
func (pat attnPattern) scoreRows(sc []float32, n int, mask []float32) {
	op := vec.ScoreKeep
	switch {
	case pat.scaled && pat.scaleFn == binDiv:
		op = vec.ScoreDiv
	case pat.scaled:
		op = vec.ScoreMul
	}
	if op == vec.ScoreKeep && mask == nil {
		return
	}
	vec.ScoreRows(sc, n, pat.scale, op, mask)
}

// softmaxRows sets each row of n values in s to its softmax, with the
// Softmax op's row kernel (the pattern's result is the unfused ops' bits).
func softmaxRows(s []float32, n int) { vec.SoftmaxRows32(s, s, n) }

// keepsOrder reports a permutation that moves only axes of size 1, so the
// transposed elements lie in the input's order (vit_b_16's (1, 197, 768)
// ↔ (197, 1, 768) around attention).
func keepsOrder(shape []int, perm []int64) bool {
	last := int64(-1)
	for _, p := range perm {
		if shape[p] == 1 {
			continue
		}
		if p < last {
			return false
		}
		last = p
	}
	return true
}
