package optimize

import (
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// fusePadConv folds a zero constant Pad of the spatial axes into the pads of
// the Convs that read it (tf2onnx and Keras exports write explicit Pads in
// front of convs with "valid" padding). A conv pads with zeros itself, so
// Conv(Pad(x, p), pads q) = Conv(x, pads p + q) exactly; the padded tensor
// is no longer materialized.
func fusePadConv(g *canon.Graph) (bool, error) {
	if err := g.Infer(); err != nil {
		return false, err
	}
	ix := newIndex(g)
	dead := map[*canon.Node]bool{}
	for _, n := range g.Nodes {
		op, ok := n.Op.(*canon.Pad)
		if !ok || op.Mode != canon.PadConstant || op.Value != 0 || len(n.Inputs) != 1 || len(n.Outputs) != 1 {
			continue
		}
		x, y := n.Inputs[0], n.Outputs[0]
		rank, ok := rankOf(g, x)
		if !ok || rank < 3 || ix.isOutput[y] {
			continue
		}
		begin, end, ok := padsPerAxis(op, rank)
		if !ok || begin[0] != 0 || end[0] != 0 || begin[1] != 0 || end[1] != 0 {
			continue
		}
		convs := ix.consumers[y]
		if len(convs) == 0 || slices.ContainsFunc(convs, func(c *canon.Node) bool {
			cop, ok := c.Op.(*canon.Conv)
			return !ok || dead[c] || c.Inputs[0] != y || slices.Contains(c.Inputs[1:], y) ||
				len(cop.PadsBegin) != rank-2 || len(cop.PadsEnd) != rank-2
		}) {
			continue
		}
		for _, c := range convs {
			cop := *c.Op.(*canon.Conv)
			cop.PadsBegin, cop.PadsEnd = slices.Clone(cop.PadsBegin), slices.Clone(cop.PadsEnd)
			for a := 0; a < rank-2; a++ {
				cop.PadsBegin[a] += begin[2+a]
				cop.PadsEnd[a] += end[2+a]
			}
			c.Op = &cop
			c.Inputs[0] = x
		}
		dead[n] = true
	}
	removeNodes(g, dead)
	return len(dead) > 0, nil
}

// padsPerAxis spreads a Pad's pads over all rank axes; false when a pad is
// negative (a crop) or the axes are invalid.
func padsPerAxis(op *canon.Pad, rank int) ([]int64, []int64, bool) {
	begin, end := make([]int64, rank), make([]int64, rank)
	axes := op.Axes
	if axes == nil {
		if len(op.PadsBegin) != rank || len(op.PadsEnd) != rank {
			return nil, nil, false
		}
		for a := range rank {
			axes = append(axes, int64(a))
		}
	}
	if len(op.PadsBegin) != len(axes) || len(op.PadsEnd) != len(axes) {
		return nil, nil, false
	}
	for i, a := range axes {
		if a < 0 {
			a += int64(rank)
		}
		if a < 0 || a >= int64(rank) || op.PadsBegin[i] < 0 || op.PadsEnd[i] < 0 {
			return nil, nil, false
		}
		begin[a] += op.PadsBegin[i]
		end[a] += op.PadsEnd[i]
	}
	return begin, end, true
}
