package optimize

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// gb builds small canonical graphs with random weights for the tests.
type gb struct {
	g   *canon.Graph
	rng *rand.Rand
	n   int
}

func newGB(seed uint64) *gb {
	return &gb{g: &canon.Graph{Name: "test"}, rng: rand.New(rand.NewPCG(seed, 7))}
}

func (b *gb) name(base string) string {
	b.n++
	return fmt.Sprintf("%s%d", base, b.n)
}

func (b *gb) input(name string, shape ...int64) string {
	b.g.Inputs = append(b.g.Inputs, canon.ValueInfo{Name: name, DType: canon.Float32, Shape: canon.DimsOf(shape...), RankKnown: true})
	return name
}

// randW adds a random f32 initializer with values in [lo, hi).
func (b *gb) randW(layout canon.Layout, lo, hi float64, shape ...int64) string {
	v := make([]float32, canon.NumElements(shape))
	for i := range v {
		v[i] = float32(lo + (hi-lo)*b.rng.Float64())
	}
	t := canon.NewFloat32Tensor(b.name("w"), slices.Clone(shape), v)
	t.Layout = layout
	b.g.Initializers = append(b.g.Initializers, t)
	return t.Name
}

func (b *gb) i64(vals ...int64) string {
	t := canon.NewInt64Tensor(b.name("c"), nil, vals)
	b.g.Initializers = append(b.g.Initializers, t)
	return t.Name
}

func (b *gb) node(op canon.Op, inputs ...string) string {
	out := b.name("v")
	b.g.Nodes = append(b.g.Nodes, &canon.Node{Name: b.name("n"), Op: op, Inputs: inputs, Outputs: []string{out}})
	return out
}

func (b *gb) output(names ...string) *canon.Graph {
	for _, n := range names {
		b.g.Outputs = append(b.g.Outputs, canon.ValueInfo{Name: n, DType: canon.Float32})
	}
	return b.g
}

func spatial(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// conv adds a 2-D Conv with a random OIHW weight (and bias when bias).
func (b *gb) conv(x string, cin, cout, k, stride, pad, dil, group int64, bias bool) string {
	w := b.randW("OIHW", -0.5, 0.5, cout, cin/group, k, k)
	in := []string{x, w}
	if bias {
		in = append(in, b.randW("O", -0.5, 0.5, cout))
	}
	return b.node(&canon.Conv{Strides: spatial(stride, 2), Dilations: spatial(dil, 2), PadsBegin: spatial(pad, 2), PadsEnd: spatial(pad, 2), Group: group}, in...)
}

// bn adds a BatchNorm with random, clearly non-trivial statistics.
func (b *gb) bn(x string, c int64, eps float32) string {
	return b.node(&canon.BatchNorm{Epsilon: eps}, x,
		b.randW("C", 0.5, 2, c), b.randW("C", -1, 1, c), b.randW("C", -1, 1, c), b.randW("C", 0.1, 2, c))
}

func (b *gb) relu(x string) string { return b.node(&canon.Unary{Fn: canon.Relu}, x) }

// runPasses optimizes a clone of g with the named passes (plus
// eliminate_dead), checks the result is valid and computes the same thing
// on random inputs, and returns it.
func runPasses(t *testing.T, g *canon.Graph, names ...string) *canon.Graph {
	t.Helper()
	if err := g.Validate(); err != nil {
		t.Fatalf("test graph is invalid: %v", err)
	}
	passes, err := Pipeline(append(slices.Clone(names), "eliminate_dead"))
	if err != nil {
		t.Fatal(err)
	}
	return runPassList(t, g, passes)
}

func runPassList(t *testing.T, g *canon.Graph, passes []Pass) *canon.Graph {
	t.Helper()
	return runPassListOpts(t, g, passes, PipelineOptions{})
}

func runPassListOpts(t *testing.T, g *canon.Graph, passes []Pass, po PipelineOptions) *canon.Graph {
	t.Helper()
	opt := Clone(g)
	if _, err := RunPipeline(opt, passes, po); err != nil {
		t.Fatalf("pipeline: %v", err)
	}
	if err := opt.Validate(); err != nil {
		t.Fatalf("optimized graph is invalid: %v", err)
	}
	if err := Verify(g, opt, 11, 3, 1e-5, 1e-6); err != nil {
		t.Fatalf("optimized graph differs: %v", err)
	}
	return opt
}

func countOps(g *canon.Graph) map[string]int {
	m := map[string]int{}
	for _, n := range g.Nodes {
		m[n.Op.Kind()]++
	}
	return m
}

func wantOps(t *testing.T, g *canon.Graph, want map[string]int) {
	t.Helper()
	got := countOps(g)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%d %s nodes, want %d (ops: %v)", got[k], k, v, got)
		}
	}
}
