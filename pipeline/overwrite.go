package pipeline

import (
	"os"
	"path/filepath"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// RefuseInputOverwrite fails when writing out would replace any file the
// input model (or the --weights model) was read from: the file itself and
// whatever its importer read besides (ONNX external data, MXNet params).
func RefuseInputOverwrite(in, out string, exp *formats.Exporter, g *canon.Graph, weightsPath string, weights *canon.Graph) error {
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
					return Usagef("refusing to overwrite %s, which is part of %s %s; choose another output path", o, src.what, src.path)
				}
			}
		}
	}
	return nil
}

// InputParts lists every file a loaded model was read from: the named file
// and whatever its importer read besides.
func InputParts(path string, g *canon.Graph) []string {
	if g == nil {
		return []string{path}
	}
	return append([]string{path}, g.Meta.SourceFiles...)
}

// RefuseOverwriting fails when any of outputs is, by file identity (device
// and inode, so links and symlinks count), one of inputs. what names the
// inputs for the message ("the model m.onnx").
func RefuseOverwriting(outputs, inputs []string, what string) error {
	for _, o := range outputs {
		for _, in := range inputs {
			if formats.SameFile(in, o) {
				return Usagef("refusing to overwrite %s, which is part of %s; choose another output path", o, what)
			}
		}
	}
	return nil
}

// SameOrInside reports whether folder dir is folder parent or lies below
// it, comparing folders by identity so that symlinks and other spellings
// of a path are seen through. dir need not exist yet: its nearest existing
// ancestor is what is compared.
func SameOrInside(dir, parent string) bool {
	pst, err := os.Stat(parent)
	if err != nil {
		return false
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for {
		if st, err := os.Stat(d); err == nil && os.SameFile(st, pst) {
			return true
		}
		up := filepath.Dir(d)
		if up == d {
			return false
		}
		d = up
	}
}
