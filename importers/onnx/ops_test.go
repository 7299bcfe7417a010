package onnximport

import (
	"math"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// TestCoverage: every registered kind is read from some ONNX op or declared
// unsupported with a reason, and the table names no kind canon lacks.
func TestCoverage(t *testing.T) {
	cov := Coverage()
	for _, g := range canon.Gaps(map[string]canon.Coverage{"onnx import": cov}) {
		t.Error(g)
	}
	for op, e := range ops {
		if e.convert == nil || len(e.kinds) == 0 || e.since < MinOpset {
			t.Errorf("entry %s: needs a converter, its kinds and an opset >= %d", op, MinOpset)
		}
		for _, k := range e.kinds {
			if canon.Lookup(k) == nil {
				t.Errorf("entry %s produces %s, which canon does not register", op, k)
			}
		}
	}
	for _, f := range fusions {
		if canon.Lookup(f.kind) == nil {
			t.Errorf("fusion %q produces %s, which canon does not register", f.name, f.kind)
		}
	}
	for k := range unsupported {
		if canon.Lookup(k) == nil {
			t.Errorf("unsupported lists %s, which canon does not register", k)
		}
		if cov[k].Handled {
			t.Errorf("%s is both read and declared unsupported", k)
		}
	}
	if s := cov["Gelu"]; !s.Handled || s.MinOpset != 9 || s.MaxOpset != MaxOpset || !strings.Contains(s.Detail, "Gelu (opset 20+)") || !strings.Contains(s.Detail, "Erf") {
		t.Errorf("Gelu coverage %+v", s)
	}
	if s := cov["Linear"]; !strings.Contains(s.Detail, "Gemm") || s.MinOpset != 1 {
		t.Errorf("Linear coverage %+v", s)
	}
	registered := false
	for _, imp := range formats.Importers() {
		registered = registered || imp.Name == "onnx" && imp.Ops != nil && len(imp.Ops()) == len(cov)
	}
	if !registered {
		t.Errorf("the onnx importer does not register its coverage")
	}
}

func geluSpec(opset int64, nodes []*onnxpb.NodeProto, inits ...*onnxpb.TensorProto) graphSpec {
	return graphSpec{
		opset:   opset,
		nodes:   nodes,
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 3)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 2, 3)},
		inits:   inits,
	}
}

func scalar(name string, v float32) *onnxpb.TensorProto { return f32Tensor(name, []int64{}, v) }

func constNode(out string, v float32) *onnxpb.NodeProto {
	return node("Constant", out+"_const", nil, []string{out}, &onnxpb.AttributeProto{
		Name: ptr("value"), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: scalar("", v)})
}

func ptr(s string) *string { return &s }

// TestGeluNode reads ONNX Gelu-20 with both approximations.
func TestGeluNode(t *testing.T) {
	for _, c := range []struct {
		attrs []*onnxpb.AttributeProto
		want  canon.GeluApprox
	}{{nil, canon.GeluExact}, {[]*onnxpb.AttributeProto{aStr("approximate", "none")}, canon.GeluExact}, {[]*onnxpb.AttributeProto{aStr("approximate", "tanh")}, canon.GeluTanh}} {
		g := mustRead(t, geluSpec(20, []*onnxpb.NodeProto{node("Gelu", "gelu", []string{"x"}, []string{"y"}, c.attrs...)}))
		if len(g.Nodes) != 1 || g.Nodes[0].Op.Kind() != "Gelu" || g.Nodes[0].Op.(*canon.Gelu).Approximate != c.want {
			t.Errorf("%v: got %v", c.attrs, g.Nodes)
		}
	}
	wantErr(t, geluSpec(20, []*onnxpb.NodeProto{node("Gelu", "gelu", []string{"x"}, []string{"y"}, aStr("approximate", "fast"))}).model(),
		`node "gelu" (Gelu)`, `approximate "fast"`)
	wantErr(t, geluSpec(18, []*onnxpb.NodeProto{node("Gelu", "gelu", []string{"x"}, []string{"y"})}).model(),
		"opset 18 predates", "opset >= 20")
}

// TestGeluErfForm reads the Erf expansion torch.onnx writes below opset 20
// as one Gelu, in each spelling, and other Erf uses as plain Erf.
func TestGeluErfForm(t *testing.T) {
	sqrt2, inv := float32(math.Sqrt2), float32(1/math.Sqrt2)
	tail := func(mulOrder int) []*onnxpb.NodeProto {
		switch mulOrder {
		case 0: // (x·a)·0.5, as torch writes it
			return []*onnxpb.NodeProto{
				node("Mul", "m1", []string{"x", "a"}, []string{"m"}),
				node("Mul", "m2", []string{"m", "half"}, []string{"y"}),
			}
		case 1: // (0.5·a)·x, operands swapped
			return []*onnxpb.NodeProto{
				node("Mul", "m1", []string{"half", "a"}, []string{"m"}),
				node("Mul", "m2", []string{"x", "m"}, []string{"y"}),
			}
		default: // (x·0.5)·a
			return []*onnxpb.NodeProto{
				node("Mul", "h", []string{"half", "x"}, []string{"m"}),
				node("Mul", "m2", []string{"a", "m"}, []string{"y"}),
			}
		}
	}
	head := func(div bool) []*onnxpb.NodeProto {
		scale := node("Div", "d", []string{"x", "c"}, []string{"s"})
		if !div {
			scale = node("Mul", "d", []string{"c", "x"}, []string{"s"})
		}
		return []*onnxpb.NodeProto{
			scale,
			node("Erf", "erf", []string{"s"}, []string{"e"}),
			node("Add", "add", []string{"one", "e"}, []string{"a"}),
		}
	}
	for _, div := range []bool{true, false} {
		c := inv
		if div {
			c = sqrt2
		}
		for order := 0; order < 3; order++ {
			// Constants as Constant nodes (torch) and as initializers.
			for _, asNodes := range []bool{true, false} {
				nodes := append(head(div), tail(order)...)
				var inits []*onnxpb.TensorProto
				if asNodes {
					nodes = append([]*onnxpb.NodeProto{constNode("c", c), constNode("one", 1), constNode("half", 0.5)}, nodes...)
				} else {
					inits = []*onnxpb.TensorProto{scalar("c", c), scalar("one", 1), scalar("half", 0.5)}
				}
				g := mustRead(t, geluSpec(17, nodes, inits...))
				if len(g.Nodes) != 1 || len(g.Initializers) != 0 {
					t.Errorf("div=%v order=%d constNodes=%v: %d nodes, %d initializers, want one Gelu", div, order, asNodes, len(g.Nodes), len(g.Initializers))
					continue
				}
				n := g.Nodes[0]
				if gl, ok := n.Op.(*canon.Gelu); !ok || gl.Approximate != canon.GeluExact || n.Inputs[0] != "x" || n.Outputs[0] != "y" || n.Name != "m2" && n.Name != "h" {
					t.Errorf("div=%v order=%d: node %s %v %v -> %v", div, order, n.Name, n.Op, n.Inputs, n.Outputs)
				}
			}
		}
	}

	// Not Gelu: a wrong constant, or an intermediate read elsewhere.
	base := func() []*onnxpb.NodeProto { return append(head(true), tail(0)...) }
	// Such an Erf is read as a plain Erf, with the rest of the expansion.
	plainErf := func(what string, spec graphSpec) {
		t.Helper()
		g := mustRead(t, spec)
		erfs := 0
		for _, n := range g.Nodes {
			if _, ok := n.Op.(*canon.Gelu); ok {
				t.Errorf("%s: read as Gelu", what)
			}
			if m, ok := n.Op.(*canon.Math); ok && m.Fn == canon.MathErf {
				erfs++
			}
		}
		if erfs != 1 {
			t.Errorf("%s: %d Erf nodes, want 1", what, erfs)
		}
	}
	wrong := geluSpec(17, base(), scalar("c", 1.5), scalar("one", 1), scalar("half", 0.5))
	plainErf("wrong constant", wrong)
	shared := geluSpec(17, base(), scalar("c", sqrt2), scalar("one", 1), scalar("half", 0.5))
	shared.outputs = append(shared.outputs, vinfo("e", tFloat, 2, 3))
	plainErf("shared intermediate", shared)
	// Float32 rounding of the constants is accepted; more is not.
	near := geluSpec(17, base(), scalar("c", math.Nextafter32(sqrt2, 2)), scalar("one", 1), scalar("half", 0.5))
	if g := mustRead(t, near); len(g.Nodes) != 1 {
		t.Errorf("√2 one ulp off: %d nodes", len(g.Nodes))
	}
	far := geluSpec(17, base(), scalar("c", 1.4142), scalar("one", 1), scalar("half", 0.5))
	plainErf("√2 too far off", far)
}

// TestLayoutCopy: a weight read in two layouts (a Conv's OIW and a
// ConvTranspose's IOW) is copied for the second reader, right after it.
func TestLayoutCopy(t *testing.T) {
	g := mustRead(t, graphSpec{
		nodes: []*onnxpb.NodeProto{
			node("Conv", "conv", []string{"x", "w"}, []string{"c"}),
			node("ConvTranspose", "deconv", []string{"c", "w"}, []string{"y"}),
		},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 1, 2, 5)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 1, 2, 5)},
		inits:   []*onnxpb.TensorProto{f32Tensor("w", []int64{2, 2, 1}, 1, 2, 3, 4), f32Tensor("z", []int64{1}, 0)},
	})
	var names []string
	for _, t := range g.Initializers {
		names = append(names, t.Name+":"+string(t.Layout))
	}
	conv, _ := canon.LayoutFor(canon.RoleConvWeight, 3)
	deconv, _ := canon.LayoutFor(canon.RoleDeconvWeight, 3)
	want := "w:" + string(conv) + " w_" + string(deconv) + ":" + string(deconv) + " z:"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("initializers %s, want %s", got, want)
	}
	if in := g.Nodes[1].Inputs[1]; in != "w_"+string(deconv) {
		t.Errorf("ConvTranspose reads %q", in)
	}
}
