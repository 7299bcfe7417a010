package interp

import (
	"fmt"
	"sort"

	"github.com/modelbridge/modelbridge/canon"
)

// runResize resolves the op against the input shape (canon's Plan), builds
// each axis' taps once and resamples axis by axis: nearest as one gather
// (any dtype), linear and cubic as weighted sums in float64.
func runResize(x *exec, op *canon.Resize) error {
	in := x.in(0)
	op, err := x.resizeParams(op)
	if err != nil {
		return err
	}
	r := len(in.shape)
	inShape := make([]int64, r)
	for k, d := range in.shape {
		inShape[k] = int64(d)
	}
	plan, err := op.Plan(inShape)
	if err != nil {
		return err
	}
	outShape := make([]int, r)
	for k, d := range plan.Out {
		outShape[k] = int(d)
	}
	// Size the output before building per-index tables.
	checkedNumel(outShape, 4)
	taps := make([][][]canon.Tap, r)
	outside := make([][]bool, r)
	for k := range r {
		n := plan.Out[k]
		if in.shape[k] == 0 && n > 0 {
			return fmt.Errorf("cannot resize empty axis %d to %d", k, n)
		}
		rs, re := 0.0, 1.0
		if plan.RoiStart != nil {
			rs, re = plan.RoiStart[k], plan.RoiEnd[k]
		}
		taps[k] = make([][]canon.Tap, n)
		outside[k] = make([]bool, n)
		for o := range n {
			taps[k][o], outside[k][o] = op.Taps(o, inShape[k], n, plan.Scales[k], rs, re)
		}
	}
	if op.Mode == canon.ResizeNearest {
		maps := make([][]int, r)
		for k := range r {
			maps[k] = make([]int, len(taps[k]))
			for o, t := range taps[k] {
				if outside[k][o] {
					maps[k][o] = -1
				} else {
					maps[k][o] = int(t[0].Index)
				}
			}
		}
		x.set(0, x.gatherT(in, maps, op.ExtrapolationValue))
		return nil
	}
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	checkedNumel(in.shape, 8)
	shape := append([]int(nil), in.shape...)
	// Shrinking axes first keeps every intermediate within the larger of
	// the input and the output.
	order := make([]int, 0, r)
	for k := range r {
		if !identityTaps(taps[k], outside[k], shape[k]) {
			order = append(order, k)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		return plan.Out[a]*inShape[b] < plan.Out[b]*inShape[a]
	})
	if resizeByRows && plan.RoiStart == nil && resizeLastTwo(x, in, outShape, taps, order) {
		return nil
	}
	cur := make([]float64, len(in.f))
	parallelFor(len(cur), 1, func(lo, hi int) {
		for i, v := range in.f[lo:hi] {
			cur[lo+i] = float64(v)
		}
	})
	for _, k := range order {
		next := append([]int(nil), shape...)
		next[k] = len(taps[k])
		checkedNumel(next, 8)
		cur, shape = resampleAxis(cur, shape, k, taps[k])
	}
	out := x.newF(outShape)
	parallelFor(len(cur), 1, func(lo, hi int) {
		for i, v := range cur[lo:hi] {
			out.f[lo+i] = float32(v)
		}
	})
	// TFCropAndResize: a point outside the input on any axis takes the
	// extrapolation value.
	if plan.RoiStart != nil {
		fillOutside(out.f, outShape, outside, op.ExtrapolationValue)
	}
	x.set(0, out)
	return nil
}

// identityTaps reports whether an axis' taps copy the input unchanged.
func identityTaps(taps [][]canon.Tap, outside []bool, n int) bool {
	if len(taps) != n {
		return false
	}
	for o, t := range taps {
		if outside[o] {
			return false
		}
		for _, tp := range t {
			if tp.Weight != 0 && (tp.Index != int64(o) || tp.Weight != 1) {
				return false
			}
		}
	}
	return true
}

// resampleAxis applies one axis' taps to row-major data of the given shape.
func resampleAxis(src []float64, shape []int, axis int, taps [][]canon.Tap) ([]float64, []int) {
	outer, inner := numel(shape[:axis]), numel(shape[axis+1:])
	n, m := shape[axis], len(taps)
	dst := make([]float64, outer*m*inner)
	maxTaps := 1
	for _, t := range taps {
		maxTaps = max(maxTaps, len(t))
	}
	// Output rows (a block b, an output index o) are independent: split
	// between cores, each is summed as on one.
	parallelFor(outer*m, 2*maxTaps*inner, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			b, o := r/m, r%m
			s := src[b*n*inner : (b+1)*n*inner]
			row := dst[r*inner : (r+1)*inner]
			for _, tp := range taps[o] {
				if tp.Weight == 0 {
					continue
				}
				col := s[int(tp.Index)*inner : (int(tp.Index)+1)*inner]
				for i, v := range col {
					row[i] += tp.Weight * v
				}
			}
		}
	})
	shape = append([]int(nil), shape...)
	shape[axis] = m
	return dst, shape
}

// fillOutside sets every element whose index is outside on some axis.
func fillOutside(f []float32, shape []int, outside [][]bool, v float32) {
	idx := make([]int, len(shape))
	for i := range f {
		for k, o := range idx {
			if outside[k][o] {
				f[i] = v
				break
			}
		}
		for k := len(shape) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
}
