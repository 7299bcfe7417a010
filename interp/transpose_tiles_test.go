package interp

import (
	"math/rand"
	"testing"
)

// transposeBlocks on float32 (16×16 blocks in registers, ragged edges one
// value at a time) moves every value where the definition puts it.
func TestTransposeBlocksF32Tiles(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	for trial := range 40 {
		batch, rows, cols := 1+rng.Intn(2), 1+rng.Intn(90), 1+rng.Intn(90)
		if trial%4 == 0 {
			rows, cols = 16*(1+rng.Intn(4)), 16*(1+rng.Intn(4))
		}
		src := make([]float32, batch*rows*cols)
		for i := range src {
			src[i] = float32(i)
		}
		dst := make([]float32, len(src))
		transposeBlocks(dst, src, batch, rows, cols)
		for b := range batch {
			for i := range rows {
				for j := range cols {
					if got, want := dst[b*rows*cols+j*rows+i], src[b*rows*cols+i*cols+j]; got != want {
						t.Fatalf("trial %d (%d×%d×%d): [%d][%d][%d] = %v, want %v", trial, batch, rows, cols, b, j, i, got, want)
					}
				}
			}
		}
	}
}
