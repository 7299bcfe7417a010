package vec

import (
	"fmt"
	"math/rand"
	"testing"
)

func TestScoreRowsMatchesReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(10))
		for _, n := range []int{1, 5, 16, 17, 128, 197} {
			for _, rows := range []int{1, 3} {
				for _, op := range []ScoreOp{ScoreKeep, ScoreDiv, ScoreMul} {
					for _, masked := range []bool{false, true} {
						got := randF32(r, rows*n, 4)
						want := append([]float32(nil), got...)
						var mask []float32
						if masked {
							mask = randF32(r, n, 1)
						}
						c := []float32{3, 8, 0.3}[r.Intn(3)]
						ScoreRows(got, n, c, op, mask)
						scoreRowsRef(want, n, c, op, mask)
						sameBits32(t, fmt.Sprintf("ScoreRows n=%d rows=%d op=%d mask=%v", n, rows, op, masked), got, want)
					}
				}
			}
		}
	})
}
