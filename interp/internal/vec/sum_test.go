package vec

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// SumF64 gives its reference's bits at every level and length.
func TestSumF64MatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(12))
		for _, n := range append(lengths, 56, 3072, 3073) {
			row := randF32(r, n, 10)
			got, want := SumF64(row), sumF64Ref(row)
			sameBits64(t, fmt.Sprintf("SumF64 n=%d", n), []float64{got}, []float64{want})
		}
	})
}

// SumSqDevF64 gives its reference's bits at every level and length, and
// its reference is the sum of squares within float64 rounding.
func TestSumSqDevF64MatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(13))
		for _, n := range append(lengths, 56, 768, 3073) {
			row := randF32(r, n, 10)
			mean := SumF64(row) / float64(max(n, 1))
			got, want := SumSqDevF64(row, mean), sumSqDevF64Ref(row, mean)
			sameBits64(t, fmt.Sprintf("SumSqDevF64 n=%d", n), []float64{got}, []float64{want})
			var plain float64
			for _, v := range row {
				plain += (float64(v) - mean) * (float64(v) - mean)
			}
			if math.Abs(want-plain) > 1e-12*plain {
				t.Fatalf("n=%d: %v, plainly summed %v", n, want, plain)
			}
		}
	})
}

// The reference's order, by hand: 16 partial sums, folded as documented.
func TestSumF64RefByHand(t *testing.T) {
	row := make([]float32, 18)
	row[0], row[4], row[16], row[17] = 1e8, 1, -1e8, 0.5
	// acc0 = 1e8 + 0, acc4 = 1: lane 0 = (1e8 + 1) + 0; then + (-1e8) + 0.5.
	if got := sumF64Ref(row); got != 1.5 {
		t.Fatalf("sum %v, want 1.5", got)
	}
}
