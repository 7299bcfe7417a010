package mxnetexport

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The indexing family. MXNet 1.x has gather_nd (index tuples on the first
// axis of the indices, no batch axes) and one_hot (last axis, negative
// indices out of range, constant on/off values); the other kinds have no
// MXNet op.

func init() {
	optable.Add(&writers, map[string]opWriter{
		"GatherND": {"gather_nd with constant indices (batch coordinates prepended, tuples moved to the first axis, negative indices resolved)", (*exporter).gatherND},
	})
	optable.Add(&lacks, map[string]string{
		"GatherElements":  "MXNet 1.x has no gather along an axis with a full index tensor (pick takes one index per row)",
		"ScatterElements": "MXNet 1.x has no scatter along an axis",
		"ScatterND":       "MXNet's scatter_nd starts from zeros, not from the data, and leaves duplicate indices unordered",
		"OneHot":          "MXNet's one_hot reads negative indices as out of range, where ONNX counts them from the end",
		"Compress":        "MXNet 1.x has no boolean selection op outside contrib",
		"Trilu":           "MXNet 1.x has no triu/tril op",
	})
}

// gatherND writes gather_nd. MXNet takes the index tuples on the first
// axis of the indices and has no batch axes, so constant indices are
// rewritten at export: batch coordinates prepended, negatives resolved,
// the tuple axis moved to the front.
func (e *exporter) gatherND(n *canon.Node) error {
	op := n.Op.(*canon.GatherND)
	k := e.consts[n.Inputs[1]]
	ds, ok := e.shape(n.Inputs[0])
	if k == nil || !ok {
		return fmt.Errorf("GatherND with indices computed at run time or data of unknown shape cannot be written: MXNet's gather_nd takes index tuples on the first axis and no batch axes")
	}
	idx, err := k.Int64s()
	if err != nil {
		return fmt.Errorf("GatherND indices %s: %v", n.Inputs[1], err)
	}
	is := k.Shape
	q, b := len(is), int(op.BatchDims)
	if q < 1 || is[q-1] < 1 {
		return fmt.Errorf("GatherND indices of shape %v address no axis; MXNet's gather_nd needs at least one", is)
	}
	tl := int(is[q-1])
	lead := is[:q-1]
	count := int(canon.NumElements(lead))
	m := b + tl
	// out[a][p] is coordinate a of tuple p, with MXNet's axis order.
	out := make([]int64, m*count)
	coord := make([]int64, len(lead))
	for p := range count {
		for a := range m {
			var v int64
			if a < b {
				v = coord[a]
			} else {
				v = idx[p*tl+a-b]
				if d := ds[a]; v < -d || v >= d {
					return fmt.Errorf("GatherND index %d is out of range for axis %d of size %d", v, a, d)
				} else if v < 0 {
					v += d
				}
			}
			out[a*count+p] = v
		}
		for a := len(coord) - 1; a >= 0; a-- {
			coord[a]++
			if coord[a] < lead[a] {
				break
			}
			coord[a] = 0
		}
	}
	t := canon.NewInt64Tensor(n.Inputs[1]+"_mxnet", append([]int64{int64(m)}, lead...), out)
	data, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	ir, err := e.param(t.Name, t)
	if err != nil {
		return err
	}
	return e.finish(n.Outputs[0], e.add("gather_nd", n.Outputs[0], nil, 1, data, ir))
}
