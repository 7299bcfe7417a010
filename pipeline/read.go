package pipeline

import (
	"fmt"
	"path/filepath"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/runtimes"
)

// Read reads and validates a model (formats.Read), refusing a folder that
// `convert --to torch` wrote: it is a module to run, not a graph to read.
func Read(path, format string, opts formats.ReadOptions) (*canon.Graph, *formats.Importer, error) {
	if runtimes.IsTorchFolder(path) {
		return nil, nil, fmt.Errorf("%s is a `convert --to torch` folder (model.py + weights.pt): modelbridge does not read it back as a graph; `modelbridge check` runs it in PyTorch against another model (check MODEL %s --random), and %s reads as a state dict", path, path, filepath.Join(path, "weights.pt"))
	}
	return formats.Read(path, format, opts)
}

// RequireModel refuses graphs that cannot stand for the model in run,
// check, optimize and convert: a graph without its weights, and (unless
// weightsOnlyOK) weights without a graph.
func RequireModel(path string, g *canon.Graph, weightsOnlyOK bool) error {
	if g.Meta.WeightsMissing {
		beside := "-NNNN.params"
		if imp, err := formats.FindImporter("", g.Meta.SourceFormat); err == nil && imp.WeightsBeside != "" {
			beside = imp.WeightsBeside
		}
		return fmt.Errorf("%s: the model's weights were not found (no matching %s file beside it); pass --params FILE, or use inspect/graph to look at the graph alone", path, beside)
	}
	if !weightsOnlyOK && IsWeightsOnly(g) {
		return fmt.Errorf("%s holds only weights (%d tensors, no graph); this command needs a model", path, len(g.Initializers))
	}
	return nil
}
