package onnximport

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The ai.onnx.ml ops read: their table keys carry the domain
// ("ai.onnx.ml:Binarizer") and their since is an ai.onnx.ml opset.

const mlDomain = "ai.onnx.ml"

func init() {
	optable.Add(&ops, map[string]opEntry{
		mlDomain + ":Binarizer": {func(c *nodeCtx) error {
			return c.emit(&canon.Binarizer{Threshold: c.float("threshold", 0)}, []string{c.in(0)}, c.out1())
		}, 1, []string{"Binarizer"}},
		mlDomain + ":ArrayFeatureExtractor": {func(c *nodeCtx) error {
			return c.emit(&canon.ArrayFeatureExtractor{}, []string{c.in(0), c.in(1)}, c.out1())
		}, 1, []string{"ArrayFeatureExtractor"}},
		mlDomain + ":LabelEncoder": {convLabelEncoder, 2, []string{"LabelEncoder"}},
	})
}

// convertMLNode converts a node of the ai.onnx.ml domain.
func (im *importer) convertMLNode(n *onnxpb.NodeProto, name string) error {
	op := n.GetOpType()
	e, ok := ops[mlDomain+":"+op]
	if !ok {
		return fmt.Errorf("node %q (%s) is in ONNX's %s domain: modelbridge reads its Binarizer, ArrayFeatureExtractor, LabelEncoder and TreeEnsemble ops only", name, op, mlDomain)
	}
	if im.mlOpset < 0 {
		return fmt.Errorf("node %q (%s) is an %s op, but the model imports no %s opset; the model is not valid ONNX", name, op, mlDomain, mlDomain)
	}
	if im.mlOpset < e.since {
		return fmt.Errorf("node %q (%s): the model's %s opset %d predates the %s modelbridge reads (%s opset >= %d); upgrade the model with onnx.version_converter", name, op, mlDomain, im.mlOpset, op, mlDomain, e.since)
	}
	return im.convertEntry(n, name, op, e)
}

// mlTensorAttr reads a TENSOR attribute, or returns nil when it is absent.
func (c *nodeCtx) mlTensorAttr(name string) *canon.Tensor {
	a := c.attr(name, onnxpb.AttributeProto_TENSOR)
	if a == nil {
		return nil
	}
	tp := a.GetT()
	if tp == nil {
		c.fail("attribute %s is a TENSOR attribute without a tensor; the file is damaged", name)
		return nil
	}
	t, err := c.im.tr.Convert(tp, tp.RawData, tp.RawData != nil)
	if err != nil {
		c.fail("attribute %s: %v", name, err)
		return nil
	}
	t.Name = ""
	return t
}

// labelSide reads LabelEncoder's keys or values: one of the
// <side>_strings, <side>_int64s, <side>_floats attributes or <side>_tensor.
func (c *nodeCtx) labelSide(side string) *canon.Tensor {
	var found []*canon.Tensor
	if c.has(side + "_strings") {
		v := c.strs(side + "_strings")
		found = append(found, canon.NewStringTensor("", []int64{int64(len(v))}, v))
	}
	if c.has(side + "_int64s") {
		v := c.ints(side + "_int64s")
		found = append(found, canon.NewInt64Tensor("", []int64{int64(len(v))}, v))
	}
	if c.has(side + "_floats") {
		v := c.floats(side + "_floats")
		found = append(found, canon.NewFloat32Tensor("", []int64{int64(len(v))}, v))
	}
	if c.has(side + "_tensor") {
		if c.im.mlOpset < 4 {
			c.fail("%s_tensor needs %s opset 4, the model imports %d", side, mlDomain, c.im.mlOpset)
			return nil
		}
		if t := c.mlTensorAttr(side + "_tensor"); t != nil {
			found = append(found, t)
		}
	}
	if len(found) != 1 {
		c.fail("has %d of the attributes %s_strings, %s_int64s, %s_floats, %s_tensor; ONNX requires exactly one", len(found), side, side, side, side)
		return nil
	}
	t := found[0]
	if len(t.Shape) != 1 {
		t.Shape = []int64{t.NumElements()}
	}
	return t
}

func convLabelEncoder(c *nodeCtx) error {
	op := &canon.LabelEncoder{Keys: c.labelSide("keys"), Values: c.labelSide("values")}
	if c.err != nil || op.Keys == nil || op.Values == nil {
		return c.err
	}
	op.Default = c.labelDefault(op.Values.DType)
	if c.err != nil {
		return c.err
	}
	return c.emit(op, []string{c.in(0)}, c.out1())
}

// labelDefault is the value for elements without a key: default_tensor,
// or the default_<type> attribute of the values' type, or ONNX's default
// ("_Unused", -1, -0.0).
func (c *nodeCtx) labelDefault(dt canon.DType) *canon.Tensor {
	if c.has("default_tensor") {
		t := c.mlTensorAttr("default_tensor")
		if t == nil {
			return nil
		}
		if t.DType != dt || t.NumElements() != 1 {
			c.fail("default_tensor is %s%v; want one %s, the values' type", t.DType, t.Shape, dt)
			return nil
		}
		t.Shape = []int64{1}
		return t
	}
	switch dt {
	case canon.String:
		return canon.NewStringTensor("", []int64{1}, []string{c.str("default_string", "_Unused")})
	case canon.Int64:
		return canon.NewInt64Tensor("", []int64{1}, []int64{c.int("default_int64", -1)})
	case canon.Float32:
		return canon.NewFloat32Tensor("", []int64{1}, []float32{c.float("default_float", float32(negZero()))})
	case canon.Float64:
		return &canon.Tensor{DType: dt, Shape: []int64{1}, Data: binary.LittleEndian.AppendUint64(nil, math.Float64bits(negZero()))}
	case canon.Int32, canon.Int16:
		// -1 is all ones in two's complement.
		return &canon.Tensor{DType: dt, Shape: []int64{1}, Data: bytes.Repeat([]byte{0xff}, dt.Size())}
	}
	c.fail("values of type %s; LabelEncoder maps to strings, int64, int32, int16, float32 or float64", dt)
	return nil
}

func negZero() float64 { return math.Copysign(0, -1) }
