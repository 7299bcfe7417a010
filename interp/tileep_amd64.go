package interp

import (
	"unsafe"
)

//go:noescape
func clampTileAVX512(rows, cols int, y *float32, ld int, bias, res *float32, lo, hi float32)

// canClampTile reports that clampTile matches clampRow for these bounds:
// it needs AVX-512 and bounds vectorClampExact accepts.
func canClampTile(lo, hi float32) bool {
	return useAVX512 && vectorClampExact(lo, hi)
}

// clampTile is clampRow on rows [0, rows), columns [0, cols) of y (row
// stride ld), 1 ≤ cols ≤ 16, with bias[r] for row r and the residual res
// laid out as y (either may be nil), in one call: the epilogue of a GEMM
// strip while it is in L1. Callers check canClampTile first.
func clampTile(y []float32, ld, rows, cols int, bias, res []float32, lo, hi float32) {
	if rows <= 0 {
		return
	}
	if cols <= 0 || cols > 16 {
		panic("clampTile: tile wider than 16 columns")
	}
	// Bounds checks: the assembly trusts these lengths.
	last := (rows-1)*ld + cols
	_ = y[last-1]
	var bp, rp *float32
	if bias != nil {
		bp = unsafe.SliceData(bias[:rows])
	}
	if res != nil {
		rp = unsafe.SliceData(res[:last])
	}
	clampTileAVX512(rows, cols, unsafe.SliceData(y), ld, bp, rp, lo, hi)
}
