package interp

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestPool2DAVX512MatchesPointwise compares the AVX-512 kernel, over
// several planes at once, with poolPoint bit for bit (NaN payloads
// included for max pools) on random geometries within its reach, over
// data with NaNs, signed zeros and infinities.
func TestPool2DAVX512MatchesPointwise(t *testing.T) {
	if !useAVX512 {
		t.Skip("skipping: no AVX-512 on this machine (or MODELBRIDGE_NO_AVX512 is set)")
	}
	r := rand.New(rand.NewSource(34))
	ran := 0
	for i := range 600 {
		a := &poolAttrs{
			kernel:     []int64{int64(1 + r.Intn(4)), int64(1 + r.Intn(3))},
			strides:    []int64{int64(1 + r.Intn(3)), int64(1 + r.Intn(2))},
			dilations:  []int64{1, 1},
			padsBegin:  []int64{int64(r.Intn(3)), int64(r.Intn(3))},
			padsEnd:    []int64{int64(r.Intn(3)), int64(r.Intn(3))},
			ceil:       r.Intn(2) == 0,
			max:        r.Intn(3) != 0,
			includePad: r.Intn(2) == 0,
		}
		if i%3 == 0 {
			// Wider pads than ONNX allows: windows wholly in the pads.
			a.padsBegin[r.Intn(2)] += 2
		}
		planes := 1 + r.Intn(4)
		shape := []int{1, planes, 1 + r.Intn(20), 1 + r.Intn(80)}
		g, err := poolGeom(shape, a)
		if err != nil || g.outSize() == 0 {
			continue
		}
		vector := pool2DAVX512Planes(g, a)
		if vector == nil {
			t.Fatalf("case %d: the kernel refused %+v", i, *a)
		}
		src := make([]float32, planes*g.inSize())
		specialFloats(r, src)
		got := make([]float32, planes*g.outSize())
		for j := range got {
			got[j] = 12345 // every output must be written
		}
		vector(src, got, planes)
		want := make([]float32, 0, len(got))
		for p := range planes {
			plane := src[p*g.inSize() : (p+1)*g.inSize()]
			for oy := range g.out[1] {
				for ox := range g.out[2] {
					want = append(want, poolPoint(g, a, plane, 0, oy, ox))
				}
			}
		}
		sameBits(t, fmt.Sprintf("case %d %+v on %v", i, *a, shape), got, want, a.max)
		ran++
	}
	if ran < 300 {
		t.Fatalf("only %d of 600 geometries were valid", ran)
	}
}
