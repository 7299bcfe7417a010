package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestExpansionsMatchTheOps: every kind's Decompose, on its example and on
// variants covering its other cases, computes what the interpreter's own
// kernel for the kind computes.
func TestExpansionsMatchTheOps(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	expanded := 0
	for _, d := range canon.Ops() {
		if d.Decompose == nil {
			continue
		}
		for i, g := range expansionCases(t, d) {
			checkExpansion(t, d.Kind, i, g, r)
			expanded++
		}
	}
	if expanded < 10 {
		t.Errorf("only %d expansions checked", expanded)
	}
}

// expansionCases is kind d's example and variants of it.
func expansionCases(t *testing.T, d *canon.OpDef) []*canon.Graph {
	t.Helper()
	base := func(op canon.Op) *canon.Graph {
		g, err := d.ExampleGraph()
		if err != nil {
			t.Fatalf("%s: %v", d.Kind, err)
		}
		if op != nil {
			g.Nodes[0].Op = op
			g.Values = nil
			for i := range g.Outputs {
				g.Outputs[i].DType, g.Outputs[i].Shape, g.Outputs[i].RankKnown = canon.Undefined, nil, false
			}
			if err := g.Validate(); err != nil {
				t.Fatalf("%s variant %+v: %v", d.Kind, op, err)
			}
		}
		return g
	}
	cases := []*canon.Graph{base(nil)}
	switch d.Kind {
	case "Gelu":
		cases = append(cases, base(&canon.Gelu{Approximate: canon.GeluTanh}), base(&canon.Gelu{Approximate: canon.GeluExact}))
	case "Attention":
		cases = append(cases, base(&canon.Attention{Softcap: 2, Scale: 0.3}), base(&canon.Attention{}))
		cases = append(cases, attentionGraph(t, true), attentionGraph(t, false))
	case "RotaryEmbedding":
		cases = append(cases, base(&canon.RotaryEmbedding{}))
	}
	return cases
}

// attentionGraph is a grouped-query Attention on 3-D inputs (4 query
// heads, 2 key heads) with a boolean or float mask.
func attentionGraph(t *testing.T, boolMask bool) *canon.Graph {
	t.Helper()
	mask := canon.ValueInfo{Name: "m", DType: canon.Float32, Shape: canon.DimsOf(3, 5), RankKnown: true}
	if boolMask {
		mask.DType = canon.Bool
	}
	g := &canon.Graph{
		Inputs: []canon.ValueInfo{
			{Name: "q", DType: canon.Float32, Shape: canon.DimsOf(2, 3, 8), RankKnown: true},
			{Name: "k", DType: canon.Float32, Shape: canon.DimsOf(2, 5, 4), RankKnown: true},
			{Name: "v", DType: canon.Float32, Shape: canon.DimsOf(2, 5, 6), RankKnown: true},
			mask,
		},
		Nodes: []*canon.Node{{Name: "att", Op: &canon.Attention{QNumHeads: 4, KVNumHeads: 2, IsCausal: !boolMask},
			Inputs: []string{"q", "k", "v", "m"}, Outputs: []string{"y"}}},
		Outputs: []canon.ValueInfo{{Name: "y"}},
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

// checkExpansion runs g and g with its node expanded on the same random
// inputs.
func checkExpansion(t *testing.T, kind string, i int, g *canon.Graph, r *rand.Rand) {
	t.Helper()
	x, n, err := canon.Decompose(g, func(m *canon.Node, _ func(string) canon.ValueInfo) bool { return m.Op.Kind() != kind })
	if err != nil {
		t.Errorf("%s case %d: %v", kind, i, err)
		return
	}
	for _, m := range x.Nodes {
		if m.Op.Kind() == kind {
			t.Errorf("%s case %d: the expansion still holds %s", kind, i, kind)
		}
	}
	if n == 0 {
		t.Errorf("%s case %d: nothing expanded", kind, i)
	}
	x.Values = nil
	if err := x.Validate(); err != nil {
		t.Errorf("%s case %d: expanded graph is invalid: %v", kind, i, err)
		return
	}
	in := map[string]*canon.Tensor{}
	for _, v := range g.Inputs {
		s := mustStatic(t, v)
		switch v.DType {
		case canon.Float32:
			in[v.Name] = randTensor(r, v.Name, ints(s)...)
		case canon.Bool:
			b := make([]byte, canon.NumElements(s))
			for j := range b {
				b[j] = byte(r.Intn(4)/3 ^ 1) // mostly kept, some hidden
			}
			b[0] = 1
			in[v.Name] = &canon.Tensor{Name: v.Name, DType: canon.Bool, Shape: s, Data: b}
		default:
			t.Fatalf("%s: input %s is %s", kind, v.Name, v.DType)
		}
	}
	want, err := Run(g, in)
	if err != nil {
		t.Fatalf("%s case %d: %v", kind, i, err)
	}
	got, err := Run(x, in)
	if err != nil {
		t.Errorf("%s case %d: expanded graph fails: %v", kind, i, err)
		return
	}
	for name, w := range want {
		a, _ := got[name].Float64s()
		b, _ := w.Float64s()
		if len(a) != len(b) {
			t.Errorf("%s case %d: %s has %d values, want %d", kind, i, name, len(a), len(b))
			continue
		}
		for j := range a {
			if math.Abs(a[j]-b[j]) > 1e-5+1e-5*math.Abs(b[j]) && !(math.IsNaN(a[j]) && math.IsNaN(b[j])) {
				t.Errorf("%s case %d: %s[%d] = %v expanded, %v by the op", kind, i, name, j, a[j], b[j])
				break
			}
		}
	}
}
