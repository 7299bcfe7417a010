package vec

// Quad family: the bilinear taps of 2-D points read from one plane, laid
// out once for many planes (GridSample's channels). Point i has four taps
// t = 0..3, at off[t*stride+i] with weight w[t*stride+i]; a tap whose
// offset is outside src (negative included) reads +0 and must carry weight
// 0, so that its product is +0. The output is
// float32((0 + ((0 + p0) + p1)) + ((0 + p2) + p3)), p_t = w_t·float64(src[off_t])
// rounded to float64 on its own: the two rows of two taps summed as the
// interpreter's nested tap sum adds them. A +0 product leaves these sums
// as they are (each starts from +0, so it is never -0), which is why a
// tap the scalar code skips may stand here as a zero-weight read.

// quadsRef is the quad sum as defined above, for len(dst) points.
func quadsRef(dst, src []float32, off []int32, w []float64, stride int) {
	var p [4]float64
	for i := range dst {
		for t := range 4 {
			v := float32(0)
			if o := off[t*stride+i]; uint32(o) < uint32(len(src)) {
				v = src[o]
			}
			// The conversion keeps a GOAMD64=v3 build from fusing the
			// product into the sum.
			p[t] = float64(w[t*stride+i] * float64(v))
		}
		dst[i] = float32((0 + ((0 + p[0]) + p[1])) + ((0 + p[2]) + p[3]))
	}
}

// checkQuads panics unless off and w hold four rows of stride covering dst.
func checkQuads(n int, off []int32, w []float64, stride int) {
	if n > stride || len(off) < 3*stride+n || len(w) < 3*stride+n {
		panic("vec: quad taps shorter than the points")
	}
}
