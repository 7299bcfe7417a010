package interp

import "unsafe"

//go:noescape
func vecAddAsm(n int, dst, a, b *float32)

//go:noescape
func vecSubAsm(n int, dst, a, b *float32)

//go:noescape
func vecAdd3Asm(n int, dst, a, b, c *float32)

//go:noescape
func vecSubSubAsm(n int, dst, a, b, c *float32)

// vecAdd sets dst = a + b, vecSub dst = a - b, vecAdd3 dst = a + b + c and
// vecSubSub dst = a - b - c, element by element over len(dst): the
// Winograd transforms are made of these. Whole groups of 8 run in AVX.
func vecAdd(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	v := vecHead(len(dst))
	if v > 0 {
		vecAddAsm(v, unsafe.SliceData(dst), unsafe.SliceData(a), unsafe.SliceData(b))
	}
	vecAddGo(dst[v:], a[v:], b[v:])
}

func vecSub(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	v := vecHead(len(dst))
	if v > 0 {
		vecSubAsm(v, unsafe.SliceData(dst), unsafe.SliceData(a), unsafe.SliceData(b))
	}
	vecSubGo(dst[v:], a[v:], b[v:])
}

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
