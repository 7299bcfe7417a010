package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// layerNormChain is a LayerNorm as exporters without LayerNormalization
// write it over the last k axes of x:
//
//	m = ReduceMean(x), d = x - m, v = ReduceMean(Pow(d, 2)),
//	y = d / Sqrt(v + eps) [· scale] [+ bias]
//
// with both reductions over the same trailing axes with keepdims, eps a
// float32 scalar constant and scale and bias float32 constants that vary
// only along the normalized axes.
type layerNormChain struct {
	x           int // slot of x
	axes        int // k, the number of trailing axes normalized
	eps         float32
	scale, bias int // constant slots; -1 when absent
	steps       []int
	// channels: x is a Transpose moving axis 1 last (NCHW to NHWC), which
	// the fused step absorbs, reading its input (slot x) directly.
	channels bool
}

// fuseLayerNorms replaces each such chain by one step that computes every
// row in one pass over it: the same float32 operations in the same order
// as the chain's steps (both means summed as the row reduction sums them),
// so each output is the chain's bit for bit, without writing the eight
// intermediate tensors.
func (p *Program) fuseLayerNorms(keep []bool) {
	if !fuseEpilogues || p.g.Values == nil {
		return
	}
	f := p.newFusion(keep)
	uses, taken := f.uses, f.taken
	for i := range p.steps {
		if taken[i] {
			continue
		}
		c, ok := p.layerNormAt(i, uses, f.consumer, keep, taken)
		if !ok {
			continue
		}
		p.absorbChannelsLast(&c, uses, keep, taken)
		at := c.steps[len(c.steps)-1]
		last := p.steps[at]
		fs := &step{node: last.node, in: []int{c.x, c.scale, c.bias}, out: last.out, f64: last.f64, outDT: last.outDT}
		axes, eps, channels := c.axes, c.eps, c.channels
		fs.run = func(x *exec) error {
			if channels {
				return runLayerNormChannels(x, eps)
			}
			return runLayerNormChain(x, axes, eps)
		}
		f.replace(at, c.steps, fs)
	}
	f.finish()
}

// absorbChannelsLast takes into c the Transpose that makes its x, when
// that moves axis 1 last (perm [0, 2, ..., r-1, 1]), the chain normalizes
// that one axis, and only the chain reads the transposed tensor: the
// fused step then reads the rows where they lie, so the transposed
// tensor is never written.
func (p *Program) absorbChannelsLast(c *layerNormChain, uses []int, keep, taken []bool) {
	if c.axes != 1 || uses[c.x] != 2 || keep[c.x] {
		return
	}
	for j := c.steps[0] - 1; j >= 0; j-- {
		t := p.steps[j]
		if len(t.out) != 1 || t.out[0] != c.x {
			continue
		}
		tr, ok := t.node.Op.(*canon.Transpose)
		if !ok || taken[j] || len(t.in) != 1 || t.in[0] < 0 || p.consts[t.in[0]] != nil || !p.fusibleOut(t, nil, nil) || len(tr.Perm) < 3 {
			return
		}
		r := len(tr.Perm)
		for k, a := range tr.Perm {
			want := int64(k + 1)
			switch k {
			case 0:
				want = 0
			case r - 1:
				want = 1
			}
			if a != want {
				return
			}
		}
		c.x, c.channels = t.in[0], true
		c.steps = append([]int{j}, c.steps...)
		return
	}
}

// layerNormAt matches the chain whose first ReduceMean is step i.
func (p *Program) layerNormAt(i int, uses, consumer []int, keep, taken []bool) (layerNormChain, bool) {
	var c layerNormChain
	next := func(st *step) (int, *step) {
		j, ns := p.soleReader(st, uses, consumer, keep, taken)
		if ns == nil || !p.fusibleOut(ns, nil, nil) {
			return -1, nil
		}
		return j, ns
	}
	r1 := p.steps[i]
	k, ok := p.trailingMean(r1)
	if !ok || !p.fusibleOut(r1, nil, nil) || len(r1.in) < 1 || r1.in[0] < 0 || p.consts[r1.in[0]] != nil {
		return c, false
	}
	c.x, c.axes, c.scale, c.bias = r1.in[0], k, -1, -1
	iSub, sub := next(r1)
	if !p.isBinary(sub, canon.Sub) || sub.in[0] != c.x || sub.in[1] != r1.out[0] {
		return c, false
	}
	// d = x - m is read twice: by the Pow and by the Div.
	d := sub.out[0]
	if uses[d] != 2 || keep[d] {
		return c, false
	}
	iPow, pow := p.firstReader(d, iSub)
	if pow == nil || taken[iPow] || !p.fusibleOut(pow, nil, nil) {
		return c, false
	}
	if _, isPow := pow.node.Op.(*canon.Pow); !isPow || len(pow.in) != 2 || pow.in[0] != d || !p.scalarConst(pow.in[1], 2) {
		return c, false
	}
	iR2, r2 := next(pow)
	if k2, ok := p.trailingMean(r2); !ok || k2 != k {
		return c, false
	}
	iAdd, add := next(r2)
	if !p.isBinary(add, canon.Add) {
		return c, false
	}
	epsSlot := add.in[1]
	if add.in[0] != r2.out[0] {
		epsSlot = add.in[0]
		if add.in[1] != r2.out[0] {
			return c, false
		}
	}
	if c.eps, ok = p.f32Scalar(epsSlot); !ok {
		return c, false
	}
	iSqrt, sqrt := next(add)
	if m, isMath := sqrtOp(sqrt); !isMath || m.Fn != canon.MathSqrt || len(sqrt.in) != 1 {
		return c, false
	}
	iDiv, div := next(sqrt)
	if !p.isBinary(div, canon.Div) || div.in[0] != d || div.in[1] != sqrt.out[0] || uses[d] != 2 || consumer[d] != iDiv {
		return c, false
	}
	c.steps = []int{i, iSub, iPow, iR2, iAdd, iSqrt, iDiv}
	last := div
	if iMul, mul := next(last); p.isBinary(mul, canon.Mul) {
		if s, ok := p.rowConst(mul, last, r1.node.Inputs[0], k); ok {
			c.scale, c.steps, last = s, append(c.steps, iMul), mul
		}
	}
	if c.scale >= 0 {
		if iB, ba := next(last); p.isBinary(ba, canon.Add) {
			if b, ok := p.rowConst(ba, last, r1.node.Inputs[0], k); ok {
				c.bias, c.steps = b, append(c.steps, iB)
			}
		}
	}
	return c, true
}

func sqrtOp(s *step) (*canon.Math, bool) {
	if s == nil {
		return nil, false
	}
	m, ok := s.node.Op.(*canon.Math)
	return m, ok
}

// isBinary reports a two-input step of the binary function fn.
func (p *Program) isBinary(s *step, fn canon.BinaryFn) bool {
	if s == nil || len(s.in) != 2 || s.in[0] < 0 || s.in[1] < 0 {
		return false
	}
	op, ok := s.node.Op.(*canon.Binary)
	return ok && op.Fn == fn
}

// firstReader is the first step after step from that reads slot id.
func (p *Program) firstReader(id, from int) (int, *step) {
	for j := from + 1; j < len(p.steps); j++ {
		for _, in := range p.steps[j].in {
			if in == id {
				return j, p.steps[j]
			}
		}
	}
	return -1, nil
}

// f32Scalar is the value of a float32 constant of one element and rank 0
// or 1 (which broadcasts without adding axes to a tensor of rank 1 or more).
func (p *Program) f32Scalar(id int) (float32, bool) {
	if id < 0 || p.consts[id] == nil || p.consts[id].dt != canon.Float32 || len(p.consts[id].f) != 1 || len(p.consts[id].shape) > 1 {
		return 0, false
	}
	return p.consts[id].f[0], true
}

// scalarConst reports a float32 constant of one element equal to v.
func (p *Program) scalarConst(id int, v float32) bool {
	c, ok := p.f32Scalar(id)
	return ok && c == v
}

// trailingMean reports a float32 ReduceMean with keepdims over the last k
// axes of its input (axes given as an attribute or a constant input),
// whatever the input's rank where every axis is negative.
func (p *Program) trailingMean(s *step) (int, bool) {
	if s == nil {
		return 0, false
	}
	r, ok := s.node.Op.(*canon.Reduce)
	if !ok || r.Fn != canon.ReduceMean || !r.KeepDims || len(s.in) == 0 || s.in[0] < 0 {
		return 0, false
	}
	axes := r.Axes
	if len(s.in) > 1 && s.in[1] >= 0 {
		t := p.consts[s.in[1]]
		if t == nil || t.dt != canon.Int64 {
			return 0, false
		}
		axes = t.i
	}
	if len(axes) == 0 {
		return 0, false
	}
	rank := -1
	if vi, ok := p.g.Values.Lookup(s.node.Inputs[0]); ok && vi.RankKnown {
		rank = len(vi.Shape)
	}
	seen := map[int64]bool{}
	for _, a := range axes {
		if a >= 0 {
			if rank < 0 {
				return 0, false
			}
			a -= int64(rank)
		}
		if a < -int64(len(axes)) || seen[a] || (rank >= 0 && a < -int64(rank)) {
			return 0, false
		}
		seen[a] = true
	}
	// len(axes) distinct axes within the last len(axes): exactly those.
	return len(axes), true
}

// rowConst reports that op (a Mul or Add) combines prev's output with a
// float32 constant that varies only along x's last k axes, each of its
// dimensions 1 or x's (known) size, and returns the constant's slot.
func (p *Program) rowConst(op, prev *step, x string, k int) (int, bool) {
	o := 1
	if op.in[0] != prev.out[0] {
		o = 0
		if op.in[1] != prev.out[0] {
			return -1, false
		}
	}
	id := op.in[o]
	t := p.consts[id]
	if t == nil || t.dt != canon.Float32 || len(t.shape) > k {
		return -1, false
	}
	vi, ok := p.g.Values.Lookup(x)
	if !ok || !vi.RankKnown || len(vi.Shape) < k {
		return -1, false
	}
	xs := vi.Shape[len(vi.Shape)-len(t.shape):]
	for i, d := range t.shape {
		if d != 1 && (!xs[i].Known() || xs[i].Size != int64(d)) {
			return -1, false
		}
	}
	return id, true
}

// runLayerNormChain computes the chain layerNormChain describes for each
// row of x's last axes (inputs: x, scale or absent, bias or absent).
func runLayerNormChain(x *exec, axes int, eps float32) error {
	in := x.in(0)
	if in.dt != canon.Float32 {
		return fmt.Errorf("input is %s where the graph declares float32", in.dt)
	}
	if len(in.shape) < axes {
		return fmt.Errorf("input has rank %d, fewer than the %d axes normalized", len(in.shape), axes)
	}
	tail := in.shape[len(in.shape)-axes:]
	scale, bias, err := rowParams(x, tail)
	if err != nil {
		return err
	}
	n := numel(tail)
	out := x.newF(in.shape)
	if n == 0 {
		x.set(0, out)
		return nil
	}
	rows := len(in.f) / n
	parallelFor(rows, 8*n, func(lo, hi int) {
		sq := make([]float32, n)
		for r := lo; r < hi; r++ {
			layerNormRow(out.f[r*n:(r+1)*n], in.f[r*n:(r+1)*n], sq, scale, bias, eps)
		}
	})
	x.set(0, out)
	return nil
}

// channelBlock is how many positions runLayerNormChannels gathers at a
// time: their channels, read along each channel's contiguous positions.
const channelBlock = 16

// runLayerNormChannels is runLayerNormChain over axis 1 of an N×C×S...
// input, writing the N×S...×C result that Transpose and the chain give.
func runLayerNormChannels(x *exec, eps float32) error {
	in := x.in(0)
	if in.dt != canon.Float32 {
		return fmt.Errorf("input is %s where the graph declares float32", in.dt)
	}
	if len(in.shape) < 3 {
		return fmt.Errorf("input has rank %d, not the 3 or more of N×C×spatial", len(in.shape))
	}
	n, c, sp := in.shape[0], in.shape[1], numel(in.shape[2:])
	shape := append(append([]int{n}, in.shape[2:]...), c)
	scale, bias, err := rowParams(x, []int{c})
	if err != nil {
		return err
	}
	out := x.newF(shape)
	if c == 0 || sp == 0 || n == 0 {
		x.set(0, out)
		return nil
	}
	blocks := (sp + channelBlock - 1) / channelBlock
	parallelFor(n*blocks, 8*c*channelBlock, func(lo, hi int) {
		tile, sq := make([]float32, channelBlock*c), make([]float32, c)
		for b := lo; b < hi; b++ {
			img, s0 := b/blocks, b%blocks*channelBlock
			m := min(channelBlock, sp-s0)
			src := in.f[img*c*sp:]
			ch := 0
			if m == channelBlock {
				// Whole 16×16 blocks (16 channels of 16 positions) move
				// to their transposed places in one vector call each.
				for ; ch+16 <= c; ch += 16 {
					vec.Transpose16(1, tile[ch:], c, src[ch*sp+s0:], sp)
				}
			}
			for ; ch < c; ch++ {
				for k, v := range src[ch*sp+s0 : ch*sp+s0+m] {
					tile[k*c+ch] = v
				}
			}
			for k := 0; k < m; k++ {
				row := (img*sp + s0 + k) * c
				layerNormRow(out.f[row:row+c], tile[k*c:(k+1)*c], sq, scale, bias, eps)
			}
		}
	})
	x.set(0, out)
	return nil
}

// rowParams is the chain's scale and bias (inputs 1 and 2) over rows of
// shape tail, 1s and -0s where absent: x·1 and x + -0 are x, signed zeros
// too.
func rowParams(x *exec, tail []int) (scale, bias []float32, err error) {
	n := numel(tail)
	if scale, err = tailOf(x.in(1), tail, "scale"); err != nil {
		return nil, nil, err
	}
	if bias, err = tailOf(x.in(2), tail, "bias"); err != nil {
		return nil, nil, err
	}
	if scale == nil {
		scale = make([]float32, n)
		for i := range scale {
			scale[i] = 1
		}
	}
	if bias == nil {
		bias = make([]float32, n)
		for i := range bias {
			bias[i] = float32(math.Copysign(0, -1))
		}
	}
	return scale, bias, nil
}

// layerNormRow is the chain on one row, each operation rounded to float32
// where the chain's step would round it and both means summed in
// ReduceMean's order (vec.SumF64); sq is scratch of the row's length,
// scale and bias the row's (1s and -0s, which change nothing, when the
// chain has no Mul or no Add).
func layerNormRow(dst, src, sq, scale, bias []float32, eps float32) {
	n := float64(len(src))
	m := float32(vec.SumF64(src) / n)
	vec.LNCenter(dst, sq, src, m)
	v := float32(vec.SumF64(sq) / n)
	den := float32(math.Sqrt(float64(v + eps)))
	vec.LNScale(dst, scale, bias, den)
}
