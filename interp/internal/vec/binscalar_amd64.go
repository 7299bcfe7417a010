//go:build !noasm

package vec

import "unsafe"

//go:noescape
func binScalarAddAVX512(n int, d, a *float32, k float32, left bool)

//go:noescape
func binScalarSubAVX512(n int, d, a *float32, k float32, left bool)

//go:noescape
func binScalarMulAVX512(n int, d, a *float32, k float32, left bool)

//go:noescape
func binScalarDivAVX512(n int, d, a *float32, k float32, left bool)

//go:noescape
func binScalarAddAVX2(n int, d, a *float32, k float32, left bool)

//go:noescape
func binScalarSubAVX2(n int, d, a *float32, k float32, left bool)

//go:noescape
func binScalarMulAVX2(n int, d, a *float32, k float32, left bool)

//go:noescape
func binScalarDivAVX2(n int, d, a *float32, k float32, left bool)

//go:noescape
func binRowsAddAVX512(n int, d, a, b *float32)

//go:noescape
func binRowsSubAVX512(n int, d, a, b *float32)

//go:noescape
func binRowsMulAVX512(n int, d, a, b *float32)

//go:noescape
func binRowsDivAVX512(n int, d, a, b *float32)

//go:noescape
func binRowsAddAVX2(n int, d, a, b *float32)

//go:noescape
func binRowsSubAVX2(n int, d, a, b *float32)

//go:noescape
func binRowsMulAVX2(n int, d, a, b *float32)

//go:noescape
func binRowsDivAVX2(n int, d, a, b *float32)

//go:noescape
func binPerRowAddAVX512(rows, full int, d, a, k *float32, tail int, left bool)

//go:noescape
func binPerRowSubAVX512(rows, full int, d, a, k *float32, tail int, left bool)

//go:noescape
func binPerRowMulAVX512(rows, full int, d, a, k *float32, tail int, left bool)

//go:noescape
func binPerRowDivAVX512(rows, full int, d, a, k *float32, tail int, left bool)

var binPerRowKernels = [4]func(rows, full int, d, a, k *float32, tail int, left bool){
	binPerRowAddAVX512, binPerRowSubAVX512, binPerRowMulAVX512, binPerRowDivAVX512,
}

// BinPerRow sets each row r of d (len(k) rows of n floats) to a's row r ∘
// k[r] (k[r] ∘ a's row when left), as BinScalar does a row: with AVX-512
// in one call for all rows, the last floats of each through a mask.
func BinPerRow(op BinOp, d, a, k []float32, n int, left bool) {
	rows := len(k)
	d, a = d[:rows*n], a[:rows*n]
	if !UseAVX512 || op < BinAdd || op > BinDiv || rows == 0 || n == 0 {
		binPerRowRef(op, d, a, k, n, left)
		return
	}
	binPerRowKernels[op](rows, n/16, unsafe.SliceData(d), unsafe.SliceData(a), unsafe.SliceData(k), n%16, left)
}

var binScalarKernels = [2][4]func(n int, d, a *float32, k float32, left bool){
	{binScalarAddAVX2, binScalarSubAVX2, binScalarMulAVX2, binScalarDivAVX2},
	{binScalarAddAVX512, binScalarSubAVX512, binScalarMulAVX512, binScalarDivAVX512},
}

// BinScalar sets d[i] = a[i] ∘ k (k ∘ a[i] when left) as binScalarRef:
// whole vectors in AVX-512 or AVX2, the rest in Go. d may be a itself.
func BinScalar(op BinOp, d, a []float32, k float32, left bool) {
	a = a[:len(d)]
	v := 0
	if HasFMA && op >= BinAdd && op <= BinDiv {
		w := 0
		v = len(d) &^ 7
		if UseAVX512 {
			w, v = 1, len(d)&^15
		}
		if v > 0 {
			binScalarKernels[w][op](v, unsafe.SliceData(d), unsafe.SliceData(a), k, left)
		}
	}
	binScalarRef(op, d[v:], a[v:], k, left)
}

var binRowsKernels = [2][4]func(n int, d, a, b *float32){
	{binRowsAddAVX2, binRowsSubAVX2, binRowsMulAVX2, binRowsDivAVX2},
	{binRowsAddAVX512, binRowsSubAVX512, binRowsMulAVX512, binRowsDivAVX512},
}

// BinRows sets d[i] = a[i] ∘ b[i] as binRowsRef: whole vectors in AVX-512
// or AVX2, the rest in Go. d may be a or b itself.
func BinRows(op BinOp, d, a, b []float32) {
	a, b = a[:len(d)], b[:len(d)]
	v := 0
	if HasFMA && op >= BinAdd && op <= BinDiv {
		w := 0
		v = len(d) &^ 7
		if UseAVX512 {
			w, v = 1, len(d)&^15
		}
		if v > 0 {
			binRowsKernels[w][op](v, unsafe.SliceData(d), unsafe.SliceData(a), unsafe.SliceData(b))
		}
	}
	binRowsRef(op, d[v:], a[v:], b[v:])
}
