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

// lnAffine64Ref is a LayerNormalization row's last step: each element
// centred by m, scaled by inv and scale, shifted by bias in float64, each
// operation rounded on its own, then rounded to float32.
func lnAffine64Ref(dst, src, scale, bias []float32, m, inv float64) {
	src, scale, bias = src[:len(dst)], scale[:len(dst)], bias[:len(dst)]
	for i, e := range src {
		// The conversions keep each product rounded (never fused).
		o := float64((float64(e) - m) * inv)
		o = float64(o * float64(scale[i]))
		dst[i] = float32(o + float64(bias[i]))
	}
}
