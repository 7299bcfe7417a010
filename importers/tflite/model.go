package tfliteimport

import (
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// The flatbuffer is copied into plain structs once, with every index and
// length checked against the file, so that the op converters never touch
// the raw tables (whose accessors trust every offset).

// model is the part of a .tflite file the importer reads.
type model struct {
	version     uint32
	description string
	opcodes     []opcode
	buffers     []buffer
	subgraphs   []string // names, for refusals
	main        subgraph
	limit       int // the most entries any vector of this file can hold
}

// opcode is one operator_codes entry.
type opcode struct {
	builtin tflitefb.BuiltinOperator
	custom  string
	version int32
}

// name is the op's schema name (CONV_2D), or the custom code.
func (o opcode) name() string {
	if o.builtin == tflitefb.BuiltinOperatorCUSTOM {
		return "CUSTOM(" + o.custom + ")"
	}
	if n, ok := tflitefb.EnumNamesBuiltinOperator[o.builtin]; ok {
		return n
	}
	return fmt.Sprintf("BuiltinOperator(%d)", o.builtin)
}

// buffer is a buffers entry: its bytes inside the file (nil when empty).
type buffer struct {
	data []byte
}

// subgraph is the main graph.
type subgraph struct {
	name      string
	tensors   []tensorDef
	inputs    []int
	outputs   []int
	operators []operatorDef
}

// tensorDef is one tensor of the subgraph.
type tensorDef struct {
	index      int
	name       string
	dtype      tflitefb.TensorType
	shape      []int64
	signature  []int64 // shape_signature: -1 marks a dynamic axis
	buffer     int
	variable   bool
	sparse     bool
	quant      *quantDef
	hasRankFal bool // has_rank false with an empty shape: unknown rank
}

// quantDef is a tensor's affine quantization.
type quantDef struct {
	scale []float32
	zero  []int64
	axis  int // quantized_dimension
}

// perAxis reports whether the tensor has more than one scale.
func (q *quantDef) perAxis() bool { return q != nil && len(q.scale) > 1 }

// operatorDef is one operator of the subgraph.
type operatorDef struct {
	index       int
	opcode      opcode
	inputs      []int // -1: an absent optional input
	outputs     []int
	optionsType tflitefb.BuiltinOptions
	options     *flatbuffers.Table // nil without builtin options
	intermed    int
	// intermediates are the tensors an integer kernel takes its
	// intermediate scales from (an integer LSTM's gates); -1 when absent.
	intermediates []int
}

// maxRank bounds a tensor's rank (TFLite kernels support at most 6).
const maxRank = 16

// parseModel copies the model's tables out of buf, checking every count
// against the size of the file so that a hostile length cannot make the
// reader allocate or loop without bound.
func parseModel(buf []byte) (*model, error) {
	if len(buf) < 8 {
		return nil, fmt.Errorf("file is %d bytes, too short for a TFLite flatbuffer", len(buf))
	}
	if string(buf[4:8]) != "TFL3" {
		return nil, fmt.Errorf("no TFL3 file identifier at offset 4: not a TFLite model")
	}
	// The tables are read from a copy padded with 8 zero bytes (see
	// verify.go); tensor data stays a view into buf.
	fbBuf := make([]byte, len(buf)+8)
	copy(fbBuf, buf)
	if err := verifyModel(fbBuf, len(buf)); err != nil {
		return nil, fmt.Errorf("%w: the file is truncated or corrupt", err)
	}
	fb := tflitefb.GetRootAsModel(fbBuf, 0)
	m := &model{version: fb.Version(), description: string(fb.Description())}
	limit := len(buf) / 4 // every vector element takes at least 4 bytes of offsets
	m.limit = limit
	count := func(what string, n int) error {
		if n < 0 || n > limit {
			return fmt.Errorf("%s claims %d entries, more than a %d-byte file can hold: the file is corrupt", what, n, len(buf))
		}
		return nil
	}
	if err := count("operator_codes", fb.OperatorCodesLength()); err != nil {
		return nil, err
	}
	for i := 0; i < fb.OperatorCodesLength(); i++ {
		var oc tflitefb.OperatorCode
		if !fb.OperatorCodes(&oc, i) {
			return nil, fmt.Errorf("operator_codes[%d] is missing", i)
		}
		// Newer writers fill builtin_code, older ones only the int8
		// deprecated field; the larger of the two is the op (as TFLite's
		// GetBuiltinCode decides).
		code := tflitefb.BuiltinOperator(oc.DeprecatedBuiltinCode())
		if b := oc.BuiltinCode(); b > code {
			code = b
		}
		m.opcodes = append(m.opcodes, opcode{builtin: code, custom: string(oc.CustomCode()), version: oc.Version()})
	}
	if err := count("buffers", fb.BuffersLength()); err != nil {
		return nil, err
	}
	for i := 0; i < fb.BuffersLength(); i++ {
		var b tflitefb.Buffer
		if !fb.Buffers(&b, i) {
			return nil, fmt.Errorf("buffers[%d] is missing", i)
		}
		data := b.DataBytes()
		if len(data) > 0 {
			// The same bytes in the file itself, not the padded copy:
			// the accessor's slice runs to the end of the copy, so its
			// capacity gives its offset.
			start := len(fbBuf) - cap(data)
			data = buf[start : start+len(data)]
		}
		if off, size := b.Offset(), b.Size(); off > 1 {
			// Large models keep buffers after the flatbuffer, addressed
			// from the start of the file.
			if off > uint64(len(buf)) || size > uint64(len(buf))-off {
				return nil, fmt.Errorf("buffers[%d] lies at offset %d size %d, outside the %d-byte file: the file is truncated", i, off, size, len(buf))
			}
			data = buf[off : off+size]
		}
		if len(data) == 0 {
			data = nil
		}
		m.buffers = append(m.buffers, buffer{data: data})
	}
	ns := fb.SubgraphsLength()
	if err := count("subgraphs", ns); err != nil {
		return nil, err
	}
	if ns == 0 {
		return nil, fmt.Errorf("the model has no subgraph")
	}
	for i := 0; i < ns; i++ {
		var sg tflitefb.SubGraph
		if !fb.Subgraphs(&sg, i) {
			return nil, fmt.Errorf("subgraphs[%d] is missing", i)
		}
		m.subgraphs = append(m.subgraphs, string(sg.Name()))
		if i == 0 {
			s, err := m.parseSubgraph(&sg, count)
			if err != nil {
				return nil, err
			}
			m.main = *s
		}
	}
	return m, nil
}

func (m *model) parseSubgraph(sg *tflitefb.SubGraph, count func(string, int) error) (*subgraph, error) {
	s := &subgraph{name: string(sg.Name())}
	nt := sg.TensorsLength()
	if err := count("tensors", nt); err != nil {
		return nil, err
	}
	for i := 0; i < nt; i++ {
		var t tflitefb.Tensor
		if !sg.Tensors(&t, i) {
			return nil, fmt.Errorf("tensors[%d] is missing", i)
		}
		td, err := m.parseTensor(&t, i)
		if err != nil {
			return nil, fmt.Errorf("tensor %d (%q): %w", i, string(t.Name()), err)
		}
		s.tensors = append(s.tensors, *td)
	}
	index := func(what string, v int32, optional bool) (int, error) {
		if v == -1 && optional {
			return -1, nil
		}
		if v < 0 || int(v) >= nt {
			return 0, fmt.Errorf("%s names tensor %d; the subgraph has %d tensors", what, v, nt)
		}
		return int(v), nil
	}
	if err := count("subgraph inputs", sg.InputsLength()); err != nil {
		return nil, err
	}
	for i := 0; i < sg.InputsLength(); i++ {
		t, err := index("subgraph input", sg.Inputs(i), false)
		if err != nil {
			return nil, err
		}
		s.inputs = append(s.inputs, t)
	}
	if err := count("subgraph outputs", sg.OutputsLength()); err != nil {
		return nil, err
	}
	for i := 0; i < sg.OutputsLength(); i++ {
		t, err := index("subgraph output", sg.Outputs(i), false)
		if err != nil {
			return nil, err
		}
		s.outputs = append(s.outputs, t)
	}
	no := sg.OperatorsLength()
	if err := count("operators", no); err != nil {
		return nil, err
	}
	for i := 0; i < no; i++ {
		var op tflitefb.Operator
		if !sg.Operators(&op, i) {
			return nil, fmt.Errorf("operators[%d] is missing", i)
		}
		oi := int(op.OpcodeIndex())
		if oi >= len(m.opcodes) {
			return nil, fmt.Errorf("operator %d uses opcode %d; the model has %d", i, oi, len(m.opcodes))
		}
		od := operatorDef{index: i, opcode: m.opcodes[oi], intermed: op.IntermediatesLength()}
		if err := count("operator inputs", op.InputsLength()); err != nil {
			return nil, err
		}
		for j := 0; j < op.InputsLength(); j++ {
			t, err := index(fmt.Sprintf("operator %d (%s) input %d", i, od.opcode.name(), j), op.Inputs(j), true)
			if err != nil {
				return nil, err
			}
			od.inputs = append(od.inputs, t)
		}
		if err := count("operator outputs", op.OutputsLength()); err != nil {
			return nil, err
		}
		for j := 0; j < op.OutputsLength(); j++ {
			t, err := index(fmt.Sprintf("operator %d (%s) output %d", i, od.opcode.name(), j), op.Outputs(j), false)
			if err != nil {
				return nil, err
			}
			od.outputs = append(od.outputs, t)
		}
		if err := count("operator intermediates", op.IntermediatesLength()); err != nil {
			return nil, err
		}
		for j := 0; j < op.IntermediatesLength(); j++ {
			t, err := index(fmt.Sprintf("operator %d (%s) intermediate %d", i, od.opcode.name(), j), op.Intermediates(j), true)
			if err != nil {
				return nil, err
			}
			od.intermediates = append(od.intermediates, t)
		}
		od.optionsType = op.BuiltinOptionsType()
		var tab flatbuffers.Table
		if od.optionsType != tflitefb.BuiltinOptionsNONE && op.BuiltinOptions(&tab) {
			if int(tab.Pos) < 0 || int(tab.Pos) >= len(tab.Bytes) {
				return nil, fmt.Errorf("operator %d (%s): builtin options lie outside the file", i, od.opcode.name())
			}
			od.options = &tab
		}
		s.operators = append(s.operators, od)
	}
	return s, nil
}

func (m *model) parseTensor(t *tflitefb.Tensor, i int) (*tensorDef, error) {
	td := &tensorDef{index: i, name: string(t.Name()), dtype: t.Type(), buffer: int(t.Buffer()), variable: t.IsVariable()}
	if td.buffer >= len(m.buffers) {
		return nil, fmt.Errorf("buffer %d does not exist (the model has %d)", td.buffer, len(m.buffers))
	}
	if t.ShapeLength() > maxRank || t.ShapeSignatureLength() > maxRank {
		return nil, fmt.Errorf("rank %d is more than %d", max(t.ShapeLength(), t.ShapeSignatureLength()), maxRank)
	}
	for j := 0; j < t.ShapeLength(); j++ {
		d := t.Shape(j)
		if d < 0 {
			return nil, fmt.Errorf("shape %v has a negative dimension", td.shape)
		}
		td.shape = append(td.shape, int64(d))
	}
	for j := 0; j < t.ShapeSignatureLength(); j++ {
		td.signature = append(td.signature, int64(t.ShapeSignature(j)))
	}
	td.hasRankFal = len(td.shape) == 0 && !t.HasRank() && td.buffer == 0
	var sp tflitefb.SparsityParameters
	td.sparse = t.Sparsity(&sp) != nil
	var q tflitefb.QuantizationParameters
	if t.Quantization(&q) != nil && q.ScaleLength() > 0 {
		if q.ScaleLength() > m.limit || q.ZeroPointLength() > m.limit/2 {
			return nil, fmt.Errorf("quantization has %d scales: too many", q.ScaleLength())
		}
		if q.DetailsType() != tflitefb.QuantizationDetailsNONE {
			return nil, fmt.Errorf("custom quantization details (%s) are not supported", tflitefb.EnumNamesQuantizationDetails[q.DetailsType()])
		}
		qd := &quantDef{axis: int(q.QuantizedDimension())}
		for j := 0; j < q.ScaleLength(); j++ {
			qd.scale = append(qd.scale, q.Scale(j))
		}
		for j := 0; j < q.ZeroPointLength(); j++ {
			qd.zero = append(qd.zero, q.ZeroPoint(j))
		}
		if len(qd.zero) == 0 {
			qd.zero = make([]int64, len(qd.scale))
		}
		if len(qd.zero) != len(qd.scale) {
			return nil, fmt.Errorf("quantization has %d scales but %d zero points", len(qd.scale), len(qd.zero))
		}
		if len(qd.scale) > 1 && len(td.shape) == 1 && td.shape[0] == int64(len(qd.scale)) {
			// Converters copy a filter's quantized_dimension onto its
			// 1-D bias; a vector's only axis is meant.
			qd.axis = 0
		}
		if len(qd.scale) > 1 && (qd.axis < 0 || qd.axis >= len(td.shape) || td.shape[qd.axis] != int64(len(qd.scale))) {
			return nil, fmt.Errorf("per-axis quantization along axis %d has %d scales; the shape is %v", qd.axis, len(qd.scale), td.shape)
		}
		td.quant = qd
	}
	return td, nil
}
