package interp

import (
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// A Slice whose result is only reshaped and transposed (the heads a
// transformer takes out of its fused QKV projection: Slice, Reshape to
// heads, Transpose, and for the keys one Transpose more) copies each
// element three or four times. Every one of those ops picks elements at
// fixed strides, so the chain is one strided view of the Slice's input:
// fuseViewChains plans it as one step that copies each element once.

// viewChain is a planned Slice → Reshape → Transpose… chain: the Slice
// (its parameters resolved), the Reshape's target and the Transposes'
// permutations composed into one.
type viewChain struct {
	slice     *canon.Slice
	target    []int64
	allowZero bool
	perm      []int
}

// fuseViewChains plans each float32 Slice (constant parameters) followed
// by a Reshape (constant target) and one or more Transposes, each result
// read only by the next op, as one step (runViewChain).
func (p *Program) fuseViewChains(keep []bool) {
	if !fuseEpilogues || p.g.Values == nil {
		return
	}
	f := p.newFusion(keep)
	uses, taken, follower := f.uses, f.taken, f.follower
	for i, s := range p.steps {
		sl, ok := s.node.Op.(*canon.Slice)
		if !ok || taken[i] || !p.fusibleOut(s, uses, keep) {
			continue
		}
		if v, ok := p.g.Values.Lookup(s.node.Inputs[0]); !ok || v.DType != canon.Float32 {
			continue
		}
		eff, ok := p.constSlice(s, sl)
		if !ok {
			continue
		}
		j, rs := follower(s)
		if rs == nil {
			continue
		}
		re, ok := rs.node.Op.(*canon.Reshape)
		if !ok || rs.in[0] != s.out[0] || !p.fusibleOut(rs, uses, keep) {
			continue
		}
		target := re.Shape
		if target == nil {
			if len(rs.in) < 2 || rs.in[1] < 0 || p.consts[rs.in[1]] == nil || p.consts[rs.in[1]].isFloat() {
				continue
			}
			target = p.consts[rs.in[1]].i
		}
		chain := &viewChain{slice: eff, target: slices.Clone(target), allowZero: re.AllowZero}
		absorbed := []int{i, j}
		last := rs
		for {
			k, ts := follower(last)
			if ts == nil {
				break
			}
			tr, ok := ts.node.Op.(*canon.Transpose)
			if !ok || ts.in[0] != last.out[0] || tr.Perm == nil || !validPerm(tr.Perm, len(target)) || !p.fusibleOut(ts, nil, nil) {
				break
			}
			if chain.perm == nil {
				chain.perm = make([]int, len(tr.Perm))
				for a, q := range tr.Perm {
					chain.perm[a] = int(q)
				}
			} else {
				// The next Transpose's axis a is the chain's axis perm[a].
				composed := make([]int, len(tr.Perm))
				for a, q := range tr.Perm {
					composed[a] = chain.perm[q]
				}
				chain.perm = composed
			}
			absorbed, last = append(absorbed, k), ts
		}
		if chain.perm == nil {
			continue
		}
		at := absorbed[len(absorbed)-1]
		fs := &step{node: last.node, in: []int{s.in[0]}, out: last.out, f64: last.f64, outDT: last.outDT}
		fs.run = func(x *exec) error { return runViewChain(x, chain) }
		f.replace(at, absorbed, fs)
	}
	f.finish()
}

// constSlice is op with its parameter inputs, all constants, resolved.
func (p *Program) constSlice(s *step, op *canon.Slice) (*canon.Slice, bool) {
	eff := *op
	for k, f := range []*[]int64{&eff.Starts, &eff.Ends, &eff.Axes, &eff.Steps} {
		if k+1 >= len(s.in) || s.in[k+1] < 0 {
			continue
		}
		c := p.consts[s.in[k+1]]
		if c == nil || c.isFloat() || len(c.shape) != 1 {
			return nil, false
		}
		*f = slices.Clone(c.i)
	}
	return &eff, eff.Starts != nil && eff.Ends != nil
}

// validPerm reports a permutation of 0..r-1.
func validPerm(perm []int64, r int) bool {
	if len(perm) != r {
		return false
	}
	seen := make([]bool, r)
	for _, q := range perm {
		if q < 0 || q >= int64(r) || seen[q] {
			return false
		}
		seen[q] = true
	}
	return true
}

// runViewChain runs a planned chain on its float32 input: the Slice as an
// offset and strides into the input, the Reshape as new strides over the
// same elements (or, where the sliced elements cannot be addressed so, on
// a copy of the slice), the Transposes as permuted strides; then one
// strided copy.
func runViewChain(x *exec, c *viewChain) error {
	in := x.in(0)
	if in.dt != canon.Float32 {
		return fmt.Errorf("input is %s where the graph declares float32", in.dt)
	}
	maps, err := sliceMaps(in.shape, c.slice)
	if err != nil {
		return fmt.Errorf("slice: %v", err)
	}
	// Each axis's kept indices are start, start+step, ...: an offset and
	// a stride over the input's own.
	src, off := in, 0
	shape, strides := make([]int, len(maps)), elemStrides(in.shape)
	for a, m := range maps {
		shape[a] = len(m)
		if len(m) > 0 {
			off += strides[a] * m[0]
		}
		if len(m) > 1 {
			strides[a] *= m[1] - m[0]
		}
	}
	target, err := reshapeTarget(shape, c.target, c.allowZero)
	if err != nil {
		return fmt.Errorf("reshape: %v", err)
	}
	if len(c.perm) != len(target) {
		return fmt.Errorf("transpose: perm %v for rank %d", c.perm, len(target))
	}
	oshape := make([]int, len(target))
	for a, q := range c.perm {
		oshape[a] = target[q]
	}
	out := x.newF(oshape)
	if len(out.f) == 0 {
		x.set(0, out)
		return nil
	}
	tstr, ok := viewReshape(shape, strides, target)
	if !ok {
		// Not addressable as strides over the input: slice first.
		src, off = x.gatherT(in, maps, 0), 0
		defer x.p.pool.put(src)
		tstr, _ = viewReshape(shape, elemStrides(shape), target)
	}
	ostr := make([]int, len(target))
	for a, q := range c.perm {
		ostr[a] = tstr[q]
	}
	copyStrided(out.f, src.f, off, oshape, ostr)
	x.set(0, out)
	return nil
}

// viewReshape returns the strides that address the elements of a view
// (shape, strides), in row-major order, as the shape target, or false
// when they cannot: each group of axes whose sizes multiply to the same
// as a group of target axes must be one run of equal spacing.
func viewReshape(shape, strides, target []int) ([]int, bool) {
	// Size-1 axes carry no stride.
	var sh, st []int
	for a, d := range shape {
		if d != 1 {
			sh, st = append(sh, d), append(st, strides[a])
		}
	}
	out := make([]int, len(target))
	i, j := 0, 0
	for j < len(target) {
		if target[j] == 1 {
			out[j] = 0
			j++
			continue
		}
		if i >= len(sh) {
			return nil, false
		}
		// Grow both groups until their sizes agree.
		i1, j1 := i+1, j+1
		pi, pj := sh[i], target[j]
		for pi != pj {
			if pi < pj {
				if i1 >= len(sh) {
					return nil, false
				}
				pi *= sh[i1]
				i1++
			} else {
				for j1 < len(target) && target[j1] == 1 {
					j1++
				}
				if j1 >= len(target) {
					return nil, false
				}
				pj *= target[j1]
				j1++
			}
		}
		// The input group must be evenly spaced: each axis's stride its
		// inner neighbour's times that neighbour's size.
		for a := i; a+1 < i1; a++ {
			if st[a] != st[a+1]*sh[a+1] {
				return nil, false
			}
		}
		inner := st[i1-1]
		for b := j1 - 1; b >= j; b-- {
			out[b] = inner
			inner *= target[b]
		}
		i, j = i1, j1
	}
	if i != len(sh) {
		return nil, false
	}
	return out, true
}

// copyStrided sets dst (row-major, shape) to the elements of src at off +
// Σ index·strides. It walks the axes in the order of their strides in
// src, largest first, so that src is read in runs as long as the view
// allows (a head's rows out of QKV rows read one QKV row after another,
// not one head after another: 2304 floats apart, each in its own pages),
// the innermost axis copied whole where both sides are contiguous along
// it; the walk's outer positions are split between cores.
func copyStrided(dst, src []float32, off int, shape, strides []int) {
	r := len(shape)
	if len(dst) == 0 {
		return
	}
	if r == 0 {
		dst[0] = src[off]
		return
	}
	dstr := elemStrides(shape)
	order := make([]int, r)
	for a := range order {
		order[a] = a
	}
	abs := func(v int) int { return max(v, -v) }
	slices.SortStableFunc(order, func(a, b int) int { return abs(strides[b]) - abs(strides[a]) })
	in := order[r-1]
	if in != r-1 && abs(strides[in]) == 1 && r >= 2 {
		copyTiles(dst, src, off, shape, strides, dstr, in)
		return
	}
	n, sn, dn := shape[in], strides[in], dstr[in]
	outer := order[:r-1]
	positions := len(dst) / max(n, 1)
	parallelFor(positions, n, func(lo, hi int) {
		idx := make([]int, r)
		so, do := off, 0
		for k, q := len(outer)-1, lo; k >= 0; k-- {
			a := outer[k]
			idx[a] = q % shape[a]
			q /= shape[a]
			so += idx[a] * strides[a]
			do += idx[a] * dstr[a]
		}
		for range hi - lo {
			if sn == 1 && dn == 1 {
				copy(dst[do:do+n], src[so:so+n])
			} else {
				for k := range n {
					dst[do+k*dn] = src[so+k*sn]
				}
			}
			for k := len(outer) - 1; k >= 0; k-- {
				a := outer[k]
				idx[a]++
				so += strides[a]
				do += dstr[a]
				if idx[a] < shape[a] {
					break
				}
				so -= strides[a] * shape[a]
				do -= dstr[a] * shape[a]
				idx[a] = 0
			}
		}
	})
}

// copyTiles is copyStrided where src is contiguous along axis a and dst
// along the last axis b: a transpose, done in 16×16 tiles so that both
// sides touch 16 cache lines a tile instead of dst one a float (the keys
// of a transformer's heads, transposed out of the QKV rows: 310 → 20 µs
// with Transpose16's whole blocks, transposeTileF32); a reversed axis
// one value at a time.
// Tiles along b are split between cores, which then write apart.
func copyTiles(dst, src []float32, off int, shape, strides, dstr []int, a int) {
	const tile = 16
	r := len(shape)
	b := r - 1
	var outer []int
	for k := range r {
		if k != a && k != b {
			outer = append(outer, k)
		}
	}
	na, nb := shape[a], shape[b]
	sa, sb, da := strides[a], strides[b], dstr[a]
	tilesB := (nb + tile - 1) / tile
	positions := 1
	for _, k := range outer {
		positions *= shape[k]
	}
	parallelFor(positions*tilesB, tile*na, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			q, b0 := t/tilesB, t%tilesB*tile
			so, do := off, 0
			for k := len(outer) - 1; k >= 0; k-- {
				ax := outer[k]
				i := q % shape[ax]
				q /= shape[ax]
				so += i * strides[ax]
				do += i * dstr[ax]
			}
			b1 := min(b0+tile, nb)
			if sa == 1 && sb > 0 {
				// src's rows along b, dst's along a.
				transposeTileF32(dst[do:], da, src[so:], sb, b0, b1, 0, na)
				continue
			}
			for a0 := 0; a0 < na; a0 += tile {
				a1 := min(a0+tile, na)
				for j := b0; j < b1; j++ {
					sj, dj := so+j*sb, do+j
					for i := a0; i < a1; i++ {
						dst[dj+i*da] = src[sj+i*sa]
					}
				}
			}
		}
	})
}
