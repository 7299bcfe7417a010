package pipeline

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// WritesGraph reports whether exp writes the model's computation at out,
// not only its weights (a state dict .pt or a safetensors file).
func WritesGraph(exp *formats.Exporter, out string) bool {
	if exp.Ops == nil {
		return false
	}
	if exp.Folder {
		ext := strings.ToLower(filepath.Ext(out))
		for _, e := range exp.Extensions {
			if ext == e {
				return false
			}
		}
	}
	return true
}

// IsWeightsOnly reports whether g holds weights and no graph (a state
// dict).
func IsWeightsOnly(g *canon.Graph) bool {
	return len(g.Nodes) == 0 && len(g.Outputs) == 0
}

// RefuseGraphFromWeights refuses to write a graph format from a
// weights-only input: the result would be a model that computes nothing.
func RefuseGraphFromWeights(in string, g *canon.Graph, exp *formats.Exporter, out string) error {
	if !IsWeightsOnly(g) || !WritesGraph(exp, out) {
		return nil
	}
	return fmt.Errorf("%s holds only weights (%d tensors, no graph), so it cannot be written as %s, a graph format; write the weights with a .pt or .safetensors output, or convert a file with the graph (TorchScript, .pt2, ONNX) and bind these weights with --weights %s", in, len(g.Initializers), exp.Name, in)
}
