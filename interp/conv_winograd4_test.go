package interp

import (
	"fmt"
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
		wino4In(&d, &v)
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
		wino4Out(&m, &y)
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

// The F(4×4) vector helpers agree with their portable forms at every length
// around the 8-wide blocks (within a rounding: the vector forms use FMA).
func TestWino4VecOpsMatchGo(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	fill := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = r.Float32()*4 - 2
		}
		return s
	}
	near := func(what string, n int, got, want []float32) {
		t.Helper()
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-5 {
				t.Fatalf("%s n=%d: element %d is %v, want %v", what, n, i, got[i], want[i])
			}
		}
	}
	for n := 0; n <= 35; n++ {
		var s, o, og [6][]float32
		for k := range s {
			s[k], o[k], og[k] = fill(n+1), make([]float32, n+1), make([]float32, n+1)
		}
		wino4Col(n, &s, &o)
		wino4ColGo(n, &s, &og)
		for k := range o {
			near("col", n, o[k], og[k])
		}
		var y, yg [4][]float32
		for i := range y {
			y[i], yg[i] = make([]float32, n+1), make([]float32, n+1)
		}
		wino4OutVec(n, &s, &y)
		wino4OutGo(n, &s, &yg)
		for i := range y {
			near("out", n, y[i], yg[i])
		}
		got, want := make([]float32, n+1), make([]float32, n+1)
		got[n], want[n] = 7, 7 // the element past dst is not written
		interleave4(got[:n], s[0], s[1], s[2], s[3])
		interleave4Go(want[:n], s[0], s[1], s[2], s[3])
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) || (i < n && want[i] != s[i%4][i/4]) {
				t.Fatalf("interleave4 n=%d: element %d is %v (portable %v)", n, i, got[i], want[i])
			}
		}
		if n%8 == 0 {
			src, stride := fill(4*n+4), n+3
			h, hg := make([]float32, 6*stride), make([]float32, 6*stride)
			wino4Row(src, h, stride, n)
			wino4RowGo(src, hg, stride, n)
			near("row", n, h, hg)
		}
	}
	// Three runs of 16 into panels 40 floats apart.
	var s, o, og [6][]float32
	for k := range s {
		s[k], o[k], og[k] = fill(48), make([]float32, 2*40+16), make([]float32, 2*40+16)
	}
	wino4Panels(3, 40, &s, &o)
	wino4PanelsGo(3, 40, &s, &og)
	for k := range o {
		near("panels", 3, o[k], og[k])
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
