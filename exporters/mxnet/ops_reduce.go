package mxnetexport

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The reduce family. MXNet 1.x has sum, max, min, prod, norm (ord 1 and
// 2), argmax/argmin (float indices, cast back to int64 here) and topk.
// Reducing every axis without keepdims gives MXNet's shape (1,), not a
// scalar, so that case is refused.

func init() {
	reduce := func(mx string) opWriter {
		return opWriter{mx, func(e *exporter, n *canon.Node) error { return e.reduce(n, mx, nil) }}
	}
	norm := func(ord string) opWriter {
		return opWriter{"norm ord=" + ord, func(e *exporter, n *canon.Node) error {
			return e.reduce(n, "norm", map[string]string{"ord": ord})
		}}
	}
	optable.Add(&writers, map[string]opWriter{
		"ReduceSum":  reduce("sum"),
		"ReduceMax":  reduce("max"),
		"ReduceMin":  reduce("min"),
		"ReduceProd": reduce("prod"),
		"ReduceL1":   norm("1"),
		"ReduceL2":   norm("2"),
		"ArgMax":     {"argmax then Cast to int64 (the last index through reverse and _rminus_scalar)", (*exporter).argReduce},
		"ArgMin":     {"argmin then Cast to int64 (the last index through reverse and _rminus_scalar)", (*exporter).argReduce},
		"TopK":       {"topk ret_typ=both dtype=int64", (*exporter).topK},
	})
	optable.Add(&lacks, map[string]string{
		"ReduceLogSum":    "MXNet 1.x has no log-sum reduction",
		"ReduceLogSumExp": "MXNet 1.x has no logsumexp operator outside its numpy namespace",
		"ReduceSumSquare": "MXNet 1.x has no sum-of-squares reduction",
		"CumSum":          "MXNet 1.x has cumsum only in its numpy namespace (_np_cumsum)",
	})
}

func (e *exporter) reduce(n *canon.Node, mx string, attrs map[string]string) error {
	op := n.Op.(*canon.Reduce)
	if attrs == nil {
		attrs = map[string]string{}
	}
	attrs["keepdims"] = boolean(op.KeepDims)
	if len(op.Axes) > 0 {
		attrs["axis"] = tuple(op.Axes)
	}
	r, ok := e.rank(n.Inputs[0])
	if !op.KeepDims && (len(op.Axes) == 0 || (ok && len(op.Axes) == r)) {
		return fmt.Errorf("%s over every axis without keepdims gives a scalar, which MXNet 1.x represents as shape (1,); keep the dims or reduce fewer axes", op.Fn)
	}
	return e.single(n, mx, attrs, n.Inputs[0])
}

func (e *exporter) argReduce(n *canon.Node) error {
	op := n.Op.(*canon.ArgReduce)
	if r, ok := e.rank(n.Inputs[0]); !op.KeepDims && ok && r == 1 {
		return fmt.Errorf("%s of a 1-D input without keepdims gives a scalar, which MXNet 1.x represents as shape (1,)", op.Kind())
	}
	in, err := e.values(n.Inputs[0])
	if err != nil {
		return err
	}
	mx := "argmax"
	if op.Min {
		mx = "argmin"
	}
	axis := strconv.FormatInt(op.Axis, 10)
	if op.SelectLastIndex {
		// MXNet returns the first extreme: the last one is size-1 minus the
		// first extreme of the input reversed along the axis.
		s, ok := e.shape(n.Inputs[0])
		if !ok {
			return fmt.Errorf("%s with select_last_index needs the input's static shape", op.Kind())
		}
		a := op.Axis
		if a < 0 {
			a += int64(len(s))
		}
		rev := e.add("reverse", n.Outputs[0]+"_reversed", map[string]string{"axis": axis}, 1, in...)
		first := e.add(mx, n.Outputs[0]+"_first", map[string]string{"axis": axis, "keepdims": boolean(op.KeepDims)}, 1, ref{rev, 0})
		last := e.add("_rminus_scalar", n.Outputs[0]+"_float", map[string]string{"scalar": strconv.FormatInt(s[a]-1, 10)}, 1, ref{first, 0})
		return e.finish(n.Outputs[0], e.add("Cast", n.Outputs[0], map[string]string{"dtype": "int64"}, 1, ref{last, 0}))
	}
	f := e.add(mx, n.Outputs[0]+"_float", map[string]string{"axis": axis, "keepdims": boolean(op.KeepDims)}, 1, in...)
	return e.finish(n.Outputs[0], e.add("Cast", n.Outputs[0], map[string]string{"dtype": "int64"}, 1, ref{f, 0}))
}

func (e *exporter) topK(n *canon.Node) error {
	op := n.Op.(*canon.TopK)
	if op.K < 1 {
		return fmt.Errorf("TopK with k=%d cannot be written: MXNet's topk reads k <= 0 as the whole axis", op.K)
	}
	in, err := e.values(n.Inputs[0])
	if err != nil {
		return err
	}
	attrs := map[string]string{"axis": strconv.FormatInt(op.Axis, 10), "k": strconv.FormatInt(op.K, 10),
		"ret_typ": "both", "is_ascend": boolean(!op.Largest), "dtype": "int64"}
	idx := e.add("topk", n.Outputs[0], attrs, 2, in...)
	for i, o := range n.Outputs {
		if o != "" {
			e.refs[o] = ref{idx, i}
		}
	}
	return nil
}
