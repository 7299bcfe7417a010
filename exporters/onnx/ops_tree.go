package onnxexport

import (
	"encoding/binary"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"TreeEnsemble": {onnx: mlDomain + ":TreeEnsemble", native: 1, write: writeTreeEnsemble},
	})
}

func writeTreeEnsemble(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.TreeEnsemble)
	modes := make([]byte, len(op.Modes))
	for i, m := range op.Modes {
		modes[i] = byte(m)
	}
	values := func(name string, v []float64) *onnxpb.AttributeProto {
		t := &canon.Tensor{Name: name, DType: op.DType, Shape: []int64{int64(len(v))}}
		for _, f := range v {
			if op.DType == canon.Float64 {
				t.Data = binary.LittleEndian.AppendUint64(t.Data, math.Float64bits(f))
			} else {
				t.Data = binary.LittleEndian.AppendUint32(t.Data, math.Float32bits(float32(f)))
			}
		}
		return attrTensor(name, mlTensor(name, t))
	}
	attrs := []*onnxpb.AttributeProto{
		attrInt("aggregate_function", int64(op.Aggregate)),
		attrInt("n_targets", op.NTargets),
		attrInt("post_transform", 0),
		attrInts("tree_roots", op.TreeRoots),
		attrTensor("nodes_modes", mlTensor("nodes_modes", &canon.Tensor{DType: canon.Uint8, Shape: []int64{int64(len(modes))}, Data: modes})),
		attrInts("nodes_featureids", op.Features),
		values("nodes_splits", op.Splits),
		attrInts("nodes_truenodeids", op.TrueIDs),
		attrInts("nodes_falsenodeids", op.FalseIDs),
		attrInts("nodes_trueleafs", boolInts(op.TrueLeaf)),
		attrInts("nodes_falseleafs", boolInts(op.FalseLeaf)),
		attrInts("leaf_targetids", op.LeafTargets),
		values("leaf_weights", op.LeafWeights),
	}
	if op.MissingTrue != nil {
		attrs = append(attrs, attrInts("nodes_missing_value_tracks_true", boolInts(op.MissingTrue)))
	}
	if len(op.Members) > 0 {
		attrs = append(attrs, values("membership_values", op.Members))
	}
	b.emitIn(mlDomain, n.Name, "TreeEnsemble", n.Inputs, n.Outputs, attrs...)
	return nil
}

func boolInts(v []bool) []int64 {
	out := make([]int64, len(v))
	for i, b := range v {
		if b {
			out[i] = 1
		}
	}
	return out
}
