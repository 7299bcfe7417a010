package interp

import (
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// drawGraph is a graph of one sampling node reading input x (when given).
func drawGraph(t *testing.T, op canon.Op, x *canon.ValueInfo) *canon.Graph {
	t.Helper()
	g := &canon.Graph{Name: "draw"}
	n := &canon.Node{Name: "draw", Op: op, Outputs: []string{"y"}}
	if x != nil {
		g.Inputs = []canon.ValueInfo{*x}
		n.Inputs = []string{x.Name}
	}
	g.Nodes = []*canon.Node{n}
	g.Outputs = []canon.ValueInfo{{Name: "y"}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

func drawValues(t *testing.T, g *canon.Graph, feed map[string]*canon.Tensor) (*canon.Tensor, []float64) {
	t.Helper()
	out, err := Run(g, feed)
	if err != nil {
		t.Fatal(err)
	}
	y := out["y"]
	v, err := y.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	return y, v
}

func drawMoments(v []float64) (float64, float64) {
	var s, s2 float64
	for _, x := range v {
		s += x
	}
	m := s / float64(len(v))
	for _, x := range v {
		s2 += (x - m) * (x - m)
	}
	return m, s2 / float64(len(v))
}

// TestRandomDraws checks each sampling kernel's distribution (range, mean
// and variance of 20000 draws within 5 standard errors), its dtypes, and
// that a seeded node repeats its stream in a new Program while a Program's
// runs continue it.
func TestRandomDraws(t *testing.T) {
	const n = 20000
	shape := []int64{100, 200}
	t.Run("uniform", func(t *testing.T) {
		for _, dt := range []canon.DType{canon.Float32, canon.Float64, canon.Float16} {
			g := drawGraph(t, &canon.RandomUniform{Low: -1, High: 3, DType: dt, Shape: shape}, nil)
			y, v := drawValues(t, g, nil)
			if y.DType != dt {
				t.Errorf("%s: dtype %s", dt, y.DType)
			}
			for _, x := range v {
				if x < -1 || x >= 3 {
					t.Fatalf("%s: draw %v outside [-1, 3)", dt, x)
				}
			}
			m, s2 := drawMoments(v)
			if math.Abs(m-1) > 5*math.Sqrt(16.0/12/n) || math.Abs(s2-16.0/12) > 0.05 {
				t.Errorf("%s: mean %v variance %v, want 1 and %v", dt, m, s2, 16.0/12)
			}
		}
	})
	t.Run("normal-like", func(t *testing.T) {
		x := canon.ValueInfo{Name: "x", DType: canon.Int64, Shape: canon.DimsOf(shape...), RankKnown: true}
		g := drawGraph(t, &canon.RandomNormalLike{Mean: 2, Scale: 0.5, DType: canon.Float64}, &x)
		feed := map[string]*canon.Tensor{"x": canon.NewInt64Tensor("x", shape, make([]int64, n))}
		y, v := drawValues(t, g, feed)
		if y.DType != canon.Float64 || len(v) != n {
			t.Fatalf("dtype %s, %d values", y.DType, len(v))
		}
		m, s2 := drawMoments(v)
		if math.Abs(m-2) > 5*0.5/math.Sqrt(n) || math.Abs(s2-0.25) > 0.02 {
			t.Errorf("mean %v variance %v, want 2 and 0.25", m, s2)
		}
	})
	t.Run("bernoulli", func(t *testing.T) {
		x := canon.ValueInfo{Name: "p", DType: canon.Float32, Shape: canon.DimsOf(n), RankKnown: true}
		g := drawGraph(t, &canon.Bernoulli{DType: canon.Bool}, &x)
		p := make([]float32, n)
		for i := range p {
			p[i] = 0.3
		}
		p[0], p[1] = 0, 1
		y, v := drawValues(t, g, map[string]*canon.Tensor{"p": canon.NewFloat32Tensor("p", []int64{n}, p)})
		if y.DType != canon.Bool || v[0] != 0 || v[1] != 1 {
			t.Fatalf("dtype %s, draws at p=0 and p=1: %v %v", y.DType, v[0], v[1])
		}
		if m, _ := drawMoments(v[2:]); math.Abs(m-0.3) > 5*math.Sqrt(0.21/n) {
			t.Errorf("share of ones %v, want 0.3", m)
		}
		p[5] = 1.5
		if _, err := Run(g, map[string]*canon.Tensor{"p": canon.NewFloat32Tensor("p", []int64{n}, p)}); err == nil {
			t.Error("a probability of 1.5 is accepted")
		}
	})
	t.Run("multinomial", func(t *testing.T) {
		x := canon.ValueInfo{Name: "w", DType: canon.Float32, Shape: canon.DimsOf(2, 3), RankKnown: true}
		g := drawGraph(t, &canon.Multinomial{SampleSize: n, DType: canon.Int64}, &x)
		w := []float32{0, float32(math.Log(3)), float32(math.Inf(-1)), 5, 5, 5}
		y, v := drawValues(t, g, map[string]*canon.Tensor{"w": canon.NewFloat32Tensor("w", []int64{2, 3}, w)})
		if y.DType != canon.Int64 || len(y.Shape) != 2 || y.Shape[1] != n {
			t.Fatalf("%s%v", y.DType, y.Shape)
		}
		count := [2][3]float64{}
		for i, k := range v {
			count[i/n][int(k)]++
		}
		if count[0][2] != 0 || math.Abs(count[0][1]/n-0.75) > 5*math.Sqrt(0.1875/n) || math.Abs(count[1][0]/n-1.0/3) > 0.02 {
			t.Errorf("class counts %v, want 1:3:0 and 1:1:1", count)
		}
	})
	t.Run("streams", func(t *testing.T) {
		g := drawGraph(t, &canon.RandomNormal{Scale: 1, DType: canon.Float32, Shape: []int64{8}, Seed: 4, Seeded: true}, nil)
		_, a := drawValues(t, g, nil)
		_, b := drawValues(t, g, nil)
		p, err := New(g)
		if err != nil {
			t.Fatal(err)
		}
		r1, err := p.Run(nil)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := r1["y"].Float64s()
		r2, err := p.Run(nil)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := r2["y"].Float64s()
		same := func(x, y []float64) bool {
			for i := range x {
				if x[i] != y[i] {
					return false
				}
			}
			return true
		}
		if !same(a, b) || !same(a, c) {
			t.Errorf("a seeded node does not repeat its stream in a new Program: %v, %v, %v", a, b, c)
		}
		if same(c, d) {
			t.Errorf("a Program's second run repeats the first's draws: %v", d)
		}
	})
}
