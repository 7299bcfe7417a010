package main

import (
	"runtime/debug"

	"github.com/modelbridge/modelbridge/canon"
)

// releaseWeights gives back the memory of g's weights once g has been run:
// its mapped files are unmapped and its tensors dropped, keeping only the
// inputs and outputs the comparison still reads.
func releaseWeights(g *canon.Graph) error {
	if err := g.Close(); err != nil {
		return err
	}
	g.Initializers, g.Nodes = nil, nil
	debug.FreeOSMemory()
	return nil
}
