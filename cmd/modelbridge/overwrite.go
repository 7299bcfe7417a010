package main

import (
	"os"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// refuseInputOverwrite fails when writing out would replace any file the
// input model (or the --weights model) was read from: the file itself and
// whatever its importer read besides (ONNX external data, MXNet params).
func refuseInputOverwrite(in, out string, exp *formats.Exporter, g *canon.Graph, weightsPath string, weights *canon.Graph) error {
	// Only files that exist can be part of the input.
	var outputs []string
	for _, o := range exp.Outputs(g, out) {
		if _, err := os.Stat(o); err == nil {
			outputs = append(outputs, o)
		}
	}
	sources := []struct {
		what, path string
		g          *canon.Graph
	}{{"the input model", in, g}, {"the --weights input", weightsPath, weights}}
	for _, src := range sources {
		if src.g == nil {
			continue
		}
		for _, file := range append([]string{src.path}, src.g.Meta.SourceFiles...) {
			for _, o := range outputs {
				if formats.SameFile(file, o) {
					return usageErrorf("refusing to overwrite %s, which is part of %s %s; choose another output path", o, src.what, src.path)
				}
			}
		}
	}
	return nil
}
