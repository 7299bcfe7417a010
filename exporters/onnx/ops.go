package onnxexport

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// builder turns canonical nodes into ONNX nodes for one target opset,
// collecting the parameter initializers the ONNX ops take as inputs.
type builder struct {
	g     *canon.Graph
	opset int

	// Nodes are encoded as GraphProto node fields as they are made, and
	// not kept: building counts their bytes (nodesSize), and writing the
	// file builds again with out set, which receives each node's bytes
	// (see graphBody). A graph of millions of nodes would otherwise hold
	// tens of megabytes of them.
	nodesSize int64
	out       io.Writer
	buf       []byte
	// err is the first node that could not be encoded.
	err error
	// outputs are the declared graph outputs (see graphOutputs).
	outputs []canon.ValueInfo
	// params are the initializers generated for parameter inputs (Reshape
	// shapes, axes, pads...), written after the graph's own.
	params []*canon.Tensor
	// paramNames finds a small generated parameter by its content.
	paramNames map[string]string
	// taken is every value and node name in use; it is made on the first
	// generated name, as most graphs need none.
	taken map[string]bool
	types *canon.ValueTable
	// inferred tells what validation's shape inference found; it supplies
	// value_info for intermediate values.
	inferred inferredTypes
	// expanded is set when an op had to be written as several ONNX nodes
	// (HardSwish below opset 14, ...), so re-importing gives a different,
	// equivalent graph.
	expanded bool
}

// opError is the error for a node the target cannot express.
func (b *builder) opError(n *canon.Node, format string, args ...any) error {
	return fmt.Errorf("node %q (%s): %s", nodeLabel(n), n.Op.Kind(), fmt.Sprintf(format, args...))
}

func nodeLabel(n *canon.Node) string {
	if n.Name != "" {
		return n.Name
	}
	for _, o := range n.Outputs {
		if o != "" {
			return "-> " + o
		}
	}
	return "?"
}

// needOpset is the error for an op that only a newer opset can express.
func (b *builder) needOpset(n *canon.Node, what string, min int) error {
	if min > MaxOpset {
		return b.opError(n, "%s needs ONNX opset %d, newer than the newest this exporter writes (%d), so this model cannot be written as ONNX yet", what, min, MaxOpset)
	}
	return b.opError(n, "%s needs ONNX opset %d or newer, the target is opset %d; choose opset %d or newer", what, min, b.opset, min)
}

// unique returns base, or base_1, base_2 ..., whichever is not yet used, and
// reserves it.
func (b *builder) unique(base string) string {
	if b.taken == nil {
		b.taken = map[string]bool{}
		reserveNames(b.taken, b.g)
	}
	name := base
	for i := 1; b.taken[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	b.taken[name] = true
	return name
}

// prefix is the readable stem for names generated for node n.
func prefix(n *canon.Node) string {
	if n.Name != "" {
		return n.Name
	}
	for _, o := range n.Outputs {
		if o != "" {
			return o
		}
	}
	return n.Op.Kind()
}

// param adds a generated initializer for node n and returns its name. A
// small parameter equal to one already written (the same axes, shape or
// scalar for many nodes) is that one: an initializer may have any number
// of readers.
func (b *builder) param(n *canon.Node, suffix string, t *canon.Tensor) string {
	key := ""
	if len(t.Data) <= maxSharedParamBytes {
		key = fmt.Sprintf("%s%v", t.DType, t.Shape) + string(t.Data)
		if name, ok := b.paramNames[key]; ok {
			return name
		}
	}
	t.Name = b.unique(prefix(n) + "_" + suffix)
	b.params = append(b.params, t)
	if key != "" {
		if b.paramNames == nil {
			b.paramNames = map[string]string{}
		}
		b.paramNames[key] = t.Name
	}
	return t.Name
}

// maxSharedParamBytes bounds the generated parameters looked up by content.
const maxSharedParamBytes = 1024

func (b *builder) i64Param(n *canon.Node, suffix string, v []int64) string {
	return b.param(n, suffix, canon.NewInt64Tensor("", nil, v))
}

func (b *builder) f32Param(n *canon.Node, suffix string, shape []int64, v []float32) string {
	return b.param(n, suffix, canon.NewFloat32Tensor("", shape, v))
}

// dtype returns the element type of value name, or Undefined.
func (b *builder) dtype(name string) canon.DType {
	return b.types.Get(name).DType
}

// rank returns the rank of value name, or -1 when it is not known.
func (b *builder) rank(name string) int {
	vi, ok := b.types.Lookup(name)
	if !ok || !vi.RankKnown {
		return -1
	}
	return len(vi.Shape)
}

// ---- attributes ----

func attrInt(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func attrBool(name string, v bool) *onnxpb.AttributeProto {
	if v {
		return attrInt(name, 1)
	}
	return attrInt(name, 0)
}

func attrInts(name string, v []int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: append([]int64{}, v...)}
}

func attrFloat(name string, v float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
}

func attrString(name, v string) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(v)}
}

func attrTensor(name string, t *onnxpb.TensorProto) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: t}
}

func concat(a, b []int64) []int64 { return append(append([]int64{}, a...), b...) }

// emit appends an ONNX node; trailing absent inputs and outputs are dropped.
func (b *builder) emit(name, opType string, inputs, outputs []string, attrs ...*onnxpb.AttributeProto) {
	for len(inputs) > 0 && inputs[len(inputs)-1] == "" {
		inputs = inputs[:len(inputs)-1]
	}
	b.emitUntrimmed(name, opType, inputs, outputs, attrs...)
}

// emitUntrimmed is emit keeping trailing empty inputs (which Loop, whose
// first two inputs are positional, needs even when both are absent).
func (b *builder) emitUntrimmed(name, opType string, inputs, outputs []string, attrs ...*onnxpb.AttributeProto) {
	b.emitIn("", name, opType, inputs, outputs, attrs...)
}

// emitIn is emitUntrimmed for an op of another domain ("": the default).
func (b *builder) emitIn(domain, name, opType string, inputs, outputs []string, attrs ...*onnxpb.AttributeProto) {
	for len(outputs) > 1 && outputs[len(outputs)-1] == "" {
		outputs = outputs[:len(outputs)-1]
	}
	np := &onnxpb.NodeProto{
		Input:     append([]string{}, inputs...),
		Output:    append([]string{}, outputs...),
		OpType:    proto.String(opType),
		Attribute: attrs,
	}
	if name != "" {
		np.Name = proto.String(name)
	}
	if domain != "" {
		np.Domain = proto.String(domain)
	}
	size := onnxtensor.MarshalOptions.Size(np)
	buf := protowire.AppendTag(b.buf[:0], 1, protowire.BytesType) // GraphProto.node
	buf = protowire.AppendVarint(buf, uint64(size))
	buf, err := cachedSize.MarshalAppend(buf, np)
	b.buf = buf
	if err != nil {
		if b.err == nil {
			b.err = fmt.Errorf("cannot encode node %q (%s): %w", name, opType, err)
		}
		return
	}
	b.nodesSize += int64(len(buf))
	if b.out != nil && b.err == nil {
		if _, err := b.out.Write(buf); err != nil {
			b.err = err
		}
	}
}

// cachedSize marshals a message whose size was just computed.
var cachedSize = proto.MarshalOptions{Deterministic: onnxtensor.MarshalOptions.Deterministic, UseCachedSize: true}

func in(n *canon.Node, i int) string {
	if i < len(n.Inputs) {
		return n.Inputs[i]
	}
	return ""
}

// exportEntry is how the exporter writes one canonical op kind.
type exportEntry struct {
	// onnx is the ONNX op type that expresses the kind natively.
	onnx string
	// native is the lowest opset at which that ONNX op means what canon
	// means; MinOpset..native-1 write the expansion named by below.
	native int
	// below says how the kind is written under native ("" when native is
	// at most MinOpset).
	below string
	write func(b *builder, n *canon.Node) error
	// typeOpset, when set, is the lowest opset whose schema for this op
	// accepts data of dtype dt (0 when every supported opset does): ONNX
	// Runtime rejects such models as invalid.
	typeOpset func(op canon.Op, dt canon.DType) int
}

// arithmeticTypes: Add/Sub/Mul/Div-14 added the 8- and 16-bit integers,
// 13 added bfloat16.
func arithmeticTypes(_ canon.Op, dt canon.DType) int {
	switch dt {
	case canon.Int8, canon.Int16, canon.Uint8, canon.Uint16:
		return 14
	case canon.BFloat16:
		return 13
	}
	return 0
}

// activationTypes: Relu-14 added the signed integers; 13 added bfloat16.
func activationTypes(op canon.Op, dt canon.DType) int {
	switch {
	case op.Kind() == "Relu" && dt.IsInt():
		return 14
	case dt == canon.BFloat16:
		return 13
	}
	return 0
}

// exports maps every canonical kind the exporter writes to its entry. It is
// the one list of kinds: Write, coverage and the tests come from it.
var exports map[string]exportEntry

// unsupported names the canonical kinds ONNX cannot express, with the
// reason. Every kind is written today.
var unsupported = map[string]string{}

func init() {
	same := func(b *builder, n *canon.Node) error { // no attributes, same ONNX name
		b.emit(n.Name, n.Op.Kind(), n.Inputs, n.Outputs)
		return nil
	}
	plain := func(onnx string, native int) exportEntry { return exportEntry{onnx: onnx, native: native, write: same} }
	arithmetic := func(onnx string) exportEntry {
		e := plain(onnx, 7)
		e.typeOpset = arithmeticTypes
		return e
	}
	activation := func(onnx string, native int) exportEntry {
		e := plain(onnx, native)
		e.typeOpset = activationTypes
		return e
	}
	optable.Add(&exports, map[string]exportEntry{
		"Conv":               {onnx: "Conv", native: 1, write: writeConv},
		"ConvTranspose":      {onnx: "ConvTranspose", native: 1, write: writeConvTranspose},
		"BatchNormalization": {onnx: "BatchNormalization", native: 9, write: writeBatchNorm},
		"Linear":             {onnx: "Gemm", native: 7, write: writeLinear},
		"MatMul":             plain("MatMul", 1),
		"Add":                arithmetic("Add"),
		"Sub":                arithmetic("Sub"),
		"Mul":                arithmetic("Mul"),
		"Div":                arithmetic("Div"),
		"Relu":               activation("Relu", 6),
		"Sigmoid":            activation("Sigmoid", 6),
		"Tanh":               activation("Tanh", 6),
		"Softplus":           activation("Softplus", 1),
		"Softsign":           activation("Softsign", 1),
		"HardSwish":          {onnx: "HardSwish", native: 14, below: "x·HardSigmoid(x)", write: writeHardSwish, typeOpset: activationTypes},
		"Gelu": {onnx: "Gelu", native: 20, below: "its Erf/Tanh expansion", write: writeGelu,
			// The expansion's Erf, Add and Mul took bfloat16 in 13.
			typeOpset: activationTypes},
		"LeakyRelu":   {onnx: "LeakyRelu", native: 6, write: writeLeakyRelu},
		"Elu":         {onnx: "Elu", native: 6, write: writeElu},
		"Selu":        {onnx: "Selu", native: 6, write: writeSelu},
		"PRelu":       plain("PRelu", 9),
		"Clip":        {onnx: "Clip", native: 11, write: writeClip},
		"HardSigmoid": {onnx: "HardSigmoid", native: 6, write: writeHardSigmoid},
		"Softmax": {onnx: "Softmax", native: 13, write: writeSoftmax,
			below: "Softmax on the last axis, other axes between two Transposes"},
		"MaxPool": {onnx: "MaxPool", native: 10, write: writeMaxPool,
			typeOpset: func(_ canon.Op, dt canon.DType) int {
				if dt == canon.Int8 || dt == canon.Uint8 {
					return 12 // MaxPool-12 added int8 and uint8
				}
				return 0
			}},
		"AveragePool":       {onnx: "AveragePool", native: 10, write: writeAveragePool},
		"GlobalAveragePool": plain("GlobalAveragePool", 1),
		"GlobalMaxPool":     plain("GlobalMaxPool", 1),
		"Concat":            {onnx: "Concat", native: 4, write: writeConcat},
		"Split":             {onnx: "Split", native: 2, write: writeSplit},
		"Reshape":           {onnx: "Reshape", native: 5, write: writeReshape},
		"Flatten":           {onnx: "Flatten", native: 1, write: writeFlatten},
		"Transpose":         {onnx: "Transpose", native: 1, write: writeTranspose},
		"Squeeze":           {onnx: "Squeeze", native: 1, write: writeSqueeze},
		"Unsqueeze":         {onnx: "Unsqueeze", native: 1, write: writeUnsqueeze},
		"Pad":               {onnx: "Pad", native: 11, write: writePad},
		"Slice":             {onnx: "Slice", native: 10, write: writeSlice},
		"Gather":            {onnx: "Gather", native: 1, write: writeGather},
		"Shape": {onnx: "Shape", native: 1, write: writeShape,
			below: "Shape then Slice when it has start/end (native from opset 15)"},
		"Constant": {onnx: "Constant", native: 1, write: writeConstant},
		"Identity": plain("Identity", 1),
		"Dropout":  {onnx: "Dropout", native: 7, write: writeDropout},
		"Resize":   {onnx: "Resize", native: 11, write: writeResize},
	})
}

// Coverage is the exporter's op table as coverage: every canonical kind
// with the opsets that write it and how, or why ONNX cannot express it.
func Coverage() canon.Coverage {
	cov := canon.Coverage{}
	for _, d := range canon.Ops() {
		e, ok := exports[d.Kind]
		if !ok {
			if reason := unsupported[d.Kind]; reason != "" {
				cov[d.Kind] = canon.Lacks(reason)
			}
			continue // otherwise a gap, which the coverage test names
		}
		var s canon.Support
		switch {
		case e.native <= MinOpset:
			s = canon.Handles("as " + e.onnx)
		case e.below != "" && d.Kind == "Shape":
			s = canon.Handles("as " + e.onnx + "; " + e.below)
		case e.below != "":
			s = canon.Handles(fmt.Sprintf("opset ≥ %d as %s, below as %s", e.native, e.onnx, e.below))
		default:
			s = canon.Handles(fmt.Sprintf("opset ≥ %d as %s", e.native, e.onnx))
		}
		s.MinOpset, s.MaxOpset = MinOpset, MaxOpset
		if e.below == "" {
			s.MinOpset = max(e.native, MinOpset)
		}
		cov[d.Kind] = s
	}
	return cov
}

// node converts one canonical node of a validated graph.
func (b *builder) node(n *canon.Node) error {
	e, ok := exports[n.Op.Kind()]
	if !ok {
		if d := canon.DefOf(n.Op); d != nil && d.Decompose != nil {
			return b.writeExpansion(n)
		}
		if reason := unsupported[n.Op.Kind()]; reason != "" {
			return b.opError(n, "ONNX cannot express this op: %s (see `modelbridge ops`)", reason)
		}
		return b.opError(n, "the ONNX exporter has no mapping for this op (see `modelbridge ops`)")
	}
	for _, need := range b.opsetNeeds(n, e) {
		if need.min > b.opset {
			return b.needOpset(n, need.what, need.min)
		}
	}
	return e.write(b, n)
}

// opsetNeed is the lowest opset that writes a node, and what needs it
// (min 0: any opset).
type opsetNeed struct {
	what string
	min  int
}

// opsetNeeds lists what n needs of the target opset: its ONNX op (when
// it has no expansion for older opsets), the kinds of values it takes
// (sequences and optionals, see valueKindRules), its data's dtype.
func (b *builder) opsetNeeds(n *canon.Node, e exportEntry) []opsetNeed {
	var needs []opsetNeed
	if e.below == "" {
		needs = append(needs, opsetNeed{what: e.onnx, min: e.native})
	}
	needs = append(needs, b.valueKindNeed(n))
	if e.typeOpset != nil && len(n.Inputs) > 0 && n.Inputs[0] != "" {
		dt := b.dtype(n.Inputs[0])
		needs = append(needs, opsetNeed{what: fmt.Sprintf("%s on %s data", n.Op.Kind(), dt), min: e.typeOpset(n.Op, dt)})
	}
	return needs
}

func writeConv(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Conv)
	attrs := []*onnxpb.AttributeProto{}
	if k := b.kernelShape(in(n, 1)); k != nil {
		attrs = append(attrs, attrInts("kernel_shape", k))
	}
	attrs = append(attrs,
		attrInts("strides", op.Strides),
		attrInts("dilations", op.Dilations),
		attrInts("pads", concat(op.PadsBegin, op.PadsEnd)),
		attrInt("group", op.Group))
	b.emit(n.Name, "Conv", n.Inputs, n.Outputs, attrs...)
	return nil
}

func writeConvTranspose(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.ConvTranspose)
	attrs := []*onnxpb.AttributeProto{}
	if k := b.kernelShape(in(n, 1)); k != nil {
		attrs = append(attrs, attrInts("kernel_shape", k))
	}
	attrs = append(attrs,
		attrInts("strides", op.Strides),
		attrInts("dilations", op.Dilations),
		attrInts("pads", concat(op.PadsBegin, op.PadsEnd)),
		attrInt("group", op.Group))
	if len(op.OutputPadding) > 0 {
		attrs = append(attrs, attrInts("output_padding", op.OutputPadding))
	}
	b.emit(n.Name, "ConvTranspose", n.Inputs, n.Outputs, attrs...)
	return nil
}

func writeBatchNorm(b *builder, n *canon.Node) error {
	b.emit(n.Name, "BatchNormalization", n.Inputs, n.Outputs, attrFloat("epsilon", n.Op.(*canon.BatchNorm).Epsilon))
	return nil
}

func writeLinear(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Linear)
	b.emit(n.Name, "Gemm", n.Inputs, n.Outputs,
		attrFloat("alpha", op.Alpha), attrFloat("beta", op.Beta),
		attrInt("transA", 0), attrInt("transB", 1))
	return nil
}

func writeHardSwish(b *builder, n *canon.Node) error {
	if b.opset >= 14 {
		b.emit(n.Name, "HardSwish", n.Inputs, n.Outputs)
		return nil
	}
	// HardSwish(x) = x * HardSigmoid(alpha=1/6, beta=0.5)(x), as ONNX
	// defines it: canon's expansion.
	return b.writeExpansion(n)
}

func writeLeakyRelu(b *builder, n *canon.Node) error {
	b.emit(n.Name, "LeakyRelu", n.Inputs, n.Outputs, attrFloat("alpha", n.Op.(*canon.LeakyRelu).Alpha))
	return nil
}

func writeElu(b *builder, n *canon.Node) error {
	b.emit(n.Name, "Elu", n.Inputs, n.Outputs, attrFloat("alpha", n.Op.(*canon.Elu).Alpha))
	return nil
}

func writeSelu(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Selu)
	b.emit(n.Name, "Selu", n.Inputs, n.Outputs, attrFloat("alpha", op.Alpha), attrFloat("gamma", op.Gamma))
	return nil
}

func writeHardSigmoid(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.HardSigmoid)
	b.emit(n.Name, "HardSigmoid", n.Inputs, n.Outputs, attrFloat("alpha", op.Alpha), attrFloat("beta", op.Beta))
	return nil
}

func writeClip(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Clip)
	ins := n.Inputs
	dt := b.dtype(ins[0])
	if dt.IsInt() && b.opset < 12 {
		return b.needOpset(n, "Clip on "+dt.String()+" data", 12)
	}
	if !math.IsInf(float64(op.Min), -1) || !math.IsInf(float64(op.Max), 1) {
		if dt == canon.Undefined {
			return b.opError(n, "the dtype of input %q is unknown, and Clip bounds must have the input's dtype; run shape inference first", ins[0])
		}
	}
	// A bound computed at run time is already a tensor of the data's dtype.
	lo, hi := in(n, 1), in(n, 2)
	if !math.IsInf(float64(op.Min), -1) {
		v, ok := scalarBytes(dt, op.Min)
		if !ok {
			return b.opError(n, "lower bound %v cannot be stored as %s", op.Min, dt)
		}
		lo = b.param(n, "min", &canon.Tensor{DType: dt, Shape: []int64{}, Data: v})
	}
	if !math.IsInf(float64(op.Max), 1) {
		v, ok := scalarBytes(dt, op.Max)
		if !ok {
			return b.opError(n, "upper bound %v cannot be stored as %s", op.Max, dt)
		}
		hi = b.param(n, "max", &canon.Tensor{DType: dt, Shape: []int64{}, Data: v})
	}
	b.emit(n.Name, "Clip", []string{ins[0], lo, hi}, n.Outputs)
	return nil
}

func writeSoftmax(b *builder, n *canon.Node) error { return b.softmax(n, n.Op.(*canon.Softmax)) }

func writeMaxPool(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.MaxPool)
	b.emit(n.Name, "MaxPool", n.Inputs, n.Outputs,
		attrInts("kernel_shape", op.Kernel),
		attrInts("strides", op.Strides),
		attrInts("pads", concat(op.PadsBegin, op.PadsEnd)),
		attrInts("dilations", op.Dilations),
		attrBool("ceil_mode", op.CeilMode),
		attrBool("storage_order", op.ColumnMajorIndices))
	return nil
}

func writeAveragePool(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.AveragePool)
	attrs := []*onnxpb.AttributeProto{
		attrInts("kernel_shape", op.Kernel),
		attrInts("strides", op.Strides),
		attrInts("pads", concat(op.PadsBegin, op.PadsEnd)),
		attrBool("ceil_mode", op.CeilMode),
		attrBool("count_include_pad", op.CountIncludePad),
	}
	for _, d := range op.Dilations {
		if d == 1 {
			continue
		}
		// AveragePool-19 added dilations.
		if b.opset < 19 {
			return b.needOpset(n, fmt.Sprintf("AveragePool with dilations %v", op.Dilations), 19)
		}
		attrs = append(attrs, attrInts("dilations", op.Dilations))
		break
	}
	b.emit(n.Name, "AveragePool", n.Inputs, n.Outputs, attrs...)
	return nil
}

func writeConcat(b *builder, n *canon.Node) error {
	b.emit(n.Name, "Concat", n.Inputs, n.Outputs, attrInt("axis", n.Op.(*canon.Concat).Axis))
	return nil
}

func writeSplit(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Split)
	if sizes := in(n, 1); sizes != "" {
		if err := b.dynamicParams(n, 13); err != nil {
			return err
		}
		b.emit(n.Name, "Split", []string{n.Inputs[0], sizes}, n.Outputs, attrInt("axis", op.Axis))
		return nil
	}
	// Canon's sizes are always known here (an input or the attribute), so
	// Split-18's num_outputs is never needed.
	if b.opset >= 13 {
		b.emit(n.Name, "Split", []string{n.Inputs[0], b.i64Param(n, "split", op.Sizes)}, n.Outputs, attrInt("axis", op.Axis))
	} else {
		b.emit(n.Name, "Split", n.Inputs, n.Outputs, attrInt("axis", op.Axis), attrInts("split", op.Sizes))
	}
	return nil
}

func writeReshape(b *builder, n *canon.Node) error { return b.reshape(n, n.Op.(*canon.Reshape)) }

func writeFlatten(b *builder, n *canon.Node) error {
	b.emit(n.Name, "Flatten", n.Inputs, n.Outputs, attrInt("axis", n.Op.(*canon.Flatten).Axis))
	return nil
}

func writeTranspose(b *builder, n *canon.Node) error {
	b.emit(n.Name, "Transpose", n.Inputs, n.Outputs, attrInts("perm", n.Op.(*canon.Transpose).Perm))
	return nil
}

func writeSqueeze(b *builder, n *canon.Node) error {
	return b.axesOp(n, "Squeeze", n.Op.(*canon.Squeeze).Axes)
}

func writeUnsqueeze(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Unsqueeze)
	if len(op.Axes) == 0 && in(n, 1) == "" {
		return b.opError(n, "Unsqueeze needs at least one axis")
	}
	return b.axesOp(n, "Unsqueeze", op.Axes)
}

func writePad(b *builder, n *canon.Node) error { return b.pad(n, n.Op.(*canon.Pad)) }

func writeSlice(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Slice)
	if err := b.dynamicParams(n, 10); err != nil {
		return err
	}
	// Each parameter is its run-time input when the node has one, else a
	// generated initializer (starts and ends are required).
	inputs := []string{n.Inputs[0], in(n, 1), in(n, 2), in(n, 3), in(n, 4)}
	for i, p := range []struct {
		name string
		v    []int64
	}{{"starts", op.Starts}, {"ends", op.Ends}, {"axes", op.Axes}, {"steps", op.Steps}} {
		if inputs[i+1] == "" && (i < 2 || len(p.v) > 0) {
			inputs[i+1] = b.i64Param(n, p.name, p.v)
		}
	}
	b.emit(n.Name, "Slice", inputs, n.Outputs)
	return nil
}

func writeGather(b *builder, n *canon.Node) error {
	b.emit(n.Name, "Gather", n.Inputs, n.Outputs, attrInt("axis", n.Op.(*canon.Gather).Axis))
	return nil
}

func writeShape(b *builder, n *canon.Node) error { return b.shape(n, n.Op.(*canon.ShapeOf)) }

func writeConstant(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Constant)
	if err := onnxtensor.Check(op.Value); err != nil {
		return b.opError(n, "%v", err)
	}
	b.emit(n.Name, "Constant", nil, n.Outputs, attrTensor("value", TensorToProto(op.Value)))
	return nil
}

func writeDropout(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Dropout)
	outs := n.Outputs
	// At inference Dropout is the identity; the ratio is kept so that the
	// model reads back unchanged.
	if len(outs) > 1 && outs[1] != "" && b.opset < 12 {
		// Dropout-10 leaves the inference mask undefined (ONNX Runtime
		// returns all false); from 12 it is all true, as canon says.
		return b.needOpset(n, "Dropout with its mask output used", 12)
	}
	if canon.HasRuntimeParams(n) {
		if b.opset < 12 {
			return b.needOpset(n, "Dropout with a training mode computed at run time", 12)
		}
		r := in(n, 1)
		if r == "" {
			r = b.f32Param(n, "ratio", []int64{}, []float32{op.Ratio})
		}
		b.emit(n.Name, "Dropout", []string{n.Inputs[0], r, in(n, 2)}, outs)
		return nil
	}
	if b.opset >= 12 {
		r := b.f32Param(n, "ratio", []int64{}, []float32{op.Ratio})
		b.emit(n.Name, "Dropout", []string{n.Inputs[0], r}, outs)
	} else {
		b.emit(n.Name, "Dropout", n.Inputs, outs, attrFloat("ratio", op.Ratio))
	}
	return nil
}

func writeResize(b *builder, n *canon.Node) error { return b.resize(n, n.Op.(*canon.Resize)) }

// kernelShape is W's spatial shape when known (ONNX infers it from W
// otherwise, so leaving it out is allowed).
func (b *builder) kernelShape(w string) []int64 {
	if t := b.g.Initializer(w); t != nil && len(t.Shape) > 2 {
		return append([]int64{}, t.Shape[2:]...)
	}
	if s, ok := b.types.Get(w).StaticShape(); ok && len(s) > 2 {
		return s[2:]
	}
	return nil
}

// axesOp writes Squeeze/Unsqueeze: axes are an attribute before opset 13
// and an input from 13; axes computed at run time need opset 13.
func (b *builder) axesOp(n *canon.Node, opType string, axes []int64) error {
	if dyn := in(n, 1); dyn != "" {
		if err := b.dynamicParams(n, 13); err != nil {
			return err
		}
		b.emit(n.Name, opType, []string{n.Inputs[0], dyn}, n.Outputs)
		return nil
	}
	if len(axes) == 0 { // Squeeze of every size-1 axis
		b.emit(n.Name, opType, n.Inputs[:1], n.Outputs)
		return nil
	}
	if b.opset >= 13 {
		b.emit(n.Name, opType, []string{n.Inputs[0], b.i64Param(n, "axes", axes)}, n.Outputs)
		return nil
	}
	b.emit(n.Name, opType, n.Inputs[:1], n.Outputs, attrInts("axes", axes))
	return nil
}

// dynamicParams refuses a node with parameters computed at run time (its
// inputs after X) when the target opset has them only as attributes: min
// is the opset from which ONNX takes them as inputs.
func (b *builder) dynamicParams(n *canon.Node, min int) error {
	for _, x := range n.Inputs[1:] {
		if x != "" && b.opset < min {
			return b.needOpset(n, fmt.Sprintf("%s with parameter %q computed at run time", n.Op.Kind(), x), min)
		}
	}
	return nil
}

func (b *builder) softmax(n *canon.Node, op *canon.Softmax) error {
	x := n.Inputs[0]
	if b.opset >= 13 {
		b.emit(n.Name, "Softmax", n.Inputs, n.Outputs, attrInt("axis", op.Axis))
		return nil
	}
	// Before opset 13 Softmax flattens to 2-D at axis; that equals the
	// per-axis softmax only when axis is the last one.
	if op.Axis == -1 {
		b.emit(n.Name, "Softmax", n.Inputs, n.Outputs, attrInt("axis", -1))
		return nil
	}
	r := b.rank(x)
	if r < 0 {
		return b.opError(n, "Softmax over axis %d at opset %d needs the rank of input %q, which is unknown; run shape inference or choose opset 13 or newer", op.Axis, b.opset, x)
	}
	axis := op.Axis
	if axis < 0 {
		axis += int64(r) // validation keeps it in range
	}
	if axis == int64(r-1) {
		b.emit(n.Name, "Softmax", n.Inputs, n.Outputs, attrInt("axis", op.Axis))
		return nil
	}
	// Move the axis last, normalize there, move it back: the swap is its own
	// inverse.
	b.expanded = true
	perm := make([]int64, r)
	for i := range perm {
		perm[i] = int64(i)
	}
	perm[axis], perm[r-1] = perm[r-1], perm[axis]
	p := prefix(n)
	t1, t2 := b.unique(p+"_axis_last"), b.unique(p+"_softmax_axis_last")
	b.emit(b.unique(p+"_transpose_in"), "Transpose", []string{x}, []string{t1}, attrInts("perm", perm))
	b.emit(n.Name, "Softmax", []string{t1}, []string{t2}, attrInt("axis", int64(r-1)))
	b.emit(b.unique(p+"_transpose_out"), "Transpose", []string{t2}, n.Outputs, attrInts("perm", perm))
	return nil
}

func (b *builder) reshape(n *canon.Node, op *canon.Reshape) error {
	var attrs []*onnxpb.AttributeProto
	if op.AllowZero {
		if b.opset >= 14 {
			attrs = append(attrs, attrInt("allowzero", 1))
		} else if op.Shape == nil {
			return b.needOpset(n, "Reshape with allowzero and a computed shape", 14)
		} else {
			for _, d := range op.Shape {
				if d == 0 {
					return b.needOpset(n, fmt.Sprintf("Reshape with allowzero and a 0 in shape %v", op.Shape), 14)
				}
			}
			// Without zeros in the target allowzero changes nothing, but
			// the flag does not read back.
			b.expanded = true
		}
	}
	shape := in(n, 1)
	if op.Shape != nil {
		shape = b.i64Param(n, "shape", op.Shape)
	}
	b.emit(n.Name, "Reshape", []string{n.Inputs[0], shape}, n.Outputs, attrs...)
	return nil
}

func (b *builder) pad(n *canon.Node, op *canon.Pad) error {
	x := n.Inputs[0]
	if err := b.dynamicParams(n, 11); err != nil {
		return err
	}
	if op.Mode == canon.PadWrap && b.opset < 19 {
		return b.needOpset(n, "Pad in wrap mode", 19)
	}
	inputs := []string{x, in(n, 1), in(n, 2), ""}
	if inputs[1] == "" {
		inputs[1] = b.i64Param(n, "pads", concat(op.PadsBegin, op.PadsEnd))
	} else if op.Axes != nil || in(n, 3) != "" {
		// Pad-18 added the axes input that places run-time pads on some axes.
		if b.opset < 18 {
			return b.needOpset(n, fmt.Sprintf("Pad with run-time pads %q over some axes", inputs[1]), 18)
		}
		inputs[3] = in(n, 3)
		if inputs[3] == "" {
			inputs[3] = b.i64Param(n, "axes", op.Axes)
		}
	}
	// A zero constant is ONNX's default; only a different value needs an
	// input, which must have the data's dtype.
	if inputs[2] == "" && op.Mode == canon.PadConstant && math.Float32bits(op.Value) != 0 {
		dt := b.dtype(x)
		if dt == canon.Undefined {
			return b.opError(n, "the dtype of input %q is unknown, and the pad value must have it; run shape inference first", x)
		}
		v, ok := scalarBytes(dt, op.Value)
		if !ok {
			return b.opError(n, "pad value %v cannot be stored as %s", op.Value, dt)
		}
		inputs[2] = b.param(n, "value", &canon.Tensor{DType: dt, Shape: []int64{}, Data: v})
	}
	b.emit(n.Name, "Pad", inputs, n.Outputs, attrString("mode", op.Mode.String()))
	return nil
}

func (b *builder) shape(n *canon.Node, op *canon.ShapeOf) error {
	whole := op.Start == 0 && op.End == math.MaxInt64
	if whole {
		b.emit(n.Name, "Shape", n.Inputs, n.Outputs)
		return nil
	}
	if b.opset >= 15 {
		attrs := []*onnxpb.AttributeProto{}
		if op.Start != 0 {
			attrs = append(attrs, attrInt("start", op.Start))
		}
		if op.End != math.MaxInt64 {
			attrs = append(attrs, attrInt("end", op.End))
		}
		b.emit(n.Name, "Shape", n.Inputs, n.Outputs, attrs...)
		return nil
	}
	// Shape-15's start/end clamp exactly as Slice does on the 1-D shape.
	b.expanded = true
	full := b.unique(prefix(n) + "_full")
	b.emit(n.Name, "Shape", n.Inputs, []string{full})
	b.emit(b.unique(prefix(n)+"_slice"), "Slice",
		[]string{full, b.i64Param(n, "starts", []int64{op.Start}), b.i64Param(n, "ends", []int64{op.End}), b.i64Param(n, "axes", []int64{0})},
		n.Outputs)
	return nil
}

// writeGelu writes ONNX Gelu from opset 20 and its exact expansion below:
// exact x·0.5·(1 + Erf(x/√2)), as torch.onnx writes it (so the importer
// reads it back as one Gelu); tanh 0.5·x·(1 + Tanh(√(2/π)·(x + 0.044715·x³))).
func writeGelu(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Gelu)
	if b.opset >= 20 {
		var attrs []*onnxpb.AttributeProto
		if op.Approximate != canon.GeluExact {
			attrs = append(attrs, attrString("approximate", op.Approximate.String()))
		}
		b.emit(n.Name, "Gelu", n.Inputs, n.Outputs, attrs...)
		return nil
	}
	// Below 20: canon's expansion, written as torch.onnx writes it (so
	// the importer reads it back as one Gelu).
	return b.writeExpansion(n)
}
