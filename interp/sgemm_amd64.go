package interp

import (
	"os"
	"unsafe"
)

//go:noescape
func sgemmKernel6x16(k int, a, b, c *float32, ldc int, add bool)

//go:noescape
func sgemmKernel16x16(k int, a, b *float32, ldb int, c *float32, ldc int, add, prefetch bool)

//go:noescape
func sgemmKernel8x16(k int, a, b *float32, ldb int, c *float32, ldc int, add, prefetch bool)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// hasFMA reports AVX2 + FMA3 with the OS saving the YMM registers.
var hasFMA = func() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if c1&fma == 0 || c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0 // AVX2
}()

// hasAVX512 reports AVX-512F with the OS saving the opmask and ZMM
// registers (XCR0 bits 5–7 besides SSE and AVX state).
var hasAVX512 = hasFMA && func() bool {
	_, b7, _, _ := cpuid(7, 0)
	xcr0, _ := xgetbv()
	return b7&(1<<16) != 0 && xcr0&0xe6 == 0xe6
}()

// useAVX512 selects the 16×16 micro-kernel; MODELBRIDGE_NO_AVX512=1 keeps
// the AVX2 one (to compare them, or to match a machine without AVX-512).
var useAVX512 = hasAVX512 && os.Getenv("MODELBRIDGE_NO_AVX512") == ""

// microTile returns gemmMR and gemmMC for the micro-kernel in use.
func microTile() (mr, mc int) {
	if useAVX512 {
		return 16, 128
	}
	return 6, 120
}

// microKernelB is microKernel reading B in place, its k rows of 16 floats
// ldb apart, with the AVX-512 kernels (which alone take a B stride), for
// the first rows (16, or 8) of the packed panel a; prefetch asks them to
// fetch B's rows two panels ahead.
func microKernelB(rows, k int, a, b []float32, ldb int, c []float32, ldc int, add, prefetch bool) {
	if k > 0 {
		_ = a[16*k-1] // bounds checks: the assembly trusts these lengths
		_ = b[(k-1)*ldb+15]
	}
	_ = c[(rows-1)*ldc+15]
	switch rows {
	case 16:
		sgemmKernel16x16(k, unsafe.SliceData(a), unsafe.SliceData(b), ldb, unsafe.SliceData(c), ldc, add, prefetch)
	case 8:
		sgemmKernel8x16(k, unsafe.SliceData(a), unsafe.SliceData(b), ldb, unsafe.SliceData(c), ldc, add, prefetch)
	default:
		panic("microKernelB: rows must be 16 or 8")
	}
}

// microKernel adds the gemmMR×16 product of packed panels into c, or
// stores it there when add is false.
func microKernel(k int, a, b, c []float32, ldc int, add bool) {
	mr := gemmMR
	if k > 0 {
		_ = a[mr*k-1] // bounds checks: the assembly trusts these lengths
		_ = b[16*k-1]
	}
	_ = c[(mr-1)*ldc+15]
	if mr == 16 {
		// C's rows far apart: prefetch its next strips (see CPREFETCH16).
		prefetch := ldc >= prefetchRowLen
		sgemmKernel16x16(k, unsafe.SliceData(a), unsafe.SliceData(b), gemmNR, unsafe.SliceData(c), ldc, add, prefetch)
		return
	}
	sgemmKernel6x16(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc, add)
}
