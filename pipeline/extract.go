package pipeline

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// Extract reads the cut of the model at path between the values ins (nil:
// the model's inputs) and outs, and returns it with the number of nodes of
// the whole model when that is known (0 otherwise). An importer that reads
// cuts (formats.Importer.ReadCut) reads only the nodes inside, so ops
// outside the cut need not be supported; other formats are imported whole
// and cut in canonical form.
func Extract(path, format string, opts formats.ReadOptions, ins, outs []string) (*canon.Graph, int, error) {
	imp, err := formats.FindImporter(path, format)
	if err != nil {
		return nil, 0, &UsageError{Err: err}
	}
	if imp.ReadCut != nil {
		total := 0
		if whole, err := imp.Read(path, opts); err == nil {
			total = len(whole.Nodes)
			whole.Close()
		}
		cut := formats.Cut{Outputs: outs}
		if ins != nil {
			cut.Inputs = cutInputs(imp, path, opts, ins)
		}
		g, err := imp.ReadCut(path, opts, cut)
		return g, total, err
	}
	g, _, err := formats.Read(path, format, opts)
	if err != nil {
		return nil, 0, err
	}
	if err := RequireModel(path, g, false); err != nil {
		g.Close()
		return nil, 0, err
	}
	if ins == nil {
		for _, v := range g.Inputs {
			ins = append(ins, v.Name)
		}
	}
	cut, err := canon.Extract(g, ins, outs)
	if err != nil {
		g.Close()
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	// The cut shares g's weight data: g's resources close with it.
	cut.AddResource(g)
	return cut, len(g.Nodes), nil
}

// cutInputs types the cut's inputs by reading the part of the model that
// computes them; where that part cannot be read, the types the file
// declares are used.
func cutInputs(imp *formats.Importer, path string, opts formats.ReadOptions, ins []string) []canon.ValueInfo {
	out := make([]canon.ValueInfo, len(ins))
	for i, name := range ins {
		out[i].Name = name
	}
	head, err := imp.ReadCut(path, opts, formats.Cut{Outputs: ins})
	if err != nil {
		return out
	}
	defer head.Close()
	for i, name := range ins {
		if v, ok := head.Values.Lookup(name); ok && v.DType != canon.Undefined {
			v.Const = nil
			out[i] = v
		}
	}
	return out
}
