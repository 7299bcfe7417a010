package interp

import (
	"fmt"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
)

// F(4×4)'s Aᵀ, G and Bᵀ compute the 1-D correlation of 6 inputs with 3
// weights exactly (in float64: the points make every product exact), and
// the factored transforms agree with the matrices.
func TestWino4Transforms(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for trial := 0; trial < 20; trial++ {
		var d, v [6]float32
		var g [3]float64
		for i := range d {
			d[i] = float32(r.Intn(17) - 8)
		}
		for i := range g {
			g[i] = float64(r.Intn(9) - 4)
		}
		vec.Wino4In(&d, &v)
		var m [6]float32
		for k := 0; k < 6; k++ {
			var bd, gg float64
			for l := 0; l < 6; l++ {
				bd += wino4BT[k][l] * float64(d[l])
			}
			if float64(v[k]) != bd {
				t.Fatalf("wino4In element %d is %v, Bᵀ·d gives %v", k, v[k], bd)
			}
			for j := 0; j < 3; j++ {
				gg += wino4G[k][j] * g[j]
			}
			m[k] = float32(bd * gg)
		}
		var y [4]float32
		vec.Wino4Out(&m, &y)
		for i := 0; i < 4; i++ {
			var at, want float64
			for k := 0; k < 6; k++ {
				at += wino4AT[i][k] * float64(m[k])
			}
			for j := 0; j < 3; j++ {
				want += float64(d[i+j]) * g[j]
			}
			if math.Abs(float64(y[i])-at) > 1e-4*(1+math.Abs(at)) {
				t.Fatalf("wino4Out element %d is %v, Aᵀ·m gives %v", i, y[i], at)
			}
			if math.Abs(at-want) > 1e-4*(1+math.Abs(want)) {
				t.Fatalf("output %d of the transforms is %v, the correlation %v", i, at, want)
			}
		}
	}
}

// winogradPack with wino4Kernel writes G·g·Gᵀ into the panels newPackedA
// makes of the 36 transformed matrices.
func TestWino4PackLayout(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	cout, cin := 21, gemmKC+9
	w := make([]float32, cout*cin*9)
	for i := range w {
		w[i] = r.Float32() - 0.5
	}
	got := winogradPack(w, cout, cin, 36, wino4Kernel)
	for e := 0; e < 36; e++ {
		a := make([]float32, cout*cin)
		for i := range a {
			var s float64
			for p := 0; p < 3; p++ {
				for q := 0; q < 3; q++ {
					s += wino4G[e/6][p] * float64(w[i*9+p*3+q]) * wino4G[e%6][q]
				}
			}
			a[i] = float32(s)
		}
		want := newPackedA(false, cout, cin, 1, a, cin)
		for b := range want.blocks {
			assertClose(t, fmt.Sprintf("matrix %d block %d", e, b), got[e].blocks[b], want.blocks[b], 1e-6)
		}
	}
}

// On resnet18's own weights, F(4×4) (where the interpreter picks it) and
// F(2×2) keep the logits as close to im2col's as its rounding.
func TestWinogradResNet18Error(t *testing.T) {
	if !hasFMA {
		t.Skip("skipping: the Winograd path needs the AVX2/FMA GEMM kernel")
	}
	const path = "/tmp/resnet18.onnx"
	g, err := onnximport.Read(path, formats.ReadOptions{})
	if err != nil {
		t.Skipf("skipping: %s: %v (make it with /usr/bin/python3 testdata/make_bench_models.py)", path, err)
	}
	defer g.Close()
	in := randTensor(rand.New(rand.NewSource(7)), "x", 1, 3, 224, 224)
	run := func(wino bool, min4 int) []float32 {
		defer func(n int) { useWinograd, wino4MinSize = true, n }(wino4MinSize)
		useWinograd, wino4MinSize = wino, min4
		p, err := New(g)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]*canon.Tensor
		for range 2 { // Winograd starts on the second run
			if out, err = p.Run(map[string]*canon.Tensor{g.Inputs[0].Name: in}); err != nil {
				t.Fatal(err)
			}
		}
		return floats(t, out[g.Outputs[0].Name])
	}
	direct := run(false, wino4MinSize)
	var scale float64
	for _, v := range direct {
		scale = max(scale, math.Abs(float64(v)))
	}
	for _, c := range []struct {
		name string
		min  int
	}{{"F(2×2)", 1 << 30}, {"F(4×4) where picked", wino4MinSize}, {"F(4×4) everywhere", 4}} {
		var e float64
		for i, v := range run(true, c.min) {
			e = max(e, math.Abs(float64(v)-float64(direct[i])))
		}
		t.Logf("%s: max |logit - im2col's| %.3g (max |logit| %.3g)", c.name, e, scale)
		if e > 1e-5*scale {
			t.Errorf("%s: logits %.3g from im2col's (max %.3g)", c.name, e, scale)
		}
	}
}
