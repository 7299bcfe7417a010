// Package formats is the registry of model importers and exporters. Each
// format package registers itself from an init function, the way image
// decoders do, so that commands can read and write any registered format
// without a switch over format names.
package formats

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/regfile"
)

// ReadOptions tune an importer. Fields a format does not use are ignored.
type ReadOptions struct {
	// Params is an explicit weights file to pair with a graph file (MXNet).
	Params string
	// Key selects the state dict inside a checkpoint (PyTorch).
	Key string
	// InputShapes overrides or fills input shapes, by input name or by
	// position ("#0" is the first graph input); see ShapeFor. A symbolic
	// dimension is -1 here and named in DimNames.
	InputShapes map[string][]int64
	// DimNames names the symbolic dimensions of InputShapes (same keys,
	// then axis), e.g. N in --input-shape x=N,3,224,224.
	DimNames map[string]map[int]string
	// InputDTypes gives input element types, by input name or by position
	// ("#0"), for formats that do not record them (TorchScript); see
	// DTypeFor. A format that records them refuses a different one.
	InputDTypes map[string]canon.DType
	// DynamicBatch makes axis 0 of every input the symbolic dim "batch".
	DynamicBatch bool
	// IgnoreCRC reads zip entries whose CRC-32 does not match (a damaged
	// PyTorch file the user wants anyway); by default they are refused.
	IgnoreCRC bool
}

// ShapeFor returns the shape given for graph input number index, named name.
func (o ReadOptions) ShapeFor(name string, index int) ([]int64, bool) {
	if s, ok := o.InputShapes[name]; ok {
		return s, true
	}
	s, ok := o.InputShapes["#"+strconv.Itoa(index)]
	return s, ok
}

// DTypeFor returns the element type given for graph input number index,
// named name.
func (o ReadOptions) DTypeFor(name string, index int) (canon.DType, bool) {
	if d, ok := o.InputDTypes[name]; ok {
		return d, true
	}
	d, ok := o.InputDTypes["#"+strconv.Itoa(index)]
	return d, ok
}

// UnknownShapeKeys lists the InputShapes keys that name none of the inputs.
func (o ReadOptions) UnknownShapeKeys(inputs []string) []string {
	known := map[string]bool{}
	for i, n := range inputs {
		known[n], known["#"+strconv.Itoa(i)] = true, true
	}
	var out []string
	for k := range o.InputShapes {
		if !known[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// OpsetAuto, as WriteOptions.Opset, asks for the lowest opset that
// expresses the graph.
const OpsetAuto = -1

// WriteOptions tune an exporter. Fields a format does not use are ignored.
type WriteOptions struct {
	// Opset is the ONNX opset to target; 0 means the exporter's default
	// (raised to the lowest newer opset that expresses the graph when the
	// default cannot), OpsetAuto the lowest opset that expresses it.
	Opset int
	// ExternalData asks for weights in a separate file beside the model.
	ExternalData bool
	// Progress, when set, is called as tensor bytes are written, with the
	// bytes written so far and the total; commands draw a progress bar.
	Progress func(done, total int64)
	// Verbose, when set, receives a description of decisions the exporter
	// made that a user may want to know (e.g. how weights were renamed).
	Verbose io.Writer
	// Notes, when set, is told what the exporter chose on its own that
	// differs from what was asked (a default opset raised for the model).
	Notes io.Writer
	// IOLayout is the layout of 4-D graph inputs and outputs in the file,
	// for formats that compute in another layout than the model's
	// ("nhwc" for TFLite); empty keeps the model's own (NCHW).
	IOLayout string
	// Float16Weights stores float weights as float16 that the model
	// widens to float32 as it runs (TFLite's DEQUANTIZE).
	Float16Weights bool
}

// Importer reads one model format into canonical form.
type Importer struct {
	Name string
	// Extensions are lower-case file suffixes including the dot (".onnx").
	Extensions []string
	// Sniff reports whether a file starting with head is in this format.
	// It may be nil when the format has no reliable magic.
	Sniff func(head []byte) bool
	// Probe, when set, looks deeper than Sniff (into an archive's entries)
	// and is asked first: a format that shares its container with another
	// (TorchScript inside a torch zip) claims its files this way.
	Probe func(path string) bool
	// Read returns a graph that formats.Read then validates.
	Read func(path string, opts ReadOptions) (*canon.Graph, error)
	// Ops is the importer's op table as coverage: every canonical op kind
	// it can produce, and for the others why the format cannot express
	// them. nil for weights-only formats, which read no ops.
	Ops func() canon.Coverage
	// SourceOps maps the format's own operator names ("Convolution",
	// "torch.conv2d") to the canonical kinds they are read as, so that
	// `modelbridge ops` finds an op by the name a framework gives it. nil
	// when the format's names are the canonical ones.
	SourceOps func() map[string][]string
	// ReadCut, when set, reads only the part of the file between a cut's
	// inputs and outputs, so that ops outside the cut need not be
	// supported. Without it a cut is taken from the whole imported graph.
	ReadCut func(path string, opts ReadOptions, cut Cut) (*canon.Graph, error)
	// WeightsBeside names the file a graph's weights are read from when
	// they sit beside it ("-NNNN.params", ".caffemodel"), for the message
	// when they are missing. Empty for formats that hold their weights.
	WeightsBeside string
}

// Exporter writes canonical graphs in one format.
type Exporter struct {
	Name       string
	Extensions []string
	// Write must leave no partial output behind on error.
	Write func(g *canon.Graph, path string, opts WriteOptions) error
	// OutputFiles lists every file Write may create or replace for path
	// (nil means just path), so commands can refuse to overwrite inputs.
	OutputFiles func(g *canon.Graph, path string) []string
	// Ops is the exporter's op table as coverage (nil for weights-only
	// formats, which write no ops).
	Ops func() canon.Coverage
	// Opsets is the range of ONNX opsets the exporter writes (zero for
	// formats without opsets).
	Opsets OpsetRange
	// ExternalData is set when the exporter can put weights in a separate
	// file beside the model (WriteOptions.ExternalData).
	ExternalData bool
	// Folder is set when the exporter writes a folder for a path without a
	// model file extension (PyTorch's model.py + weights), and a single
	// weights file otherwise.
	Folder bool
	// KernelLayouts is set when the format records each tensor's layout,
	// so weights may be written in a non-canonical kernel layout.
	KernelLayouts bool
	// TypesOwnCopy is set when the exporter infers types on its own copy
	// of the graph, so the reader's value table (an entry per value) may
	// be dropped before writing to save the memory of a large graph.
	TypesOwnCopy bool
}

// OpsetRange is the ONNX opsets an exporter writes.
type OpsetRange struct {
	Min, Default, Max int
}

// Has reports whether the exporter writes opsets at all.
func (r OpsetRange) Has() bool { return r.Max > 0 }

// Outputs lists the files e may write for path.
func (e *Exporter) Outputs(g *canon.Graph, path string) []string {
	if e.OutputFiles == nil {
		return []string{path}
	}
	return e.OutputFiles(g, path)
}

var (
	mu        sync.RWMutex
	importers []*Importer
	exporters []*Exporter
)

// RegisterImporter adds an importer. It panics on a duplicate name, which is
// a programming error.
func RegisterImporter(imp *Importer) {
	mu.Lock()
	defer mu.Unlock()
	for _, i := range importers {
		if i.Name == imp.Name {
			panic("formats: importer " + imp.Name + " registered twice")
		}
	}
	importers = append(importers, imp)
}

// RegisterExporter adds an exporter.
func RegisterExporter(exp *Exporter) {
	mu.Lock()
	defer mu.Unlock()
	for _, e := range exporters {
		if e.Name == exp.Name {
			panic("formats: exporter " + exp.Name + " registered twice")
		}
	}
	exp.Write = refusingInvalidNames(exp.Write)
	exporters = append(exporters, exp)
}

// ImporterNames lists the registered importers, sorted.
func ImporterNames() []string {
	mu.RLock()
	defer mu.RUnlock()
	var out []string
	for _, i := range importers {
		out = append(out, i.Name)
	}
	sort.Strings(out)
	return out
}

// ExporterNames lists the registered exporters, sorted.
func ExporterNames() []string {
	mu.RLock()
	defer mu.RUnlock()
	var out []string
	for _, e := range exporters {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}

func hasSuffix(path string, exts []string) bool {
	lower := strings.ToLower(path)
	for _, e := range exts {
		if strings.HasSuffix(lower, e) {
			return true
		}
	}
	return false
}

// FindImporter picks the importer for path: by name when format is set,
// otherwise by the file's leading bytes, then by its extension.
func FindImporter(path, format string) (*Importer, error) {
	mu.RLock()
	defer mu.RUnlock()
	if format != "" {
		for _, i := range importers {
			if i.Name == format {
				return i, nil
			}
		}
		return nil, fmt.Errorf("unknown input format %q (known: %s)", format, strings.Join(namesLocked(importers), ", "))
	}
	head, err := readHead(path, 512)
	if err != nil {
		return nil, err
	}
	for _, i := range importers {
		if i.Probe != nil && i.Probe(path) {
			return i, nil
		}
	}
	for _, i := range importers {
		if i.Sniff != nil && i.Sniff(head) && hasSuffix(path, i.Extensions) {
			return i, nil
		}
	}
	for _, i := range importers {
		if i.Sniff != nil && i.Sniff(head) {
			return i, nil
		}
	}
	for _, i := range importers {
		if hasSuffix(path, i.Extensions) {
			return i, nil
		}
	}
	return nil, fmt.Errorf("%s: cannot tell the model format from its name or contents; pass --from (one of %s)", path, strings.Join(namesLocked(importers), ", "))
}

// FindExporter picks the exporter for path: by name when format is set,
// otherwise by extension.
func FindExporter(path, format string) (*Exporter, error) {
	mu.RLock()
	defer mu.RUnlock()
	var names []string
	for _, e := range exporters {
		names = append(names, e.Name)
		if format != "" && e.Name == format {
			return e, nil
		}
		if format == "" && hasSuffix(path, e.Extensions) {
			return e, nil
		}
	}
	sort.Strings(names)
	if format != "" {
		return nil, fmt.Errorf("unknown output format %q (known: %s)", format, strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("%s: cannot tell the output format from the file name; pass --to (one of %s)", path, strings.Join(names, ", "))
}

// Read imports a model, choosing the importer as FindImporter does, and
// validates the result: this is the one place a read graph is validated,
// and everything downstream (passes, exporters, the interpreter) trusts a
// graph that passed it.
func Read(path, format string, opts ReadOptions) (*canon.Graph, *Importer, error) {
	imp, err := FindImporter(path, format)
	if err != nil {
		return nil, nil, err
	}
	g, err := imp.Read(path, opts)
	if err != nil {
		return nil, imp, err
	}
	if opts.DynamicBatch {
		// Read again with axis 0 of every input symbolic, so that the
		// importer computes what depends on the batch size at run time
		// instead of folding the file's size in. The second read is given
		// the input types the first found; its note on types inferred from
		// their use stays.
		importNotes := append([]string(nil), g.Meta.Notes...)
		first := opts
		first.DynamicBatch = false
		if err := resolveInputDims(g, first); err != nil {
			g.Close()
			return nil, imp, fmt.Errorf("%s: %w", path, err)
		}
		opts = batchOptions(g, opts)
		g.Close()
		if g, err = imp.Read(path, opts); err != nil {
			return nil, imp, err
		}
		for _, n := range importNotes {
			if strings.HasPrefix(n, InferredTypesNote) && !slices.Contains(g.Meta.Notes, n) {
				g.Meta.Notes = append(g.Meta.Notes, n)
			}
		}
	}
	if err := resolveInputDims(g, opts); err != nil {
		g.Close()
		return nil, imp, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkInputDTypes(g, opts); err != nil {
		g.Close()
		return nil, imp, fmt.Errorf("%s: %w", path, err)
	}
	if err := g.Validate(); err != nil {
		g.Close()
		return nil, imp, fmt.Errorf("%s: %w", path, err)
	}
	completeOutputDims(g)
	return g, imp, nil
}

// Importers lists the registered importers, sorted by name.
func Importers() []*Importer {
	mu.RLock()
	defer mu.RUnlock()
	out := append([]*Importer(nil), importers...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Exporters lists the registered exporters, sorted by name.
func Exporters() []*Exporter {
	mu.RLock()
	defer mu.RUnlock()
	out := append([]*Exporter(nil), exporters...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func namesLocked[T interface{ *Importer | *Exporter }](list []T) []string {
	var out []string
	for _, x := range list {
		switch v := any(x).(type) {
		case *Importer:
			out = append(out, v.Name)
		case *Exporter:
			out = append(out, v.Name)
		}
	}
	sort.Strings(out)
	return out
}

func readHead(path string, n int) ([]byte, error) {
	f, _, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	return bytes.Clone(buf[:k]), nil
}

// SameFile reports whether a and b name the same existing file, so that a
// command can refuse to overwrite its input.
func SameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(sa, sb)
	}
	aa, _ := filepath.Abs(a)
	bb, _ := filepath.Abs(b)
	return aa == bb && err1 == nil
}
