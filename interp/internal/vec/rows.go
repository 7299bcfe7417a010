package vec

import "math"

// Row family: a row's epilogue (bias, residual, clamp), one output row of
// a 3×3 depthwise convolution, one window tap of a pool.

// clampExact reports that clamping to [lo, hi] with vector MAXPS and
// MINPS gives what Go's max and min give: they return their second operand
// for equal zeros, which differs only for a -0 lower or +0 upper bound.
func clampExact(lo, hi float32) bool {
	return !(lo == 0 && math.Signbit(float64(lo))) && !(hi == 0 && !math.Signbit(float64(hi)))
}

// clampRowRef sets row[i] = min(max(row[i]+bias+res[i], lo), hi) (res may
// be nil); with infinite bounds it only adds, exactly.
func clampRowRef(row, res []float32, bias, lo, hi float32) {
	if res != nil {
		res = res[:len(row)]
		for j, v := range row {
			row[j] = min(max(v+bias+res[j], lo), hi)
		}
		return
	}
	for j, v := range row {
		row[j] = min(max(v+bias, lo), hi)
	}
}

// dwConv3RowRef sets dst[i] = bias + Σ_r Σ_k w[3r+k]·src[r·ld + sw·i + k]
// for r < rows, k < 3, each tap added by a fused multiply-add in row-major
// order; with acc the sums start from dst[i] instead of the bias.
func dwConv3RowRef(src []float32, ld, rows, sw int, w *[9]float32, bias float32, dst []float32, acc bool) {
	for i := range dst {
		s := bias
		if acc {
			s = dst[i]
		}
		for r := range rows {
			row := src[r*ld+sw*i:]
			s = fma32(w[3*r], row[0], s)
			s = fma32(w[3*r+1], row[1], s)
			s = fma32(w[3*r+2], row[2], s)
		}
		dst[i] = s
	}
}

// poolStepRef applies one window tap to a row of pool outputs: acc[i]
// takes src[i·sw] when it is greater or NaN (max) or adds it (sum).
func poolStepRef(acc, src []float32, sw int, isMax bool) {
	if len(acc) == 0 {
		return
	}
	src = src[:(len(acc)-1)*sw+1]
	for i := range acc {
		v := src[i*sw]
		if !isMax {
			acc[i] += v
		} else if v > acc[i] || v != v {
			acc[i] = v
		}
	}
}

// clampTileRef is clampRowRef on rows [0, rows), columns [0, cols) of y
// (row stride ld), with bias[r] for row r and the residual res laid out
// as y (either may be nil).
func clampTileRef(y []float32, ld, rows, cols int, bias, res []float32, lo, hi float32) {
	for r := range rows {
		var b float32
		if bias != nil {
			b = bias[r]
		}
		var rr []float32
		if res != nil {
			rr = res[r*ld : r*ld+cols]
		}
		clampRowRef(y[r*ld:r*ld+cols], rr, b, lo, hi)
	}
}
