package quantize

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// netBuilder makes small float graphs with seeded random weights.
type netBuilder struct {
	g   *canon.Graph
	rng *rand.Rand
	n   int
}

func newNet(seed uint64) *netBuilder {
	return &netBuilder{g: &canon.Graph{Name: "net"}, rng: rand.New(rand.NewPCG(seed, 7))}
}

func (b *netBuilder) input(name string, shape ...int64) string {
	b.g.Inputs = append(b.g.Inputs, canon.ValueInfo{Name: name, DType: canon.Float32, Shape: canon.DimsOf(shape...), RankKnown: true})
	return name
}

func (b *netBuilder) weight(name string, layout canon.Layout, scale float64, shape ...int64) string {
	v := make([]float32, canon.NumElements(shape))
	for i := range v {
		v[i] = float32(b.rng.NormFloat64() * scale)
	}
	t := canon.NewFloat32Tensor(name, shape, v)
	t.Layout = layout
	b.g.Initializers = append(b.g.Initializers, t)
	return name
}

func (b *netBuilder) node(op canon.Op, in ...string) string {
	b.n++
	out := op.Kind() + "_" + string(rune('a'+b.n%26)) + string(rune('0'+b.n/26))
	b.g.Nodes = append(b.g.Nodes, &canon.Node{Name: "n_" + out, Op: op, Inputs: in, Outputs: []string{out}})
	return out
}

func (b *netBuilder) conv(x string, cin, cout, k, group int64) string {
	w := b.weight(x+"_w", "OIHW", math.Sqrt(2/float64(cin/group*k*k)), cout, cin/group, k, k)
	bias := b.weight(x+"_b", "O", 0.1, cout)
	p := (k - 1) / 2
	return b.node(&canon.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{p, p}, PadsEnd: []int64{p, p}, Group: group}, x, w, bias)
}

func (b *netBuilder) output(names ...string) *canon.Graph {
	for _, n := range names {
		b.g.Outputs = append(b.g.Outputs, canon.ValueInfo{Name: n})
	}
	if err := b.g.Infer(); err != nil {
		panic(err)
	}
	for i := range b.g.Outputs {
		b.g.Outputs[i] = b.g.Values.Get(b.g.Outputs[i].Name)
	}
	return b.g
}

// smallCNN: conv-relu, depthwise conv-relu6, maxpool, a 1x1 conv branch
// added back, concat, average pool, flatten, linear, softmax.
func smallCNN() *canon.Graph {
	b := newNet(1)
	x := b.input("x", 1, 3, 16, 16)
	c1 := b.node(&canon.Unary{Fn: canon.Relu}, b.conv(x, 3, 8, 3, 1))
	c2 := b.node(&canon.Clip{Min: 0, Max: 6}, b.conv(c1, 8, 8, 3, 8))
	p := b.node(&canon.MaxPool{Kernel: []int64{2, 2}, Strides: []int64{2, 2}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}}, c2)
	c3 := b.conv(p, 8, 8, 1, 1)
	sum := b.node(&canon.Binary{Fn: canon.Add}, c3, p)
	cat := b.node(&canon.Concat{Axis: 1}, sum, p)
	gap := b.node(&canon.GlobalAveragePool{}, cat)
	flat := b.node(&canon.Flatten{Axis: 1}, gap)
	w := b.weight("fc_w", "OI", 0.3, 10, 16)
	fcb := b.weight("fc_b", "O", 0.1, 10)
	fc := b.node(&canon.Linear{Alpha: 1, Beta: 1}, flat, w, fcb)
	sm := b.node(&canon.Softmax{Axis: 1}, fc)
	return b.output(fc, sm)
}

// randomInputs are n input sets for g, normal with the given spread.
type randomInputs struct {
	g    *canon.Graph
	n    int
	seed uint64
}

func (r randomInputs) Len() int { return r.n }

func (r randomInputs) Sample(i int) (map[string]*canon.Tensor, error) {
	rng := rand.New(rand.NewPCG(r.seed, uint64(i)))
	out := map[string]*canon.Tensor{}
	for _, in := range r.g.Inputs {
		shape, _ := in.StaticShape()
		v := make([]float32, canon.NumElements(shape))
		for k := range v {
			v[k] = float32(rng.NormFloat64())
		}
		out[in.Name] = canon.NewFloat32Tensor(in.Name, shape, v)
	}
	return out, nil
}

func countOps(g *canon.Graph) map[string]int {
	m := map[string]int{}
	for _, n := range g.Nodes {
		m[n.Op.Kind()]++
	}
	return m
}

func sqnrFloor(t *testing.T, errs []OutputError, floor float64) {
	t.Helper()
	for _, e := range errs {
		if !(e.SQNR >= floor) {
			t.Errorf("output %s: SQNR %.2f dB, want >= %.0f", e.Name, e.SQNR, floor)
		}
	}
}

// smallUpsampler: conv-relu, nearest 2x resize, a per-channel constant
// scale (Mul), concat with a conv of the resized map, average pool.
func smallUpsampler() *canon.Graph {
	b := newNet(2)
	x := b.input("x", 1, 4, 8, 8)
	c1 := b.node(&canon.Unary{Fn: canon.Relu}, b.conv(x, 4, 8, 3, 1))
	up := b.node(&canon.Resize{Scales: []float32{1, 1, 2, 2}, Mode: canon.ResizeNearest, CoordTransform: canon.Asymmetric, Nearest: canon.Floor}, c1)
	scale := b.weight("scale", "", 0.5, 8, 1, 1)
	m := b.node(&canon.Binary{Fn: canon.Mul}, up, scale)
	c2 := b.conv(up, 8, 8, 3, 1)
	cat := b.node(&canon.Concat{Axis: 1}, m, c2)
	pool := b.node(&canon.AveragePool{Kernel: []int64{2, 2}, Strides: []int64{2, 2}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}}, cat)
	return b.output(pool)
}
