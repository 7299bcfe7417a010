package onnximport

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

func aGraph(name string, g *onnxpb.GraphProto) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_GRAPH.Enum(), G: g}
}

// branch returns a graph computing op(in...) into out.
func branch(op string, ins []string, out string) *onnxpb.GraphProto {
	return &onnxpb.GraphProto{Name: proto.String(op), Node: []*onnxpb.NodeProto{node(op, op, ins, []string{out})},
		Output: []*onnxpb.ValueInfoProto{vinfo(out, 1, 3)}}
}

// TestIfCapturesAreNodeInputs: the outer values a branch reads (here one
// produced by an earlier node, listed after the If in the file) become
// the If's captures and inputs, and the node sorts after their producer.
func TestIfCapturesAreNodeInputs(t *testing.T) {
	s := graphSpec{
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", 1, 3), vinfo("c", 9)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", 1, 3)},
		nodes: []*onnxpb.NodeProto{
			node("If", "if", []string{"c"}, []string{"y"}, aGraph("then_branch", branch("Relu", []string{"r"}, "t")),
				aGraph("else_branch", branch("Neg", []string{"x"}, "e"))),
			node("Abs", "abs", []string{"x"}, []string{"r"}),
		},
	}
	g, err := Read(write(t, s.model()), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if len(g.Nodes) != 2 || g.Nodes[1].Op.Kind() != "If" {
		t.Fatalf("nodes %v", g.Nodes)
	}
	op := g.Nodes[1].Op.(*canon.If)
	if strings.Join(op.Captures, ",") != "r,x" || strings.Join(g.Nodes[1].Inputs, ",") != "c,r,x" {
		t.Fatalf("captures %v, inputs %v; want r,x and c,r,x", op.Captures, g.Nodes[1].Inputs)
	}
}

// TestBadSubgraphsAreRefused: malformed control flow gets an error that
// names the node, never a panic.
func TestBadSubgraphsAreRefused(t *testing.T) {
	body := func(ins, outs int) *onnxpb.GraphProto {
		g := &onnxpb.GraphProto{Name: proto.String("body")}
		for i := 0; i < ins; i++ {
			g.Input = append(g.Input, vinfo(string(rune('a'+i)), 1))
		}
		for i := 0; i < outs; i++ {
			g.Output = append(g.Output, vinfo(string(rune('a'+i)), 1))
		}
		return g
	}
	cases := []struct {
		name string
		n    *onnxpb.NodeProto
		want string
	}{
		{"if without else", node("If", "bad_if", []string{"c"}, []string{"y"}, aGraph("then_branch", branch("Relu", []string{"x"}, "t"))), "else_branch"},
		{"branch reads nothing defined", node("If", "bad_if", []string{"c"}, []string{"y"}, aGraph("then_branch", branch("Relu", []string{"nowhere"}, "t")),
			aGraph("else_branch", branch("Relu", []string{"x"}, "e"))), "nowhere"},
		{"branches disagree", node("If", "bad_if", []string{"c"}, []string{"y"}, aGraph("then_branch", body(0, 0)),
			aGraph("else_branch", branch("Relu", []string{"x"}, "e"))), "bad_if"},
		{"loop body too small", node("Loop", "bad_loop", []string{"", "c", "x"}, []string{"y"}, aGraph("body", body(1, 1))), "bad_loop"},
		{"scan without num_scan_inputs", node("Scan", "bad_scan", []string{"x"}, []string{"y"}, aGraph("body", body(1, 1))), "num_scan_inputs"},
		{"scan count too big", node("Scan", "bad_scan", []string{"x"}, []string{"y"}, aGraph("body", body(1, 1)), aInt("num_scan_inputs", 5)), "bad_scan"},
	}
	for _, tc := range cases {
		s := graphSpec{
			inputs:  []*onnxpb.ValueInfoProto{vinfo("x", 1, 3), vinfo("c", 9)},
			outputs: []*onnxpb.ValueInfoProto{vinfo("y", 1)},
			nodes:   []*onnxpb.NodeProto{tc.n},
		}
		_, err := Read(write(t, s.model()), formats.ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
}
