package interp

import (
	"math"
	"unsafe"
)

//go:noescape
func clampRowAVX(n int, y, res *float32, bias, lo, hi float32)

// clampRow sets row[i] = min(max(row[i]+bias+res[i], lo), hi) (res may be
// nil), exactly as the scalar loop does: a vector MAXPS or MINPS returns
// its second operand for equal zeros, which differs from Go's max and min
// only for lo = -0 or hi = +0, so those bounds stay scalar.
func clampRow(row, res []float32, bias, lo, hi float32) {
	v := 0
	if hasFMA && !(lo == 0 && math.Signbit(float64(lo))) && !(hi == 0 && !math.Signbit(float64(hi))) {
		v = len(row) &^ 7
		var rp *float32
		if res != nil {
			rp = unsafe.SliceData(res[:len(row)])
		}
		if v > 0 {
			clampRowAVX(v, unsafe.SliceData(row), rp, bias, lo, hi)
		}
	}
	if res != nil {
		res = res[v:]
	}
	clampRowGo(row[v:], res, bias, lo, hi)
}
