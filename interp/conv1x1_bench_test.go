package interp

import (
	"fmt"
	"math/rand"
	"testing"
)

// BenchmarkPointwise times mobilenet_v2's 1×1 convolutions as the
// interpreter runs them (packed weights, bias, ReLU6 after an expansion,
// the residual after a projection that has one), reporting µs per layer.
func BenchmarkPointwise(b *testing.B) {
	for _, c := range []struct {
		cin, cout, size int
		act             string // "clip", "res" or ""
	}{
		{16, 96, 112, "clip"}, {32, 16, 112, ""}, {24, 144, 56, "clip"}, {144, 24, 56, "res"}, {96, 24, 56, ""},
		{32, 192, 28, "clip"}, {192, 32, 28, "res"}, {64, 384, 14, "clip"}, {384, 64, 14, "res"},
		{96, 576, 14, "clip"}, {576, 96, 14, "res"}, {160, 960, 7, "clip"}, {960, 160, 7, "res"},
		{960, 320, 7, ""}, {320, 1280, 7, "clip"},
	} {
		b.Run(fmt.Sprintf("%dto%d@%d%s", c.cin, c.cout, c.size, c.act), func(b *testing.B) {
			r := rand.New(rand.NewSource(3))
			rnd := func(n int) []float32 {
				v := make([]float32, n)
				for i := range v {
					v[i] = r.Float32()*2 - 1
				}
				return v
			}
			p := c.size * c.size
			pa := newPackedA(false, c.cout, c.cin, 1, rnd(c.cout*c.cin), c.cin)
			x, y, bias := rnd(c.cin*p), make([]float32, c.cout*p), rnd(c.cout)
			ep := noClamp
			switch c.act {
			case "clip":
				ep = clampEp{lo: 0, hi: 6, clamp: true}
			case "res":
				ep.res = rnd(c.cout * p)
			}
			b.ResetTimer()
			for range b.N {
				gemmPackedEp(pa, p, x, y, bias, ep)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/op")
		})
	}
}
