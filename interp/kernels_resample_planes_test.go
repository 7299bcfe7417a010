package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// Resizing the last two axes row by row gives the two passes' results bit
// for bit: linear and cubic, up and down, every coordinate transform, one
// axis or both, NaN and infinities in the input.
func TestResizeByRowsMatchesPasses(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	defer func() { resizeByRows = true }()
	transforms := []canon.CoordTransform{canon.HalfPixel, canon.AlignCorners, canon.Asymmetric, canon.PytorchHalfPixel}
	for trial := range 120 {
		shape := []int64{1 + int64(rng.Intn(2)), 1 + int64(rng.Intn(3)), 1 + int64(rng.Intn(20)), 1 + int64(rng.Intn(20))}
		op := &canon.Resize{Mode: canon.ResizeLinear, CoordTransform: transforms[trial%len(transforms)], Nearest: canon.RoundPreferFloor}
		if trial%5 == 0 {
			op.Mode, op.CubicCoeffA = canon.ResizeCubic, -0.75
		}
		sizes := []int64{shape[0], shape[1], 1 + int64(rng.Intn(40)), 1 + int64(rng.Intn(40))}
		switch trial % 3 {
		case 1:
			sizes[2] = shape[2]
		case 2:
			sizes[3] = shape[3]
		}
		op.Sizes = sizes
		n := int(shape[0] * shape[1] * shape[2] * shape[3])
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
			switch rng.Intn(100) {
			case 0:
				v[i] = float32(math.NaN())
			case 1:
				v[i] = float32(math.Inf(1 - 2*rng.Intn(2)))
			}
		}
		in := canon.NewFloat32Tensor("", shape, v)
		var outs [2][]float64
		for k, byRows := range []bool{false, true} {
			resizeByRows = byRows
			y, err := runLogicOpErr(op, in)
			if err != nil {
				t.Fatal(err)
			}
			outs[k], _ = y.Float64s()
		}
		if len(outs[0]) != len(outs[1]) {
			t.Fatalf("trial %d: %d outputs, the passes give %d", trial, len(outs[1]), len(outs[0]))
		}
		for i := range outs[0] {
			a, b := float32(outs[0][i]), float32(outs[1][i])
			if math.Float32bits(a) != math.Float32bits(b) && !(a != a && b != b) {
				t.Fatalf("trial %d (%v → %v, %v): output %d is %v, the passes give %v", trial, shape, sizes, op.Mode, i, b, a)
			}
		}
	}
}

// runLogicOpErr runs op on its inputs in a one-node graph.
func runLogicOpErr(op canon.Op, ins ...*canon.Tensor) (*canon.Tensor, error) {
	g := &canon.Graph{Name: "one"}
	feed := map[string]*canon.Tensor{}
	var names []string
	for i, in := range ins {
		name := string(rune('a' + i))
		c := *in
		c.Name = name
		feed[name] = &c
		names = append(names, name)
		g.Inputs = append(g.Inputs, canon.ValueInfo{Name: name, DType: in.DType, Shape: canon.DimsOf(in.Shape...), RankKnown: true})
	}
	g.Nodes = []*canon.Node{{Name: "n0", Op: op, Inputs: names, Outputs: []string{"y"}}}
	g.Outputs = []canon.ValueInfo{{Name: "y"}}
	if err := g.Infer(); err != nil {
		return nil, err
	}
	outs, err := Run(g, feed)
	if err != nil {
		return nil, err
	}
	return outs["y"], nil
}
