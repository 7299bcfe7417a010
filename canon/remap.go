package canon

import "slices"

// RemapAxes of the kinds whose axis attributes follow their input's axis
// order (OpDef slot; see RemapAxes). Each maps its attributes through perm:
// original axis a is axis perm[a] of the re-ordered input.

// softmaxRemap: the normalized axis moves with the data.
func softmaxRemap(n *Node, perm []int64) (Remap, bool) {
	a, ok := remapAxis(n.Op.(*Softmax).Axis, perm)
	if !ok {
		return Remap{}, false
	}
	return sameOrder(&Softmax{Axis: a}, perm, 0)
}

// concatRemap: every input carries the layout; the joined axis moves.
func concatRemap(n *Node, perm []int64) (Remap, bool) {
	a, ok := remapAxis(n.Op.(*Concat).Axis, perm)
	if !ok {
		return Remap{}, false
	}
	return sameOrder(&Concat{Axis: a}, perm, allInputs(n)...)
}

// splitRemap: the cut axis moves; every output keeps the layout.
func splitRemap(n *Node, perm []int64) (Remap, bool) {
	op := n.Op.(*Split)
	a, ok := remapAxis(op.Axis, perm)
	if !ok {
		return Remap{}, false
	}
	outs := make([][]int64, len(n.Outputs))
	for i := range outs {
		outs[i] = perm
	}
	return Remap{Op: &Split{Axis: a, Sizes: op.Sizes}, Slots: []int{0}, Outputs: outs}, true
}

// padRemap: attribute pads are permuted (pads given at run time would
// need permuting at run time).
func padRemap(n *Node, perm []int64) (Remap, bool) {
	op := n.Op.(*Pad)
	r := len(perm)
	if (len(n.Inputs) > 1 && n.Inputs[1] != "") || op.Axes != nil || len(op.PadsBegin) != r || len(op.PadsEnd) != r {
		return Remap{}, false
	}
	pb, pe := make([]int64, r), make([]int64, r)
	for i, a := range perm {
		pb[a], pe[a] = op.PadsBegin[i], op.PadsEnd[i]
	}
	return sameOrder(&Pad{Mode: op.Mode, PadsBegin: pb, PadsEnd: pe, Value: op.Value}, perm, 0)
}

// reduceRemap maps the reduced axes through perm. Without KeepDims the
// output keeps the unreduced axes in their re-ordered order, which is often
// the original order already (NHWC mean over H, W gives N, C either way):
// then the output needs no Transpose at all.
func reduceRemap(n *Node, perm []int64) (Remap, bool) {
	op := n.Op.(*Reduce)
	r := len(perm)
	if len(n.Outputs) == 0 || n.Outputs[0] == "" || HasRuntimeParams(n) { // run-time axes would need permuting at run time
		return Remap{}, false
	}
	if len(op.Axes) == 0 { // every axis: the result does not depend on the layout
		return Remap{Op: op, Slots: []int{0}, Outputs: [][]int64{nil}}, true
	}
	reduced := make([]bool, r)
	var axes []int64
	for _, a := range op.Axes {
		ax, ok := normAxis(a, r)
		if !ok || reduced[ax] {
			return Remap{}, false
		}
		reduced[ax] = true
		axes = append(axes, perm[ax])
	}
	slices.Sort(axes)
	nop := &Reduce{Fn: op.Fn, Axes: axes, KeepDims: op.KeepDims}
	if op.KeepDims {
		return Remap{Op: nop, Slots: []int{0}, Outputs: [][]int64{perm}}, true
	}
	// Original output axis k is the k-th kept axis i_k, which is axis
	// perm[i_k] of the re-ordered input; the new output keeps those axes
	// in ascending order.
	var kept []int64
	for i, a := range perm {
		if !reduced[i] {
			kept = append(kept, a)
		}
	}
	sorted := slices.Clone(kept)
	slices.Sort(sorted)
	q := make([]int64, len(kept))
	identity := true
	for k, a := range kept {
		q[k] = int64(slices.Index(sorted, a))
		identity = identity && q[k] == int64(k)
	}
	if identity {
		q = nil
	}
	return Remap{Op: nop, Slots: []int{0}, Outputs: [][]int64{q}}, true
}
