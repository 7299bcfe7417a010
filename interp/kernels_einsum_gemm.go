package interp

import (
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// einsumAsMatMul computes a two-operand float32 Einsum as a batched matrix
// product: every label is a batch label (in both operands and the output),
// an M label (first operand and output), an N label (second operand and
// output) or a K label (both operands, summed). The operands are permuted
// to (batch, M, K) and (batch, K, N), multiplied with gemm, and the
// product permuted to the output's order. It reports false, leaving the
// work to the general loop, for any other equation (a repeated label, a
// label summed within one operand, a broadcast axis of size 1).
func einsumAsMatMul(x *exec, p *canon.EinsumPlan, ins []*tensor, sizes []int) (*tensor, bool) {
	if len(ins) != 2 || !ins[0].isFloat() || !ins[1].isFloat() {
		return nil, false
	}
	where := make([]int, p.Labels) // bit 0: in A, bit 1: in B, bit 2: in the output
	for i, labels := range p.Operands {
		for a, l := range labels {
			if where[l]&(1<<i) != 0 || ins[i].shape[a] != sizes[l] {
				return nil, false
			}
			where[l] |= 1 << i
		}
	}
	for _, l := range p.Output {
		where[l] |= 4
	}
	var batch, ms, ns, ks []int
	for l, w := range where {
		switch w {
		case 7:
			batch = append(batch, l)
		case 5:
			ms = append(ms, l)
		case 6:
			ns = append(ns, l)
		case 3:
			ks = append(ks, l)
		default:
			return nil, false
		}
	}
	prod := func(ls []int) int {
		n := 1
		for _, l := range ls {
			n *= sizes[l]
		}
		return n
	}
	nb, m, n, k := prod(batch), prod(ms), prod(ns), prod(ks)
	if nb*m*n*k == 0 {
		return nil, false
	}
	concat := func(parts ...[]int) []int {
		var out []int
		for _, q := range parts {
			out = append(out, q...)
		}
		return out
	}
	// An operand stored as (batch, K, M) or (batch, N, K) is read in
	// place by the GEMM as a transposed matrix (bhid,bhjd->bhij: Kᵀ).
	a, ta := operandAs(x, ins[0], p.Operands[0], concat(batch, ms, ks), concat(batch, ks, ms), sizes)
	b, tb := operandAs(x, ins[1], p.Operands[1], concat(batch, ks, ns), concat(batch, ns, ks), sizes)
	ymn := concat(batch, ms, ns)
	y := x.newF(labelShape(ymn, sizes))
	offA, offB := make([]int, nb), make([]int, nb)
	for bi := range nb {
		offA[bi], offB[bi] = bi*m*k, bi*k*n
	}
	batchedGemm(nb, ta, tb, m, n, k, a, offA, b, offB, y.f)
	if slices.Equal(ymn, p.Output) {
		return y, true
	}
	out := x.newF(labelShape(p.Output, sizes))
	permute(out.f, y.f, out.shape, labelStrides(y.shape, ymn, p.Output))
	return out, true
}

// labelShape is the sizes of labels ls.
func labelShape(ls []int, sizes []int) []int {
	shape := make([]int, len(ls))
	for i, l := range ls {
		shape[i] = sizes[l]
	}
	return shape
}

// labelStrides is, for each label of want, its stride in a row-major
// tensor of the given shape whose axes carry labels have.
func labelStrides(shape []int, have, want []int) []int {
	es := elemStrides(shape)
	str := make([]int, len(want))
	for i, l := range want {
		for a, h := range have {
			if h == l {
				str[i] = es[a]
			}
		}
	}
	return str
}

// operandAs returns t's data in the label order want, or, when t already
// lies in the order transposed (a GEMM reads that in place), t's data and
// true.
func operandAs(x *exec, t *tensor, have, want, transposed []int, sizes []int) ([]float32, bool) {
	if !slices.Equal(have, want) && slices.Equal(have, transposed) {
		return t.f, true
	}
	return permuteLabels(x, t, have, want, sizes), false
}

// permuteLabels returns t's data with its axes (labelled have) reordered to
// want, without a copy when the order is already right.
func permuteLabels(x *exec, t *tensor, have, want []int, sizes []int) []float32 {
	if slices.Equal(have, want) {
		return t.f
	}
	dst := x.newF(labelShape(want, sizes))
	permute(dst.f, t.f, dst.shape, labelStrides(t.shape, have, want))
	return dst.f
}
