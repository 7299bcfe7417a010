package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// runActivation runs a one-node graph on the given inputs (fed in order) and
// returns output y.
func runActivation(t *testing.T, op canon.Op, outDT canon.DType, ins ...*canon.Tensor) *canon.Tensor {
	t.Helper()
	m := map[string]*canon.Tensor{}
	var order []string
	for _, x := range ins {
		m[x.Name] = x
		order = append(order, x.Name)
	}
	g := graphOf(op, m, order, nil)
	g.Outputs[0].DType = outDT
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	out, err := Run(g, m)
	if err != nil {
		t.Fatal(err)
	}
	return out["y"]
}

// einsumNaive evaluates an explicit equation of letters only by brute
// force, for checking the kernel.
func einsumNaive(eq string, shapes [][]int, data [][]float64) ([]int, []float64) {
	e, _ := canon.ParseEinsum(eq)
	size := map[byte]int{}
	for i, term := range e.Terms {
		for a, l := range term.Letters {
			size[l] = shapes[i][a]
		}
	}
	var all []byte
	for l := range size {
		all = append(all, l)
	}
	outShape := []int{}
	for _, l := range e.Output.Letters {
		outShape = append(outShape, size[l])
	}
	out := make([]float64, numel(outShape))
	val := map[byte]int{}
	var rec func(k int)
	rec = func(k int) {
		if k == len(all) {
			prod := 1.0
			for i, term := range e.Terms {
				off := 0
				for a, l := range term.Letters {
					off = off*shapes[i][a] + val[l]
				}
				prod *= data[i][off]
			}
			o := 0
			for a, l := range e.Output.Letters {
				o = o*outShape[a] + val[l]
			}
			out[o] += prod
			return
		}
		for v := 0; v < size[all[k]]; v++ {
			val[all[k]] = v
			rec(k + 1)
		}
	}
	rec(0)
	return outShape, out
}

func TestEinsumAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	cases := []struct {
		eq     string
		shapes [][]int
	}{
		{"ij,jk->ik", [][]int{{2, 3}, {3, 4}}},
		{"bij,bjk->bik", [][]int{{2, 2, 3}, {2, 3, 2}}},
		{"ii->i", [][]int{{4, 4}}},
		{"ii->", [][]int{{3, 3}}},
		{"iji->j", [][]int{{2, 3, 2}}},
		{"ij->ji", [][]int{{2, 5}}},
		{"i,i->", [][]int{{5}, {5}}},
		{"i,j->ij", [][]int{{2}, {3}}},
		{"ijk,kj,k->i", [][]int{{2, 3, 4}, {4, 3}, {4}}},
		{"->", [][]int{{}}},
		// Batched products (the gemm path), with labels in any order.
		{"bhid,bhjd->bhij", [][]int{{2, 3, 5, 4}, {2, 3, 6, 4}}},
		{"bid,bjd->bji", [][]int{{3, 7, 5}, {3, 2, 5}}},
		{"ik,bkj->jbi", [][]int{{4, 3}, {2, 3, 5}}},
		{"abc,cd->dab", [][]int{{2, 3, 8}, {8, 4}}},
		{"i,ij->j", [][]int{{6}, {6, 3}}},
		// Operands stored transposed, read in place by the GEMM.
		{"bki,bkj->bij", [][]int{{2, 5, 3}, {2, 5, 4}}},
		{"bki,bjk->bij", [][]int{{3, 6, 17}, {3, 19, 6}}},
		{"kb,bk->", [][]int{{4, 1}, {1, 4}}},
	}
	for _, c := range cases {
		var ins []*canon.Tensor
		var data [][]float64
		for i, s := range c.shapes {
			shape := make([]int64, len(s))
			for a, d := range s {
				shape[a] = int64(d)
			}
			x := randTensor(r, string(rune('a'+i)), s...)
			x.Shape = shape
			v, _ := x.Float64s()
			data = append(data, v)
			ins = append(ins, x)
		}
		got := runActivation(t, &canon.Einsum{Equation: c.eq}, canon.Float32, ins...)
		shape, want := einsumNaive(c.eq, c.shapes, data)
		if len(got.Shape) != len(shape) {
			t.Errorf("%s: shape %v, want %v", c.eq, got.Shape, shape)
			continue
		}
		g := floats(t, got)
		for i := range want {
			if math.Abs(float64(g[i])-want[i]) > 1e-5 {
				t.Errorf("%s: element %d = %v, want %v", c.eq, i, g[i], want[i])
				break
			}
		}
	}
}

// TestEinsumEllipsisBroadcast: "...ij,...jk->...ik" broadcasts the leading
// axes (2,1) and (3) to (2,3), like a batched MatMul.
func TestEinsumEllipsisBroadcast(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	a := randTensor(r, "a", 2, 1, 2, 3)
	b := randTensor(r, "b", 3, 3, 2)
	got := runActivation(t, &canon.Einsum{Equation: "...ij,...jk->...ik"}, canon.Float32, a, b)
	want := runActivation(t, &canon.MatMul{}, canon.Float32, a, b)
	if len(got.Shape) != 4 || got.Shape[0] != 2 || got.Shape[1] != 3 {
		t.Fatalf("shape %v, want [2 3 2 2]", got.Shape)
	}
	assertClose(t, "einsum vs matmul", floats(t, got), floats(t, want), 1e-5)
}

// TestEinsumIntegersWrap: int8 products and sums wrap at 8 bits.
func TestEinsumIntegersWrap(t *testing.T) {
	a := &canon.Tensor{Name: "a", DType: canon.Int8, Shape: []int64{3}, Data: []byte{100, 100, 0xFF}}
	b := &canon.Tensor{Name: "b", DType: canon.Int8, Shape: []int64{3}, Data: []byte{2, 1, 3}}
	got := runActivation(t, &canon.Einsum{Equation: "i,i->"}, canon.Int8, a, b)
	// 200 + 100 - 3 = 297, which is 41 in int8.
	if v, _ := got.Int64s(); len(v) != 1 || v[0] != 41 {
		t.Fatalf("got %v, want [41]", v)
	}
}

func TestNormalizeEinsum(t *testing.T) {
	for in, want := range map[string]string{
		"ij,jk":            "ij,jk->ik",
		"ba":               "ba->ab",
		"...ii ->...i":     "...ii->...i",
		" bij, bjk -> bik": "bij,bjk->bik",
		"i,i":              "i,i->",
		"...ij,...jk":      "...ij,...jk->...ik",
		"Ab,bA":            "Ab,bA->",
		"aB":               "aB->Ba",
		"i...":             "i...->...i",
		"->":               "->",
	} {
		got, err := canon.NormalizeEinsum(in)
		if err != nil || got != want {
			t.Errorf("NormalizeEinsum(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"i.j", "ij->k", "ii->ii", "i......", "i1", "a->b->c", "ij->..."} {
		if _, err := canon.NormalizeEinsum(bad); err == nil {
			t.Errorf("NormalizeEinsum(%q) gave no error", bad)
		}
	}
}

func TestShrinkIntegers(t *testing.T) {
	x := &canon.Tensor{Name: "x", DType: canon.Int8, Shape: []int64{5}, Data: []byte{0x80, 0xFE, 0, 2, 127}}
	got := runActivation(t, &canon.Shrink{Lambd: 1.5, Bias: 1.5}, canon.Int8, x)
	v, _ := got.Int64s()
	// -128+1.5 = -126.5 -> -126; -2+1.5 = -0.5 -> 0; 0 -> 0; 2-1.5 -> 0; 127-1.5 -> 125.
	want := []int64{-126, 0, 0, 0, 125}
	for i := range want {
		if v[i] != want[i] {
			t.Fatalf("got %v, want %v", v, want)
		}
	}
}

func TestHardmaxFirstMaximum(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{2, 3}, []float32{1, 3, 3, -1, -1, -2})
	got := floats(t, runActivation(t, &canon.Hardmax{Axis: 1}, canon.Float32, x))
	want := []float32{0, 1, 0, 1, 0, 0}
	assertClose(t, "hardmax", got, want, 0)
}

func TestLogSoftmaxLargeValues(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{1, 3}, []float32{1000, 1001, 1002})
	got := floats(t, runActivation(t, &canon.LogSoftmax{Axis: -1}, canon.Float32, x))
	want := []float32{-2.4076059, -1.4076059, -0.40760595}
	assertClose(t, "logsoftmax", got, want, 1e-5)
}

func TestCeluMishThresholdedRelu(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{4}, []float32{-2, -0.5, 0.5, 3})
	celu := floats(t, runActivation(t, &canon.Celu{Alpha: 2}, canon.Float32, x))
	wantCelu := []float32{float32(2 * math.Expm1(-1)), float32(2 * math.Expm1(-0.25)), 0.5, 3}
	assertClose(t, "celu", celu, wantCelu, 1e-6)
	mish := floats(t, runActivation(t, &canon.Mish{}, canon.Float32, x))
	for i, v := range []float64{-2, -0.5, 0.5, 3} {
		w := v * math.Tanh(math.Log1p(math.Exp(v)))
		if math.Abs(float64(mish[i])-w) > 1e-6 {
			t.Errorf("mish(%v) = %v, want %v", v, mish[i], w)
		}
	}
	tr := floats(t, runActivation(t, &canon.ThresholdedRelu{Alpha: 0.5}, canon.Float32, x))
	assertClose(t, "thresholdedrelu", tr, []float32{0, 0, 0, 3}, 0)
}
