package onnximport

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

func aStrs(name string, v ...string) *onnxpb.AttributeProto {
	a := &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRINGS.Enum()}
	for _, s := range v {
		a.Strings = append(a.Strings, []byte(s))
	}
	return a
}

func aFloats(name string, v ...float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOATS.Enum(), Floats: v}
}

// gruModel is a bidirectional GRU (hidden 2) over x (3, 1, 2) with the
// given extra attributes.
func gruModel(attrs ...*onnxpb.AttributeProto) graphSpec {
	attrs = append(attrs, aStr("direction", "bidirectional"))
	return graphSpec{
		opset:   14,
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", 1, 3, 1, 2)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y_h", 1, 2, 1, 2)},
		inits:   []*onnxpb.TensorProto{f32Tensor("w", []int64{2, 6, 2}, seq(24)...), f32Tensor("r", []int64{2, 6, 2}, seq(24)...)},
		nodes:   []*onnxpb.NodeProto{node("GRU", "gru", []string{"x", "w", "r"}, []string{"", "y_h"}, attrs...)},
	}
}

// TestRecurrentAttributes: hidden_size from R when absent, activation
// names in any case, alpha/beta consumed only by the activations that take
// them (defaults after the list runs out), one direction's list used for
// both, Y left out.
func TestRecurrentAttributes(t *testing.T) {
	g, err := Read(write(t, gruModel(aStrs("activations", "hardsigmoid", "LEAKYRELU"), aFloats("activation_alpha", 0.3), aFloats("activation_beta", 0.4)).model()), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	n := g.Nodes[0]
	op := n.Op.(*canon.GRU)
	if op.HiddenSize != 2 || op.Direction != canon.Bidirectional || len(n.Outputs) != 2 || n.Outputs[0] != "" {
		t.Fatalf("read %+v with outputs %q", op.Recurrent, n.Outputs)
	}
	want := []canon.RNNActivation{{Fn: canon.ActHardSigmoid, Alpha: 0.3, Beta: 0.4}, {Fn: canon.ActLeakyRelu, Alpha: 0.01},
		{Fn: canon.ActHardSigmoid, Alpha: 0.2, Beta: 0.5}, {Fn: canon.ActLeakyRelu, Alpha: 0.01}}
	for i, a := range op.Activations {
		if a != want[i] {
			t.Fatalf("activations %+v, want %+v", op.Activations, want)
		}
	}
	if w := g.Initializer("w"); w.Layout != "DGI" {
		t.Errorf("W has layout %q, want DGI", w.Layout)
	}
}

// TestRecurrentRefusals: bad attribute values are refused naming them.
func TestRecurrentRefusals(t *testing.T) {
	for want, attrs := range map[string][]*onnxpb.AttributeProto{
		"direction":      {aStr("direction", "sideways")},
		"layout 2":       {aInt("layout", 2)},
		`"Swish"`:        {aStrs("activations", "Sigmoid", "Swish")},
		"lists 3":        {aStrs("activations", "Sigmoid", "Tanh", "Tanh")},
		"clip":           {&onnxpb.AttributeProto{Name: proto.String("clip"), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(-1)}},
		"gates·hidden":   {aInt("hidden_size", 3)},
		"hidden_size -1": {aInt("hidden_size", -1)},
	} {
		m := gruModel(attrs...)
		if want == "direction" {
			m.nodes[0].Attribute = attrs
		}
		_, err := Read(write(t, m.model()), formats.ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), strings.Trim(want, `"`)) && !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v", want, err)
		}
	}
}
