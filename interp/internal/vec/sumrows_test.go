package vec

import (
	"fmt"
	"math/rand"
	"testing"
)

// SumRowsF64 gives, row by row, the reference's bits at every level.
func TestSumRowsF64MatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(13))
		for _, count := range append(lengths, 56, 3072) {
			for _, rows := range []int{1, 2, 5} {
				v := randF32(r, rows*count, 10)
				got, want := make([]float64, rows), make([]float64, rows)
				SumRowsF64(v, count, got)
				for i := range want {
					want[i] = sumF64Ref(v[i*count : (i+1)*count])
				}
				sameBits64(t, fmt.Sprintf("SumRowsF64 %d rows of %d", rows, count), got, want)
			}
		}
	})
}
