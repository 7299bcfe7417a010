package interp

import (
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

func runLinear(x *exec, op *canon.Linear) error {
	a, w, c := x.in(0), x.in(1), x.in(2)
	if a.isF64() || w.isF64() {
		return runLinearF64(x, op)
	}
	if err := needFloat(a, "A"); err != nil {
		return err
	}
	if err := needFloat(w, "W"); err != nil {
		return err
	}
	if len(a.shape) != 2 {
		return fmt.Errorf("A has shape %v, want (M, K)", a.shape)
	}
	if len(w.shape) != 2 || w.shape[1] != a.shape[1] {
		return fmt.Errorf("W has shape %v (layout OI), want (N, %d) to match A %v", w.shape, a.shape[1], a.shape)
	}
	m, k, n := a.shape[0], a.shape[1], w.shape[0]
	y := x.newF([]int{m, n})
	beta := float32(0)
	if c != nil && op.Beta != 0 {
		if err := needFloat(c, "C"); err != nil {
			return err
		}
		if err := broadcastInto(y.f, []int{m, n}, c); err != nil {
			return fmt.Errorf("C: %v", err)
		}
		beta = op.Beta
	}
	switch {
	case m*n == 0:
	case m <= linearDotMaxRows && k > 0:
		linearByDots(m, n, k, op.Alpha, a.f, w.f, y.f, beta)
	default:
		if op.Alpha != 0 {
			// Constant weights are packed once, not on every run.
			if pb := x.constPackedB(1, 0, true, w.f, k, n); pb != nil {
				gemmConstBScaled(m, n, k, op.Alpha, a.f, k, pb, y.f, n, beta)
				break
			}
		}
		gemm(false, true, m, n, k, op.Alpha, a.f, k, w.f, k, y.f, n, beta)
	}
	x.set(0, y)
	return nil
}

// linearDotMaxRows is the most rows of A that Linear multiplies by dot
// products with W's rows: for so few rows, the packed GEMM would spend more
// time copying all of W into its transposed panels than multiplying.
const linearDotMaxRows = 4

// linearByDots sets y (m×n) to alpha·a·wᵀ + beta·y, where a is m×k and w is
// n×k, as dot products of their contiguous rows (vector FMA, any alignment),
// W's rows split across workers, four neighbouring rows at a time
// (dot32x4: each row of A read once per four rows of W). Neighbouring rows
// are one run through memory: with W coming from DRAM (a classifier's
// weights after the rest of a run) they read 1.6× as fast as four runs a
// quarter of W apart, and as fast when W is in cache (1×1280 by
// 1000×1280: 291 against 466 µs cold, 177 against 189 hot).
func linearByDots(m, n, k int, alpha float32, a, w, y []float32, beta float32) {
	put := func(i, j int, dot float32) {
		v := alpha * dot
		if beta != 0 {
			v += beta * y[i*n+j]
		}
		y[i*n+j] = v
	}
	parallelFor(n, 2*m*k, func(lo, hi int) {
		j := lo
		for ; j+4 <= hi; j += 4 {
			for i := range m {
				var d [4]float32
				dot32x4(a[i*k:(i+1)*k], w[j*k:(j+4)*k], k, &d)
				for r, v := range d {
					put(i, j+r, v)
				}
			}
		}
		for ; j < hi; j++ {
			for i := range m {
				put(i, j, dot32(a[i*k:(i+1)*k], w[j*k:(j+1)*k]))
			}
		}
	})
}

// broadcastInto fills dst (of shape) with t broadcast to shape.
func broadcastInto(dst []float32, shape []int, t *tensor) error {
	bs, err := broadcastShape(shape, t.shape)
	if err != nil || !slices.Equal(bs, shape) {
		return fmt.Errorf("shape %v does not broadcast to %v", t.shape, shape)
	}
	p := newBcast(shape, shape, t.shape)
	last := len(p.dims) - 1
	n, sb := p.dims[last], p.sb[last]
	p.rows(func(o, _, ob int) {
		d := dst[o : o+n]
		if sb == 0 {
			v := t.f[ob]
			for i := range d {
				d[i] = v
			}
		} else {
			copy(d, t.f[ob:ob+n])
		}
	})
	return nil
}

func runMatMul(x *exec) error {
	a, b := x.in(0), x.in(1)
	if a.isFloat() != b.isFloat() || (!a.isFloat() && a.dt != b.dt) {
		return fmt.Errorf("operands have different dtypes %s and %s", a.dt, b.dt)
	}
	if len(a.shape) == 0 || len(b.shape) == 0 {
		return fmt.Errorf("operands must have rank >= 1, have %v and %v", a.shape, b.shape)
	}
	as, bs := a.shape, b.shape
	if len(as) == 1 {
		as = []int{1, as[0]}
	}
	if len(bs) == 1 {
		bs = []int{bs[0], 1}
	}
	m, k := as[len(as)-2], as[len(as)-1]
	k2, n := bs[len(bs)-2], bs[len(bs)-1]
	if k != k2 {
		return fmt.Errorf("shapes %v and %v: inner dimensions %d and %d differ", a.shape, b.shape, k, k2)
	}
	batch, err := broadcastShape(as[:len(as)-2], bs[:len(bs)-2])
	if err != nil {
		return err
	}
	outShape := append(append([]int{}, batch...), m, n)
	var final []int
	final = append(final, batch...)
	if len(a.shape) > 1 {
		final = append(final, m)
	}
	if len(b.shape) > 1 {
		final = append(final, n)
	}
	y := x.newLike(a, final)
	if numel(outShape) == 0 {
		x.set(0, y)
		return nil
	}
	nb := numel(batch)
	offA, offB := make([]int, 0, nb), make([]int, 0, nb)
	if len(batch) == 0 {
		offA, offB = append(offA, 0), append(offB, 0)
	} else {
		p := newBcast(batch, as[:len(as)-2], bs[:len(bs)-2])
		last := len(p.dims) - 1
		rl, sa, sb := p.dims[last], p.sa[last], p.sb[last]
		p.rows(func(_, oa, ob int) {
			for i := 0; i < rl; i++ {
				offA = append(offA, (oa+i*sa)*m*k)
				offB = append(offB, (ob+i*sb)*k*n)
			}
		})
	}
	if a.isF64() {
		clear(y.d)
		for bi := range nb {
			matMulF64(m, n, k, a.d[offA[bi]:], k, false, b.d[offB[bi]:], n, false, y.d[bi*m*n:], 1)
		}
		x.set(0, y)
		return nil
	}
	if !a.isFloat() {
		for bi := range nb {
			av, bv, yv := a.i[offA[bi]:], b.i[offB[bi]:], y.i[bi*m*n:]
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					var s int64
					for l := 0; l < k; l++ {
						s += av[i*k+l] * bv[l*n+j]
					}
					yv[i*n+j] = s
				}
			}
		}
		wrapInts(y.dt, y.i)
		x.set(0, y)
		return nil
	}
	if x.matMulConstB(a, b, as, bs, nb, m, n, k, y) {
		// The right operand is a constant matrix, packed once.
	} else if nb > 1 && numel(bs[:len(bs)-2]) == 1 && numel(as[:len(as)-2]) == nb {
		// One shared right operand: fold the batch into M.
		gemm(false, false, nb*m, n, k, 1, a.f, k, b.f, n, y.f, n, 0)
	} else {
		batchedGemm(nb, false, false, m, n, k, a.f, offA, b.f, offB, y.f)
	}
	x.set(0, y)
	return nil
}

// batchedGemm computes y[bi] = a[offA[bi]:]·b[offB[bi]:] (m×k by k×n, rows
// packed; ta and tb: the operand is stored transposed, k×m or n×k) for nb
// products. Several products run side by side, one per core, rather than
// each being split across cores: a product the size of an attention head
// is too small to split well.
func batchedGemm(nb int, ta, tb bool, m, n, k int, a []float32, offA []int, b []float32, offB []int, y []float32) {
	lda, ldb := k, n
	if ta {
		lda = m
	}
	if tb {
		ldb = k
	}
	one := func(bi int, mul func(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, beta float32)) {
		mul(ta, tb, m, n, k, 1, a[offA[bi]:offA[bi]+m*k], lda, b[offB[bi]:offB[bi]+k*n], ldb, y[bi*m*n:(bi+1)*m*n], n, 0)
	}
	if nb < 2 || m*n*k >= 1<<22 {
		for bi := range nb {
			one(bi, gemm)
		}
		return
	}
	parallelFor(nb, 2*m*n*k, func(lo, hi int) {
		for bi := lo; bi < hi; bi++ {
			one(bi, gemmSerial)
		}
	})
}
