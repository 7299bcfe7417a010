package interp

import (
	"math"
	"unsafe"
)

//go:noescape
func vecAdd3Asm(n int, dst, a, b, c *float32)

//go:noescape
func vecSubSubAsm(n int, dst, a, b, c *float32)

// vecAdd3 sets dst = a + b + c and vecSubSub dst = a - b - c, element by
// element over len(dst): Winograd's output transform is made of these.
// Whole groups of 8 run in AVX.
func vecAdd3(dst, a, b, c []float32) {
	a, b, c = a[:len(dst)], b[:len(dst)], c[:len(dst)]
	v := vecHead(len(dst))
	if v > 0 {
		vecAdd3Asm(v, unsafe.SliceData(dst), unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c))
	}
	vecAdd3Go(dst[v:], a[v:], b[v:], c[v:])
}

func vecSubSub(dst, a, b, c []float32) {
	a, b, c = a[:len(dst)], b[:len(dst)], c[:len(dst)]
	v := vecHead(len(dst))
	if v > 0 {
		vecSubSubAsm(v, unsafe.SliceData(dst), unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c))
	}
	vecSubSubGo(dst[v:], a[v:], b[v:], c[v:])
}

// vecHead is how many of n elements the vector code takes (none without
// AVX2).
func vecHead(n int) int {
	if !hasFMA {
		return 0
	}
	return n &^ 7
}

//go:noescape
func gatherEvenAsm(n int, dst, src *float32)

// gatherEven sets dst[i] = src[2i] (src holds at least 2·len(dst)-1
// values): a stride-2 convolution's im2col rows.
func gatherEven(dst, src []float32) {
	if len(dst) == 0 {
		return
	}
	src = src[:2*len(dst)-1]
	// The vector loop reads src[2i+1] too, so it stops one group early
	// when that would pass the end.
	v := vecHead(len(src) / 2)
	if v > 0 {
		gatherEvenAsm(v, unsafe.SliceData(dst), unsafe.SliceData(src))
	}
	gatherEvenGo(dst[v:], src[2*v:])
}

//go:noescape
func interleaveAsm(n int, dst, ev, od *float32)

// interleave sets dst[2i] = ev[i] and dst[2i+1] = od[i] for 2i+1 <
// len(dst), and the last element from ev when len(dst) is odd.
func interleave(dst, ev, od []float32) {
	n := len(dst) / 2
	ev, od = ev[:(len(dst)+1)/2], od[:n]
	v := vecHead(n)
	if v > 0 {
		interleaveAsm(v, unsafe.SliceData(dst), unsafe.SliceData(ev), unsafe.SliceData(od))
	}
	interleaveGo(dst[2*v:], ev[v:], od[v:])
}

//go:noescape
func winoRowAsm(n int, src, h0, h1, h2, h3 *float32)

// winoRowVec runs the horizontal input transform (see winoRowAsm) over as
// many whole groups of 8 tiles as src holds (it needs 2n+2 values for n
// tiles) and len(h0) allows; it returns how many tiles it did.
func winoRowVec(src, h0, h1, h2, h3 []float32) int {
	if !hasFMA {
		return 0
	}
	n := min(len(h0), (len(src)-2)/2) &^ 7
	if n <= 0 {
		return 0
	}
	_, _, _ = h1[n-1], h2[n-1], h3[n-1]
	winoRowAsm(n, unsafe.SliceData(src), unsafe.SliceData(h0), unsafe.SliceData(h1), unsafe.SliceData(h2), unsafe.SliceData(h3))
	return n
}

//go:noescape
func winoColAsm(a, b, c, d, o0, o1, o2, o3 *float32)

// winoCol16 sets, for 16 tiles, o0 = a-c, o1 = b+c, o2 = c-b and o3 = b-d
// (the vertical half of Winograd's input transform).
func winoCol16(a, b, c, d, o0, o1, o2, o3 []float32) {
	if !hasFMA {
		winoColGo(a, b, c, d, o0, o1, o2, o3)
		return
	}
	_, _, _, _ = a[15], b[15], c[15], d[15]
	_, _, _, _ = o0[15], o1[15], o2[15], o3[15]
	winoColAsm(&a[0], &b[0], &c[0], &d[0], &o0[0], &o1[0], &o2[0], &o3[0])
}

//go:noescape
func panelTaps1Asm(n int, taps *int32, src, dst *float32)

//go:noescape
func panelTaps2Asm(n int, taps *int32, src, dst *float32)

// panelTapsAVX512 selects panelTaps' AVX-512 kernel for stride 2 (its
// tests also run the AVX2 one).
var panelTapsAVX512 = hasAVX512

//go:noescape
func panelTaps2AVX512(n int, taps *int32, src, dst *float32)

// panelTaps sets dst[16p+i] = src[taps[p]+s·i] for p < len(taps), i < 16
// (one GEMM panel of a convolution's column matrix, see im2colPanels) with
// vector moves, for s 1 or 2. taps must ascend: the bounds are checked at
// the first and last. It reports false, doing nothing, when it cannot:
// another stride, no AVX2, or loads that would pass the end of src.
func panelTaps(dst, src []float32, taps []int32, s int) bool {
	n := len(taps)
	if !hasFMA || (s != 1 && s != 2) || n == 0 || taps[0] < 0 ||
		int(taps[n-1])+gemmNR*s > len(src) || len(dst) < gemmNR*n {
		return false
	}
	switch {
	case s == 1:
		panelTaps1Asm(n, &taps[0], &src[0], &dst[0])
	case panelTapsAVX512:
		panelTaps2AVX512(n, &taps[0], &src[0], &dst[0])
	default:
		panelTaps2Asm(n, &taps[0], &src[0], &dst[0])
	}
	return true
}

//go:noescape
func panelGatherAVX512(n int, taps, cols *int32, src, dst *float32)

//go:noescape
func panelGatherAVX2(n int, taps, cols *int32, src, dst *float32)

// panelGather sets dst[16p+i] = src[taps[p]+cols[i]] for p < len(taps),
// i < 16 with vector gathers: a panel of the column matrix whose columns
// are no single run of an output row. taps and cols must ascend: the
// bounds are checked at their ends. It reports false, doing nothing,
// without AVX2 or when an index would fall outside src.
func panelGather(dst, src []float32, taps []int32, cols *[gemmNR]int32) bool {
	n := len(taps)
	if !hasFMA || n == 0 || taps[0] < 0 || cols[0] < 0 || len(src) > math.MaxInt32 ||
		int(taps[n-1])+int(cols[gemmNR-1]) >= len(src) || len(dst) < gemmNR*n {
		return false
	}
	if panelTapsAVX512 {
		panelGatherAVX512(n, &taps[0], &cols[0], &src[0], &dst[0])
	} else {
		panelGatherAVX2(n, &taps[0], &cols[0], &src[0], &dst[0])
	}
	return true
}

//go:noescape
func wino4ColAsm(n int, s, o *[6][]float32)

//go:noescape
func wino4PanelsAsm(chunks, gap int, s, o *[6][]float32)

// wino4Panels runs wino4Col over chunks runs of 16 floats: run c reads
// s[k][16c:] and writes o[k][c·gap:].
func wino4Panels(chunks, gap int, s, o *[6][]float32) {
	if chunks <= 0 {
		return
	}
	for k := range s {
		_, _ = s[k][:chunks*gemmNR], o[k][:(chunks-1)*gap+gemmNR]
	}
	if !hasFMA {
		wino4PanelsGo(chunks, gap, s, o)
		return
	}
	wino4PanelsAsm(chunks, gap, s, o)
}

//go:noescape
func wino4OutAsm(n int, s *[6][]float32, o *[4][]float32)

// wino4Col sets o = Bᵀ·s element by element over n floats (F(4×4)'s 1-D
// input transform), whole groups of 8 in AVX.
func wino4Col(n int, s, o *[6][]float32) {
	for k := range s {
		_, _ = s[k][:n], o[k][:n]
	}
	v := vecHead(n)
	if v > 0 {
		wino4ColAsm(v, s, o)
	}
	if v < n {
		var st, ot [6][]float32
		for k := range st {
			st[k], ot[k] = s[k][v:], o[k][v:]
		}
		wino4ColGo(n-v, &st, &ot)
	}
}

// wino4OutVec sets o = Aᵀ·s element by element over n floats (F(4×4)'s
// 1-D output transform), whole groups of 8 in AVX.
func wino4OutVec(n int, s *[6][]float32, o *[4][]float32) {
	for k := range s {
		_ = s[k][:n]
	}
	for i := range o {
		_ = o[i][:n]
	}
	v := vecHead(n)
	if v > 0 {
		wino4OutAsm(v, s, o)
	}
	if v < n {
		var st [6][]float32
		var ot [4][]float32
		for k := range st {
			st[k] = s[k][v:]
		}
		for i := range ot {
			ot[i] = o[i][v:]
		}
		wino4OutGo(n-v, &st, &ot)
	}
}

//go:noescape
func interleave4Asm(n int, dst, o0, o1, o2, o3 *float32)

// interleave4 sets dst[4t+c] = oc[t] for 4t+c < len(dst).
func interleave4(dst, o0, o1, o2, o3 []float32) {
	n := len(dst) / 4
	v := vecHead(n)
	if v > 0 {
		_, _, _, _ = o0[:v], o1[:v], o2[:v], o3[:v]
		interleave4Asm(v, unsafe.SliceData(dst), unsafe.SliceData(o0), unsafe.SliceData(o1), unsafe.SliceData(o2), unsafe.SliceData(o3))
	}
	interleave4Go(dst[4*v:], o0[v:], o1[v:], o2[v:], o3[v:])
}

//go:noescape
func wino4RowAsm(n int, src, h *float32, stride int)

// wino4Row runs the horizontal half of F(4×4)'s input transform over n
// tiles (a multiple of 8): tile t reads src[4t:4t+6] and writes
// h[j*stride+t].
func wino4Row(src, h []float32, stride, n int) {
	if n <= 0 {
		return
	}
	_, _ = src[:4*n+4], h[:5*stride+n]
	if !hasFMA || n%8 != 0 {
		wino4RowGo(src, h, stride, n)
		return
	}
	wino4RowAsm(n, unsafe.SliceData(src), unsafe.SliceData(h), stride)
}
