package vec

// Rows of a LayerNorm computed as its exported chain computes them (see
// interp's fused chain): the scalar references are the oracle.

func lnCenterRef(dst, sq, src []float32, m float32) {
	src, sq = src[:len(dst)], sq[:len(dst)]
	for i, v := range src {
		d := v - m
		dst[i] = d
		sq[i] = d * d
	}
}

func lnScaleRef(dst, scale, bias []float32, den float32) {
	scale, bias = scale[:len(dst)], bias[:len(dst)]
	for i, d := range dst {
		dst[i] = float32(float32(d/den)*scale[i]) + bias[i]
	}
}
