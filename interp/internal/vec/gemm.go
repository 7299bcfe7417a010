package vec

// GEMM family: micro-kernels that add a tile of A·B into C (or store it).
// Each element of the tile is one sum over k, from +0, each step a fused
// multiply-add in k order; add then adds it to what C holds.

// NR is the width of every tile: 16 columns of C, 16 floats a k group of
// packed B.
const NR = 16

// kernelRef sets or adds c[r·ldc + j] (r < rows, j < 16) to the sum over
// p < k of a[p·mr + r]·b[p·ldb + j].
func kernelRef(rows, mr, k int, a, b []float32, ldb int, c []float32, ldc int, add bool) {
	for r := range rows {
		for j := range NR {
			var s float32
			for p := range k {
				s = fma32(a[p*mr+r], b[p*ldb+j], s)
			}
			if add {
				s = c[r*ldc+j] + s
			}
			c[r*ldc+j] = s
		}
	}
}

// columnRef sets or adds c[r·ldc] for the 16·panels rows r to the sum over
// p < kb of a[(r/16)·16·kb + 16p + r%16]·b[p·ldb]: one column of C from
// panels packed 16-row panels of A, each sum the one kernelRef makes.
func columnRef(kb, panels int, a, b []float32, ldb int, c []float32, ldc int, add bool) {
	for r := range 16 * panels {
		base := (r/16)*16*kb + r%16
		var s float32
		for p := range kb {
			s = fma32(a[base+16*p], b[p*ldb], s)
		}
		if add {
			s = c[r*ldc] + s
		}
		c[r*ldc] = s
	}
}
