package mxnetexport

import (
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The convert family. MXNet's comparisons return 0/1 in the input dtype, so
// each is followed by a Cast to bool; where takes no broadcasting, so its
// operands are broadcast_to the output shape first; Expand is broadcast_to
// after a Reshape that adds the leading axes.

// castNames are Cast's dtype names.
var castNames = map[canon.DType]string{
	canon.Float32: "float32", canon.Float64: "float64", canon.Float16: "float16", canon.BFloat16: "bfloat16",
	canon.Uint8: "uint8", canon.Int8: "int8", canon.Int16: "int16", canon.Int32: "int32", canon.Int64: "int64",
	canon.Uint16: "uint16", canon.Uint32: "uint32", canon.Uint64: "uint64", canon.Bool: "bool",
}

var compareOps = map[canon.CompareFn]string{
	canon.CmpEqual: "broadcast_equal", canon.CmpLess: "broadcast_lesser", canon.CmpLessOrEqual: "broadcast_lesser_equal",
	canon.CmpGreater: "broadcast_greater", canon.CmpGreaterOrEqual: "broadcast_greater_equal",
}

func init() {
	w := map[string]opWriter{
		"Cast": {"Cast", func(e *exporter, n *canon.Node) error {
			to := n.Op.(*canon.Cast).To
			name, ok := castNames[to]
			if !ok {
				return fmt.Errorf("MXNet's Cast has no dtype %s", to)
			}
			return e.single(n, "Cast", map[string]string{"dtype": name}, n.Inputs[0])
		}},
		"Where":  {"where, operands broadcast_to the output shape when they differ from it", (*exporter).where},
		"Expand": {"broadcast_to (Reshape first for a lower-rank input); static shapes", (*exporter).expand},
		"Tile": {"tile", func(e *exporter, n *canon.Node) error {
			return e.single(n, "tile", map[string]string{"reps": tuple(n.Op.(*canon.Tile).Repeats)}, n.Inputs[0])
		}},
	}
	for fn, mx := range compareOps {
		w[fn.String()] = opWriter{mx + " then Cast dtype=bool (MXNet compares into the input dtype)", func(e *exporter, n *canon.Node) error {
			in, err := e.values(n.Inputs...)
			if err != nil {
				return err
			}
			out := n.Outputs[0]
			m := ref{e.add(mx, out+"_01", nil, 1, in...), 0}
			return e.finish(out, e.add("Cast", out, map[string]string{"dtype": "bool"}, 1, m))
		}}
	}
	optable.Add(&writers, w)
	optable.Add(&lacks, map[string]string{
		"Size": "MXNet 1.x has no 0-d arrays: size_array gives a 1-element 1-D array, not Size's scalar",
	})
}

// broadcastTo returns value name broadcast to shape (a Reshape adding
// leading axes first when its rank is lower).
func (e *exporter) broadcastTo(name string, shape []int64, out string) (ref, error) {
	r, err := e.value(name)
	if err != nil {
		return ref{}, err
	}
	s, ok := e.shape(name)
	if !ok {
		return ref{}, fmt.Errorf("the shape of %s must be known", name)
	}
	if slices.Equal(s, shape) {
		return r, nil
	}
	if len(s) < len(shape) {
		full := append(make([]int64, 0, len(shape)), ones(len(shape)-len(s))...)
		full = append(full, s...)
		r = ref{e.add("Reshape", out+"_rank", map[string]string{"shape": tuple(full)}, 1, r), 0}
	}
	return ref{e.add("broadcast_to", out, map[string]string{"shape": tuple(shape)}, 1, r), 0}, nil
}

func (e *exporter) expand(n *canon.Node) error {
	out := n.Outputs[0]
	shape, ok := e.shape(out)
	if !ok {
		return fmt.Errorf("Expand needs a static output shape")
	}
	r, err := e.broadcastTo(n.Inputs[0], shape, out)
	if err != nil {
		return err
	}
	if s, _ := e.shape(n.Inputs[0]); slices.Equal(s, shape) {
		r = ref{e.add("_copy", out, nil, 1, r), 0}
	}
	e.refs[out] = r
	return nil
}

func (e *exporter) where(n *canon.Node) error {
	out := n.Outputs[0]
	shape, ok := e.shape(out)
	if !ok {
		return fmt.Errorf("Where needs a static output shape (MXNet's where does not broadcast)")
	}
	ins := make([]ref, 3)
	for i, name := range n.Inputs {
		r, err := e.broadcastTo(name, shape, fmt.Sprintf("%s_in%d", out, i))
		if err != nil {
			return err
		}
		ins[i] = r
	}
	return e.finish(out, e.add("where", out, nil, 1, ins...))
}
