package canon

import "testing"

// Every registered op has a summary and an example that builds a valid
// one-node graph, so the backend walk in package opsupport reaches it.
func TestEveryOpHasAValidExample(t *testing.T) {
	for _, d := range Ops() {
		if d.Summary == "" {
			t.Errorf("op %s has no summary", d.Kind)
		}
		g, err := d.ExampleGraph()
		if err != nil {
			t.Errorf("op %s: %v", d.Kind, err)
			continue
		}
		if got := g.Nodes[0].Op.Kind(); got != d.Kind {
			t.Errorf("op %s: example builds a %s", d.Kind, got)
		}
		if got := d.New().Kind(); got != d.Kind {
			t.Errorf("op %s: New builds a %s", d.Kind, got)
		}
	}
}

func TestParamInputsComeFromSignatures(t *testing.T) {
	if got := ParamInputs(&Slice{}); len(got) != 4 || got[0] != 1 {
		t.Errorf("Slice param inputs %v, want [1 2 3 4]", got)
	}
	if got := ParamInputs(&Conv{}); len(got) != 0 {
		t.Errorf("Conv param inputs %v, want none", got)
	}
	if !IsElementwise(&Gelu{}) || IsElementwise(&Conv{}) || !IsView(&Flatten{}) {
		t.Error("traits are wrong")
	}
}

// impostor claims a registered kind with a type that is not that kind's.
type impostor struct{}

func (*impostor) Kind() string         { return "Conv" }
func (*impostor) Signature() Signature { return sig(1, inX) }

func TestForeignTypeClaimingAKindIsRefused(t *testing.T) {
	g := &Graph{
		Inputs:  []ValueInfo{{Name: "x", DType: Float32, Shape: DimsOf(1, 2, 3, 3), RankKnown: true}},
		Nodes:   []*Node{{Name: "n", Op: &impostor{}, Inputs: []string{"x"}, Outputs: []string{"y"}}},
		Outputs: []ValueInfo{{Name: "y"}},
	}
	if err := g.Validate(); err == nil {
		t.Fatal("a foreign op type named Conv validated")
	}
	for _, op := range []Op{&Binary{Fn: 99}, &Unary{Fn: 99}} {
		g.Nodes[0].Op = op
		if err := g.Validate(); err == nil {
			t.Errorf("%s validated", op.Kind())
		}
	}
}
