package interp

import (
	"slices"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// stringGraph is x (string [n]) through one node of op to output "y".
func stringGraph(t *testing.T, op canon.Op, n int64, extra ...*canon.Tensor) *canon.Graph {
	t.Helper()
	g := &canon.Graph{Name: "s", Inputs: []canon.ValueInfo{{Name: "x", DType: canon.String, Shape: canon.DimsOf(n), RankKnown: true}}}
	node := &canon.Node{Name: "n", Op: op, Inputs: []string{"x"}, Outputs: []string{"y"}}
	for _, w := range extra {
		g.Initializers = append(g.Initializers, w)
		node.Inputs = append(node.Inputs, w.Name)
	}
	g.Nodes = []*canon.Node{node}
	g.Outputs = []canon.ValueInfo{{Name: "y"}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

func runStrings(t *testing.T, g *canon.Graph, x ...string) []string {
	t.Helper()
	out, err := Run(g, map[string]*canon.Tensor{"x": canon.NewStringTensor("x", nil, x)})
	if err != nil {
		t.Fatal(err)
	}
	return out["y"].Strings
}

// StringNormalizer's case-insensitive stopwords and case changes, worked
// out by hand: stopwords compare lowercased, and the kept strings keep
// their own case until the case change; ß has no single-letter capital.
func TestStringNormalizerByHand(t *testing.T) {
	for _, c := range []struct {
		op   *canon.StringNormalizer
		in   []string
		want []string
	}{
		{&canon.StringNormalizer{Stopwords: []string{"The", "ÄPFEL"}}, []string{"the", "THE", "äpfel", "Äpfel!", "Straße"}, []string{"Äpfel!", "Straße"}},
		{&canon.StringNormalizer{CaseChange: canon.CaseUpper}, []string{"straße", "ǆ", "ı"}, []string{"STRAßE", "Ǆ", "I"}},
		{&canon.StringNormalizer{CaseChange: canon.CaseLower, CaseSensitive: true, Stopwords: []string{"A"}}, []string{"A", "a", "ÀB"}, []string{"a", "àb"}},
		{&canon.StringNormalizer{CaseChange: canon.CaseUpper, Locale: "tr_TR.UTF-8"}, []string{"istanbul", "ıi"}, []string{"İSTANBUL", "Iİ"}},
		{&canon.StringNormalizer{CaseChange: canon.CaseLower, Locale: "az-AZ"}, []string{"İI"}, []string{"iı"}},
		{&canon.StringNormalizer{Stopwords: []string{"x"}}, []string{"X", "x"}, []string{""}},
	} {
		got := runStrings(t, stringGraph(t, c.op, int64(len(c.in))), c.in...)
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v on %q: got %q, want %q", c.op, c.in, got, c.want)
		}
	}
}

// Moving strings (Concat, Gather...) through position tensors and making
// new ones (StringConcat) gives their memory back: a Program run many
// times holds no more after the last run than after the second.
func TestStringMemoryIsGivenBack(t *testing.T) {
	g := &canon.Graph{Name: "s", Inputs: []canon.ValueInfo{{Name: "x", DType: canon.String, Shape: canon.DimsOf(4), RankKnown: true}}}
	idx := canon.NewInt64Tensor("idx", nil, []int64{7, 0, 3})
	g.Initializers = []*canon.Tensor{idx}
	g.Nodes = []*canon.Node{
		{Name: "cat", Op: &canon.Concat{}, Inputs: []string{"x", "x"}, Outputs: []string{"xx"}},
		{Name: "pick", Op: &canon.Gather{}, Inputs: []string{"xx", "idx"}, Outputs: []string{"p"}},
		{Name: "glue", Op: &canon.StringConcat{}, Inputs: []string{"p", "p"}, Outputs: []string{"y"}},
	}
	g.Outputs = []canon.ValueInfo{{Name: "y"}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := New(g)
	if err != nil {
		t.Fatal(err)
	}
	x := canon.NewStringTensor("x", nil, []string{"a", "bb", strings.Repeat("c", 1000), "d"})
	var second int64
	for run := range 50 {
		out, err := p.Run(map[string]*canon.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		if got := out["y"].Strings; !slices.Equal(got, []string{"dd", "aa", "dd"}) {
			t.Fatalf("got %q", got)
		}
		if run == 1 {
			second = p.MemoryUsed()
		}
	}
	if p.MemoryUsed() > second {
		t.Errorf("memory in use grew from %d to %d bytes over 48 runs", second, p.MemoryUsed())
	}
}

// A kind that does not take strings is refused when the graph is built.
func TestStringInputToNumericOpIsRefused(t *testing.T) {
	g := &canon.Graph{Name: "s", Inputs: []canon.ValueInfo{{Name: "x", DType: canon.String, Shape: canon.DimsOf(2), RankKnown: true}}}
	g.Nodes = []*canon.Node{{Name: "add", Op: &canon.Binary{Fn: canon.Add}, Inputs: []string{"x", "x"}, Outputs: []string{"y"}}}
	g.Outputs = []canon.ValueInfo{{Name: "y"}}
	err := g.Validate()
	if err == nil || !strings.Contains(err.Error(), `"add"`) || !strings.Contains(err.Error(), "string") {
		t.Fatalf("want an error naming node add and strings, got %v", err)
	}
}
