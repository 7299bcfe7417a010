package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// retypeLikeCounterpart reads A again with B's input types, by position,
// when A's format does not record its input types (TorchScript reads an
// untyped input as float32 unless its use says otherwise) and B's differ:
// `check traced.pt model.onnx --random` then feeds both sides the same
// integer inputs. It returns the graph to use for A and whether it is a
// new one; A given types of its own, or that cannot take B's, is kept.
func retypeLikeCounterpart(path string, rf *readFlags, ga, gb *canon.Graph) (*canon.Graph, bool) {
	if ga == nil || gb == nil || len(rf.inputTypes) > 0 || len(ga.Inputs) != len(gb.Inputs) || sameInputDTypes(ga, gb) {
		return ga, false
	}
	retyped := *rf
	retyped.inputTypes = nil
	for i, in := range gb.Inputs {
		retyped.inputTypes = append(retyped.inputTypes, fmt.Sprintf("#%d=%s", i, in.DType))
	}
	g, _, err := retyped.load(path)
	if err != nil {
		return ga, false
	}
	return g, true
}

// noteInferredTypes prints the importer's note on input types it inferred
// from their use (TorchScript), for commands that print no other notes.
func noteInferredTypes(w io.Writer, path string, g *canon.Graph) {
	for _, n := range g.Meta.Notes {
		if strings.HasPrefix(n, formats.InferredTypesNote) {
			writeNotes(w, path, []string{n}, true)
		}
	}
}
