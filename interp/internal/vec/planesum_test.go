package vec

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// SumPlanes8 adds each plane's values in order, as the reference does:
// the same float64 bits at every width and length, whatever the values.
func TestSumPlanes8MatchesReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(21))
		for _, n := range []int{0, 1, 7, 8, 9, 49, 196, 784, 3136, 12544} {
			stride := n + r.Intn(3)
			src := make([]float32, 7*stride+n)
			for i := range src {
				// Magnitudes far apart, so that the order of the additions
				// shows in the sums' rounding.
				src[i] = float32(r.NormFloat64() * math.Pow(2, float64(r.Intn(40)-20)))
				if r.Intn(500) == 0 {
					src[i] = math.Float32frombits(r.Uint32())
				}
			}
			var got, want [8]float64
			SumPlanes8(&got, src, stride, n)
			sumPlanes8Ref(&want, src, stride, n)
			for j := range got {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) && !(got[j] != got[j] && want[j] != want[j]) {
					t.Fatalf("%s: n=%d plane %d: %v, the reference gives %v", fmt.Sprint(n), n, j, got[j], want[j])
				}
			}
		}
	})
}
