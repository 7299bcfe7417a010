package optimize

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// reuseNet is x → Conv → Relu → Mul(scale) → y, with scale's initializer
// name returned so tests can vary the tail.
func reuseNet(t *testing.T) (*canon.Graph, string) {
	b := newGB(21)
	x := b.input("x", 1, 3, 8, 8)
	r := b.relu(b.conv(x, 3, 4, 3, 1, 1, 1, 1, true))
	scale := b.randW("", 0.5, 1.5, 1, 4, 1, 1)
	g := b.output(b.node(&canon.Binary{Fn: canon.Mul}, r, scale))
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g, scale
}

// withTail returns a copy of g whose Mul multiplies by a new initializer
// holding scale's values times f: the Conv and Relu stay the original's.
func withTail(t *testing.T, g *canon.Graph, scale string, f float32) *canon.Graph {
	opt := Clone(g)
	var old *canon.Tensor
	for _, w := range opt.Initializers {
		if w.Name == scale {
			old = w
		}
	}
	v, err := old.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	nv := make([]float32, len(v))
	for i := range v {
		nv[i] = float32(v[i]) * f
	}
	nt := canon.NewFloat32Tensor("scale2", old.Shape, nv)
	opt.Initializers = append(opt.Initializers, nt)
	last := opt.Nodes[len(opt.Nodes)-1]
	last.Inputs = []string{last.Inputs[0], nt.Name}
	if err := opt.Validate(); err != nil {
		t.Fatal(err)
	}
	return opt
}

// A graph the optimizer left as it was is equal by construction: it is not
// run, so even a graph that random inputs cannot run verifies.
func TestVerifyUnchangedGraphNotRun(t *testing.T) {
	g, _ := reuseNet(t)
	if plan := planVerify(g, Clone(g)); plan.opt != nil {
		t.Fatalf("an unchanged graph keeps %d nodes to run", len(plan.opt.Nodes))
	}
	// An input of unknown rank: random inputs cannot be made for it.
	b := newGB(22)
	b.g.Inputs = []canon.ValueInfo{{Name: "x", DType: canon.Float32}}
	bad := b.output(b.relu("x"))
	if err := Verify(bad, Clone(bad), 1, 1, 1e-5, 1e-6); err != nil {
		t.Errorf("an unchanged graph does not verify: %v", err)
	}
	changed := Clone(bad)
	changed.Nodes = []*canon.Node{{Name: "id", Op: &canon.Identity{}, Inputs: []string{"x"}, Outputs: []string{"t"}},
		{Name: "r", Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{"t"}, Outputs: bad.Nodes[0].Outputs}}
	err := Verify(bad, changed, 1, 1, 1e-5, 1e-6)
	if _, ok := err.(*UnverifiableError); !ok {
		t.Errorf("a changed graph that cannot run on random inputs: got %v, want an UnverifiableError", err)
	}
}

// The optimized graph runs only the nodes the optimizer changed, fed the
// original's values for the rest, and a wrong change is still caught.
func TestVerifyRunsOnlyChangedNodes(t *testing.T) {
	g, scale := reuseNet(t)
	same := withTail(t, g, scale, 1)
	plan := planVerify(g, same)
	if plan.opt == nil || len(plan.opt.Nodes) != 1 || plan.opt.Nodes[0].Op.Kind() != "Mul" {
		t.Fatalf("plan runs %v, want only the Mul", plan.opt)
	}
	relu := g.Nodes[1].Outputs[0]
	if len(plan.cut) != 1 || plan.cut[relu] != relu {
		t.Errorf("the Mul is fed %v, want the original's %s", plan.cut, relu)
	}
	if n := len(plan.orig.Outputs); n != 2 || plan.orig.Outputs[1].Name != relu || len(g.Outputs) != 1 {
		t.Errorf("the original runs with outputs %v (and its own %v), want %s added", plan.orig.Outputs, g.Outputs, relu)
	}
	if err := Verify(g, same, 3, 2, 1e-6, 1e-7); err != nil {
		t.Errorf("the same tail does not verify: %v", err)
	}
	err := Verify(g, withTail(t, g, scale, 1.01), 3, 2, 1e-6, 1e-7)
	if err == nil || !strings.Contains(err.Error(), g.Outputs[0].Name) {
		t.Errorf("a tail 1%% off verifies (%v)", err)
	}
}

// Initializers sharing their data count as one value, whichever name a
// node reads them by; a changed attribute or a graph input with a default
// is not shared.
func TestSharedValues(t *testing.T) {
	b := newGB(23)
	x := b.input("x", 1, 4)
	w := b.randW("", -1, 1, 1, 4)
	dup := *b.g.Initializers[0]
	dup.Name = "dup"
	b.g.Initializers = append(b.g.Initializers, &dup)
	a := b.node(&canon.Binary{Fn: canon.Add}, x, w)
	m := b.node(&canon.Binary{Fn: canon.Mul}, x, "dup")
	g := b.output(b.node(&canon.Binary{Fn: canon.Sub}, a, m))
	opt := Clone(g)
	opt.Nodes[1].Inputs = []string{x, w} // reads the same data by the other name
	from := sharedValues(g, opt)
	for _, n := range opt.Nodes {
		if from[n.Outputs[0]] != n.Outputs[0] {
			t.Errorf("%s (%s) is not shared", n.Name, n.Op.Kind())
		}
	}
	opt.Nodes[1].Op = &canon.Binary{Fn: canon.Div}
	if from := sharedValues(g, opt); from[opt.Nodes[1].Outputs[0]] != "" || from[opt.Nodes[2].Outputs[0]] != "" {
		t.Error("a node with another op, or one reading its output, is shared")
	}
	withDefault := Clone(g)
	withDefault.Initializers = append(withDefault.Initializers, canon.NewFloat32Tensor(x, []int64{1, 4}, make([]float32, 4)))
	if from := sharedValues(withDefault, Clone(withDefault)); from[x] != "" {
		t.Error("an input with a default is shared")
	}
}
