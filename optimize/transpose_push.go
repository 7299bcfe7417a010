package optimize

import (
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
// The op's definition answers (canon.RemapAxes); this checks the output
// ranks the answer assumes. rank gives the static rank of a value.
func pushThrough(n *canon.Node, perm []int64, rank func(string) (int, bool)) (pushedOp, bool) {
	rm, ok := canon.RemapAxes(n, perm)
	if !ok || len(n.Outputs) == 0 || n.Outputs[0] == "" || len(rm.Outputs) != len(n.Outputs) {
		return pushedOp{}, false
	}
	for i, p := range rm.Outputs {
		if p == nil || n.Outputs[i] == "" {
			continue
		}
		if k, ok := rank(n.Outputs[i]); !ok || k != len(p) {
			return pushedOp{}, false
		}
	}
	return pushedOp{op: rm.Op, dataSlots: rm.Slots, outPerms: rm.Outputs}, true
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
