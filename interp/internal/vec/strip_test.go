package vec

import (
	"fmt"
	"math/rand"
	"testing"
)

func TestStripMoveMatchesReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(9))
		for _, rows := range []int{0, 1, 5, 16, 197} {
			for _, cols := range []int{1, 5, 15, 16} {
				for _, mode := range []int{0, 1, 2, 3} {
					const ldd, lds = 21, 35
					src := randF32(r, max(rows, 1)*lds, 1)
					var bias, res []float32
					if mode&1 != 0 {
						bias = randF32(r, cols, 1)
					}
					if mode&2 != 0 {
						res = randF32(r, max(rows, 1)*ldd, 1)
					}
					got, want := randF32(r, max(rows, 1)*ldd, 1), []float32(nil)
					want = append(want, got...)
					StripMove(got, ldd, src, lds, rows, cols, bias, res)
					stripMoveRef(want, ldd, src, lds, rows, cols, bias, res)
					sameBits32(t, fmt.Sprintf("StripMove rows=%d cols=%d mode=%d", rows, cols, mode), got, want)
				}
			}
		}
	})
}
