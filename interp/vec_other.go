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
