package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The ai.onnx.ml ops, written in that domain; the model then imports the
// ai.onnx.ml opset its ops need (mlOpsetOf).

const mlDomain = "ai.onnx.ml"

// mlOpsets is the ai.onnx.ml opset each kind is written for.
var mlOpsets = map[string]int{"Binarizer": 1, "ArrayFeatureExtractor": 1, "LabelEncoder": 4, "TreeEnsemble": 5}

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"Binarizer": {onnx: mlDomain + ":Binarizer", native: 1, write: func(b *builder, n *canon.Node) error {
			b.emitIn(mlDomain, n.Name, "Binarizer", n.Inputs, n.Outputs, attrFloat("threshold", n.Op.(*canon.Binarizer).Threshold))
			return nil
		}},
		"ArrayFeatureExtractor": {onnx: mlDomain + ":ArrayFeatureExtractor", native: 1, write: func(b *builder, n *canon.Node) error {
			b.emitIn(mlDomain, n.Name, "ArrayFeatureExtractor", n.Inputs, n.Outputs)
			return nil
		}},
		"LabelEncoder": {onnx: mlDomain + ":LabelEncoder", native: 1, write: func(b *builder, n *canon.Node) error {
			op := n.Op.(*canon.LabelEncoder)
			b.emitIn(mlDomain, n.Name, "LabelEncoder", n.Inputs, n.Outputs,
				attrTensor("keys_tensor", mlTensor("keys_tensor", op.Keys)),
				attrTensor("values_tensor", mlTensor("values_tensor", op.Values)),
				attrTensor("default_tensor", mlTensor("default_tensor", op.Default)))
			return nil
		}},
	})
}

func mlTensor(name string, t *canon.Tensor) *onnxpb.TensorProto {
	c := *t
	c.Name = name
	return onnxtensor.ToProto(&c)
}

// mlOpsetOf is the ai.onnx.ml opset g's ops need (0: none of them is
// in that domain), subgraphs included.
func mlOpsetOf(g *canon.Graph) int {
	v := 0
	for _, n := range g.Nodes {
		if n == nil {
			continue
		}
		v = max(v, mlOpsets[n.Op.Kind()])
		if o, ok := n.Op.(canon.SubgraphOwner); ok && canon.HasSubgraphs(n.Op) {
			for _, s := range o.Subgraphs() {
				v = max(v, mlOpsetOf(s.Graph))
			}
		}
	}
	return v
}
