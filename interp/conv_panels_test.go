package interp

import (
	"fmt"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
	"math"
	"math/rand"
	"testing"
)

// im2colPanels packs exactly what packB makes of im2col's column matrix,
// for 2-D windows of every stride, dilation and padding, output rows
// shorter and longer than a panel, and blocks that start and end anywhere,
// with the AVX2 and the AVX-512 kernels.
func TestIm2colPanelsMatchesIm2col(t *testing.T) {
	defer func(v bool) { vec.UseAVX512 = v }(vec.UseAVX512)
	for _, wide := range []bool{false, vec.UseAVX512} {
		vec.UseAVX512 = wide
		t.Run(fmt.Sprint("avx512=", wide), checkIm2colPanels)
	}
}

func checkIm2colPanels(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for i := range 400 {
		g, cin := randomPanelGeom(r)
		kc, P := cin*g.kernelSize(), g.outSize()
		x := make([]float32, cin*g.inSize())
		for j := range x {
			x[j] = r.Float32()*2 - 1
		}
		col := make([]float32, kc*P)
		im2col(g, x, col, 0, kc)
		ps := new(panelScratch)
		for range 4 {
			r0 := r.Intn(kc)
			kb := 1 + r.Intn(min(gemmKC, kc-r0))
			j0 := r.Intn(P) / gemmNR * gemmNR
			n := 1 + r.Intn(P-j0)
			want := make([]float32, roundUp(n, gemmNR)*kb)
			got := make([]float32, len(want))
			for j := range got {
				got[j] = float32(math.NaN())
			}
			packB(false, col, P, r0, j0, kb, n, want)
			im2colPanels(g, x, r0, kb, j0, n, got, &ps.buf, ps.taps[:])
			for j := range want {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("case %d %+v cin %d rows %d+%d cols %d+%d: element %d is %v, want %v", i, *g, cin, r0, kb, j0, n, j, got[j], want[j])
				}
			}
		}
	}
}

// randomPanelGeom is a random 2-D convolution window and its input
// channel count.
func randomPanelGeom(r *rand.Rand) (*geom3, int) {
	for {
		k := []int64{int64(1 + r.Intn(7)), int64(1 + r.Intn(7))}
		st := []int64{int64(1 + r.Intn(3)), int64(1 + r.Intn(3))}
		dl := []int64{int64(1 + r.Intn(2)), int64(1 + r.Intn(2))}
		pb := []int64{int64(r.Intn(4)), int64(r.Intn(4))}
		pe := []int64{int64(r.Intn(4)), int64(r.Intn(4))}
		if r.Intn(3) == 0 {
			pb, pe = []int64{0, 0}, []int64{0, 0}
		}
		shape := []int{1, 1 + r.Intn(5), 1 + r.Intn(30), 1 + r.Intn(70)}
		g, err := newGeom3(shape, k, st, dl, pb, pe)
		if err != nil {
			panic(err)
		}
		if g.convOut() == nil {
			return g, shape[1]
		}
	}
}

// BenchmarkIm2colPanels times packing one block of column panels (up to
// gemmKC rows by gemmNC columns) of the strided convolutions of
// mobilenet_v2 and resnet18, panel by panel and row by row.
func BenchmarkIm2colPanels(b *testing.B) {
	for _, c := range []struct {
		name              string
		cin, size, k, pad int
	}{
		{"stem3x3", 3, 224, 3, 1}, {"stem7x7", 3, 224, 7, 3},
		{"64x56-3x3", 64, 56, 3, 1}, {"128x28-3x3", 128, 28, 3, 1}, {"256x14-3x3", 256, 14, 3, 1},
		{"64x56-1x1", 64, 56, 1, 0}, {"256x14-1x1", 256, 14, 1, 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			k, pad := int64(c.k), int64(c.pad)
			g, err := newGeom3([]int{1, c.cin, c.size, c.size}, []int64{k, k}, []int64{2, 2}, nil, []int64{pad, pad}, []int64{pad, pad})
			if err != nil {
				b.Fatal(err)
			}
			if err := g.convOut(); err != nil {
				b.Fatal(err)
			}
			kb, n := min(gemmKC, c.cin*g.kernelSize()), min(gemmNC, g.outSize())
			x := make([]float32, c.cin*g.inSize())
			dst := make([]float32, kb*roundUp(n, gemmNR))
			ps := new(panelScratch)
			b.Run("panels", func(b *testing.B) {
				for b.Loop() {
					im2colPanels(g, x, 0, kb, 0, n, dst, &ps.buf, ps.taps[:])
				}
			})
			b.Run("rows", func(b *testing.B) {
				tmp := make([]float32, n)
				for b.Loop() {
					im2colRowPanels(g, x, 0, kb, 0, n, dst, tmp)
				}
			})
		})
	}
}
