//go:build !noasm

package vec

import "unsafe"

// Kernel6x16 adds (or stores, when add is false) the 6×16 product of
// packed panels into c (row stride ldc): a holds k groups of 6 floats, b
// k groups of 16.
func Kernel6x16(k int, a, b, c []float32, ldc int, add bool) {
	if k > 0 {
		_ = a[6*k-1] // bounds checks: the assembly trusts these lengths
		_ = b[16*k-1]
	}
	_ = c[5*ldc+15]
	if !HasFMA {
		kernelRef(6, 6, k, a, b, NR, c, ldc, add)
		return
	}
	sgemmKernel6x16(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc, add)
}

// Kernel16 adds (or stores) the rows×16 product (rows 16 or 8) of the
// packed panel a (k groups of 16 floats, of which the first rows count)
// and B read in place, k rows of 16 floats ldb apart, into c; prefetch
// asks the AVX-512 kernels to fetch B's rows two panels ahead.
func Kernel16(rows, k int, a, b []float32, ldb int, c []float32, ldc int, add, prefetch bool) {
	if k > 0 {
		_ = a[16*k-1] // bounds checks: the assembly trusts these lengths
		_ = b[(k-1)*ldb+15]
	}
	_ = c[(rows-1)*ldc+15]
	switch {
	case !HasAVX512 || (rows != 16 && rows != 8):
		kernelRef(rows, 16, k, a, b, ldb, c, ldc, add)
	case rows == 16:
		sgemmKernel16x16(k, unsafe.SliceData(a), unsafe.SliceData(b), ldb, unsafe.SliceData(c), ldc, add, prefetch)
	default:
		sgemmKernel8x16(k, unsafe.SliceData(a), unsafe.SliceData(b), ldb, unsafe.SliceData(c), ldc, add, prefetch)
	}
}

// Column16 computes one column of C for panels full 16-row panels of the
// packed A block a (k-major panels of kb groups of 16 floats): c[r·ldc]
// (+)= Σ_p a[r, p]·b[p·ldb] for the 16·panels rows r, each sum in the
// order and with the FMAs the 16×16 kernel uses, so a narrow edge of C
// costs its own columns only, not a whole 16-column tile.
func Column16(kb, panels int, a, b []float32, ldb int, c []float32, ldc int, add bool) {
	if panels <= 0 {
		return
	}
	if kb > 0 {
		_ = a[panels*16*kb-1] // bounds checks: the assembly trusts these lengths
		_ = b[(kb-1)*ldb]
	}
	_ = c[(panels*16-1)*ldc]
	if !HasAVX512 {
		columnRef(kb, panels, a, b, ldb, c, ldc, add)
		return
	}
	for p := 0; p < panels; {
		n := 8
		for n > panels-p {
			n /= 2
		}
		ap, cp := unsafe.SliceData(a[p*16*kb:]), unsafe.SliceData(c[p*16*ldc:])
		switch n {
		case 8:
			sgemmColumn16x8(kb, ap, 16*kb, unsafe.SliceData(b), ldb, cp, ldc, add)
		case 4:
			sgemmColumn16x4(kb, ap, 16*kb, unsafe.SliceData(b), ldb, cp, ldc, add)
		case 2:
			sgemmColumn16x2(kb, ap, 16*kb, unsafe.SliceData(b), ldb, cp, ldc, add)
		default:
			sgemmColumn16x1(kb, ap, 16*kb, unsafe.SliceData(b), ldb, cp, ldc, add)
		}
		p += n
	}
}
