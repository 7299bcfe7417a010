package interp

import (
	"math"
	"math/rand"
	"testing"
)

// TestGridTaps2DMatchesGridSum: the 2-D layout adds the same products in
// gridSum's order, skipped taps (outside, zero weight) included.
func TestGridTaps2DMatchesGridSum(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	const H, W = 9, 11
	src := make([]float32, H*W)
	for i := range src {
		src[i] = float32(rng.NormFloat64() * 1e3)
	}
	axis := func(n, d int) []gridTap {
		taps := make([]gridTap, n)
		for i := range taps {
			taps[i] = gridTap{rng.Intn(d+2) - 1, rng.NormFloat64()}
			switch rng.Intn(6) {
			case 0:
				taps[i].i = -1
			case 1:
				taps[i].w = 0
			}
		}
		return taps
	}
	var g gridTaps2D
	for trial := range 2000 {
		sizes := []int{1, 2, 4}
		taps := [][]gridTap{axis(sizes[rng.Intn(3)], H), axis(sizes[rng.Intn(3)], W)}
		for a, d := range []int{H, W} {
			for i := range taps[a] {
				if taps[a][i].i >= d {
					taps[a][i].i = -1
				}
			}
		}
		g.set(taps, W)
		want := gridSum(src, taps, []int{W, 1}, 0, 0, 1)
		if got := g.sum(src); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d: taps %v: sum %v, gridSum %v", trial, taps, got, want)
		}
	}
}
