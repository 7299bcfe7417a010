package canon

// AccumulationLength of the kinds that sum products (OpDef slot): how
// many terms each output element's sums hold, so that the comparison
// tolerance can allow for the rounding of re-associated sums.

// kernelSum is the AccumulationLength of a convolution whose weight is
// input slot w in layout O, I/group, spatial...: I/group × kernel size.
func kernelSum(w int) func(*Node, InputShapes) int64 {
	return func(_ *Node, shapes InputShapes) int64 {
		if s := shapes(w); len(s) > 1 {
			return NumElements(s[1:])
		}
		return 0
	}
}

// convTransposeSum: the weight is I, O/group, spatial...; each output sums
// I/group input channels over the kernel.
func convTransposeSum(n *Node, shapes InputShapes) int64 {
	op := n.Op.(*ConvTranspose)
	if s := shapes(1); len(s) > 1 && op.Group > 0 {
		return s[0] / op.Group * NumElements(s[2:])
	}
	return 0
}

// einsumSum: the product of the sizes of the labels summed away (those
// the output lacks).
func einsumSum(n *Node, shapes InputShapes) int64 {
	eq, err := ParseEinsum(n.Op.(*Einsum).Equation)
	if err != nil {
		return 0
	}
	ranks := make([]int, len(n.Inputs))
	all := make([][]int64, len(n.Inputs))
	for i := range n.Inputs {
		if all[i] = shapes(i); all[i] == nil {
			return 0
		}
		ranks[i] = len(all[i])
	}
	p, err := eq.Bind(ranks)
	if err != nil {
		return 0
	}
	sizes, err := p.Sizes(all)
	if err != nil {
		return 0
	}
	kept := make([]bool, p.Labels)
	for _, l := range p.Output {
		kept[l] = true
	}
	k := int64(1)
	for l, s := range sizes {
		if !kept[l] && s > 0 {
			k *= s
		}
	}
	return k
}

// attentionSum: Q·Kᵀ sums over the head size, then the scores times V over
// every key (the cache's and the new ones).
func attentionSum(n *Node, shapes InputShapes) int64 {
	op := n.Op.(*Attention)
	q, k := shapes(AttnQ), shapes(AttnK)
	var head, keys int64
	switch {
	case len(q) == 4 && len(k) == 4:
		head, keys = q[3], k[2]
	case len(q) == 3 && len(k) == 3 && op.QNumHeads > 0:
		head, keys = q[2]/op.QNumHeads, k[1]
	default:
		return 0
	}
	if past := shapes(AttnPastKey); len(past) == 4 {
		keys += past[2]
	}
	return head + keys
}

// recurrentSum: each step's gates sum over the input and the hidden state,
// and the rounding of every step carries into the next: sequence length ×
// (input size + hidden size).
func recurrentSum(n *Node, shapes InputShapes) int64 {
	x, w, r := shapes(RecX), shapes(RecW), shapes(RecR)
	if len(x) != 3 || len(w) != 3 || len(r) != 3 {
		return 0
	}
	steps := x[0]
	if n.Op.(RecurrentOp).Rec().BatchFirst {
		steps = x[1]
	}
	return steps * (w[2] + r[2])
}
