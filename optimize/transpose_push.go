package optimize

import (
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// pushedOp is a node rewritten to run on untransposed data: its transposed
// inputs carried Transpose(perm) (original = Transpose_perm(new)), and the
// rewritten node computes outputs related to the original ones by outPerms
// (nil: the output is the original value itself, nothing to undo).
type pushedOp struct {
	op canon.Op
	// dataSlots are the inputs that live in the transposed layout and must
	// be given untransposed; the other inputs (Clip bounds, Pad value,
	// Split sizes) are scalars or lists that do not depend on the layout.
	dataSlots []int
	outPerms  [][]int64
}

// pushThrough says how node n runs when its layout-carrying inputs are
// given untransposed, where the original inputs were Transpose(perm) of
// them; ok is false for ops the pass does not move a Transpose through.
// rank gives the static rank of a value.
func pushThrough(n *canon.Node, perm []int64, rank func(string) (int, bool)) (pushedOp, bool) {
	r := len(perm)
	outRank := func(i int) bool {
		if i >= len(n.Outputs) || n.Outputs[i] == "" {
			return false
		}
		k, ok := rank(n.Outputs[i])
		return ok && k == r
	}
	// same is for single-output ops whose output keeps the input's layout.
	same := func(op canon.Op, slots ...int) (pushedOp, bool) {
		if !outRank(0) {
			return pushedOp{}, false
		}
		return pushedOp{op: op, dataSlots: slots, outPerms: [][]int64{perm}}, true
	}
	if t := canon.TraitsOf(n.Op); t.Elementwise {
		// An elementwise op commutes with a Transpose. When its inputs
		// broadcast against each other every input carries the layout
		// (a lower-rank constant is stored permuted); otherwise only input
		// 0 does, and the rest are layout-free scalars such as Clip's bounds.
		if !t.Broadcasts {
			return same(n.Op, 0)
		}
		return same(n.Op, allSlots(n)...)
	}
	// The ops below need their typed axis attributes remapped.
	switch op := n.Op.(type) {
	case *canon.Softmax:
		a, ok := axisIn(op.Axis, r)
		if !ok {
			return pushedOp{}, false
		}
		return same(&canon.Softmax{Axis: perm[a]}, 0)
	case *canon.Concat:
		a, ok := axisIn(op.Axis, r)
		if !ok {
			return pushedOp{}, false
		}
		return same(&canon.Concat{Axis: perm[a]}, allSlots(n)...)
	case *canon.Split:
		a, ok := axisIn(op.Axis, r)
		if !ok {
			return pushedOp{}, false
		}
		outs := make([][]int64, len(n.Outputs))
		for i := range n.Outputs {
			if n.Outputs[i] != "" && !outRank(i) {
				return pushedOp{}, false
			}
			outs[i] = perm
		}
		return pushedOp{op: &canon.Split{Axis: perm[a], Sizes: op.Sizes}, dataSlots: []int{0}, outPerms: outs}, true
	case *canon.Pad:
		// Only attribute pads: a Pads input would need permuting at run time.
		if (len(n.Inputs) > 1 && n.Inputs[1] != "") || op.Axes != nil || len(op.PadsBegin) != r || len(op.PadsEnd) != r {
			return pushedOp{}, false
		}
		pb, pe := make([]int64, r), make([]int64, r)
		for i, a := range perm {
			pb[a], pe[a] = op.PadsBegin[i], op.PadsEnd[i]
		}
		return same(&canon.Pad{Mode: op.Mode, PadsBegin: pb, PadsEnd: pe, Value: op.Value}, 0)
	case *canon.Reduce:
		return pushReduceMean(n, op, perm, outRank)
	}
	return pushedOp{}, false
}

// allSlots lists every input slot of n.
func allSlots(n *canon.Node) []int {
	slots := make([]int, len(n.Inputs))
	for i := range slots {
		slots[i] = i
	}
	return slots
}

// pushReduceMean maps the reduced axes of any Reduce through perm. Without KeepDims the
// output keeps the unreduced axes in their untransposed order, which is
// often the original order already (NHWC mean over H, W gives N, C either
// way): then no Transpose is needed after it at all.
func pushReduceMean(n *canon.Node, op *canon.Reduce, perm []int64, outRank func(int) bool) (pushedOp, bool) {
	r := len(perm)
	if n.Outputs[0] == "" || canon.HasRuntimeParams(n) { // run-time axes would need permuting at run time
		return pushedOp{}, false
	}
	if len(op.Axes) == 0 { // every axis: the result does not depend on the layout
		return pushedOp{op: op, dataSlots: []int{0}, outPerms: [][]int64{nil}}, true
	}
	reduced := make([]bool, r)
	var axes []int64
	for _, a := range op.Axes {
		ax, ok := axisIn(a, r)
		if !ok || reduced[ax] {
			return pushedOp{}, false
		}
		reduced[ax] = true
		axes = append(axes, perm[ax])
	}
	slices.Sort(axes)
	nop := &canon.Reduce{Fn: op.Fn, Axes: axes, KeepDims: op.KeepDims}
	if op.KeepDims {
		if !outRank(0) {
			return pushedOp{}, false
		}
		return pushedOp{op: nop, dataSlots: []int{0}, outPerms: [][]int64{perm}}, true
	}
	// Original output axis k is the k-th kept axis i_k, which is axis
	// perm[i_k] of the untransposed input; the new output keeps those
	// untransposed axes in ascending order.
	var kept []int64
	for i, a := range perm {
		if !reduced[i] {
			kept = append(kept, a)
		}
	}
	sorted := slices.Clone(kept)
	slices.Sort(sorted)
	q := make([]int64, len(kept))
	for k, a := range kept {
		q[k] = int64(slices.Index(sorted, a))
	}
	if isIdentityPerm(q) {
		q = nil
	}
	return pushedOp{op: nop, dataSlots: []int{0}, outPerms: [][]int64{q}}, true
}

func axisIn(a int64, r int) (int, bool) {
	if a < 0 {
		a += int64(r)
	}
	if a < 0 || a >= int64(r) {
		return 0, false
	}
	return int(a), true
}

// invertPerm returns q with q[p[i]] = i, or nil if p is not a permutation.
func invertPerm(p []int64) []int64 {
	q := make([]int64, len(p))
	seen := make([]bool, len(p))
	for i, a := range p {
		if a < 0 || int(a) >= len(p) || seen[a] {
			return nil
		}
		seen[a] = true
		q[a] = int64(i)
	}
	return q
}

// permuteConstant returns the constant c' with Transpose_perm(c') equal to
// c broadcast to rank len(perm): c is first aligned to that rank with
// leading 1s (NumPy broadcasting), its axes are permuted by the inverse of
// perm, and leading 1s are dropped again (they broadcast the same). A
// per-channel NHWC bias [C] under perm [0,2,3,1] becomes [C,1,1].
func permuteConstant(c *canon.Tensor, perm []int64, name string) (*canon.Tensor, bool) {
	r := len(perm)
	if len(c.Shape) > r || c.DType.Size() <= 0 || c.CheckData() != nil {
		return nil, false
	}
	inv := invertPerm(perm)
	if inv == nil {
		return nil, false
	}
	aligned := make([]int64, r)
	for i := range aligned {
		aligned[i] = 1
	}
	copy(aligned[r-len(c.Shape):], c.Shape)
	data, shape := transposeBytes(c.Data, aligned, inv, c.DType.Size())
	for len(shape) > 1 && shape[0] == 1 {
		shape = shape[1:]
	}
	return &canon.Tensor{Name: name, DType: c.DType, Shape: shape, Data: data}, true
}

// transposeBytes permutes a dense row-major array: output axis i is input
// axis perm[i].
func transposeBytes(data []byte, shape, perm []int64, size int) ([]byte, []int64) {
	r := len(shape)
	outShape := make([]int64, r)
	strides := make([]int64, r) // input strides in elements
	s := int64(1)
	for i := r - 1; i >= 0; i-- {
		strides[i] = s
		s *= shape[i]
	}
	outStrides := make([]int64, r) // input stride of each output axis
	for i, a := range perm {
		outShape[i] = shape[a]
		outStrides[i] = strides[a]
	}
	out := make([]byte, len(data))
	idx := make([]int64, r)
	src := int64(0)
	for dst := 0; dst+size <= len(out); dst += size {
		copy(out[dst:dst+size], data[src*int64(size):(src+1)*int64(size)])
		for i := r - 1; i >= 0; i-- {
			idx[i]++
			src += outStrides[i]
			if idx[i] < outShape[i] {
				break
			}
			src -= outStrides[i] * idx[i]
			idx[i] = 0
		}
	}
	return out, outShape
}
