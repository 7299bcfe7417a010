package interp

import (
	"math/rand"
	"testing"
)

// TestPackGathersCopyExactly checks packA (A not transposed, alpha 1) and
// packB (B transposed), which gather sixteen rows at a time, against the
// panels' definition, on blocks with a ragged last panel and offsets.
func TestPackGathersCopyExactly(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	const rows, cols = 70, 300
	ld := cols + 3
	src := make([]float32, rows*ld)
	for i := range src {
		src[i] = r.Float32()
	}
	for _, c := range []struct{ r0, c0, nr, kb int }{{0, 0, 70, 256}, {5, 44, 33, 200}, {16, 1, 16, 7}} {
		got := make([]float32, roundUp(c.nr, gemmMR)*c.kb)
		packA(false, src, ld, c.r0, c.c0, c.nr, c.kb, 1, got)
		for i := range c.nr {
			for p := range c.kb {
				pan, in := i/gemmMR, i%gemmMR
				if g, w := got[pan*gemmMR*c.kb+p*gemmMR+in], src[(c.r0+i)*ld+c.c0+p]; g != w {
					t.Fatalf("packA %v: row %d, k %d: %v, want %v", c, i, p, g, w)
				}
			}
		}
		gotB := make([]float32, roundUp(c.nr, gemmNR)*c.kb)
		packB(true, src, ld, c.c0, c.r0, c.kb, c.nr, gotB)
		for j := range c.nr {
			for p := range c.kb {
				pan, in := j/gemmNR, j%gemmNR
				if g, w := gotB[pan*gemmNR*c.kb+p*gemmNR+in], src[(c.r0+j)*ld+c.c0+p]; g != w {
					t.Fatalf("packB %v: column %d, k %d: %v, want %v", c, j, p, g, w)
				}
			}
		}
	}
}
