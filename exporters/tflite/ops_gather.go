package tfliteexport

import (
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

func init() {
	optable.Add(&writers, map[string]writer{
		"Gather": {writeGather, "GATHER with constant indices (negative ones resolved; indices computed at run time are refused: TFLite does not wrap negative ones)"},
	})
}

func writeGather(e *exporter, n *canon.Node) error {
	axis := n.Op.(*canon.Gather).Axis
	it := e.constOf(n.Inputs[1])
	if it == nil {
		return nodeErr(n, "its indices are computed at run time; TFLite's GATHER does not count negative indices from the end as ONNX does, so only constant indices are written")
	}
	xs, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	r := len(xs)
	a := normAxis(axis, r)
	iv, err := it.Int64s()
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	idx := make([]int32, len(iv))
	for i, v := range iv {
		if v < 0 {
			v += xs[a]
		}
		if v < 0 || v >= xs[a] {
			return nodeErr(n, "index %d is out of range for axis %d of size %d", iv[i], axis, xs[a])
		}
		idx[i] = int32(v)
	}
	ishape := make([]int32, len(it.Shape))
	for i, d := range it.Shape {
		ishape[i] = int32(d)
	}
	var x int32
	var perm, outPerm []int
	switch len(it.Shape) {
	case 0, 1:
		if x, perm, err = e.anyLayout(n.Inputs[0]); err != nil {
			return nodeErr(n, "%v", err)
		}
		outPerm = perm
		if len(it.Shape) == 0 && perm != nil {
			// The gathered axis goes; the others keep their file order.
			var rest []int
			for _, c := range perm {
				if int64(c) != a {
					rest = append(rest, c)
				}
			}
			outPerm = make([]int, len(rest))
			for i, c := range rest {
				for _, d := range rest {
					if d < c {
						outPerm[i]++
					}
				}
			}
			if samePerm(outPerm, nil, len(rest)) {
				outPerm = nil
			}
		}
	default:
		if x, err = e.input(n.Inputs[0], nil); err != nil {
			return nodeErr(n, "%v", err)
		}
	}
	fa := fileAxis(perm, r, a)
	ii, err := e.constI32(n.Name+"/indices", ishape, idx)
	if err != nil {
		return err
	}
	out, err := e.define(n.Outputs[0], outPerm)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	e.emit(tflitefb.BuiltinOperatorGATHER, []int32{x, ii}, []int32{out}, tflitefb.BuiltinOptionsGatherOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.GatherOptionsStart(b)
		tflitefb.GatherOptionsAddAxis(b, fa)
		return tflitefb.GatherOptionsEnd(b)
	})
	return nil
}
