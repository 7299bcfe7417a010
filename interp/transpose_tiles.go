package interp

import "github.com/modelbridge/modelbridge/interp/internal/vec"

// transposeTileF32 moves rows [i0, i1) × columns [j0, j1) of the matrix
// s (rows lds floats apart) into d transposed, d's rows ldd floats apart
// (d[j·ldd+i] = s[i·lds+j]): the tile's whole 16×16 blocks transposed in
// registers (vec.Transpose16), the rest one value at a time.
func transposeTileF32(d []float32, ldd int, s []float32, lds int, i0, i1, j0, j1 int) {
	nb := (j1 - j0) / 16
	i := i0
	if nb > 0 && useAVX512 {
		for ; i+16 <= i1; i += 16 {
			vec.Transpose16(nb, d[j0*ldd+i:], ldd, s[i*lds+j0:], lds)
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
			d[j*ldd+r] = s[r*lds+j]
		}
	}
}
