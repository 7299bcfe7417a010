//go:build !amd64

package interp

func vecAdd(dst, a, b []float32)       { vecAddGo(dst, a[:len(dst)], b[:len(dst)]) }
func vecSub(dst, a, b []float32)       { vecSubGo(dst, a[:len(dst)], b[:len(dst)]) }
func vecAdd3(dst, a, b, c []float32)   { vecAdd3Go(dst, a[:len(dst)], b[:len(dst)], c[:len(dst)]) }
func vecSubSub(dst, a, b, c []float32) { vecSubSubGo(dst, a[:len(dst)], b[:len(dst)], c[:len(dst)]) }

func gatherEven(dst, src []float32) { gatherEvenGo(dst, src) }

func interleaveClamp(dst, ev, od []float32, bias, lo, hi float32) {
	interleaveClampGo(dst, ev, od, bias, lo, hi)
}

func winoRowVec(src, h0, h1, h2, h3 []float32) int { return 0 }
