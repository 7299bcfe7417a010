//go:build !noasm

package vec

import (
	"math"
	"unsafe"
)

// head is how many of n elements the AVX2 code takes: whole groups of 8.
func head(n int) int {
	if !HasFMA {
		return 0
	}
	return n &^ 7
}

// Add3 sets dst = a + b + c element by element over len(dst).
func Add3(dst, a, b, c []float32) {
	a, b, c = a[:len(dst)], b[:len(dst)], c[:len(dst)]
	v := head(len(dst))
	if v > 0 {
		vecAdd3Asm(v, unsafe.SliceData(dst), unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c))
	}
	add3Ref(dst[v:], a[v:], b[v:], c[v:])
}

// SubSub sets dst = a - b - c element by element over len(dst).
func SubSub(dst, a, b, c []float32) {
	a, b, c = a[:len(dst)], b[:len(dst)], c[:len(dst)]
	v := head(len(dst))
	if v > 0 {
		vecSubSubAsm(v, unsafe.SliceData(dst), unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c))
	}
	subSubRef(dst[v:], a[v:], b[v:], c[v:])
}

// GatherEven sets dst[i] = src[2i] (src holds at least 2·len(dst)-1
// values): a stride-2 convolution's im2col rows.
func GatherEven(dst, src []float32) {
	if len(dst) == 0 {
		return
	}
	src = src[:2*len(dst)-1]
	// The vector loop reads src[2i+1] too, so it stops one group early
	// when that would pass the end.
	v := head(len(src) / 2)
	if v > 0 {
		gatherEvenAsm(v, unsafe.SliceData(dst), unsafe.SliceData(src))
	}
	gatherEvenRef(dst[v:], src[2*v:])
}

// Interleave sets dst[2i] = ev[i] and dst[2i+1] = od[i] for 2i+1 <
// len(dst), and the last element from ev when len(dst) is odd.
func Interleave(dst, ev, od []float32) {
	n := len(dst) / 2
	ev, od = ev[:(len(dst)+1)/2], od[:n]
	v := head(n)
	if v > 0 {
		interleaveAsm(v, unsafe.SliceData(dst), unsafe.SliceData(ev), unsafe.SliceData(od))
	}
	interleaveRef(dst[2*v:], ev[v:], od[v:])
}

// WinoRow runs winoRowRef over the n = min(len(h0), (len(src)-2)/2) tiles
// whose columns src holds and returns n.
func WinoRow(src, h0, h1, h2, h3 []float32) int {
	n := max(min(len(h0), (len(src)-2)/2), 0)
	h0, h1, h2, h3 = h0[:n], h1[:n], h2[:n], h3[:n]
	v := head(n)
	if v > 0 {
		winoRowAsm(v, unsafe.SliceData(src), unsafe.SliceData(h0), unsafe.SliceData(h1), unsafe.SliceData(h2), unsafe.SliceData(h3))
	}
	winoRowRef(src[2*v:], h0[v:], h1[v:], h2[v:], h3[v:])
	return n
}

// WinoCol sets, for len(o0) tiles, o0 = a-c, o1 = b+c, o2 = c-b and o3 =
// b-d (the vertical half of Winograd's input transform); 16 tiles go in
// one AVX call.
func WinoCol(a, b, c, d, o0, o1, o2, o3 []float32) {
	if !HasFMA || len(o0) != NR {
		winoColRef(a, b, c, d, o0, o1, o2, o3)
		return
	}
	_, _, _, _ = a[15], b[15], c[15], d[15]
	_, _, _, _ = o0[15], o1[15], o2[15], o3[15]
	winoColAsm(&a[0], &b[0], &c[0], &d[0], &o0[0], &o1[0], &o2[0], &o3[0])
}

// PanelTaps sets dst[16p+i] = src[taps[p]+s·i] for p < len(taps), i < 16
// (one GEMM panel of a convolution's column matrix), taps ascending: with
// vector moves for s 1 or 2 when the loads stay inside src (checked at the
// first and last tap), else as a gather.
func PanelTaps(dst, src []float32, taps []int32, s int) {
	n := len(taps)
	switch {
	case !HasFMA || n == 0 || taps[0] < 0 || len(dst) < NR*n:
		panelTapsRef(dst, src, taps, s)
	case s == 1 && int(taps[n-1])+NR <= len(src):
		panelTaps1Asm(n, &taps[0], &src[0], &dst[0])
	case s == 2 && int(taps[n-1])+2*NR <= len(src) && UseAVX512:
		panelTaps2AVX512(n, &taps[0], &src[0], &dst[0])
	case s == 2 && int(taps[n-1])+2*NR <= len(src):
		panelTaps2AVX2(n, &taps[0], &src[0], &dst[0])
	case s >= 0 && NR*s <= math.MaxInt32:
		var cols [NR]int32
		for i := range cols {
			cols[i] = int32(s * i)
		}
		PanelGather(dst, src, taps, &cols)
	default:
		panelTapsRef(dst, src, taps, s)
	}
}

// PanelGather sets dst[16p+i] = src[taps[p]+cols[i]] for p < len(taps),
// i < 16, taps and cols ascending: with vector gathers when every index
// falls inside src (checked at their ends).
func PanelGather(dst, src []float32, taps []int32, cols *[NR]int32) {
	n := len(taps)
	if !HasFMA || n == 0 || taps[0] < 0 || cols[0] < 0 || len(src) > math.MaxInt32 ||
		int(taps[n-1])+int(cols[NR-1]) >= len(src) || len(dst) < NR*n {
		panelGatherRef(dst, src, taps, cols)
		return
	}
	if UseAVX512 {
		panelGatherAVX512(n, &taps[0], &cols[0], &src[0], &dst[0])
	} else {
		panelGatherAVX2(n, &taps[0], &cols[0], &src[0], &dst[0])
	}
}

// Wino4Panels runs Wino4Col over chunks runs of 16 floats: run c reads
// s[k][16c:] and writes o[k][c·gap:].
func Wino4Panels(chunks, gap int, s, o *[6][]float32) {
	if chunks <= 0 {
		return
	}
	for k := range s {
		_, _ = s[k][:chunks*NR], o[k][:(chunks-1)*gap+NR]
	}
	if !HasFMA {
		wino4PanelsRef(chunks, gap, s, o)
		return
	}
	wino4PanelsAsm(chunks, gap, s, o)
}

// Wino4Col sets o = Bᵀ·s element by element over n floats (F(4×4)'s 1-D
// input transform), whole groups of 8 in AVX.
func Wino4Col(n int, s, o *[6][]float32) {
	for k := range s {
		_, _ = s[k][:n], o[k][:n]
	}
	v := head(n)
	if v > 0 {
		wino4ColAsm(v, s, o)
	}
	if v < n {
		var st, ot [6][]float32
		for k := range st {
			st[k], ot[k] = s[k][v:], o[k][v:]
		}
		wino4ColRef(n-v, &st, &ot)
	}
}

// Wino4OutCols sets o = Aᵀ·s element by element over n floats (F(4×4)'s
// 1-D output transform), whole groups of 8 in AVX.
func Wino4OutCols(n int, s *[6][]float32, o *[4][]float32) {
	for k := range s {
		_ = s[k][:n]
	}
	for i := range o {
		_ = o[i][:n]
	}
	v := head(n)
	if v > 0 {
		wino4OutAsm(v, s, o)
	}
	if v == n {
		return
	}
	if !HasFMA {
		var st [6][]float32
		var ot [4][]float32
		for k := range st {
			st[k] = s[k][v:]
		}
		for i := range ot {
			ot[i] = o[i][v:]
		}
		wino4OutRef(n-v, &st, &ot)
		return
	}
	// The last few columns through the vector code too, padded to 8 on
	// the stack: the same bits as the emulated fused multiply-adds, at a
	// fraction of their cost (resnet18's 28² and 56² maps leave 1 and 4).
	var pad [10][8]float32
	var st [6][]float32
	var ot [4][]float32
	for k := range st {
		copy(pad[k][:], s[k][v:n])
		st[k] = pad[k][:]
	}
	for i := range ot {
		ot[i] = pad[6+i][:]
	}
	wino4OutAsm(8, &st, &ot)
	for i := range ot {
		copy(o[i][v:n], ot[i])
	}
}

// Interleave4 sets dst[4t+c] = oc[t] for 4t+c < len(dst).
func Interleave4(dst, o0, o1, o2, o3 []float32) {
	n := len(dst) / 4
	v := head(n)
	if v > 0 {
		_, _, _, _ = o0[:v], o1[:v], o2[:v], o3[:v]
		interleave4Asm(v, unsafe.SliceData(dst), unsafe.SliceData(o0), unsafe.SliceData(o1), unsafe.SliceData(o2), unsafe.SliceData(o3))
	}
	interleave4Ref(dst[4*v:], o0[v:], o1[v:], o2[v:], o3[v:])
}

// Wino4Row runs the horizontal half of F(4×4)'s input transform over n
// tiles: tile t reads src[4t:4t+6] and writes h[j·stride+t]; whole
// multiples of 8 tiles go in AVX.
func Wino4Row(src, h []float32, stride, n int) {
	if n <= 0 {
		return
	}
	_, _ = src[:4*n+2], h[:5*stride+n]
	if !HasFMA || n%8 != 0 || len(src) < 4*n+4 {
		wino4RowRef(src, h, stride, n)
		return
	}
	wino4RowAsm(n, unsafe.SliceData(src), unsafe.SliceData(h), stride)
}
