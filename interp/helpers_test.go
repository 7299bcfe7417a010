package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// graphOf builds a one-node graph: inputs are fed at run time, inits are
// initializers (labelled with the layouts their roles need, as New expects
// of a valid graph); the node reads ins (by name) and writes "y".
func graphOf(op canon.Op, inputs map[string]*canon.Tensor, order []string, inits []*canon.Tensor) *canon.Graph {
	g := rawGraphOf(op, inputs, order, inits)
	canon.AssignLayouts(g)
	return g
}

// rawGraphOf is graphOf leaving the initializers' layouts as they are.
func rawGraphOf(op canon.Op, inputs map[string]*canon.Tensor, order []string, inits []*canon.Tensor) *canon.Graph {
	g := &canon.Graph{Name: "test", Initializers: inits}
	for _, name := range order {
		if t, ok := inputs[name]; ok {
			g.Inputs = append(g.Inputs, canon.ValueInfo{Name: name, DType: t.DType, Shape: canon.DimsOf(t.Shape...), RankKnown: true})
		}
	}
	g.Nodes = []*canon.Node{{Name: "n0", Op: op, Inputs: order, Outputs: []string{"y"}}}
	g.Outputs = []canon.ValueInfo{{Name: "y", DType: canon.Float32}}
	return g
}

func randTensor(r *rand.Rand, name string, shape ...int) *canon.Tensor {
	s := make([]int64, len(shape))
	n := 1
	for i, d := range shape {
		s[i] = int64(d)
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = r.Float32()*2 - 1
	}
	return canon.NewFloat32Tensor(name, s, v)
}

func floats(t *testing.T, ct *canon.Tensor) []float32 {
	t.Helper()
	v, err := ct.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func ints(s []int64) []int {
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}

// forEachIndex visits every multi-index of shape in row-major order.
func forEachIndex(shape []int, f func(idx []int)) {
	idx := make([]int, len(shape))
	n := 1
	for _, d := range shape {
		n *= d
	}
	for c := 0; c < n; c++ {
		f(idx)
		for k := len(shape) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
}

func flat(shape, idx []int) int {
	o := 0
	for k, d := range shape {
		o = o*d + idx[k]
	}
	return o
}

func assertClose(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i] - want[i])); d > tol*(1+math.Abs(float64(want[i]))) || math.IsNaN(float64(got[i])) != math.IsNaN(float64(want[i])) {
			t.Fatalf("%s: element %d = %v, want %v", what, i, got[i], want[i])
		}
	}
}
