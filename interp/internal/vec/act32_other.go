//go:build !amd64 || noasm

package vec

// Sigmoid32 sets d[i] = sigmoid32(s[i]) for i < len(d).
func Sigmoid32(d, s []float32) { sigmoid32Ref(d, s) }

// SiLU32 sets d[i] = s[i]·sigmoid32(s[i]).
func SiLU32(d, s []float32) { silu32Ref(d, s) }

// Gelu32 sets d[i] = gelu32(s[i]).
func Gelu32(d, s []float32) { geluLanes32Ref(d, s) }

// HardSigmoidGate32 sets d[i] = x·max(0, min(1, a·x+b)) for x = s[i].
func HardSigmoidGate32(d, s []float32, a, b float32) { hardSigmoidGate32Ref(d, s, a, b) }

// LNCenter sets dst[i] = src[i] - m and sq[i] = dst[i]·dst[i].
func LNCenter(dst, sq, src []float32, m float32) { lnCenterRef(dst, sq, src, m) }

// LNScale sets dst[i] = dst[i]/den·scale[i] + bias[i], each rounded apart.
func LNScale(dst, scale, bias []float32, den float32) { lnScaleRef(dst, scale, bias, den) }

// LNAffine64 sets dst[i] = float32((src[i] - m)·inv·scale[i] + bias[i]) in
// float64.
func LNAffine64(dst, src, scale, bias []float32, m, inv float64) {
	lnAffine64Ref(dst, src, scale, bias, m, inv)
}

// ExpShift32 sets d[i] = expNeg32(s[i] - m); m must be at least every s[i].
func ExpShift32(d, s []float32, m float32) { expShift32Ref(d, s, m) }
