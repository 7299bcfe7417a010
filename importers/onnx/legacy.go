package onnximport

import (
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// legacyForm reads an op written in one of its old forms: from opset since
// until before, resolve rewrites the node into the form its converter reads
// (the op's entry in ops stays at the version whose semantics it reads).
type legacyForm struct {
	since, before int64
	resolve       func(c *nodeCtx) error
}

// legacyForms lists the old forms the ONNX spec records and how each maps
// onto a newer one. Attributes that the newer versions dropped without a
// change of meaning at inference (consumed_inputs, is_test, Gemm's
// broadcast) are ignored, as onnx.version_converter drops them.
var legacyForms = map[string]legacyForm{}

func init() {
	for _, op := range []string{"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Less", "Greater"} {
		legacyForms[op] = legacyForm{1, 7, legacyBroadcast}
	}
	keep := func(*nodeCtx) error { return nil }
	// Gemm 1-6: C broadcasts to (M, N) only with broadcast=1, else it has
	// that shape already; both are what Gemm-7's unidirectional
	// broadcasting does.
	legacyForms["Gemm"] = legacyForm{1, 7, keep}
	// BatchNormalization and Dropout 1-6: is_test selected training mode;
	// from 7 the outputs do, and the converters refuse the training-only
	// outputs when something reads them.
	legacyForms["BatchNormalization"] = legacyForm{1, 7, keep}
	legacyForms["Dropout"] = legacyForm{1, 7, keep}
	legacyForms["PRelu"] = legacyForm{1, 7, legacyPRelu}
	legacyForms["Concat"] = legacyForm{1, 4, legacyConcat}
	legacyForms["Reshape"] = legacyForm{1, 5, legacyReshape}
	legacyForms["Split"] = legacyForm{1, 2, legacySplit}
	legacyForms["Pad"] = legacyForm{1, 2, legacyPad}
	legacyForms["Upsample"] = legacyForm{1, 7, legacyUpsample}
}

// setInput replaces input i of the node being converted (on a copy: the
// file's node stays as read).
func (c *nodeCtx) setInput(i int, name string) {
	n := proto.Clone(c.n).(*onnxpb.NodeProto)
	for len(n.Input) <= i {
		n.Input = append(n.Input, "")
	}
	n.Input[i] = name
	c.n = n
}

// legacyBroadcast reads the binary ops before opset 7: without broadcast=1
// both inputs have one shape; with it B matches a contiguous run of A's
// axes starting at axis, or A's last axes when axis is absent. Only the
// axis form differs from NumPy broadcasting: B gets size-1 trailing axes.
func legacyBroadcast(c *nodeCtx) error {
	if c.int("broadcast", 0) == 0 || !c.has("axis") {
		return nil
	}
	ra := c.needRank(0, "broadcast with an axis (before opset 7)")
	rb := c.needRank(1, "broadcast with an axis (before opset 7)")
	if c.err != nil {
		return c.err
	}
	axis := c.int("axis", 0)
	if axis < 0 {
		axis += int64(ra)
	}
	if axis < 0 || axis > int64(ra) || axis+int64(rb) > int64(ra) { // axis first: no overflow
		return c.errf("axis %d does not place input B (rank %d) within input A (rank %d)", c.int("axis", 0), rb, ra)
	}
	trailing := int64(ra) - axis - int64(rb)
	if trailing == 0 {
		return nil
	}
	axes := make([]int64, trailing)
	for i := range axes {
		axes[i] = int64(rb) + int64(i)
	}
	b, err := c.emitAux("broadcast_axis", &canon.Unsqueeze{Axes: axes}, c.in(1))
	if err != nil {
		return err
	}
	c.setInput(1, b)
	return nil
}

// legacyPRelu: before opset 7 the spec defines a slope of one element or
// of X's shape only, which NumPy broadcasting reads the same way. Other
// slopes had no defined meaning (Caffe2 applied a (C,) slope per channel,
// NumPy broadcasting would apply it along the last axis): refused.
func legacyPRelu(c *nodeCtx) error {
	x, s := c.info(0), c.info(1)
	xs, xok := x.StaticShape()
	ss, sok := s.StaticShape()
	if !xok || !sok {
		return c.errf("before opset 7 PRelu's slope must have one element or X's shape, which needs both shapes; give the inputs' shapes (--input-shape)")
	}
	n := int64(1)
	for _, d := range ss {
		n *= d
	}
	if n == 1 || slices.Equal(xs, ss) {
		return nil
	}
	return c.errf("slope %q of shape %v on X of shape %v: before opset 7 PRelu defines only a one-element slope or one of X's shape; upgrade the model with onnx.version_converter after checking which axis the slope applies to", c.in(1), ss, xs)
}

// legacyConcat: before opset 4 the axis was optional, 1 by default.
func legacyConcat(c *nodeCtx) error {
	if !c.has("axis") {
		c.attrs["axis"] = &onnxpb.AttributeProto{Name: proto.String("axis"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(1)}
	}
	return nil
}

// legacyReshape: before opset 5 the target shape was an attribute.
func legacyReshape(c *nodeCtx) error {
	shape := c.ints("shape")
	if shape == nil {
		return c.errf("the shape attribute is required (Reshape before opset 5)")
	}
	name := c.im.fresh(c.name + "/shape")
	c.im.vals.Set(name, constInfo(canon.NewInt64Tensor(name, nil, shape)))
	c.setInput(1, name)
	return nil
}

// legacySplit: Split-1 took the sizes as an attribute or as a constant
// second input.
func legacySplit(c *nodeCtx) error {
	if c.in(1) == "" {
		return nil
	}
	sizes, ok := c.constInts(1, "Split sizes")
	if !ok {
		return c.err
	}
	c.attrs["split"] = &onnxpb.AttributeProto{Name: proto.String("split"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: sizes}
	c.setInput(1, "")
	return nil
}

// legacyPad: Pad-1 named its pads attribute paddings (same layout).
func legacyPad(c *nodeCtx) error {
	if p := c.ints("paddings"); p != nil && !c.has("pads") {
		c.attrs["pads"] = &onnxpb.AttributeProto{Name: proto.String("pads"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: p}
	}
	return nil
}

// legacyUpsample: Upsample-1 scaled the last two axes of a 4-D input by
// height_scale and width_scale.
func legacyUpsample(c *nodeCtx) error {
	if c.has("scales") {
		return nil
	}
	if !c.has("height_scale") || !c.has("width_scale") {
		return c.errf("the height_scale and width_scale attributes are required (Upsample before opset 7)")
	}
	if r := c.needRank(0, "Upsample before opset 7"); c.err == nil && r != 4 {
		return c.errf("Upsample before opset 7 takes a 4-D input; %q has rank %d", c.in(0), r)
	}
	scales := []float32{1, 1, c.float("height_scale", 1), c.float("width_scale", 1)}
	c.attrs["scales"] = &onnxpb.AttributeProto{Name: proto.String("scales"), Type: onnxpb.AttributeProto_FLOATS.Enum(), Floats: scales}
	return c.err
}
