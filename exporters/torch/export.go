package torchexport

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/atomicfile"
	"github.com/modelbridge/modelbridge/internal/printname"
)

func init() {
	formats.RegisterExporter(&formats.Exporter{
		Name:       "torch",
		Extensions: []string{".pt", ".pth"},
		Write:      Write,
		OutputFiles: func(_ *canon.Graph, path string) []string {
			return []string{path, filepath.Join(path, "weights.pt"), filepath.Join(path, "model.py"), filepath.Join(path, "README")}
		},
		Ops: Coverage,
		// A path without .pt/.pth is a folder: model.py, weights.pt, README.
		Folder: true,
	})
}

// Result says what an export wrote and how weights were renamed.
type Result struct {
	Files   []string
	Renames []Rename
}

// Write is the registered exporter: a path ending in .pt or .pth gets the
// state dict only; any other path is a folder that receives model.py,
// weights.pt and README.
func Write(g *canon.Graph, path string, opts formats.WriteOptions) error {
	res, err := ExportProgress(g, path, opts.Progress)
	if err != nil {
		return err
	}
	if opts.Verbose != nil {
		for _, r := range res.Renames {
			if r.From != r.To {
				fmt.Fprintf(opts.Verbose, "weight %s -> %s\n", printname.Name(r.From), printname.Name(r.To))
			}
		}
	}
	return nil
}

// IsWeightsOnly reports whether path names a single state-dict file.
func IsWeightsOnly(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".pt" || ext == ".pth"
}

// Export writes g for PyTorch at path (see Write) and returns the files
// written and the original -> state-dict name of every weight. Nothing is
// written when the graph cannot be expressed.
func Export(g *canon.Graph, path string) (*Result, error) {
	return ExportProgress(g, path, nil)
}

// ExportProgress is Export, reporting the weight bytes written to progress
// (when not nil) as formats.WriteOptions.Progress describes.
func ExportProgress(g *canon.Graph, path string, progress func(done, total int64)) (*Result, error) {
	if IsWeightsOnly(path) {
		entries, renames := WeightEntries(g)
		if err := WriteStateDictProgress(path, entries, progress); err != nil {
			return nil, err
		}
		return &Result{Files: []string{path}, Renames: renames}, nil
	}
	mod, err := Generate(g)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := writeFolder(path, mod, readmeText(g, mod), progress); err != nil {
		return nil, err
	}
	modelPy, weights, readme := filepath.Join(path, "model.py"), filepath.Join(path, "weights.pt"), filepath.Join(path, "README")
	return &Result{Files: []string{modelPy, weights, readme}, Renames: mod.Renames}, nil
}

// WeightEntries is the state dict written for a weights-only export. A
// graph read from PyTorch keeps its keys, order and tensors exactly; any
// other graph gets the keys model.py would use (falling back to names made
// from the initializers when its ops cannot be written as torch code).
func WeightEntries(g *canon.Graph) ([]Entry, []Rename) {
	if g.Meta.SourceFormat != "torch" {
		if mod, err := Generate(g); err == nil {
			return mod.Entries, mod.Renames
		}
	}
	keys := nameSet{}
	var entries []Entry
	var renames []Rename
	for _, t := range g.Initializers {
		key := t.Name
		if g.Meta.SourceFormat != "torch" && !ValidStateKey(key) {
			key = sanitize(key)
			if key == "" {
				key = "tensor"
			}
		}
		if keys[key] {
			key = keys.claim(key)
		} else {
			keys[key] = true
		}
		entries = append(entries, Entry{Key: key, Tensor: t})
		renames = append(renames, Rename{From: t.Name, To: key})
	}
	return entries, renames
}

func writeText(path, text string) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.W.WriteString(text); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return f.Commit()
}

func readmeText(g *canon.Graph, mod *Module) string {
	var ins, outs []string
	for _, v := range g.Inputs {
		ins = append(ins, v.Name+" "+fmtValue(v))
	}
	for _, v := range g.Outputs {
		outs = append(outs, v.Name+" "+fmtValue(v))
	}
	return fmt.Sprintf(`This folder holds a PyTorch version of the model, written by modelbridge.

  model.py    class Model(nn.Module): the layers and the forward pass
  weights.pt  the state dict (torch.load reads it; %d tensors)

Load and run (PyTorch 1.13 or newer):

  import torch
  from model import Model
  model = Model()                      # built in eval mode
  model.load_state_dict(torch.load("weights.pt"), strict=True)
  with torch.no_grad():
      y = model(x)

Inputs:  %s
Outputs: %s

Call model.train() before fine-tuning: BatchNorm layers then update their
running statistics (momentum 0.1, PyTorch's default).
`, len(mod.Entries), strings.Join(ins, ", "), strings.Join(outs, ", "))
}

func fmtValue(v canon.ValueInfo) string {
	var dims []string
	for _, d := range v.Shape {
		switch {
		case d.Known():
			dims = append(dims, fmt.Sprint(d.Size))
		case d.Param != "":
			dims = append(dims, d.Param)
		default:
			dims = append(dims, "?")
		}
	}
	return fmt.Sprintf("%s[%s]", v.DType, strings.Join(dims, ", "))
}

// writeFolder writes model.py, weights.pt and README as one set: a new
// folder is filled under a temporary name beside path and renamed into
// place; in an existing folder the three files are written beside their
// targets and renamed in only when all three are complete. A failure
// leaves the old set (or no folder) and nothing new.
func writeFolder(path string, mod *Module, readme string, progress func(done, total int64)) error {
	dir := path
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return fmt.Errorf("cannot write %s: it is a file; give a folder name (or a .pt name for the weights alone)", path)
	} else if err != nil || isEmptyDir(path) {
		if err := atomicfile.ParentExists(path); err != nil {
			return err
		}
		d, err := atomicfile.CreateDir(path)
		if err != nil {
			return err
		}
		defer d.Abort()
		if err := writeFolderFiles(d.Path, path, mod, readme, progress); err != nil {
			return err
		}
		return d.Commit()
	}
	return writeFolderFiles(dir, path, mod, readme, progress)
}

// writeFolderFiles writes the three files into dir (named for the user
// after path) and commits them together.
func writeFolderFiles(dir, path string, mod *Module, readme string, progress func(done, total int64)) error {
	weights, err := atomicfile.Create(filepath.Join(dir, "weights.pt"))
	if err != nil {
		return err
	}
	defer weights.Abort()
	if err := writeStateDict(weights, "weights", mod.Entries, progress); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(path, "weights.pt"), err)
	}
	modelPy, err := atomicfile.Create(filepath.Join(dir, "model.py"))
	if err != nil {
		return err
	}
	defer modelPy.Abort()
	if _, err := modelPy.W.WriteString(mod.Source); err != nil {
		return fmt.Errorf("cannot write %s: %w", filepath.Join(path, "model.py"), err)
	}
	text, err := atomicfile.Create(filepath.Join(dir, "README"))
	if err != nil {
		return err
	}
	defer text.Abort()
	if _, err := text.W.WriteString(readme); err != nil {
		return fmt.Errorf("cannot write %s: %w", filepath.Join(path, "README"), err)
	}
	if err := atomicfile.CommitAll(weights, modelPy, text); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func isEmptyDir(path string) bool {
	entries, err := os.ReadDir(path)
	return err == nil && len(entries) == 0
}
