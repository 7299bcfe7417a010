// Package pt2 imports torch.export programs (.pt2 files that
// torch.export.save writes) into canonical graphs, without Python.
//
// It reads serialized_exported_program.json: the graph of core ATen
// operators with their arguments, the graph signature (which graph inputs
// are user inputs, parameters, buffers and constants, and which outputs are
// the user's) and the range constraints of symbolic sizes. Weights come
// from serialized_state_dict.pt and serialized_constants.pt through the
// same safe unpickler as state dicts: nothing in the file is executed, and
// tensor data stays in the mapped file.
//
// Every aten operator is run by the TorchScript importer's handlers (its
// opTable, through torchscript.Program), so the two front ends share one
// implementation of each op. A symbolic size (s0) becomes a named
// canonical dimension; sizes computed from it are computed by graph nodes.
package pt2

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	torchimport "github.com/modelbridge/modelbridge/importers/torch"
	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/panicerr"
)

// FormatName is the name this importer registers, and the SourceFormat of
// the graphs it reads.
const FormatName = "pt2"

// schemaMajor is the serialization schema major version read (PyTorch 2.6
// writes 8.x; minor versions only add fields).
const schemaMajor = 8

// maxWeightsBytes bounds an embedded torch.save entry.
const maxWeightsBytes = 1 << 40

// Read imports the .pt2 file at path. The caller (formats.Read) validates
// the graph.
func Read(path string, opts formats.ReadOptions) (*canon.Graph, error) {
	m, err := mmapfile.Open(path)
	if err != nil {
		return nil, err
	}
	g, err := read(path, m.Data, opts)
	if err != nil {
		m.Close()
		return nil, err
	}
	g.AddResource(m)
	return g, nil
}

// read imports the archive held in data, which the caller keeps valid
// while the graph is used (weights point into it).
func read(path string, data []byte, opts formats.ReadOptions) (g *canon.Graph, err error) {
	defer panicerr.Recover(path, &err)
	a, err := openArchive(path, data)
	if err != nil {
		return nil, err
	}
	ep, err := decodeProgram(a)
	if err != nil {
		return nil, err
	}
	weights, err := readWeights(a)
	if err != nil {
		return nil, err
	}
	im := &importer{
		path:    path,
		ep:      ep,
		gr:      ep.GraphModule.Graph,
		weights: weights,
		prog:    torchscript.NewProgram(path, int64(len(data))),
		tensors: map[string]*torchscript.Tensor{},
		syms:    map[string]any{},
		lazy:    map[string]*canon.Tensor{},
		consts:  map[string]any{},
	}
	g, err = im.run(opts)
	if err != nil {
		return nil, err
	}
	return g, nil
}

// decodeProgram reads and checks the program JSON.
func decodeProgram(a *archive) (*exportedProgram, error) {
	raw, err := a.read(programEntry, maxJSONBytes)
	if err != nil {
		return nil, err
	}
	raw = quotePythonFloats(raw)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var ep exportedProgram
	if err := dec.Decode(&ep); err != nil {
		return nil, fmt.Errorf("%s: %s is not a serialized ExportedProgram: %v", a.path, programEntry, jsonError(raw, err))
	}
	if ep.SchemaVersion == nil {
		return nil, fmt.Errorf("%s: %s has no schema_version; it predates PyTorch 2.3 or is not a torch.export program", a.path, programEntry)
	}
	if ep.SchemaVersion.Major != schemaMajor {
		return nil, fmt.Errorf("%s: %s uses serialization schema %d.%d; this importer reads schema %d.x (PyTorch 2.6); re-export with torch.export.save from PyTorch 2.6", a.path, programEntry, ep.SchemaVersion.Major, ep.SchemaVersion.Minor, schemaMajor)
	}
	if a.has(versionEntry) {
		v, err := a.read(versionEntry, 64)
		if err != nil {
			return nil, err
		}
		major, _, _ := strings.Cut(strings.TrimSpace(string(v)), ".")
		if major != fmt.Sprint(ep.SchemaVersion.Major) {
			return nil, fmt.Errorf("%s: the version entry says %q but the program says schema %d.%d; the archive is inconsistent", a.path, strings.TrimSpace(string(v)), ep.SchemaVersion.Major, ep.SchemaVersion.Minor)
		}
	}
	if ep.GraphModule == nil || ep.GraphModule.Graph == nil || ep.GraphModule.Signature == nil {
		return nil, fmt.Errorf("%s: %s has no graph_module with a graph and a signature", a.path, programEntry)
	}
	return &ep, nil
}

// jsonError adds the line of a syntax error.
func jsonError(raw []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset <= int64(len(raw)) {
		line := 1 + bytes.Count(raw[:se.Offset], []byte("\n"))
		return fmt.Errorf("line %d: %w", line, err)
	}
	return err
}

// readWeights reads the state dict and constants entries (either may be
// absent when the program has no parameters) into one map by name.
func readWeights(a *archive) (map[string]*canon.Tensor, error) {
	out := map[string]*canon.Tensor{}
	for _, entry := range []string{stateDictEntry, constantsEntry} {
		if !a.has(entry) {
			continue
		}
		raw, err := a.read(entry, maxWeightsBytes)
		if err != nil {
			return nil, err
		}
		wg, err := torchimport.ReadEmbedded(a.path+" ("+a.prefix+entry+")", raw)
		if err != nil {
			return nil, err
		}
		for _, t := range wg.Initializers {
			if _, dup := out[t.Name]; dup {
				return nil, fmt.Errorf("%s: weight %s is in both %s and %s", a.path, t.Name, stateDictEntry, constantsEntry)
			}
			out[t.Name] = t
		}
	}
	return out, nil
}

// Name of the graph: the file's stem.
func graphName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}
