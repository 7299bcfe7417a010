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
		// C's rows far apart: prefetch its next strips (see vec/gen/gemm.go).
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

// The kernels under the names the call sites use.

func dot32(a, b []float32) float32                      { return vec.Dot(a, b) }
func dot32x4(a, w []float32, ldw int, out *[4]float32)  { vec.Dot4(a, w, ldw, out) }
func clampRow(row, res []float32, bias, lo, hi float32) { vec.ClampRow(row, res, bias, lo, hi) }
func poolStep(acc, src []float32, sw int, isMax bool)   { vec.PoolStep(acc, src, sw, isMax) }
func vecAdd3(dst, a, b, c []float32)                    { vec.Add3(dst, a, b, c) }
func vecSubSub(dst, a, b, c []float32)                  { vec.SubSub(dst, a, b, c) }
func gatherEven(dst, src []float32)                     { vec.GatherEven(dst, src) }
func interleave(dst, ev, od []float32)                  { vec.Interleave(dst, ev, od) }
func interleave4(dst, o0, o1, o2, o3 []float32)         { vec.Interleave4(dst, o0, o1, o2, o3) }
func wino4Row(src, h []float32, stride, n int)          { vec.Wino4Row(src, h, stride, n) }
func wino4Panels(chunks, gap int, s, o *[6][]float32)   { vec.Wino4Panels(chunks, gap, s, o) }
func wino4Col(n int, s, o *[6][]float32)                { vec.Wino4Col(n, s, o) }
func wino4OutVec(n int, s *[6][]float32, o *[4][]float32) {
	vec.Wino4OutCols(n, s, o)
}

func clampTile(y []float32, ld, rows, cols int, bias, res []float32, lo, hi float32) {
	vec.ClampTile(y, ld, rows, cols, bias, res, lo, hi)
}

func stripMove(dst []float32, ldd int, src []float32, lds, rows, cols int, bias, res []float32) {
	vec.StripMove(dst, ldd, src, lds, rows, cols, bias, res)
}

func microColumn(kb, panels int, a, b []float32, ldb int, c []float32, ldc int, add bool) {
	vec.Column16(kb, panels, a, b, ldb, c, ldc, add)
}

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
