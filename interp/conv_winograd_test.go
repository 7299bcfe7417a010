package interp

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// forEachTile runs f with every 3×3 convolution taking F(2×2), then with
// every one taking F(4×4).
func forEachTile(t *testing.T, f func(t *testing.T)) {
	defer func(n int) { wino4MinSize = n }(wino4MinSize)
	for _, c := range []struct {
		name string
		min  int
	}{{"F2x2", 1 << 30}, {"F4x4", 4}} {
		wino4MinSize = c.min
		t.Run(c.name, f)
	}
}

// conv3x3F64 is a direct 3×3 stride-1 convolution in float64.
func conv3x3F64(x []float32, cin, h, w int, k []float32, cout, pad int) []float64 {
	oh, ow := h+2*pad-2, w+2*pad-2
	y := make([]float64, cout*oh*ow)
	for co := 0; co < cout; co++ {
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				var s float64
				for ci := 0; ci < cin; ci++ {
					for ky := 0; ky < 3; ky++ {
						for kx := 0; kx < 3; kx++ {
							iy, ix := oy+ky-pad, ox+kx-pad
							if iy >= 0 && iy < h && ix >= 0 && ix < w {
								s += float64(x[(ci*h+iy)*w+ix]) * float64(k[((co*cin+ci)*3+ky)*3+kx])
							}
						}
					}
				}
				y[(co*oh+oy)*ow+ox] = s
			}
		}
	}
	return y
}

// The Winograd path's error against a float64 direct convolution stays
// within a small multiple of the float32 direct (im2col) path's own error,
// with either tile size.
func TestWinogradErrorBound(t *testing.T) {
	if !hasFMA {
		t.Skip("skipping: the Winograd path needs the AVX2/FMA GEMM kernel")
	}
	old := winogradMinChannels
	winogradMinChannels = 16
	defer func() { winogradMinChannels = old }()
	forEachTile(t, func(t *testing.T) { winogradErrorBound(t) })
}

func winogradErrorBound(t *testing.T) {
	for _, c := range []struct{ cin, cout, h, w, pad int }{
		{16, 16, 9, 11, 1}, {32, 24, 14, 14, 1}, {64, 32, 13, 8, 0}, {64, 64, 30, 29, 1},
	} {
		r := rand.New(rand.NewSource(int64(c.cin*c.h + c.pad)))
		x := randTensor(r, "x", 1, c.cin, c.h, c.w)
		wt := randTensor(r, "w", c.cout, c.cin, 3, 3)
		wt.Layout, _ = canon.LayoutFor(canon.RoleConvWeight, 4)
		p := int64(c.pad)
		op := &canon.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{p, p}, PadsEnd: []int64{p, p}, Group: 1}
		g := graphOf(op, map[string]*canon.Tensor{"x": x}, []string{"x", "w"}, []*canon.Tensor{wt})
		want := conv3x3F64(floats(t, x), c.cin, c.h, c.w, floats(t, wt), c.cout, c.pad)
		maxErr := func(wino bool) (e, scale float64) {
			useWinograd = wino
			defer func() { useWinograd = true }()
			prog, err := New(g)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := prog.Run(map[string]*canon.Tensor{"x": x}); err != nil {
				t.Fatal(err)
			}
			if prog.steps[0].wino != nil {
				t.Fatalf("%+v: the first run took the Winograd path (it should wait for the second)", c)
			}
			out, err := prog.Run(map[string]*canon.Tensor{"x": x})
			if err != nil {
				t.Fatal(err)
			}
			if used := prog.steps[0].wino != nil; used != wino {
				t.Fatalf("%+v: Winograd path used = %v, want %v", c, used, wino)
			}
			got := floats(t, out["y"])
			if len(got) != len(want) {
				t.Fatalf("%+v: %d outputs, want %d", c, len(got), len(want))
			}
			for i, v := range got {
				e = max(e, math.Abs(float64(v)-want[i]))
				scale = max(scale, math.Abs(want[i]))
			}
			return e, scale
		}
		we, scale := maxErr(true)
		de, _ := maxErr(false)
		t.Logf("%+v: max |y| %.3g, max error Winograd %.3g, direct %.3g", c, scale, we, de)
		// F(4×4)'s larger transform entries (up to 8 in Aᵀ, 2.5 in Bᵀ)
		// cost it a few more bits than F(2×2): up to 6 times the direct
		// path's error on these inputs.
		factor := 4.0
		if wino4MinSize < 1<<30 {
			factor = 8
		}
		if we > factor*de+1e-6*scale || we > 1e-5*scale {
			t.Errorf("%+v: Winograd error %.3g (direct %.3g, max |y| %.3g)", c, we, de, scale)
		}
	}
}

// The Winograd path agrees with im2col on every geometry it takes: odd and
// even sizes, inputs narrower than a tile row, and begin/end paddings of
// 0–2 set apart on each axis.
func TestWinogradMatchesIm2col(t *testing.T) {
	if !hasFMA {
		t.Skip("skipping: the Winograd path needs the AVX2/FMA GEMM kernel")
	}
	old := winogradMinChannels
	winogradMinChannels = 4
	defer func() { winogradMinChannels = old }()
	forEachTile(t, winogradMatchesIm2col)
}

func winogradMatchesIm2col(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for i := 0; i < 60; i++ {
		h, w := 3+r.Intn(12), 3+r.Intn(75) // rows wide enough for the 8-tile vector kernels
		pads := []int64{int64(r.Intn(3)), int64(r.Intn(3)), int64(r.Intn(3)), int64(r.Intn(3))}
		if h+int(pads[0]+pads[2])-2 < 4 || w+int(pads[1]+pads[3])-2 < 4 {
			continue // too small for Winograd: im2col runs both
		}
		x := randTensor(r, "x", 1, 5, h, w)
		wt := randTensor(r, "w", 6, 5, 3, 3)
		wt.Layout, _ = canon.LayoutFor(canon.RoleConvWeight, 4)
		op := &canon.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: pads[:2], PadsEnd: pads[2:], Group: 1}
		g := graphOf(op, map[string]*canon.Tensor{"x": x}, []string{"x", "w"}, []*canon.Tensor{wt})
		checkWinogradMatches(t, g, x, fmt.Sprintf("%dx%d pads %v", h, w, pads))
	}
}

// winogradPack writes G·g·Gᵀ into the same panels newPackedA makes of the
// transformed matrices, across several k blocks and a ragged last panel.
func TestWinogradPackLayout(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	cout, cin := 37, gemmKC+44
	w := make([]float32, cout*cin*9)
	for i := range w {
		w[i] = r.Float32() - 0.5
	}
	G := [4][3]float64{{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}}
	got := winogradPack(w, cout, cin, 16, winogradKernel)
	for e := 0; e < 16; e++ {
		a := make([]float32, cout*cin)
		for co := 0; co < cout; co++ {
			for ci := 0; ci < cin; ci++ {
				var s float64
				for p := 0; p < 3; p++ {
					for q := 0; q < 3; q++ {
						s += G[e/4][p] * float64(w[((co*cin+ci)*3+p)*3+q]) * G[e%4][q]
					}
				}
				a[co*cin+ci] = float32(s)
			}
		}
		want := newPackedA(false, cout, cin, 1, a, cin)
		if len(got[e].blocks) != len(want.blocks) {
			t.Fatalf("matrix %d: %d k blocks, want %d", e, len(got[e].blocks), len(want.blocks))
		}
		for b := range want.blocks {
			assertClose(t, fmt.Sprintf("matrix %d block %d", e, b), got[e].blocks[b], want.blocks[b], 1e-6)
		}
	}
}

// BenchmarkWinogradPack transforms one 512×512 3×3 layer's weights for
// F(2×2) and for F(4×4).
func BenchmarkWinogradPack(b *testing.B) {
	w := make([]float32, 512*512*9)
	for i := range w {
		w[i] = float32(i%17) - 8
	}
	b.Run("F2x2", func(b *testing.B) {
		for range b.N {
			winogradPack(w, 512, 512, 16, winogradKernel)
		}
	})
	b.Run("F4x4", func(b *testing.B) {
		for range b.N {
			winogradPack(w, 512, 512, 36, wino4Kernel)
		}
	})
}

// A fused bias (+ residual) + ReLU epilogue gives the same output through
// Winograd as through im2col, odd widths and a batch of two included.
func TestWinogradFusedRelu(t *testing.T) {
	if !hasFMA {
		t.Skip("skipping: the Winograd path needs the AVX2/FMA GEMM kernel")
	}
	old := winogradMinChannels
	winogradMinChannels = 8
	defer func() { winogradMinChannels = old }()
	forEachTile(t, winogradFusedRelu)
}

func winogradFusedRelu(t *testing.T) {
	x := randTensor(rand.New(rand.NewSource(9)), "x", 2, 8, 9, 19)
	for _, residual := range []bool{false, true} {
		nb := newNetBuilder("x", 2, 8, 9, 19)
		y := nb.conv("x", 8, 8, 3, 1, 1, 1, true)
		if residual {
			y = nb.node(&canon.Binary{Fn: canon.Add}, y, "x")
		}
		g := nb.finish(t, nb.relu(y))
		checkWinogradMatches(t, g, x, fmt.Sprintf("conv+relu, residual %v", residual))
		if want := firstOutput(t, g, x, false); !slices.Contains(want, 0) {
			t.Fatal("the ReLU clamped nothing: the test does not exercise the epilogue")
		}
	}
}

// checkWinogradMatches runs g (one 3×3 convolution, with or without a
// fused epilogue) through Winograd and through im2col and compares them.
func checkWinogradMatches(t *testing.T, g *canon.Graph, x *canon.Tensor, what string) {
	t.Helper()
	assertClose(t, what, firstOutput(t, g, x, true), firstOutput(t, g, x, false), 1e-5)
}

// firstOutput runs g twice (Winograd starts on the second run) with the
// Winograd path on or off, checks that it ran as one step that took that
// path, and returns its output.
func firstOutput(t *testing.T, g *canon.Graph, x *canon.Tensor, wino bool) []float32 {
	t.Helper()
	useWinograd = wino
	defer func() { useWinograd = true }()
	prog, err := New(g)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]*canon.Tensor
	for range 2 {
		if out, err = prog.Run(map[string]*canon.Tensor{"x": x}); err != nil {
			t.Fatal(err)
		}
	}
	if used := len(prog.steps) == 1 && prog.steps[0].wino != nil; used != wino || len(prog.steps) != 1 {
		t.Fatalf("Winograd path used = %v (want %v), %d steps run (want one convolution)", used, wino, len(prog.steps))
	}
	return floats(t, out[g.Outputs[0].Name])
}
