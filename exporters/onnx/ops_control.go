package onnxexport

import (
	"bytes"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"If":   {onnx: "If", native: 1, write: writeIf},
		"Loop": {onnx: "Loop", native: 1, write: writeLoop},
		"Scan": {onnx: "Scan", native: 9, write: writeScan},
	})
}

// subgraph writes one subgraph of node n as a GRAPH attribute. Its nodes
// are converted by a builder of their own for the same opset; its
// parameters become its own initializers. A capture whose inner name
// differs from the outer value's is bound by an Identity at the top, since
// ONNX subgraphs read outer values by name.
func (b *builder) subgraph(n *canon.Node, attr string, sub *canon.Graph, formal []canon.ValueInfo) (*onnxpb.AttributeProto, error) {
	owner := n.Op.(canon.SubgraphOwner)
	caps, outer := owner.CaptureNames(), canon.CaptureInputs(n)
	capTypes := make([]canon.ValueInfo, len(outer))
	for i, name := range outer {
		capTypes[i] = b.types.Get(name)
	}
	scope := canon.ScopeGraph(sub, formal, caps, capTypes)
	valid, err := validated(scope)
	if err != nil {
		return nil, b.opError(n, "subgraph %s: %v", attr, err)
	}
	types := valueTypes(scope, valid.Values)
	b.unique("") // makes b.taken, shared so that no generated name repeats an outer one
	delete(b.taken, "")
	reserveNames(b.taken, scope)
	var nodes bytes.Buffer // the subgraph's nodes, encoded as GraphProto fields
	sb := &builder{g: scope, opset: b.opset, types: types.all, inferred: types, taken: b.taken, out: &nodes}
	for i, name := range caps {
		if outer[i] != name {
			sb.emit(sb.unique(name+"_capture"), "Identity", []string{outer[i]}, []string{name})
		}
	}
	for _, sn := range scope.Nodes {
		if err := sb.node(sn); err != nil {
			return nil, fmt.Errorf("in subgraph %s of node %q: %w", attr, nodeLabel(n), err)
		}
	}
	sb.outputs = sb.graphOutputs(scope)
	if sb.err != nil {
		return nil, sb.err
	}
	b.expanded = b.expanded || sb.expanded
	gp := &onnxpb.GraphProto{}
	if err := proto.Unmarshal(nodes.Bytes(), gp); err != nil {
		return nil, b.opError(n, "subgraph %s: cannot encode its nodes: %v", attr, err)
	}
	gp.Name = proto.String(sub.Name)
	if sub.Name == "" {
		gp.Name = proto.String(nodeLabel(n) + "_" + attr)
	}
	for _, v := range scope.Inputs[:len(sub.Inputs)] {
		gp.Input = append(gp.Input, valueInfo(v, sb.types))
	}
	for _, v := range sb.outputs {
		gp.Output = append(gp.Output, valueInfo(v, sb.types))
	}
	for _, t := range append(append([]*canon.Tensor{}, sub.Initializers...), sb.params...) {
		gp.Initializer = append(gp.Initializer, TensorToProto(t))
	}
	return &onnxpb.AttributeProto{Name: proto.String(attr), Type: onnxpb.AttributeProto_GRAPH.Enum(), G: gp}, nil
}

func writeIf(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.If)
	then, err := b.subgraph(n, "then_branch", op.Then, nil)
	if err != nil {
		return err
	}
	els, err := b.subgraph(n, "else_branch", op.Else, nil)
	if err != nil {
		return err
	}
	b.emit(n.Name, "If", n.Inputs[:1], n.Outputs, then, els)
	return nil
}

func writeLoop(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Loop)
	formal := []canon.ValueInfo{{DType: canon.Int64, RankKnown: true}, {DType: canon.Bool, RankKnown: true}}
	body, err := b.subgraph(n, "body", op.Body, formal)
	if err != nil {
		return err
	}
	ins := append([]string{}, n.Inputs[:len(n.Inputs)-len(op.Captures)]...)
	for len(ins) < 2 {
		ins = append(ins, "")
	}
	// Loop takes M and cond even when both are absent.
	b.emitUntrimmed(n.Name, "Loop", ins, n.Outputs, body)
	return nil
}

func writeScan(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Scan)
	body, err := b.subgraph(n, "body", op.Body, nil)
	if err != nil {
		return err
	}
	attrs := []*onnxpb.AttributeProto{body, attrInt("num_scan_inputs", op.NumScanInputs)}
	if b.opset < 11 {
		// Scan-9 takes axes from 0 only; negative ones came with Scan-11.
		for _, a := range append(append([]int64{}, op.InputAxes...), op.OutputAxes...) {
			if a < 0 {
				return b.needOpset(n, "Scan with negative axes", 11)
			}
		}
	}
	for _, l := range []struct {
		name string
		v    []int64
	}{{"scan_input_axes", op.InputAxes}, {"scan_input_directions", op.InputDirections},
		{"scan_output_axes", op.OutputAxes}, {"scan_output_directions", op.OutputDirections}} {
		if len(l.v) > 0 {
			attrs = append(attrs, attrInts(l.name, l.v))
		}
	}
	b.emit(n.Name, "Scan", n.Inputs[:len(n.Inputs)-len(op.Captures)], n.Outputs, attrs...)
	return nil
}
