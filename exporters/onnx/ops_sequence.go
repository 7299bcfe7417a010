package onnxexport

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"SequenceConstruct":  {onnx: "SequenceConstruct", native: 11, write: writeSame},
		"SequenceEmpty":      {onnx: "SequenceEmpty", native: 11, write: writeSequenceEmpty},
		"SequenceAt":         {onnx: "SequenceAt", native: 11, write: writeSame},
		"SequenceInsert":     {onnx: "SequenceInsert", native: 11, write: writeSame},
		"SequenceErase":      {onnx: "SequenceErase", native: 11, write: writeSame},
		"SequenceLength":     {onnx: "SequenceLength", native: 11, write: writeSame},
		"SplitToSequence":    {onnx: "SplitToSequence", native: 11, write: writeSplitToSequence},
		"ConcatFromSequence": {onnx: "ConcatFromSequence", native: 11, write: writeConcatFromSequence},
		"SequenceMap":        {onnx: "SequenceMap", native: 17, write: writeSequenceMap},
		"Optional":           {onnx: "Optional", native: 15, write: writeOptional},
		"OptionalHasElement": {onnx: "OptionalHasElement", native: 15, write: writeSame},
		"OptionalGetElement": {onnx: "OptionalGetElement", native: 15, write: writeSame},
	})
}

// writeSame writes the node as the ONNX op of its kind's name, without
// attributes.
func writeSame(b *builder, n *canon.Node) error {
	b.emit(n.Name, n.Op.Kind(), n.Inputs, n.Outputs)
	return nil
}

// typeProto is v's TypeProto: a tensor, a sequence of tensors, or an
// optional of either.
func typeProto(v canon.ValueInfo) *onnxpb.TypeProto {
	t := tensorTypeProto(v)
	if v.Kind.Element() == canon.SequenceValue {
		t = &onnxpb.TypeProto{Value: &onnxpb.TypeProto_SequenceType{SequenceType: &onnxpb.TypeProto_Sequence{ElemType: t}}}
	}
	if v.Kind.IsOptional() {
		t = &onnxpb.TypeProto{Value: &onnxpb.TypeProto_OptionalType{OptionalType: &onnxpb.TypeProto_Optional{ElemType: t}}}
	}
	return t
}

// valueKindRule is the first opset at which an op takes each kind of
// value (a kind it does not list: any opset), on its inputs and outputs or
// on its inputs only.
type valueKindRule struct {
	inputsOnly bool
	min        map[canon.ValueKind]int
}

// valueKindRules: If and Loop take sequences from opset 13 and optionals
// from 16, Identity from 14 and 16; OptionalHasElement and
// OptionalGetElement read a tensor or a sequence (not an optional) from 18.
var valueKindRules = func() map[string]valueKindRule {
	carries := func(seq int) valueKindRule {
		return valueKindRule{min: map[canon.ValueKind]int{canon.SequenceValue: seq, canon.OptionalTensor: 16, canon.OptionalSequence: 16}}
	}
	readsPlain := valueKindRule{inputsOnly: true, min: map[canon.ValueKind]int{canon.TensorValue: 18, canon.SequenceValue: 18}}
	return map[string]valueKindRule{"If": carries(13), "Loop": carries(13), "Identity": carries(14),
		"OptionalHasElement": readsPlain, "OptionalGetElement": readsPlain}
}()

// valueKindNeed is the opset n needs for the kinds of values it takes.
func (b *builder) valueKindNeed(n *canon.Node) opsetNeed {
	rule, ok := valueKindRules[n.Op.Kind()]
	if !ok {
		return opsetNeed{}
	}
	names := n.Inputs
	if !rule.inputsOnly {
		names = append(append([]string{}, n.Inputs...), n.Outputs...)
	}
	var need opsetNeed
	for _, name := range names {
		if name == "" {
			continue
		}
		k := b.types.Get(name).Kind
		if m := rule.min[k]; m > need.min {
			article := "a"
			if k.IsOptional() {
				article = "an"
			}
			need = opsetNeed{what: fmt.Sprintf("%s on %s %s (%q)", n.Op.Kind(), article, k, name), min: m}
		}
	}
	return need
}

func writeSequenceEmpty(b *builder, n *canon.Node) error {
	code, ok := DataType(n.Op.(*canon.SequenceEmpty).DType)
	if !ok {
		return b.opError(n, "dtype %s has no ONNX element type", n.Op.(*canon.SequenceEmpty).DType)
	}
	b.emit(n.Name, "SequenceEmpty", nil, n.Outputs, attrInt("dtype", int64(code)))
	return nil
}

func writeSplitToSequence(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.SplitToSequence)
	b.emit(n.Name, "SplitToSequence", n.Inputs, n.Outputs, attrInt("axis", op.Axis), attrBool("keepdims", op.KeepDims))
	return nil
}

func writeConcatFromSequence(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.ConcatFromSequence)
	b.emit(n.Name, "ConcatFromSequence", n.Inputs, n.Outputs, attrInt("axis", op.Axis), attrBool("new_axis", op.NewAxis))
	return nil
}

func writeSequenceMap(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.SequenceMap)
	formal := make([]canon.ValueInfo, op.Mapped())
	for i := range formal {
		formal[i] = b.types.Get(n.Inputs[i]).TensorType()
	}
	body, err := b.subgraph(n, "body", op.Body, formal)
	if err != nil {
		return err
	}
	b.emit(n.Name, "SequenceMap", n.Inputs[:len(n.Inputs)-len(op.Captures)], n.Outputs, body)
	return nil
}

func writeOptional(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Optional)
	if len(n.Inputs) > 0 && n.Inputs[0] != "" {
		b.emit(n.Name, "Optional", n.Inputs, n.Outputs)
		return nil
	}
	// The type attribute names what the empty optional would hold.
	attr := &onnxpb.AttributeProto{Name: proto.String("type"), Type: onnxpb.AttributeProto_TYPE_PROTO.Enum(),
		Tp: typeProto(op.Type.ElementType())}
	b.emit(n.Name, "Optional", nil, n.Outputs, attr)
	return nil
}
