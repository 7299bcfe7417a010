//go:build !amd64

package interp

func vecAdd3(dst, a, b, c []float32)   { vecAdd3Go(dst, a[:len(dst)], b[:len(dst)], c[:len(dst)]) }
func vecSubSub(dst, a, b, c []float32) { vecSubSubGo(dst, a[:len(dst)], b[:len(dst)], c[:len(dst)]) }

func gatherEven(dst, src []float32) { gatherEvenGo(dst, src) }

func interleave(dst, ev, od []float32) { interleaveGo(dst, ev, od) }

func winoRowVec(src, h0, h1, h2, h3 []float32) int { return 0 }

func winoCol16(a, b, c, d, o0, o1, o2, o3 []float32) { winoColGo(a, b, c, d, o0, o1, o2, o3) }

func panelTaps(dst, src []float32, taps []int32, s int) bool { return false }

var panelTapsAVX512 = false

func panelGather(dst, src []float32, taps []int32, cols *[gemmNR]int32) bool { return false }

func wino4Row(src, h []float32, stride, n int) { wino4RowGo(src, h, stride, n) }

func wino4Panels(chunks, gap int, s, o *[6][]float32) { wino4PanelsGo(chunks, gap, s, o) }

func wino4Col(n int, s, o *[6][]float32) { wino4ColGo(n, s, o) }

func wino4OutVec(n int, s *[6][]float32, o *[4][]float32) { wino4OutGo(n, s, o) }

func interleave4(dst, o0, o1, o2, o3 []float32) { interleave4Go(dst, o0, o1, o2, o3) }
