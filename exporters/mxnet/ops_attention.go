package mxnetexport

import (
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"

	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&lacks, map[string]string{
		"Attention":       "MXNet 1.x has no attention op; models that spell attention as MatMul, Softmax and masks (as ONNX exporters below opset 23 do) are written op by op",
		"RotaryEmbedding": "MXNet 1.x has no rotary position embedding op",
	})
}

// batchMatMul writes a MatMul of two inputs of equal rank above 3 and equal
// batch axes (attention's (batch, heads, seq, size) products) as
// batch_dot on the batch axes merged by Reshape, then Reshape back: the
// same products in the same order.
func (e *exporter) batchMatMul(n *canon.Node) error {
	sa, ok1 := e.shape(n.Inputs[0])
	sb, ok2 := e.shape(n.Inputs[1])
	so, ok3 := e.shape(n.Outputs[0])
	if !ok1 || !ok2 || !ok3 {
		return fmt.Errorf("MatMul of rank-%d inputs is written through batch_dot when every shape is known; give the inputs full shapes", len(sa))
	}
	r := len(sa)
	if !slices.Equal(sa[:r-2], sb[:r-2]) {
		return fmt.Errorf("MatMul of shapes %v and %v broadcasts batch axes; MXNet's batch_dot needs equal batch axes", sa, sb)
	}
	refs, err := e.values(n.Inputs...)
	if err != nil {
		return err
	}
	out := n.Outputs[0]
	a3 := ref{e.add("Reshape", out+"_a3", map[string]string{"shape": tuple([]int64{-1, sa[r-2], sa[r-1]})}, 1, refs[0]), 0}
	b3 := ref{e.add("Reshape", out+"_b3", map[string]string{"shape": tuple([]int64{-1, sb[r-2], sb[r-1]})}, 1, refs[1]), 0}
	d := ref{e.add("batch_dot", out+"_batch_dot", nil, 1, a3, b3), 0}
	return e.finish(out, e.add("Reshape", out, map[string]string{"shape": tuple(so)}, 1, d))
}
