package onnxexport

import (
	"fmt"
	"math"
	"strconv"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// builder turns canonical nodes into ONNX nodes for one target opset,
// collecting the parameter initializers the ONNX ops take as inputs.
type builder struct {
	g     *canon.Graph
	opset int

	nodes []*onnxpb.NodeProto
	// params are the initializers generated for parameter inputs (Reshape
	// shapes, axes, pads...), written after the graph's own.
	params []*canon.Tensor
	taken  map[string]bool // every value and node name in use
	types  map[string]canon.ValueInfo
	// inferred is what shape inference found (g.Values, or a fresh run),
	// nil when it failed; it supplies value_info for intermediate values.
	inferred map[string]canon.ValueInfo
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

// param adds a generated initializer for node n and returns its name.
func (b *builder) param(n *canon.Node, suffix string, t *canon.Tensor) string {
	t.Name = b.unique(prefix(n) + "_" + suffix)
	b.params = append(b.params, t)
	return t.Name
}

func (b *builder) i64Param(n *canon.Node, suffix string, v []int64) string {
	return b.param(n, suffix, canon.NewInt64Tensor("", nil, v))
}

func (b *builder) f32Param(n *canon.Node, suffix string, shape []int64, v []float32) string {
	return b.param(n, suffix, canon.NewFloat32Tensor("", shape, v))
}

// dtype returns the element type of value name, or Undefined.
func (b *builder) dtype(name string) canon.DType {
	return b.types[name].DType
}

// rank returns the rank of value name, or -1 when it is not known.
func (b *builder) rank(name string) int {
	vi, ok := b.types[name]
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
	b.nodes = append(b.nodes, np)
}

func in(n *canon.Node, i int) string {
	if i < len(n.Inputs) {
		return n.Inputs[i]
	}
	return ""
}

// checkArity rejects nodes whose input or output count does not fit their
// op, so a malformed graph gives an error instead of an index panic.
func checkArity(n *canon.Node) error {
	s := n.Op.Signature()
	minIn, maxIn := 0, len(s.Inputs)
	for _, spec := range s.Inputs {
		if !spec.Optional {
			minIn++
		}
		if spec.Variadic {
			maxIn = math.MaxInt
		}
	}
	if len(n.Inputs) < minIn || len(n.Inputs) > maxIn {
		return fmt.Errorf("node %q (%s) has %d inputs, the op takes %d..%d; the graph is malformed (run validation)", nodeLabel(n), n.Op.Kind(), len(n.Inputs), minIn, maxIn)
	}
	if len(n.Outputs) < s.MinOutputs || (s.MaxOutputs >= 0 && len(n.Outputs) > s.MaxOutputs) || len(n.Outputs) == 0 || n.Outputs[0] == "" {
		return fmt.Errorf("node %q (%s) has %d outputs, which the op does not allow; the graph is malformed (run validation)", nodeLabel(n), n.Op.Kind(), len(n.Outputs))
	}
	return nil
}

// node converts one canonical node.
func (b *builder) node(n *canon.Node) error {
	if err := checkArity(n); err != nil {
		return err
	}
	if err := b.checkTypes(n); err != nil {
		return err
	}
	name, ins, outs := n.Name, n.Inputs, n.Outputs
	switch op := n.Op.(type) {
	case *canon.Conv:
		attrs := []*onnxpb.AttributeProto{}
		if k := b.kernelShape(in(n, 1)); k != nil {
			attrs = append(attrs, attrInts("kernel_shape", k))
		}
		attrs = append(attrs,
			attrInts("strides", op.Strides),
			attrInts("dilations", op.Dilations),
			attrInts("pads", concat(op.PadsBegin, op.PadsEnd)),
			attrInt("group", op.Group))
		b.emit(name, "Conv", ins, outs, attrs...)

	case *canon.ConvTranspose:
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
		b.emit(name, "ConvTranspose", ins, outs, attrs...)

	case *canon.BatchNorm:
		b.emit(name, "BatchNormalization", ins, outs, attrFloat("epsilon", op.Epsilon))

	case *canon.Linear:
		b.emit(name, "Gemm", ins, outs,
			attrFloat("alpha", op.Alpha), attrFloat("beta", op.Beta),
			attrInt("transA", 0), attrInt("transB", 1))

	case *canon.MatMul:
		b.emit(name, "MatMul", ins, outs)

	case *canon.Binary:
		b.emit(name, op.Fn.String(), ins, outs)

	case *canon.Unary:
		if op.Fn == canon.HardSwish && b.opset < 14 {
			// HardSwish(x) = x * HardSigmoid(alpha=1/6, beta=0.5)(x), as ONNX
			// defines it.
			b.expanded = true
			hs := b.unique(prefix(n) + "_hardsigmoid")
			b.emit(b.unique(prefix(n)+"_hardsigmoid_op"), "HardSigmoid", ins[:1], []string{hs},
				attrFloat("alpha", float32(1.0/6)), attrFloat("beta", 0.5))
			b.emit(name, "Mul", []string{ins[0], hs}, outs)
			return nil
		}
		b.emit(name, op.Fn.String(), ins, outs)

	case *canon.LeakyRelu:
		b.emit(name, "LeakyRelu", ins, outs, attrFloat("alpha", op.Alpha))

	case *canon.Elu:
		b.emit(name, "Elu", ins, outs, attrFloat("alpha", op.Alpha))

	case *canon.Selu:
		b.emit(name, "Selu", ins, outs, attrFloat("alpha", op.Alpha), attrFloat("gamma", op.Gamma))

	case *canon.PRelu:
		b.emit(name, "PRelu", ins, outs)

	case *canon.Clip:
		dt := b.dtype(ins[0])
		lo, hi := "", ""
		if dt.IsInt() && b.opset < 12 {
			return b.needOpset(n, "Clip on "+dt.String()+" data", 12)
		}
		if !math.IsInf(float64(op.Min), -1) || !math.IsInf(float64(op.Max), 1) {
			if dt == canon.Undefined {
				return b.opError(n, "the dtype of input %q is unknown, and Clip bounds must have the input's dtype; run shape inference first", ins[0])
			}
		}
		if err := b.dynamicParams(n, 11); err != nil {
			return err
		}
		// A bound computed at run time is already a tensor of the data's dtype.
		lo, hi = in(n, 1), in(n, 2)
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
		b.emit(name, "Clip", []string{ins[0], lo, hi}, outs)

	case *canon.HardSigmoid:
		b.emit(name, "HardSigmoid", ins, outs, attrFloat("alpha", op.Alpha), attrFloat("beta", op.Beta))

	case *canon.Softmax:
		return b.softmax(n, op)

	case *canon.MaxPool:
		b.emit(name, "MaxPool", ins, outs,
			attrInts("kernel_shape", op.Kernel),
			attrInts("strides", op.Strides),
			attrInts("pads", concat(op.PadsBegin, op.PadsEnd)),
			attrInts("dilations", op.Dilations),
			attrBool("ceil_mode", op.CeilMode))

	case *canon.AveragePool:
		for _, d := range op.Dilations {
			if d != 1 {
				return b.needOpset(n, fmt.Sprintf("AveragePool with dilations %v", op.Dilations), 19)
			}
		}
		b.emit(name, "AveragePool", ins, outs,
			attrInts("kernel_shape", op.Kernel),
			attrInts("strides", op.Strides),
			attrInts("pads", concat(op.PadsBegin, op.PadsEnd)),
			attrBool("ceil_mode", op.CeilMode),
			attrBool("count_include_pad", op.CountIncludePad))

	case *canon.GlobalAveragePool:
		b.emit(name, "GlobalAveragePool", ins, outs)

	case *canon.GlobalMaxPool:
		b.emit(name, "GlobalMaxPool", ins, outs)

	case *canon.ReduceMean:
		// The axes attribute is valid up to opset 17 (an input from 18).
		attrs := []*onnxpb.AttributeProto{attrBool("keepdims", op.KeepDims)}
		if len(op.Axes) > 0 {
			attrs = append(attrs, attrInts("axes", op.Axes))
		}
		b.emit(name, "ReduceMean", ins, outs, attrs...)

	case *canon.Concat:
		b.emit(name, "Concat", ins, outs, attrInt("axis", op.Axis))

	case *canon.Split:
		if sizes := in(n, 1); sizes != "" {
			if err := b.dynamicParams(n, 13); err != nil {
				return err
			}
			b.emit(name, "Split", []string{ins[0], sizes}, outs, attrInt("axis", op.Axis))
			return nil
		}
		if len(op.Sizes) != len(outs) {
			return b.opError(n, "has %d outputs but %d split sizes %v", len(outs), len(op.Sizes), op.Sizes)
		}
		if b.opset >= 13 {
			b.emit(name, "Split", []string{ins[0], b.i64Param(n, "split", op.Sizes)}, outs, attrInt("axis", op.Axis))
		} else {
			b.emit(name, "Split", ins, outs, attrInt("axis", op.Axis), attrInts("split", op.Sizes))
		}

	case *canon.Reshape:
		return b.reshape(n, op)

	case *canon.Flatten:
		b.emit(name, "Flatten", ins, outs, attrInt("axis", op.Axis))

	case *canon.Transpose:
		b.emit(name, "Transpose", ins, outs, attrInts("perm", op.Perm))

	case *canon.Squeeze:
		return b.axesOp(n, "Squeeze", op.Axes)

	case *canon.Unsqueeze:
		if len(op.Axes) == 0 && in(n, 1) == "" {
			return b.opError(n, "Unsqueeze needs at least one axis")
		}
		return b.axesOp(n, "Unsqueeze", op.Axes)

	case *canon.Pad:
		return b.pad(n, op)

	case *canon.Slice:
		if err := b.dynamicParams(n, 10); err != nil {
			return err
		}
		// Each parameter is its run-time input when the node has one, else
		// a generated initializer (starts and ends are required).
		inputs := []string{ins[0], in(n, 1), in(n, 2), in(n, 3), in(n, 4)}
		for i, p := range []struct {
			name string
			v    []int64
		}{{"starts", op.Starts}, {"ends", op.Ends}, {"axes", op.Axes}, {"steps", op.Steps}} {
			if inputs[i+1] == "" && (i < 2 || len(p.v) > 0) {
				inputs[i+1] = b.i64Param(n, p.name, p.v)
			}
		}
		b.emit(name, "Slice", inputs, outs)

	case *canon.Gather:
		b.emit(name, "Gather", ins, outs, attrInt("axis", op.Axis))

	case *canon.ShapeOf:
		return b.shape(n, op)

	case *canon.Constant:
		if op.Value == nil {
			return b.opError(n, "Constant has no value")
		}
		if err := checkTensor(op.Value); err != nil {
			return b.opError(n, "%v", err)
		}
		b.emit(name, "Constant", nil, outs, attrTensor("value", TensorToProto(op.Value)))

	case *canon.Identity:
		b.emit(name, "Identity", ins, outs)

	case *canon.Dropout:
		// At inference Dropout is the identity; the ratio is kept so that the
		// model reads back unchanged.
		if len(outs) > 1 && outs[1] != "" && b.opset < 12 {
			// Dropout-10 leaves the inference mask undefined (ONNX Runtime
			// returns all false); from 12 it is all true, as canon says.
			return b.needOpset(n, "Dropout with its mask output used", 12)
		}
		if b.opset >= 12 {
			r := b.f32Param(n, "ratio", []int64{}, []float32{op.Ratio})
			b.emit(name, "Dropout", []string{ins[0], r}, outs)
		} else {
			b.emit(name, "Dropout", ins, outs, attrFloat("ratio", op.Ratio))
		}

	case *canon.Resize:
		return b.resize(n, op)

	default:
		return b.opError(n, "the ONNX exporter has no mapping for this op")
	}
	return nil
}

// kernelShape is W's spatial shape when known (ONNX infers it from W
// otherwise, so leaving it out is allowed).
func (b *builder) kernelShape(w string) []int64 {
	if t := b.g.Initializer(w); t != nil && len(t.Shape) > 2 {
		return append([]int64{}, t.Shape[2:]...)
	}
	if s, ok := b.types[w].StaticShape(); ok && len(s) > 2 {
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
		axis += int64(r)
	}
	if axis < 0 || axis >= int64(r) {
		return b.opError(n, "axis %d is out of range for rank %d", op.Axis, r)
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
	} else if shape == "" {
		return b.opError(n, "Reshape has neither a constant shape nor a shape input")
	}
	b.emit(n.Name, "Reshape", []string{n.Inputs[0], shape}, n.Outputs, attrs...)
	return nil
}

func (b *builder) pad(n *canon.Node, op *canon.Pad) error {
	x := n.Inputs[0]
	if len(op.PadsBegin) != len(op.PadsEnd) {
		return b.opError(n, "has %d begin pads but %d end pads", len(op.PadsBegin), len(op.PadsEnd))
	}
	if err := b.dynamicParams(n, 11); err != nil {
		return err
	}
	inputs := []string{x, in(n, 1), in(n, 2)}
	if inputs[1] == "" {
		inputs[1] = b.i64Param(n, "pads", concat(op.PadsBegin, op.PadsEnd))
	} else if op.Axes != nil {
		// Pad-18 added the axes input that places run-time pads on some axes.
		return b.needOpset(n, fmt.Sprintf("Pad with run-time pads %q over axes %v", inputs[1], op.Axes), 18)
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

func (b *builder) resize(n *canon.Node, op *canon.Resize) error {
	dynScales, dynSizes := in(n, 1), in(n, 2)
	given := 0
	for _, ok := range []bool{len(op.Scales) > 0, len(op.Sizes) > 0, dynScales != "", dynSizes != ""} {
		if ok {
			given++
		}
	}
	if given != 1 {
		return b.opError(n, "Resize needs exactly one of scales and sizes")
	}
	if err := b.dynamicParams(n, 11); err != nil {
		return err
	}
	if op.CoordTransform == canon.TFHalfPixelForNN && b.opset > 12 {
		return b.opError(n, "coordinate_transformation_mode tf_half_pixel_for_nn exists only in opsets 11 and 12 (the target is opset %d); choose opset 11 or 12", b.opset)
	}
	// Opsets 11 and 12 have no optional roi/scales inputs: absent ones are
	// empty tensors there.
	roi, scales, sizes := "", "", ""
	if b.opset < 13 {
		roi = b.f32Param(n, "roi", []int64{0}, nil)
	}
	switch {
	case dynScales != "":
		scales = dynScales
	case len(op.Scales) > 0:
		scales = b.f32Param(n, "scales", []int64{int64(len(op.Scales))}, op.Scales)
	default:
		if b.opset < 13 {
			scales = b.f32Param(n, "scales", []int64{0}, nil)
		}
		sizes = dynSizes
		if sizes == "" {
			sizes = b.i64Param(n, "sizes", op.Sizes)
		}
	}
	b.emit(n.Name, "Resize", []string{n.Inputs[0], roi, scales, sizes}, n.Outputs,
		attrString("mode", "nearest"),
		attrString("coordinate_transformation_mode", op.CoordTransform.String()),
		attrString("nearest_mode", op.Nearest.String()))
	return nil
}

// checkTypes refuses element types an op's ONNX schema only accepts from a
// later opset (ONNX Runtime rejects such models as invalid).
func (b *builder) checkTypes(n *canon.Node) error {
	if len(n.Inputs) == 0 || n.Inputs[0] == "" {
		return nil
	}
	dt := b.dtype(n.Inputs[0])
	min := 0
	switch op := n.Op.(type) {
	case *canon.Binary:
		switch dt {
		case canon.Int8, canon.Int16, canon.Uint8, canon.Uint16:
			min = 14 // Add/Sub/Mul/Div-14 added the 8- and 16-bit integers
		case canon.BFloat16:
			min = 13
		}
	case *canon.Unary:
		switch {
		case op.Fn == canon.Relu && dt.IsInt():
			min = 14 // Relu-14 added the signed integers
		case dt == canon.BFloat16:
			min = 13
		}
	case *canon.MaxPool:
		if dt == canon.Int8 || dt == canon.Uint8 {
			min = 12 // MaxPool-12 added int8 and uint8
		}
	}
	if min > b.opset {
		return b.needOpset(n, fmt.Sprintf("%s on %s data", n.Op.Kind(), dt), min)
	}
	return nil
}
