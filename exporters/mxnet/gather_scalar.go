package mxnetexport

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
)

// gatherScalar writes a Gather by one constant index (x[:, -1]), which
// take cannot express: MXNet params hold no 0-D arrays. The axis is sliced
// to that one entry and squeezed away.
func (e *exporter) gatherScalar(n *canon.Node, idx *canon.Tensor) error {
	v, err := idx.Int64s()
	if err != nil || len(v) != 1 {
		return fmt.Errorf("Gather index %s: %v", n.Inputs[1], err)
	}
	axis := n.Op.(*canon.Gather).Axis
	xs, ok := e.shape(n.Inputs[0])
	if !ok {
		return fmt.Errorf("Gather by a scalar index needs the data's shape")
	}
	if axis < 0 {
		axis += int64(len(xs))
	}
	i := v[0]
	if i < 0 {
		i += xs[axis]
	}
	if axis < 0 || axis >= int64(len(xs)) || i < 0 || i >= xs[axis] {
		return fmt.Errorf("Gather index %d is out of range for axis %d of shape %v", v[0], axis, xs)
	}
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	a := strconv.FormatInt(axis, 10)
	s := e.add("slice_axis", n.Outputs[0]+"_slice", map[string]string{"axis": a, "begin": strconv.FormatInt(i, 10), "end": strconv.FormatInt(i+1, 10)}, 1, x)
	return e.finish(n.Outputs[0], e.add("squeeze", n.Outputs[0], map[string]string{"axis": "(" + a + ",)"}, 1, ref{s, 0}))
}
