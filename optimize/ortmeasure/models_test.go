package ortmeasure

import (
	"fmt"
	"math/rand/v2"

	"github.com/modelbridge/modelbridge/canon"
)

// builder makes the two adversarial models of the optimizer's acceptance
// runs: a ResNeXt stage and a depthwise-separable stack, with random
// weights and non-trivial BatchNorm statistics.
type builder struct {
	g   *canon.Graph
	rng *rand.Rand
	n   int
}

func newBuilder(name string, seed uint64) *builder {
	return &builder{g: &canon.Graph{Name: name}, rng: rand.New(rand.NewPCG(seed, 3))}
}

func (b *builder) fresh(base string) string {
	b.n++
	return fmt.Sprintf("%s%d", base, b.n)
}

func (b *builder) weight(layout canon.Layout, lo, hi float64, shape ...int64) string {
	v := make([]float32, canon.NumElements(shape))
	for i := range v {
		v[i] = float32(lo + (hi-lo)*b.rng.Float64())
	}
	t := canon.NewFloat32Tensor(b.fresh("w"), shape, v)
	t.Layout = layout
	b.g.Initializers = append(b.g.Initializers, t)
	return t.Name
}

func (b *builder) node(op canon.Op, in ...string) string {
	out := b.fresh("v")
	b.g.Nodes = append(b.g.Nodes, &canon.Node{Name: b.fresh("n"), Op: op, Inputs: in, Outputs: []string{out}})
	return out
}

func (b *builder) conv(x string, cin, cout, k, group int64) string {
	p := k / 2
	w := b.weight("OIHW", -0.3, 0.3, cout, cin/group, k, k)
	return b.node(&canon.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{p, p}, PadsEnd: []int64{p, p}, Group: group}, x, w)
}

func (b *builder) bnRelu(x string, c int64) string {
	y := b.node(&canon.BatchNorm{Epsilon: 1e-5}, x, b.weight("C", 0.5, 1.5, c), b.weight("C", -0.5, 0.5, c),
		b.weight("C", -0.5, 0.5, c), b.weight("C", 0.5, 2, c))
	return b.node(&canon.Unary{Fn: canon.Relu}, y)
}

func (b *builder) finish(x, y string, shape ...int64) *canon.Graph {
	b.g.Inputs = []canon.ValueInfo{{Name: x, DType: canon.Float32, Shape: canon.DimsOf(shape...), RankKnown: true}}
	b.g.Outputs = []canon.ValueInfo{{Name: y, DType: canon.Float32}}
	return b.g
}

// resnextStage is three ResNeXt bottlenecks (1×1 reduce, grouped 3×3 with
// 32 groups, 1×1 expand, each with BN, identity shortcut) at size×size.
func resnextStage(size int64) *canon.Graph {
	b := newBuilder(fmt.Sprintf("resnext_stage_%dx%d", size, size), 7)
	const c, width, groups = 128, 128, 32
	x := "x"
	y := x
	for i := 0; i < 3; i++ {
		z := b.bnRelu(b.conv(y, c, width, 1, 1), width)
		z = b.bnRelu(b.conv(z, width, width, 3, groups), width)
		z = b.node(&canon.BatchNorm{Epsilon: 1e-5}, b.conv(z, width, c, 1, 1), b.weight("C", 0.5, 1.5, c),
			b.weight("C", -0.5, 0.5, c), b.weight("C", -0.5, 0.5, c), b.weight("C", 0.5, 2, c))
		y = b.node(&canon.Unary{Fn: canon.Relu}, b.node(&canon.Binary{Fn: canon.Add}, z, y))
	}
	return b.finish(x, y, 1, c, size, size)
}

// depthwiseStack is four depthwise-separable blocks (depthwise 3×3 + BN +
// ReLU, pointwise 1×1 + BN + ReLU), MobileNet style.
func depthwiseStack() *canon.Graph {
	b := newBuilder("depthwise_stack", 11)
	const c, size = 16, 8
	x := "x"
	y := x
	for i := 0; i < 4; i++ {
		y = b.bnRelu(b.conv(y, c, c, 3, c), c)
		y = b.bnRelu(b.conv(y, c, c, 1, 1), c)
	}
	return b.finish(x, y, 1, c, size, size)
}
