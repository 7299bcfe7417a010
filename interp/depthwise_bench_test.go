package interp

import (
	"fmt"
	"math/rand"
	"testing"
)

// BenchmarkDepthwiseLarge times the depthwise layers of efficientnet_b0,
// deeplabv3_mobilenet_v3_large and convnext_tiny whose windows are not
// 3×3 (one image, their bias, no activation).
func BenchmarkDepthwiseLarge(b *testing.B) {
	for _, c := range []struct{ ch, hw, k, s, d int }{
		{1152, 7, 5, 1, 1}, {672, 14, 5, 1, 1}, {672, 14, 5, 2, 1}, {240, 28, 5, 1, 1}, {144, 56, 5, 2, 1},
		{72, 64, 5, 2, 1}, {960, 16, 3, 1, 2}, {96, 56, 7, 1, 1}, {384, 14, 7, 1, 1}, {768, 7, 7, 1, 1},
	} {
		b.Run(fmt.Sprintf("c%d_%dx%d_k%d_s%d_d%d", c.ch, c.hw, c.hw, c.k, c.s, c.d), func(b *testing.B) {
			pad := int64(c.d * (c.k - 1) / 2)
			k, s, d := int64(c.k), int64(c.s), int64(c.d)
			g, err := newGeom3([]int{1, c.ch, c.hw, c.hw}, []int64{k, k}, []int64{s, s}, []int64{d, d}, []int64{pad, pad}, []int64{pad, pad})
			if err == nil {
				err = g.convOut()
			}
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewSource(1))
			x := make([]float32, c.ch*g.inSize())
			w := make([]float32, c.ch*g.kernelSize())
			bias := make([]float32, c.ch)
			for _, v := range [][]float32{x, w, bias} {
				for i := range v {
					v[i] = float32(rng.NormFloat64())
				}
			}
			y := make([]float32, c.ch*g.outSize())
			b.ResetTimer()
			for range b.N {
				convDepthwise(g, x, w, bias, y, 1, c.ch, noClamp)
			}
		})
	}
}
