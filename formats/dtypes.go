package formats

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
)

// InferredTypesNote starts the note of an importer that inferred input
// types from their use (TorchScript).
const InferredTypesNote = "input types inferred from their use"

// checkInputDTypes refuses input element types given in opts
// (--input-type, or a dtype prefix in --input-shape) that the graph does
// not have: a format that records its inputs' types keeps them, and an
// importer that takes them from opts (TorchScript) has applied them, so a
// difference is the user's mistake, reported before any run.
func checkInputDTypes(g *canon.Graph, opts ReadOptions) error {
	if len(opts.InputDTypes) == 0 {
		return nil
	}
	var names []string
	for i := range g.Inputs {
		names = append(names, g.Inputs[i].Name)
	}
	for key := range opts.InputDTypes {
		known := false
		for i, n := range names {
			known = known || key == n || key == "#"+strconv.Itoa(i)
		}
		if !known {
			return fmt.Errorf("an input type is given for %s, but the model's inputs are %v", key, names)
		}
	}
	for i, in := range g.Inputs {
		want, ok := opts.DTypeFor(in.Name, i)
		if ok && want != in.DType {
			return fmt.Errorf("input %q is given as %s, but the file records it as %s; drop the type from --input-type/--input-shape (this format records its input types)", in.Name, want, in.DType)
		}
	}
	return nil
}
