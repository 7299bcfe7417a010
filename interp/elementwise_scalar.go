package interp

import (
	"slices"

	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// vecBinOp is fn as the vector kernels' operation, for rows of two
// operands and rows where one operand is a single value broadcast over
// the row (a squeeze-excite block's per-channel scale, a per-channel
// shift): the vector kernels do the scalar loop's one float32 operation an
// element, so the results are its bits.
func vecBinOp(fn binFn) (vec.BinOp, bool) {
	switch fn {
	case binAdd:
		return vec.BinAdd, true
	case binSub:
		return vec.BinSub, true
	case binMul:
		return vec.BinMul, true
	case binDiv:
		return vec.BinDiv, true
	}
	return 0, false
}

// binPerRow computes out = a ∘ b for float32 operands where one has out's
// shape and the other one value for each row of it (a squeeze-excite
// block's per-channel scale over 7×7 planes: a call a row cost more than
// the products), all rows at once, and reports whether it did.
func binPerRow(fn binFn, p bcastPlan, a, b, out *tensor) bool {
	op, ok := vecBinOp(fn)
	last := len(p.dims) - 1
	n := p.dims[last]
	if !ok || !useAVX512 {
		return false
	}
	full, k, left := a, b, false
	switch {
	case p.sa[last] == 1 && p.sb[last] == 0 && slices.Equal(a.shape, out.shape):
	case p.sb[last] == 1 && p.sa[last] == 0 && slices.Equal(b.shape, out.shape):
		full, k, left = b, a, true
	default:
		return false
	}
	rows := p.outerRows()
	ks := p.sb
	if left {
		ks = p.sa
	}
	// k's value for row r is k.f[r] when k has a value for every row in
	// order (a [1, C, 1, 1] scale of [1, C, H, W]): no gather.
	inOrder := len(k.f) == rows
	for d, st := last-1, 1; d >= 0 && inOrder; d-- {
		inOrder = ks[d] == st || p.dims[d] == 1
		st *= p.dims[d]
	}
	parallelFor(rows, n, func(lo, hi int) {
		if inOrder {
			vec.BinPerRow(op, out.f[lo*n:hi*n], full.f[lo*n:hi*n], k.f[lo:hi], n, left)
			return
		}
		kp := getPack(hi - lo)
		defer packPool.Put(kp)
		kv := (*kp)[:hi-lo]
		i := 0
		p.rowRange(lo, hi, func(_, oa, ob int) {
			if left {
				kv[i] = k.f[oa]
			} else {
				kv[i] = k.f[ob]
			}
			i++
		})
		vec.BinPerRow(op, out.f[lo*n:hi*n], full.f[lo*n:hi*n], kv, n, left)
	})
	return true
}
