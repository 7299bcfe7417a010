package interp

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestPool2DMatchesPointwise compares the row-wise 2-D pool with the
// output-by-output loop bit for bit (NaN payloads included for max pools)
// on random sizes, kernels, strides, dilations and pads, ceil mode and
// count_include_pad, over data with NaNs, signed zeros and infinities.
func TestPool2DMatchesPointwise(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	for i := range 400 {
		a := &poolAttrs{
			kernel:     []int64{int64(1 + r.Intn(4)), int64(1 + r.Intn(4))},
			strides:    []int64{int64(1 + r.Intn(3)), int64(1 + r.Intn(3))},
			dilations:  []int64{int64(1 + r.Intn(2)), int64(1 + r.Intn(2))},
			padsBegin:  []int64{int64(r.Intn(3)), int64(r.Intn(3))},
			padsEnd:    []int64{int64(r.Intn(3)), int64(r.Intn(3))},
			ceil:       r.Intn(2) == 0,
			max:        r.Intn(3) != 0,
			includePad: r.Intn(2) == 0,
		}
		for d := range 2 {
			// Pads no wider than the window, as ONNX requires.
			a.padsBegin[d] = min(a.padsBegin[d], a.kernel[d]-1)
			a.padsEnd[d] = min(a.padsEnd[d], a.kernel[d]-1)
		}
		shape := []int{1, 1, 1 + r.Intn(12), 1 + r.Intn(70)}
		g, err := poolGeom(shape, a)
		if err != nil {
			continue // window larger than the padded input
		}
		src := make([]float32, g.inSize())
		specialFloats(r, src)
		fast := make([]float32, g.outSize())
		poolPlane(g, a, src, fast)
		want := make([]float32, g.outSize())
		k := 0
		for oy := 0; oy < g.out[1]; oy++ {
			for ox := 0; ox < g.out[2]; ox++ {
				want[k] = poolPoint(g, a, src, 0, oy, ox)
				k++
			}
		}
		sameBits(t, fmt.Sprintf("case %d %+v on %v", i, *a, shape), fast, want, a.max)
	}
}

// GlobalAveragePool, eight planes at a time (AVX-512), four, and the rest
// one by one, gives each plane's globalPoolPlane mean bit for bit, on data
// spanning many exponents (where the order of the float64 additions
// shows), with and without the vector code.
func TestGlobalAveragePoolMatchesPlaneMean(t *testing.T) {
	for _, avx512 := range []bool{useAVX512, false} {
		func() {
			defer setVectorLevel(avx512, hasFMA)()
			globalAveragePoolMatchesPlaneMean(t)
		}()
	}
}

func globalAveragePoolMatchesPlaneMean(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for _, shape := range [][]int64{{1, 7, 3, 3}, {2, 9, 1, 13}, {1, 1280, 7, 7}, {3, 5}, {2, 19, 14, 14}, {1, 37, 56, 56}, {1, 13, 1, 8}} {
		n := 1
		for _, d := range shape {
			n *= int(d)
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64() * math.Pow(2, float64(r.Intn(60)-30)))
		}
		x := canon.NewFloat32Tensor("x", shape, v)
		y, err := runOne(t, &canon.GlobalAveragePool{}, []string{"x"}, map[string]*canon.Tensor{"x": x}, canon.Float32)
		if err != nil {
			t.Fatal(err)
		}
		got := floats(t, y)
		inner := n / int(shape[0]*shape[1])
		for p, g := range got {
			if want := globalPoolPlane(v[p*inner:(p+1)*inner], false); math.Float32bits(g) != math.Float32bits(want) {
				t.Fatalf("%v: plane %d mean %v, want %v", shape, p, g, want)
			}
		}
	}
}
