//go:build !amd64 || noasm

package vec

// Without the assembly (another architecture, or the noasm tag) every
// routine is its pure-Go reference: the same results, computed in Go.

const asmBuild = false

func Dot(a, b []float32) float32                    { return dotRef(a, b) }
func Dot4(a, w []float32, ldw int, out *[4]float32) { dot4Ref(a, w, ldw, out) }

func Exp64(d, s []float64)     { exp64Ref(d, s) }
func Sigmoid(d, s []float32)   { sigmoidRef(d, s) }
func Sigmoid64(d, s []float64) { sigmoid64Ref(d, s) }
func Tanh(d, s []float32)      { tanhRef(d, s) }
func Tanh64(d, s []float64)    { tanh64Ref(d, s) }
func Gelu(d, s []float32)      { geluRef(d, s) }
func GeluTanh(d, s []float32)  { geluTanhRef(d, s) }
func Erf(d, s []float32)       { erfRef(d, s) }
func Erf64(d, s []float64)     { erf64Ref(d, s) }
func Softmax64(row []float64)  { softmax64Ref(row) }

func ClampRow(row, res []float32, bias, lo, hi float32) { clampRowRef(row, res, bias, lo, hi) }
func DWConv3Row(src []float32, ld, rows, sw int, w *[9]float32, bias float32, dst []float32, acc bool) {
	dwConv3RowRef(src, ld, rows, sw, w, bias, dst, acc)
}
func PoolStep(acc, src []float32, sw int, isMax bool) { poolStepRef(acc, src, sw, isMax) }
func StripMove(dst []float32, ldd int, src []float32, lds, rows, cols int, bias, res []float32) {
	stripMoveRef(dst, ldd, src, lds, rows, cols, bias, res)
}
func ScoreRows(s []float32, n int, c float32, op ScoreOp, mask []float32) {
	if n > 0 {
		scoreRowsRef(s, n, c, op, mask)
	}
}
func ClampTile(y []float32, ld, rows, cols int, bias, res []float32, lo, hi float32) {
	clampTileRef(y, ld, rows, cols, bias, res, lo, hi)
}

func Kernel6x16(k int, a, b, c []float32, ldc int, add bool) {
	kernelRef(6, 6, k, a, b, NR, c, ldc, add)
}
func Kernel16(rows, k int, a, b []float32, ldb int, c []float32, ldc int, add, prefetch bool) {
	kernelRef(rows, 16, k, a, b, ldb, c, ldc, add)
}
func Column16(kb, panels int, a, b []float32, ldb int, c []float32, ldc int, add bool) {
	columnRef(kb, panels, a, b, ldb, c, ldc, add)
}

func Add3(dst, a, b, c []float32)      { add3Ref(dst, a, b, c) }
func SubSub(dst, a, b, c []float32)    { subSubRef(dst, a, b, c) }
func GatherEven(dst, src []float32)    { gatherEvenRef(dst, src) }
func Interleave(dst, ev, od []float32) { interleaveRef(dst, ev, od) }
func WinoRow(src, h0, h1, h2, h3 []float32) int {
	n := max(min(len(h0), (len(src)-2)/2), 0)
	winoRowRef(src, h0[:n], h1[:n], h2[:n], h3[:n])
	return n
}
func WinoCol(a, b, c, d, o0, o1, o2, o3 []float32)      { winoColRef(a, b, c, d, o0, o1, o2, o3) }
func PanelTaps(dst, src []float32, taps []int32, s int) { panelTapsRef(dst, src, taps, s) }
func PanelGather(dst, src []float32, taps []int32, cols *[NR]int32) {
	panelGatherRef(dst, src, taps, cols)
}
func Wino4Panels(chunks, gap int, s, o *[6][]float32)      { wino4PanelsRef(chunks, gap, s, o) }
func Wino4Col(n int, s, o *[6][]float32)                   { wino4ColRef(n, s, o) }
func Wino4OutCols(n int, s *[6][]float32, o *[4][]float32) { wino4OutRef(n, s, o) }
func Interleave4(dst, o0, o1, o2, o3 []float32)            { interleave4Ref(dst, o0, o1, o2, o3) }
func Wino4Row(src, h []float32, stride, n int)             { wino4RowRef(src, h, stride, n) }

func DW3(a *DW3Args, sw int, x, y, w, bias []float32, masks []uint16) {
	if a.Planes > 0 {
		bias = dw3Bind(a, x, y, w, bias, masks)
		dw3Ref(a, sw, x, y, w, bias, masks)
	}
}
func Pool2(a *Pool2Args, x, y []float32, masks []uint16, colDiv, rowDiv []float32) {
	if a.Planes > 0 {
		pool2Bind(a, x, y, masks, colDiv, rowDiv)
		pool2Ref(a, x, y, masks, colDiv, rowDiv)
	}
}
