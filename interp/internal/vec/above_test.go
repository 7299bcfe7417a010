package vec

import (
	"math"
	"math/rand"
	"testing"
)

// NextAbove and NextBelow stop where their references stop at every
// vector level: NaN (in the row or as the bar), ties with the bar and
// signed zeros included.
func TestNextAboveBelowMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(36))
		for trial := range 2000 {
			n := rng.Intn(90)
			row := make([]float32, n)
			for i := range row {
				row[i] = float32(rng.Intn(9) - 4)
				if rng.Intn(40) == 0 {
					row[i] = float32(specials[rng.Intn(len(specials))])
				}
			}
			bar := float32(rng.Intn(11) - 5)
			switch rng.Intn(10) {
			case 0:
				bar = float32(math.NaN())
			case 1:
				bar = float32(math.Copysign(0, -1))
			case 2:
				bar = float32(math.Inf(1 - 2*rng.Intn(2)))
			}
			if got, want := NextAbove(row, bar), nextAboveRef(row, bar); got != want {
				t.Fatalf("trial %d: NextAbove(%v, %v) = %d, want %d", trial, row, bar, got, want)
			}
			if got, want := NextBelow(row, bar), nextBelowRef(row, bar); got != want {
				t.Fatalf("trial %d: NextBelow(%v, %v) = %d, want %d", trial, row, bar, got, want)
			}
		}
	})
}
