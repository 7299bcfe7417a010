package onnximport

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

func aFloat(name string, v float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
}

// TestSmoothActivations checks the attribute defaults of Elu, Selu,
// Softplus and Softsign, including Selu-1's shorter default constants
// (alpha 1.6732, gamma 1.0507 before opset 6).
func TestSmoothActivations(t *testing.T) {
	one := func(opset int64, n *onnxpb.NodeProto) canon.Op {
		t.Helper()
		g := mustRead(t, graphSpec{
			opset:   opset,
			nodes:   []*onnxpb.NodeProto{n},
			inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 3)},
			outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 2, 3)},
		})
		if len(g.Nodes) != 1 {
			t.Fatalf("%d nodes", len(g.Nodes))
		}
		return g.Nodes[0].Op
	}
	in, out := []string{"x"}, []string{"y"}
	cases := []struct {
		opset int64
		node  *onnxpb.NodeProto
		want  canon.Op
	}{
		{13, node("Softplus", "n", in, out), &canon.Unary{Fn: canon.Softplus}},
		{1, node("Softsign", "n", in, out), &canon.Unary{Fn: canon.Softsign}},
		{6, node("Elu", "n", in, out), &canon.Elu{Alpha: 1}},
		{17, node("Elu", "n", in, out, aFloat("alpha", 0.5)), &canon.Elu{Alpha: 0.5}},
		{1, node("Elu", "n", in, out, aInts("consumed_inputs", 0)), &canon.Elu{Alpha: 1}},
		{6, node("Selu", "n", in, out), &canon.Selu{Alpha: 1.67326319217681884765625, Gamma: 1.05070102214813232421875}},
		{5, node("Selu", "n", in, out), &canon.Selu{Alpha: 1.6732, Gamma: 1.0507}},
		{13, node("Selu", "n", in, out, aFloat("gamma", 2)), &canon.Selu{Alpha: 1.67326319217681884765625, Gamma: 2}},
	}
	for _, c := range cases {
		if got := one(c.opset, c.node); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s at opset %d: %#v, want %#v", c.node.GetOpType(), c.opset, got, c.want)
		}
	}
}
