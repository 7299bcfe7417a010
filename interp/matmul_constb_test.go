package interp

import (
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// matMulGraph is MatMul(a, b) with b a graph input or, when constB, an
// initializer holding bv.
func matMulGraph(t *testing.T, ashape, bshape []int64, bv *canon.Tensor, constB bool) *canon.Graph {
	g := &canon.Graph{Name: "mm"}
	g.Inputs = []canon.ValueInfo{{Name: "a", DType: canon.Float32, Shape: canon.DimsOf(ashape...), RankKnown: true}}
	if constB {
		c := *bv
		c.Name = "b"
		g.Initializers = []*canon.Tensor{&c}
	} else {
		g.Inputs = append(g.Inputs, canon.ValueInfo{Name: "b", DType: canon.Float32, Shape: canon.DimsOf(bshape...), RankKnown: true})
	}
	g.Nodes = []*canon.Node{{Name: "mm", Op: &canon.MatMul{}, Inputs: []string{"a", "b"}, Outputs: []string{"y"}}}
	g.Outputs = []canon.ValueInfo{{Name: "y", DType: canon.Float32}}
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	return g
}

// A MatMul with constant weights, packed once, gives the plain path's
// products bit for bit (same blocks, same kernels), run after run, on one
// core and on several, and agrees with a float64 product.
func TestMatMulConstBMatchesPlainPath(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for _, c := range []struct{ a, b []int64 }{
		{[]int64{1, 7, 7, 768}, []int64{768, 3072}},
		{[]int64{1, 196, 384}, []int64{384, 1536}},
		{[]int64{3, 5, 300}, []int64{300, 37}},
		{[]int64{1, 1, 600}, []int64{600, 1000}},
		{[]int64{600}, []int64{600, 17}},
		{[]int64{4, 40}, []int64{40}},
		{[]int64{2, 33, 20}, []int64{1, 20, 70}},
	} {
		bn := 1
		for _, d := range c.b {
			bn *= int(d)
		}
		av := randTensor(rng, "a", ints(c.a)...)
		bv := randTensor(rng, "b", ints(c.b)...)
		for _, procs := range []int{1, 2} {
			old := runtime.GOMAXPROCS(procs)
			plain, err := Run(matMulGraph(t, c.a, c.b, bv, false), map[string]*canon.Tensor{"a": av, "b": bv})
			if err != nil {
				t.Fatal(err)
			}
			p, err := New(matMulGraph(t, c.a, c.b, bv, true))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := plain["y"].Float64s()
			for run := range 2 {
				out, err := p.Run(map[string]*canon.Tensor{"a": av})
				if err != nil {
					t.Fatal(err)
				}
				got, _ := out["y"].Float64s()
				if len(got) != len(want) {
					t.Fatalf("%v·%v: %d outputs, want %d", c.a, c.b, len(got), len(want))
				}
				for i := range got {
					if math.Float32bits(float32(got[i])) != math.Float32bits(float32(want[i])) {
						t.Fatalf("%v·%v, %d cores, run %d: y[%d] = %v, the plain path gives %v", c.a, c.b, procs, run, i, got[i], want[i])
					}
				}
			}
			// A float32 activation of rank ≥ 2 by a constant matrix is taken
			// by the weights fusion (fuse_matmul.go: four inputs, the weights
			// read in place); every other constant operand is packed once.
			byWeights := len(p.steps[0].in) == 4
			if len(p.steps[0].packedB) == 0 && hasFMA && !byWeights {
				t.Errorf("%v·%v: the constant operand was not packed", c.a, c.b)
			}
			runtime.GOMAXPROCS(old)
		}
		// Against float64 sums, for the first row's products.
		a, _ := av.Float64s()
		b, _ := bv.Float64s()
		if len(c.a) == 1 || len(c.b) == 1 {
			continue
		}
		k := int(c.b[len(c.b)-2])
		n := bn / k
		plain, _ := Run(matMulGraph(t, c.a, c.b, bv, true), map[string]*canon.Tensor{"a": av})
		got, _ := plain["y"].Float64s()
		for j := range n {
			var s, mag float64
			for l := range k {
				s += a[l] * b[l*n+j]
				mag += math.Abs(a[l] * b[l*n+j])
			}
			if math.Abs(got[j]-s) > 1e-6*mag {
				t.Fatalf("%v·%v: y[0,%d] = %v, want %v", c.a, c.b, j, got[j], s)
			}
		}
	}
}
