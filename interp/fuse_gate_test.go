package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// x·Sigmoid(x) and x·HardSigmoid(x), either operand order, fuse into one
// step whose outputs are the two steps' bit for bit (NaN, infinities and
// signed zeros included); a gate read elsewhere too is left alone.
func TestFusedGatesMatchSteps(t *testing.T) {
	defer func() { fuseEpilogues = true }()
	rng := rand.New(rand.NewSource(17))
	shape := []int64{2, 3, 37, 41}
	v := make([]float32, 2*3*37*41)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * 4)
		switch rng.Intn(50) {
		case 0:
			v[i] = float32(math.NaN())
		case 1:
			v[i] = float32(math.Inf(1 - 2*rng.Intn(2)))
		case 2:
			v[i] = float32(math.Copysign(0, -1))
		}
	}
	in := canon.NewFloat32Tensor("x", shape, v)
	for _, c := range []struct {
		name     string
		gate     canon.Op
		swap     bool
		extraUse bool
		steps    int
	}{
		{"silu", &canon.Unary{Fn: canon.Sigmoid}, false, false, 1},
		{"silu swapped", &canon.Unary{Fn: canon.Sigmoid}, true, false, 1},
		{"hardswish", &canon.HardSigmoid{Alpha: 1.0 / 6, Beta: 0.5}, false, false, 1},
		{"gate read twice", &canon.Unary{Fn: canon.Sigmoid}, false, true, 3},
	} {
		build := func() *canon.Graph {
			nb := newNetBuilder("x", shape...)
			g := nb.node(c.gate, "x")
			y := nb.node(&canon.Binary{Fn: canon.Mul}, "x", g)
			if c.swap {
				y = nb.node(&canon.Binary{Fn: canon.Mul}, g, "x")
				nb.g.Nodes = append(nb.g.Nodes[:1], nb.g.Nodes[2])
			}
			if c.extraUse {
				y = nb.node(&canon.Binary{Fn: canon.Add}, y, g)
			}
			return nb.finish(t, y)
		}
		var outs [2][]float64
		for k, fuse := range []bool{false, true} {
			fuseEpilogues = fuse
			p, err := New(build())
			if err != nil {
				t.Fatal(err)
			}
			if fuse && len(p.steps) != c.steps {
				t.Errorf("%s: %d steps after fusion, want %d", c.name, len(p.steps), c.steps)
			}
			o, err := p.Run(map[string]*canon.Tensor{"x": in})
			if err != nil {
				t.Fatal(err)
			}
			for _, tv := range o {
				outs[k], _ = tv.Float64s()
			}
		}
		for i := range outs[0] {
			a, b := float32(outs[0][i]), float32(outs[1][i])
			if math.Float32bits(a) != math.Float32bits(b) && !(a != a && b != b) {
				t.Fatalf("%s: y[%d] = %v fused, %v in two steps (x = %v)", c.name, i, b, a, v[i])
			}
		}
	}
}
