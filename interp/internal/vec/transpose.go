package vec

// Transpose family: 16×16 blocks of a float32 matrix moved to their
// transposed places.

// transpose16Ref sets dst[(16b+j)·ldd+i] = src[i·lds+16b+j] for b < n and
// i, j < 16.
func transpose16Ref(n int, dst []float32, ldd int, src []float32, lds int) {
	for b := range n {
		for i := range 16 {
			for j := range 16 {
				dst[(16*b+j)*ldd+i] = src[i*lds+16*b+j]
			}
		}
	}
}
