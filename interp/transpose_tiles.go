package interp

import "github.com/modelbridge/modelbridge/interp/internal/vec"

// transposeTileF32 moves rows [i0, i1) × columns [j0, j1) of the rows ×
// cols matrix s into d transposed (d[j·rows+i] = s[i·cols+j]): the tile's
// whole 16×16 blocks transposed in registers (vec.Transpose16), the rest
// one value at a time.
func transposeTileF32(d, s []float32, rows, cols, i0, i1, j0, j1 int) {
	nb := (j1 - j0) / 16
	i := i0
	if nb > 0 && useAVX512 {
		for ; i+16 <= i1; i += 16 {
			vec.Transpose16(nb, d[j0*rows+i:], rows, s[i*cols+j0:], cols)
		}
	}
	// Rows [i0, i) are done up to column jb; rows [i, i1) not at all.
	jb := j0 + 16*nb
	if i == i0 {
		jb = j0
	}
	for r := i0; r < i1; r++ {
		from := j0
		if r < i {
			from = jb
		}
		for j := from; j < j1; j++ {
			d[j*rows+r] = s[r*cols+j]
		}
	}
}
