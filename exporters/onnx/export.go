// Package onnxexport writes canonical graphs as ONNX models.
//
// Each canonical op kind has one entry in the exports table (ops.go): the
// ONNX op that expresses it at the chosen opset (11..26), or below that op's
// opset an equivalent expansion (HardSwish, Gelu), with parameters that ONNX takes as inputs (Reshape shapes, axes, pads, Clip
// bounds...) written as generated initializers. The writer streams: the
// graph structure is marshalled on its own (it is small), and each weight's
// bytes go straight from the source tensor (often a memory mapping of the
// input file) to the output file, so exporting never holds a second copy of
// the weights.
package onnxexport

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/atomicfile"
	"github.com/modelbridge/modelbridge/internal/interrupt"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
)

const (
	// DefaultOpset is the opset written when none is asked for, unless
	// the model needs a newer one: then the lowest newer opset that
	// expresses it.
	DefaultOpset = 13
	// MinOpset and MaxOpset bound the opsets this exporter can target:
	// 26 is the newest ONNX Runtime 1.30 loads.
	MinOpset = 11
	MaxOpset = 26

	// ProducerName and ProducerVersion are written into every model.
	ProducerName    = "modelbridge"
	ProducerVersion = "0.1.0"

	// externalMin is the smallest tensor moved to the external data file;
	// smaller ones stay inline, as onnx's own save does.
	externalMin = 1024
	// externalAlign aligns tensors in the data file so they can be mapped.
	externalAlign = 4096
	// protoLimit is the largest message protobuf parsers accept.
	protoLimit = math.MaxInt32
)

func init() {
	formats.RegisterExporter(&formats.Exporter{
		Name:       "onnx",
		Extensions: []string{".onnx"},
		Write:      Write,
		// External data is also chosen automatically for big models.
		OutputFiles:  func(_ *canon.Graph, path string) []string { return []string{path, path + ".data"} },
		Ops:          Coverage,
		Opsets:       formats.OpsetRange{Min: MinOpset, Default: DefaultOpset, Max: MaxOpset},
		ExternalData: true,
		TypesOwnCopy: true,
	})
}

// irVersion is the IR version ONNX releases pair with each opset (the
// oldest IR that can carry it): the checker refuses an opset newer than
// its IR allows, and older readers an IR newer than they know.
func irVersion(opset int) int64 {
	switch {
	case opset <= 11:
		return 6
	case opset <= 14:
		return 7
	case opset <= 18:
		return 8
	case opset <= 20:
		return 9
	case opset <= 22:
		return 10
	case opset == 23:
		return 11
	case opset == 24:
		return 12
	default:
		return 13
	}
}

// Write exports g to path as an ONNX model at opts.Opset (0 means
// DefaultOpset). With opts.ExternalData, or when the model would exceed
// protobuf's 2 GiB limit, tensors over 1 KiB go to "<file>.data" beside it.
// Nothing is written when the graph cannot be expressed; an existing file
// at path is replaced only once the new one is complete.
func Write(g *canon.Graph, path string, opts formats.WriteOptions) error {
	_, err := write(g, path, opts)
	return err
}

// writeInfo tells tests how a model was written.
type writeInfo struct {
	// expanded: some op became several ONNX nodes (or lost a flag that
	// changes nothing), so the re-imported graph differs from g while
	// computing the same function.
	expanded bool
	external bool
}

func write(g *canon.Graph, path string, opts formats.WriteOptions) (*writeInfo, error) {
	opset := opts.Opset
	if opset != 0 && opset != formats.OpsetAuto && (opset < MinOpset || opset > MaxOpset) {
		return nil, fmt.Errorf("%s: cannot write ONNX opset %d; this exporter writes opsets %d to %d", path, opset, MinOpset, MaxOpset)
	}
	g, err := withIOLayout(g, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if g != nil {
		// A weight shared under several names is one initializer here.
		g, _ = canon.MergeShared(g)
	}
	valid, err := validated(g)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	types := valueTypes(g, valid.Values)
	var b *builder
	switch opset {
	case formats.OpsetAuto:
		if b, err = buildLowest(g, types, MinOpset); err == nil && opts.Verbose != nil {
			fmt.Fprintf(opts.Verbose, "opset auto: writing opset %d (IR %d), the lowest that expresses the model\n", b.opset, irVersion(b.opset))
		}
	case 0:
		var why error
		if b, why = build(g, types, DefaultOpset); why != nil {
			if b, err = buildLowest(g, types, DefaultOpset); err == nil && opts.Notes != nil {
				fmt.Fprintf(opts.Notes, "writing ONNX opset %d, the lowest newer than the default %d that expresses the model (at %d: %v); --opset N chooses one\n", b.opset, DefaultOpset, DefaultOpset, why)
			}
		}
	default:
		b, err = build(g, types, opset)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	opset = b.opset

	body, err := marshalGraph(g, b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	headBytes, err := onnxtensor.MarshalOptions.Marshal(modelHead(g, opset))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}

	tensors := make([]*canon.Tensor, 0, len(g.Initializers)+len(b.params))
	tensors = append(tensors, g.Initializers...)
	tensors = append(tensors, b.params...)
	for _, t := range tensors {
		if err := onnxtensor.Check(t); err != nil {
			return nil, fmt.Errorf("%s: initializer: %w", path, err)
		}
	}

	lay, err := layOut(tensors, nil, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	external := opts.ExternalData || modelSize(headBytes, body, lay) > protoLimit
	dataName := filepath.Base(path) + ".data"
	if external {
		if lay, err = layOut(tensors, &externalPlan{}, dataName); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if size := modelSize(headBytes, body, lay); size > protoLimit {
			return nil, fmt.Errorf("%s: the model structure alone is %d bytes, over protobuf's 2 GiB limit, even with the weights in %s; large Constant nodes could be turned into initializers", path, size, dataName)
		}
	}

	if err := writeFiles(path, filepath.Join(filepath.Dir(path), dataName), headBytes, body, lay, external, opts.Progress); err != nil {
		return nil, err
	}
	return &writeInfo{expanded: b.expanded, external: external}, nil
}

// build converts every node of g for one opset.
func build(g *canon.Graph, types inferredTypes, opset int) (*builder, error) {
	b := &builder{g: g, opset: opset, types: types.all, inferred: types}
	for _, n := range g.Nodes {
		if err := b.node(n); err != nil {
			return nil, err
		}
	}
	b.outputs = b.graphOutputs(g)
	if b.err != nil {
		return nil, b.err
	}
	return b, nil
}

// buildLowest converts g at the lowest opset that expresses every node
// (natively or by an exact expansion); converting is cheap next to
// writing the weights, so each opset is simply tried in turn.
func buildLowest(g *canon.Graph, types inferredTypes, from int) (*builder, error) {
	var err error
	for opset := from; opset <= MaxOpset; opset++ {
		var b *builder
		if b, err = build(g, types, opset); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("no opset from %d to %d expresses the model; at %d: %w", from, MaxOpset, MaxOpset, err)
}

// validated checks g once, as formats.Read does, so that writing trusts
// the graph from then on; Write is public and may be handed a graph built
// by hand. It validates a shallow copy: validation completes output
// declarations and records inferred types, and writing a model must not
// change the caller's graph.
func validated(g *canon.Graph) (*canon.Graph, error) {
	if g == nil {
		return nil, fmt.Errorf("no graph to write")
	}
	cp := *g
	cp.Outputs = append([]canon.ValueInfo(nil), g.Outputs...)
	if err := cp.Validate(); err != nil {
		return nil, fmt.Errorf("the graph is not valid, so it cannot be written: %w", err)
	}
	return &cp, nil
}

// reserveNames marks every name the graph already uses, so generated names
// never collide with them.
func reserveNames(taken map[string]bool, g *canon.Graph) {
	for _, v := range g.Inputs {
		taken[v.Name] = true
	}
	for _, v := range g.Outputs {
		taken[v.Name] = true
	}
	for _, t := range g.Initializers {
		taken[t.Name] = true
	}
	for _, n := range g.Nodes {
		if n.Name != "" {
			taken[n.Name] = true
		}
		for _, s := range n.Inputs {
			taken[s] = true
		}
		for _, s := range n.Outputs {
			taken[s] = true
		}
	}
	delete(taken, "")
}

// inferredTypes is what is known about each value's type (all): what
// validation inferred, completed by a plain dtype propagation for values
// inference leaves without a dtype, so that the dtypes that parameter
// inputs need are known. The completion is made in inference's own map
// (the exporter's private copy): a second map of every value would double
// the memory types take in a big graph. shadowed keeps inference's entry
// (nil: none) for each value the completion changed, so that value_info
// is written from inference alone.
type inferredTypes struct {
	all      *canon.ValueTable
	shadowed map[string]*canon.ValueInfo
}

// inferred returns what inference found for value name.
func (t inferredTypes) inferred(name string) (canon.ValueInfo, bool) {
	if old, ok := t.shadowed[name]; ok {
		if old == nil {
			return canon.ValueInfo{}, false
		}
		return *old, true
	}
	return t.all.Lookup(name)
}

// valueTypes completes inferred (validation's map, which it takes over)
// with a plain dtype propagation.
func valueTypes(g *canon.Graph, inferred *canon.ValueTable) inferredTypes {
	if inferred == nil {
		inferred = canon.NewValueTable(0)
	}
	types := inferredTypes{all: inferred, shadowed: map[string]*canon.ValueInfo{}}
	put := func(name string, vi canon.ValueInfo) {
		if _, seen := types.shadowed[name]; !seen {
			if old, ok := inferred.Lookup(name); ok {
				types.shadowed[name] = &old
			} else {
				types.shadowed[name] = nil
			}
		}
		inferred.Set(name, vi)
	}
	set := func(name string, vi canon.ValueInfo) {
		if name == "" {
			return
		}
		if inferred.Get(name).DType != canon.Undefined {
			return
		}
		vi.Name = name
		put(name, vi)
	}
	for _, v := range g.Inputs {
		set(v.Name, v)
	}
	for _, t := range g.Initializers {
		set(t.Name, canon.ValueInfo{DType: t.DType, Shape: canon.DimsOf(t.Shape...), RankKnown: true})
	}
	for _, n := range g.Nodes {
		if len(n.Outputs) == 0 {
			continue
		}
		switch op := n.Op.(type) {
		case *canon.Constant:
			if op.Value != nil {
				set(n.Outputs[0], canon.ValueInfo{DType: op.Value.DType, Shape: canon.DimsOf(op.Value.Shape...), RankKnown: true})
			}
		case *canon.ShapeOf:
			set(n.Outputs[0], canon.ValueInfo{DType: canon.Int64, Shape: []canon.Dim{{Size: -1}}, RankKnown: true})
		default:
			// The op's own dtype rule (canon.InferDTypes), from the input
			// dtypes known so far.
			in := make([]canon.DType, len(n.Inputs))
			for i, name := range n.Inputs {
				if name != "" {
					in[i] = inferred.Get(name).DType
				}
			}
			dts, err := canon.InferDTypes(n, in)
			if err != nil {
				continue
			}
			for i, o := range n.Outputs {
				if i < len(dts) && dts[i] != canon.Undefined {
					set(o, canon.ValueInfo{DType: dts[i]})
				}
			}
			if _, ok := op.(*canon.Dropout); ok && len(n.Outputs) > 1 {
				x := inferred.Get(n.Inputs[0])
				put(n.Outputs[1], canon.ValueInfo{Name: n.Outputs[1], DType: canon.Bool, Shape: x.Shape, RankKnown: x.RankKnown})
			}
		}
	}
	return types
}

// valueInfo converts a canonical value type; an unknown rank gives a tensor
// type without a shape, an unknown dimension a dim with neither value nor
// name.
func valueInfo(v canon.ValueInfo, types *canon.ValueTable) *onnxpb.ValueInfoProto {
	if v.DType == canon.Undefined {
		if t, ok := types.Lookup(v.Name); ok {
			v.DType = t.DType
			if !v.RankKnown {
				v.Shape, v.RankKnown = t.Shape, t.RankKnown
			}
			if v.Kind == canon.TensorValue {
				v.Kind = t.Kind
			}
		}
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(v.Name), Type: typeProto(v)}
}

// tensorTypeProto is the TypeProto of a tensor of v's dtype and shape.
func tensorTypeProto(v canon.ValueInfo) *onnxpb.TypeProto {
	tt := &onnxpb.TypeProto_Tensor{}
	if code, ok := DataType(v.DType); ok {
		tt.ElemType = proto.Int32(code)
	}
	if v.RankKnown {
		tt.Shape = &onnxpb.TensorShapeProto{Dim: make([]*onnxpb.TensorShapeProto_Dimension, len(v.Shape))}
		for i, d := range v.Shape {
			dim := &onnxpb.TensorShapeProto_Dimension{}
			switch {
			case d.Known():
				dim.Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d.Size}
			case d.Param != "":
				dim.Value = &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: d.Param}
			}
			tt.Shape.Dim[i] = dim
		}
	}
	return &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: tt}}
}

// graphBody is the GraphProto without its initializers, which are
// streamed separately: the nodes, the name, inputs and outputs, and the
// value_info of intermediate values. The nodes and the value_info are
// encoded one at a time as they are written (and once before, to learn
// their size) rather than held: a graph of millions of nodes would
// otherwise hold tens of megabytes of them. The bytes are those of the
// whole GraphProto marshalled deterministically (fields in number order).
type graphBody struct {
	io        []byte
	opset     int
	nodesSize int64
	infoSize  int64
	g         *canon.Graph
	types     inferredTypes
	ioNames   map[string]bool
}

// marshalGraph encodes the graph's structure (see graphBody).
func marshalGraph(g *canon.Graph, b *builder) (*graphBody, error) {
	gp := &onnxpb.GraphProto{}
	if g.Name != "" {
		gp.Name = proto.String(g.Name)
	}
	ioNames := map[string]bool{}
	for _, v := range g.Inputs {
		gp.Input = append(gp.Input, valueInfo(v, b.types))
		ioNames[v.Name] = true
	}
	for _, v := range b.outputs {
		gp.Output = append(gp.Output, valueInfo(v, b.types))
		ioNames[v.Name] = true
	}
	head, err := onnxtensor.MarshalOptions.Marshal(gp)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the graph: %w", err)
	}
	body := &graphBody{io: head, opset: b.opset, nodesSize: b.nodesSize, g: g, types: b.inferred, ioNames: ioNames}
	err = body.eachInfo(func(_ string, m *onnxpb.ValueInfoProto) error {
		n := onnxtensor.MarshalOptions.Size(m)
		body.infoSize += int64(protowire.SizeTag(13) + protowire.SizeBytes(n))
		return nil
	})
	return body, err
}

// eachInfo calls fn with the value_info message of every intermediate
// value whose type inference found, in node order: ONNX Runtime and other
// tools use them, and they cost a few bytes per value.
func (gb *graphBody) eachInfo(fn func(name string, m *onnxpb.ValueInfoProto) error) error {
	for _, n := range gb.g.Nodes {
		for _, o := range n.Outputs {
			if o == "" || gb.ioNames[o] {
				continue
			}
			vi, ok := gb.types.inferred(o)
			if !ok || vi.DType == canon.Undefined {
				continue
			}
			// Each value has one producer in a valid graph: only the
			// graph's inputs and outputs need to be left out.
			vi.Name = o
			if err := fn(o, valueInfo(vi, nil)); err != nil {
				return err
			}
		}
	}
	return nil
}

// size is the length of the encoded body.
func (gb *graphBody) size() int64 {
	if gb == nil {
		return 0
	}
	return gb.nodesSize + int64(len(gb.io)) + gb.infoSize
}

// writeTo writes the body, encoding the value_info as it goes.
func (gb *graphBody) writeTo(w io.Writer) error {
	// The nodes are built again, as they were when their size was
	// counted, and written as they are encoded.
	nb := &builder{g: gb.g, opset: gb.opset, types: gb.types.all, inferred: gb.types, out: w}
	for _, n := range gb.g.Nodes {
		if err := nb.node(n); err != nil {
			return err
		}
	}
	nb.graphOutputs(gb.g)
	if nb.err != nil {
		return nb.err
	}
	if nb.nodesSize != gb.nodesSize {
		return fmt.Errorf("the graph's nodes encoded to %d bytes, then to %d: the ONNX exporter is not deterministic", gb.nodesSize, nb.nodesSize)
	}
	if _, err := w.Write(gb.io); err != nil {
		return err
	}
	var buf []byte
	return gb.eachInfo(func(name string, m *onnxpb.ValueInfoProto) error {
		buf = protowire.AppendTag(buf[:0], 13, protowire.BytesType) // GraphProto.value_info
		buf = protowire.AppendVarint(buf, uint64(onnxtensor.MarshalOptions.Size(m)))
		var err error
		if buf, err = cachedSize.MarshalAppend(buf, m); err != nil {
			return fmt.Errorf("cannot encode the type of %q: %w", name, err)
		}
		_, err = w.Write(buf)
		return err
	})
}

// modelHead is the ModelProto without its graph.
func modelHead(g *canon.Graph, opset int) *onnxpb.ModelProto {
	m := &onnxpb.ModelProto{
		IrVersion:       proto.Int64(irVersion(opset)),
		OpsetImport:     []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(int64(opset))}},
		ProducerName:    proto.String(ProducerName),
		ProducerVersion: proto.String(ProducerVersion),
	}
	if v := mlOpsetOf(g); v > 0 {
		m.OpsetImport = append(m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: proto.String(mlDomain), Version: proto.Int64(int64(v))})
	}
	if g.Meta.Domain != "" {
		m.Domain = proto.String(g.Meta.Domain)
	}
	if g.Meta.ModelVersion != 0 {
		m.ModelVersion = proto.Int64(g.Meta.ModelVersion)
	}
	if g.Meta.DocString != "" {
		m.DocString = proto.String(g.Meta.DocString)
	}
	for _, kv := range g.Meta.Props {
		m.MetadataProps = append(m.MetadataProps, &onnxpb.StringStringEntryProto{Key: proto.String(kv.Key), Value: proto.String(kv.Value)})
	}
	return m
}

// externalPlan places tensors in the external data file.
type externalPlan struct {
	size int64 // bytes used so far, including alignment padding
}

// layout is every initializer ready to stream, and where external data goes.
type layout struct {
	tensors []*onnxtensor.Stream
	// extents are (offset, data) of the tensors in the external file, in
	// file order.
	extents []extent
	extSize int64
}

type extent struct {
	offset int64
	data   []byte
}

// layOut marshals each tensor's header; with a plan, tensors over
// externalMin bytes are placed in the external file named location.
func layOut(tensors []*canon.Tensor, plan *externalPlan, location string) (*layout, error) {
	lay := &layout{tensors: make([]*onnxtensor.Stream, len(tensors))}
	for i, t := range tensors {
		tp := onnxtensor.Header(t)
		// A String tensor's elements are in its header (string_data).
		it := &onnxtensor.Stream{Data: t.Data, Inline: t.DType != canon.String}
		if plan != nil && len(t.Data) > externalMin {
			off := (plan.size + externalAlign - 1) / externalAlign * externalAlign
			plan.size = off + int64(len(t.Data))
			tp.DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
			tp.ExternalData = []*onnxpb.StringStringEntryProto{
				{Key: proto.String("location"), Value: proto.String(location)},
				{Key: proto.String("offset"), Value: proto.String(strconv.FormatInt(off, 10))},
				{Key: proto.String("length"), Value: proto.String(strconv.Itoa(len(t.Data)))},
			}
			it.Inline = false
			lay.extents = append(lay.extents, extent{offset: off, data: t.Data})
		}
		hdr, err := onnxtensor.MarshalOptions.Marshal(tp)
		if err != nil {
			return nil, fmt.Errorf("initializer %q: %w", t.Name, err)
		}
		it.Header = hdr
		lay.tensors[i] = it
	}
	if plan != nil {
		lay.extSize = plan.size
	}
	return lay, nil
}

// graphSize is the length of the graph message: its structure plus one
// initializer field (5) per tensor.
func graphSize(body *graphBody, lay *layout) int64 {
	n := body.size()
	for _, it := range lay.tensors {
		n += int64(protowire.SizeTag(5) + protowire.SizeBytes(it.Size()))
	}
	return n
}

func modelSize(head []byte, body *graphBody, lay *layout) int64 {
	gs := graphSize(body, lay)
	return int64(len(head)) + int64(protowire.SizeTag(7)) + int64(protowire.SizeVarint(uint64(gs))) + gs
}

// writeFiles streams the model (and the external data file) atomically.
func writeFiles(path, dataPath string, head []byte, body *graphBody, lay *layout, external bool, progress func(done, total int64)) error {
	var done, total int64
	for _, it := range lay.tensors {
		if it.Inline {
			total += int64(len(it.Data))
		}
	}
	for _, e := range lay.extents {
		total += int64(len(e.data))
	}
	report := func(n int) {
		if progress != nil {
			done += int64(n)
			progress(done, total)
		}
	}
	mf, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer mf.Abort()
	werr := func(err error) error { return fmt.Errorf("cannot write %s: %w", path, err) }

	var pre []byte
	pre = protowire.AppendTag(pre, 7, protowire.BytesType)
	pre = protowire.AppendVarint(pre, uint64(graphSize(body, lay)))
	for _, b := range [][]byte{head, pre} {
		if _, err := mf.Write(b); err != nil {
			return werr(err)
		}
	}
	if err := body.writeTo(mf); err != nil {
		return werr(err)
	}
	for _, it := range lay.tensors {
		var p [16]byte
		b := protowire.AppendTag(p[:0], 5, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(it.Size()))
		if _, err := mf.Write(b); err != nil {
			return werr(err)
		}
		if err := it.WriteBody(mf); err != nil {
			return werr(err)
		}
		if it.Inline {
			report(len(it.Data))
		}
	}
	if !external {
		return mf.Commit()
	}
	// Finish the model's bytes first so the two renames follow each other
	// as closely as possible.
	if err := mf.W.Flush(); err != nil {
		return werr(err)
	}
	df, err := atomicfile.Create(dataPath)
	if err != nil {
		return err
	}
	defer df.Abort()
	var pos int64
	zeros := make([]byte, externalAlign)
	for _, e := range lay.extents {
		if pad := e.offset - pos; pad > 0 {
			if _, err := df.Write(zeros[:pad]); err != nil {
				return fmt.Errorf("cannot write %s: %w", dataPath, err)
			}
		}
		if _, err := df.Write(e.data); err != nil {
			return fmt.Errorf("cannot write %s: %w", dataPath, err)
		}
		report(len(e.data))
		pos = e.offset + int64(len(e.data))
	}
	// Two renames cannot be one atomic step: keep a hard link to the old
	// data file so that, if the model's rename fails after the data's, the
	// old model still finds the data it refers to.
	backup, releaseBackup := linkBackup(dataPath)
	defer releaseBackup()
	// Both renames happen with interrupts held back (CommitAll), so an
	// interrupt leaves either the old pair or the new one.
	if err := atomicfile.CommitAll(df, mf); err != nil {
		// The data file may have been replaced: put the old one back
		// (or remove the new one when there was none).
		if backup != "" {
			os.Rename(backup, dataPath)
		} else {
			os.Remove(dataPath)
		}
		return err
	}
	if backup != "" {
		os.Remove(backup)
	}
	return nil
}

// linkBackup hard-links an existing file to a fresh name beside it and
// returns that name, or "" when there is no file or links are unsupported.
// The link is removed if the run is interrupted; call release when done.
func linkBackup(path string) (string, func()) {
	if _, err := os.Lstat(path); err != nil {
		return "", func() {}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".old-*")
	if err != nil {
		return "", func() {}
	}
	name := f.Name()
	release := interrupt.Track(name, "")
	f.Close()
	os.Remove(name)
	if err := os.Link(path, name); err != nil {
		release()
		return "", func() {}
	}
	return name, release
}
