package pipeline

import (
	"runtime"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// Write writes g to out with exp. An exporter that types its own copy of
// the graph gets g without the reader's value table, which would only
// double what a graph of millions of nodes holds; g's table is dropped.
func Write(g *canon.Graph, exp *formats.Exporter, out string, opts formats.WriteOptions) error {
	if exp.TypesOwnCopy && g.Values != nil {
		g.Values = nil
		runtime.GC() // and the next collection is paced from what is left
	}
	return exp.Write(g, out, opts)
}
