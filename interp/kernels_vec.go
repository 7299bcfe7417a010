package interp

import "github.com/modelbridge/modelbridge/interp/internal/vec"

// The vector kernels live in internal/vec, each with one contract on every
// build (its pure-Go reference's result); these names keep the call sites
// short. hasFMA and useAVX512 only pick algorithms and blockings that pay
// off with the kernels' vector code; tests switch them.
var (
	hasFMA    = vec.HasFMA
	useAVX512 = vec.UseAVX512
)

// microTile returns gemmMR and gemmMC for the micro-kernel in use.
func microTile() (mr, mc int) {
	if useAVX512 {
		return 16, 128
	}
	return 6, 120
}

// microKernel adds the gemmMR×16 product of packed panels into c, or
// stores it there when add is false.
func microKernel(k int, a, b, c []float32, ldc int, add bool) {
	if gemmMR == 16 {
		// C's rows far apart: prefetch its next strips (see CPREFETCH16).
		vec.Kernel16(16, k, a, b, gemmNR, c, ldc, add, ldc >= prefetchRowLen)
		return
	}
	vec.Kernel6x16(k, a, b, c, ldc, add)
}

// microKernelB is microKernel reading B in place, its k rows of 16 floats
// ldb apart, for the first rows (16, or 8) of the packed panel a; prefetch
// asks for B's rows two panels ahead.
func microKernelB(rows, k int, a, b []float32, ldb int, c []float32, ldc int, add, prefetch bool) {
	vec.Kernel16(rows, k, a, b, ldb, c, ldc, add, prefetch)
}

// canClampTile reports that tile epilogues pay off for these bounds: with
// AVX-512 and bounds the vector MAXPS and MINPS order as Go does.
func canClampTile(lo, hi float32) bool {
	return useAVX512 && vectorClampExact(lo, hi)
}

var (
	dot32       = vec.Dot
	dot32x4     = vec.Dot4
	clampRow    = vec.ClampRow
	clampTile   = vec.ClampTile
	poolStep    = vec.PoolStep
	microColumn = vec.Column16
	vecAdd3     = vec.Add3
	vecSubSub   = vec.SubSub
	gatherEven  = vec.GatherEven
	interleave  = vec.Interleave
	interleave4 = vec.Interleave4
	wino4Row    = vec.Wino4Row
	wino4Panels = vec.Wino4Panels
	wino4Col    = vec.Wino4Col
	wino4OutVec = vec.Wino4OutCols
)

// panelTaps is vec.PanelTaps where every tap's 16 columns lie inside src
// (taps ascending): it reports false, doing nothing, otherwise.
func panelTaps(dst, src []float32, taps []int32, s int) bool {
	n := len(taps)
	if n == 0 || taps[0] < 0 || int(taps[n-1])+(gemmNR-1)*s >= len(src) || len(dst) < gemmNR*n {
		return false
	}
	vec.PanelTaps(dst, src, taps, s)
	return true
}

// panelGather is vec.PanelGather where every index lies inside src (taps
// and cols ascending): it reports false, doing nothing, otherwise.
func panelGather(dst, src []float32, taps []int32, cols *[gemmNR]int32) bool {
	n := len(taps)
	if n == 0 || taps[0] < 0 || cols[0] < 0 || int(taps[n-1])+int(cols[gemmNR-1]) >= len(src) || len(dst) < gemmNR*n {
		return false
	}
	vec.PanelGather(dst, src, taps, cols)
	return true
}
