package vec

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// DWChannels equals dwChannelsRef bit for bit at every width, for pixel
// counts around its groups of four, one tap to a 7×7 window, and inputs
// holding NaN and infinities.
func TestDWChannelsMatchesReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(12))
		for _, taps := range []int{1, 9, 25, 49} {
			for _, n := range []int{1, 3, 4, 5, 13, 52} {
				offs := make([]int32, taps)
				for i := range offs {
					offs[i] = int32(r.Intn(40))
				}
				origins := make([]int32, n)
				for i := range origins {
					origins[i] = int32(r.Intn(60))
				}
				src := randF32(r, 16*100, 4)
				src[r.Intn(len(src))] = float32(math.NaN())
				src[r.Intn(len(src))] = float32(math.Inf(1))
				w, bias := randF32(r, 16*taps, 1), randF32(r, 16, 1)
				got, want := guard32(16*n), make([]float32, 16*n)
				DWChannels(n, offs, w, bias, src, origins, got)
				dwChannelsRef(n, offs, w, bias, src, origins, want)
				sameBits32(t, fmt.Sprintf("DWChannels taps=%d n=%d", taps, n), got, want)
				checkGuard32(t, "DWChannels", got)
			}
		}
	})
}
