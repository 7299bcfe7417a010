// Package onnximport reads ONNX models (IR 3..13, default-domain opsets
// 1..27) into canonical graphs; each op is read with the semantics of the
// model's opset (legacy.go resolves those of the oldest ones).
// Weights are not copied: the model file is memory-mapped and initializers'
// raw data point into the mapping, which the returned graph's Close releases.
//
// An initializer that is also listed as a graph input (required before IR 4,
// and how torch.onnx's keep_initializers_as_inputs writes every weight) is
// read as a weight, not as an input: treating every weight as a runtime
// input would stop BatchNorm folding and make `check` feed random weights.
// Such names are therefore not graph inputs of the canonical graph.
package onnximport

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/panicerr"
)

// Supported ranges of the ONNX IR version and the default-domain opset.
// Opsets 22 to 27 only widened the type constraints of the ops converted
// here (new element types, which are refused by name with the tensor) or
// added new ops; IR 11 to 13 added element types and device placement.
const (
	MinIRVersion = 3
	MaxIRVersion = 13
	MinOpset     = 1
	MaxOpset     = 27
)

func init() {
	formats.RegisterImporter(&formats.Importer{
		Name:       "onnx",
		Extensions: []string{".onnx"},
		Sniff:      Sniff,
		Read:       Read,
		Ops:        Coverage,
		SourceOps:  SourceOps,
		ReadCut: func(path string, opts formats.ReadOptions, cut formats.Cut) (*canon.Graph, error) {
			return ReadCut(path, opts, Cut{Inputs: cut.Inputs, Outputs: cut.Outputs})
		},
	})
}

// Read imports the ONNX model at path. The graph's initializers may point
// into a mapping of the file: call g.Close when done with the graph.
func Read(path string, opts formats.ReadOptions) (*canon.Graph, error) {
	m, err := mmapfile.Open(path)
	if err != nil {
		return nil, err
	}
	g := &canon.Graph{}
	g.AddResource(m)
	if err := readMapped(path, m.Data, m, opts, g); err != nil {
		g.Close() // releases the mapping: nothing may point into it now
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// readData imports the model held in data (which g's resources keep alive).
func readData(path string, data []byte, opts formats.ReadOptions, g *canon.Graph) error {
	return readMapped(path, data, nil, opts, g)
}

// readMapped is readData of data that lies in mapping (nil: in memory).
func readMapped(path string, data []byte, mapping *mmapfile.Mapping, opts formats.ReadOptions, g *canon.Graph) (err error) {
	// Every check is meant to run before a panic could; this is the net.
	defer panicerr.Recover("importing", &err)
	im := &importer{g: g, opts: opts, tr: &onnxtensor.Reader{BaseDir: filepath.Dir(path), Graph: g}, mapping: mapping}
	return im.read(data)
}

// readGuarded is read with readData's panic net.
func (im *importer) readGuarded(data []byte) (err error) {
	defer panicerr.Recover("importing", &err)
	return im.read(data)
}

func dirOf(path string) string { return filepath.Dir(path) }

func (im *importer) read(data []byte) error {
	if len(data) == 0 {
		return errors.New("the file is empty")
	}
	rest, graphBytes, err := splitModel(data)
	if err != nil {
		return err
	}
	mp := new(onnxpb.ModelProto)
	if err := proto.Unmarshal(rest, mp); err != nil {
		return fmt.Errorf("not a valid ONNX model: %v", err)
	}
	if err := im.readHeader(mp); err != nil {
		return err
	}
	// An import decodes each node when it converts it; a cut reads them
	// as messages (as does the import of a graph over 4 GiB, which holds
	// big initializers rather than many nodes).
	lazy := im.cut == nil && uint64(len(graphBytes)) <= math.MaxUint32
	grest, nodeAt, initBytes, err := splitGraph(graphBytes, im.cut != nil, lazy)
	if err != nil {
		return err
	}
	gp := new(onnxpb.GraphProto)
	for _, run := range grest {
		if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(run, gp); err != nil {
			return fmt.Errorf("not a valid ONNX graph: %v", err)
		}
	}
	inits := make([]*canon.Tensor, 0, len(initBytes))
	for i, b := range initBytes {
		t, err := im.tr.Decode(b)
		if err != nil {
			return fmt.Errorf("initializer %d: %w", i, err)
		}
		if t.Name == "" {
			return fmt.Errorf("initializer %d has no name", i)
		}
		inits = append(inits, t)
	}
	if im.cut != nil {
		if inits, err = im.cut.apply(gp, inits); err != nil {
			return err
		}
	}
	nodes := &fileNodes{graph: graphBytes, at32: nodeAt, mapping: im.mapping}
	if !lazy {
		nodes = &fileNodes{decoded: gp.Node}
		gp.Node = nil
	}
	return im.convertGraph(gp, nodes, inits)
}

func (im *importer) readHeader(mp *onnxpb.ModelProto) error {
	ir := mp.GetIrVersion()
	if ir < MinIRVersion || ir > MaxIRVersion {
		return fmt.Errorf("ONNX IR version %d is outside the supported range %d..%d; re-export the model with a supported version", ir, MinIRVersion, MaxIRVersion)
	}
	opset := int64(-1)
	im.mlOpset = -1
	for _, o := range mp.OpsetImport {
		switch d := o.GetDomain(); d {
		case "", "ai.onnx":
			opset = o.GetVersion()
		case mlDomain:
			im.mlOpset = o.GetVersion()
		}
	}
	// A model of other domains only (ai.onnx.ml, training) is valid: its
	// ai.onnx.ml nodes are read (ops_ml.go), others refused by domain.
	if opset >= 0 && (opset < MinOpset || opset > MaxOpset) {
		return fmt.Errorf("default-domain opset %d is outside the supported range %d..%d; convert the model with onnx.version_converter or re-export it", opset, MinOpset, MaxOpset)
	}
	im.opset = opset
	im.g.Meta = canon.Metadata{
		Producer:        mp.GetProducerName(),
		ProducerVersion: mp.GetProducerVersion(),
		SourceFormat:    "onnx",
		SourceIRVersion: ir,
		SourceOpset:     opset,
		Domain:          mp.GetDomain(),
		ModelVersion:    mp.GetModelVersion(),
		DocString:       mp.GetDocString(),
	}
	for _, kv := range mp.MetadataProps {
		im.g.Meta.Props = append(im.g.Meta.Props, canon.KeyValue{Key: kv.GetKey(), Value: kv.GetValue()})
	}
	return nil
}
