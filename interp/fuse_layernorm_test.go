package interp

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// layerNormCase is one way an exporter writes LayerNorm as nine ops, or a
// near miss that must stay as separate steps.
type layerNormCase struct {
	name      string
	axes      []int64 // ReduceMean's axes (the first and, unless axes2, the second)
	axes2     []int64
	axesInput bool    // axes as a constant input (opset 18) instead of an attribute
	exponent  float32 // Pow's
	noKeep    bool    // the second ReduceMean without keepdims
	scale     []int64 // shape of the constant scale; nil: no Mul
	bias      []int64 // shape of the constant bias; nil: no Add
	swapMul   bool    // Mul(scale, n) rather than Mul(n, scale)
	extraUse  bool    // the normalized value is also a graph output
	steps     int     // steps left after fusion
}

func TestFusedLayerNormMatchesSteps(t *testing.T) {
	defer func() { fuseEpilogues = true }()
	shape := []int64{2, 5, 7, 48}
	rng := rand.New(rand.NewSource(5))
	v := make([]float32, canon.NumElements(shape))
	for i := range v {
		v[i] = float32(rng.NormFloat64()*3 + 1)
	}
	// Rows holding a NaN, an infinity, huge and tiny values, and a
	// constant row (variance 0, so the result is 0/sqrt(eps)).
	v[3] = float32(math.NaN())
	v[48+5] = float32(math.Inf(-1))
	for i := 2 * 48; i < 3*48; i++ {
		v[i] = float32(1e30 * float64(i%7-3))
	}
	for i := 3 * 48; i < 4*48; i++ {
		v[i] = 2.5
	}
	for i := 4 * 48; i < 5*48; i++ {
		v[i] = float32(1e-40 * float64(i%5))
	}
	in := canon.NewFloat32Tensor("x", shape, v)
	for _, c := range []layerNormCase{
		{name: "affine", axes: []int64{-1}, exponent: 2, scale: []int64{48}, bias: []int64{48}, steps: 1},
		{name: "scale first", axes: []int64{-1}, exponent: 2, scale: []int64{48}, bias: []int64{48}, swapMul: true, steps: 1},
		{name: "no affine", axes: []int64{-1}, exponent: 2, steps: 1},
		{name: "scale only", axes: []int64{3}, exponent: 2, scale: []int64{48}, steps: 1},
		{name: "scale of higher rank", axes: []int64{-1}, exponent: 2, scale: []int64{1, 48}, bias: []int64{48}, steps: 3},
		{name: "two axes as input", axes: []int64{-2, -1}, axesInput: true, exponent: 2, scale: []int64{7, 48}, bias: []int64{1, 48}, steps: 1},
		{name: "scale over a batch axis", axes: []int64{-1}, exponent: 2, scale: []int64{7, 48}, bias: []int64{48}, steps: 3},
		{name: "cube", axes: []int64{-1}, exponent: 3, scale: []int64{48}, bias: []int64{48}, steps: 9},
		{name: "different axes", axes: []int64{-1}, axes2: []int64{-2, -1}, exponent: 2, steps: 7},
		{name: "leading axis", axes: []int64{1}, exponent: 2, steps: 7},
		{name: "normalized value kept", axes: []int64{-1}, exponent: 2, scale: []int64{48}, extraUse: true, steps: 2},
	} {
		build := func() *canon.Graph {
			nb := newNetBuilder("x", shape...)
			mean := func(src string, axes []int64, keep bool) string {
				if c.axesInput {
					ax := nb.i64([]int64{int64(len(axes))}, axes)
					return nb.node(&canon.Reduce{Fn: canon.ReduceMean, KeepDims: keep}, src, ax)
				}
				return nb.node(&canon.Reduce{Fn: canon.ReduceMean, Axes: axes, KeepDims: keep}, src)
			}
			scalar := func(f float32) string {
				t := canon.NewFloat32Tensor(nb.name("c"), nil, []float32{f})
				nb.g.Initializers = append(nb.g.Initializers, t)
				return t.Name
			}
			axes2 := c.axes
			if c.axes2 != nil {
				axes2 = c.axes2
			}
			d := nb.node(&canon.Binary{Fn: canon.Sub}, "x", mean("x", c.axes, true))
			variance := mean(nb.node(&canon.Pow{}, d, scalar(c.exponent)), axes2, true)
			den := nb.node(&canon.Math{Fn: canon.MathSqrt}, nb.node(&canon.Binary{Fn: canon.Add}, variance, scalar(1e-6)))
			y := nb.node(&canon.Binary{Fn: canon.Div}, d, den)
			outs := []string{}
			if c.extraUse {
				outs = append(outs, y)
			}
			if c.scale != nil {
				s := nb.weight(2, c.scale...)
				if c.swapMul {
					y = nb.node(&canon.Binary{Fn: canon.Mul}, s, y)
				} else {
					y = nb.node(&canon.Binary{Fn: canon.Mul}, y, s)
				}
			}
			if c.bias != nil {
				y = nb.node(&canon.Binary{Fn: canon.Add}, y, nb.weight(1, c.bias...))
			}
			return nb.finish(t, append([]string{y}, outs...)...)
		}
		checkFusedBitForBit(t, c.name, c.steps, build, in)
	}
}

// checkFusedBitForBit runs build's graph on in as separate steps and with
// the fusions, wants steps steps after fusion, and the same outputs (shapes
// and bits) both ways.
func checkFusedBitForBit(t *testing.T, name string, steps int, build func() *canon.Graph, in *canon.Tensor) {
	t.Helper()
	var outs [2][]*canon.Tensor
	for k, fuse := range []bool{false, true} {
		fuseEpilogues = fuse
		g := build()
		p, err := New(g)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if fuse && len(p.steps) != steps {
			t.Errorf("%s: %d steps after fusion, want %d", name, len(p.steps), steps)
		}
		o, err := p.Run(map[string]*canon.Tensor{"x": in})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, out := range g.Outputs {
			outs[k] = append(outs[k], o[out.Name])
		}
	}
	for j := range outs[0] {
		if fmt.Sprint(outs[0][j].Shape) != fmt.Sprint(outs[1][j].Shape) {
			t.Fatalf("%s: output %d has shape %v fused, %v in steps", name, j, outs[1][j].Shape, outs[0][j].Shape)
		}
		steps, _ := outs[0][j].Float64s()
		fused, _ := outs[1][j].Float64s()
		for i := range steps {
			a, b := float32(steps[i]), float32(fused[i])
			if math.Float32bits(a) != math.Float32bits(b) && !(a != a && b != b) {
				t.Fatalf("%s: output %d [%d] = %v fused, %v in steps", name, j, i, b, a)
			}
		}
	}
}

// A Transpose moving channels last in front of the chain (convnext's
// permute) is absorbed: the fused step reads N×C×... rows in place and
// gives the steps' N×...×C result bit for bit; another perm, or the
// transposed tensor read elsewhere too, keeps the Transpose.
func TestFusedLayerNormReadsChannelsInPlace(t *testing.T) {
	defer func() { fuseEpilogues = true }()
	rng := rand.New(rand.NewSource(8))
	for _, c := range []struct {
		name     string
		shape    []int64
		perm     []int64
		extraUse bool
		affine   bool
		steps    int
	}{
		{"NCHW", []int64{2, 40, 5, 7}, []int64{0, 2, 3, 1}, false, true, 1},
		{"NCL, 33 positions", []int64{1, 24, 33}, []int64{0, 2, 1}, false, false, 1},
		{"NCDHW", []int64{1, 16, 3, 4, 5}, []int64{0, 2, 3, 4, 1}, false, true, 1},
		{"other perm", []int64{2, 40, 5, 7}, []int64{0, 3, 2, 1}, false, false, 2},
		{"transposed tensor kept", []int64{2, 40, 5, 7}, []int64{0, 2, 3, 1}, true, true, 2},
	} {
		v := make([]float32, canon.NumElements(c.shape))
		for i := range v {
			v[i] = float32(rng.NormFloat64()*2 - 0.5)
		}
		v[5] = float32(math.NaN())
		v[len(v)-3] = float32(math.Inf(1))
		in := canon.NewFloat32Tensor("x", c.shape, v)
		build := func() *canon.Graph {
			nb := newNetBuilder("x", c.shape...)
			scalar := func(f float32) string {
				t := canon.NewFloat32Tensor(nb.name("c"), nil, []float32{f})
				nb.g.Initializers = append(nb.g.Initializers, t)
				return t.Name
			}
			mean := func(s string) string {
				return nb.node(&canon.Reduce{Fn: canon.ReduceMean, Axes: []int64{-1}, KeepDims: true}, s)
			}
			x := nb.node(&canon.Transpose{Perm: c.perm}, "x")
			ch := c.shape[c.perm[len(c.perm)-1]]
			d := nb.node(&canon.Binary{Fn: canon.Sub}, x, mean(x))
			den := nb.node(&canon.Math{Fn: canon.MathSqrt}, nb.node(&canon.Binary{Fn: canon.Add}, mean(nb.node(&canon.Pow{}, d, scalar(2))), scalar(1e-6)))
			y := nb.node(&canon.Binary{Fn: canon.Div}, d, den)
			if c.affine {
				y = nb.node(&canon.Binary{Fn: canon.Add}, nb.node(&canon.Binary{Fn: canon.Mul}, y, nb.weight(2, ch)), nb.weight(1, ch))
			}
			outs := []string{y}
			if c.extraUse {
				outs = append(outs, x)
			}
			return nb.finish(t, outs...)
		}
		checkFusedBitForBit(t, c.name, c.steps, build, in)
	}
}

// BenchmarkLayerNormChain runs convnext_tiny's first LayerNorm (the nine
// exported ops over 96 channels of a 1×56×56 NHWC tensor) as separate
// steps and fused, alternately, so the two see the same machine load.
func BenchmarkLayerNormChain(b *testing.B) {
	defer func() { fuseEpilogues = true }()
	shape := []int64{1, 56, 56, 96}
	build := func() *canon.Graph {
		nb := newNetBuilder("x", shape...)
		scalar := func(f float32) string {
			t := canon.NewFloat32Tensor(nb.name("c"), nil, []float32{f})
			nb.g.Initializers = append(nb.g.Initializers, t)
			return t.Name
		}
		mean := func(s string) string {
			return nb.node(&canon.Reduce{Fn: canon.ReduceMean, Axes: []int64{-1}, KeepDims: true}, s)
		}
		d := nb.node(&canon.Binary{Fn: canon.Sub}, "x", mean("x"))
		v := mean(nb.node(&canon.Pow{}, d, scalar(2)))
		y := nb.node(&canon.Binary{Fn: canon.Div}, d, nb.node(&canon.Math{Fn: canon.MathSqrt}, nb.node(&canon.Binary{Fn: canon.Add}, v, scalar(1e-6))))
		y = nb.node(&canon.Binary{Fn: canon.Add}, nb.node(&canon.Binary{Fn: canon.Mul}, y, nb.weight(1, 96)), nb.weight(1, 96))
		return nb.finish(b, y)
	}
	in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(1)), "x", 1, 56, 56, 96)}
	var progs [2]*Program
	for k, fuse := range []bool{false, true} {
		fuseEpilogues = fuse
		p, err := New(build())
		if err != nil {
			b.Fatal(err)
		}
		progs[k] = p
	}
	for k, name := range []string{"steps", "fused"} {
		b.Run(name, func(b *testing.B) {
			reportCPU(b, func() {
				if _, err := progs[k].Run(in); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
