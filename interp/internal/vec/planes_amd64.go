//go:build !noasm

package vec

// DW3 computes a.Planes planes of a 3×3 depthwise convolution with
// horizontal stride sw (1 or 2) from x into y, with w's 9 weights a plane
// and bias[p] for plane p (nil: none), as dw3Ref; a carries the geometry
// and DW3 points it at the slices. AVX-512 computes whole planes at once.
func DW3(a *DW3Args, sw int, x, y, w, bias []float32, masks []uint16) {
	if a.Planes <= 0 {
		return
	}
	bias = dw3Bind(a, x, y, w, bias, masks)
	switch {
	case !HasAVX512 || !clampExact(a.Lo, a.Hi):
		dw3Ref(a, sw, x, y, w, bias, masks)
	case sw == 2:
		dw3s2AVX512(a)
	default:
		dw3s1AVX512(a)
	}
}

// Pool2 computes a.Planes planes of a max or average pool from x into y as
// pool2Ref; a carries the geometry and Pool2 points it at the slices.
func Pool2(a *Pool2Args, x, y []float32, masks []uint16, colDiv, rowDiv []float32) {
	if a.Planes <= 0 {
		return
	}
	pool2Bind(a, x, y, masks, colDiv, rowDiv)
	if !HasAVX512 {
		pool2Ref(a, x, y, masks, colDiv, rowDiv)
		return
	}
	pool2AVX512(a)
}
