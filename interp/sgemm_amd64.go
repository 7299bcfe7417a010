package interp

import "unsafe"

//go:noescape
func sgemmKernel6x16(k int, a, b, c *float32, ldc int)

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

// microKernel adds the 6x16 product of packed panels into c.
func microKernel(k int, a, b, c []float32, ldc int) {
	if k > 0 {
		_ = a[6*k-1] // bounds checks: the assembly trusts these lengths
		_ = b[16*k-1]
	}
	_ = c[5*ldc+15]
	sgemmKernel6x16(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc)
}

//go:noescape
func dwRow3(n int, src, w, dst *float32)

// depthRow3 adds w[0]·src[i] + w[1]·src[i+1] + w[2]·src[i+2] to dst[i]
// for every i of dst; src must hold len(dst)+2 values.
func depthRow3(src, w, dst []float32) {
	n := len(dst)
	_ = src[n+1]
	_ = w[2]
	v := 0
	if hasFMA {
		v = n &^ 7
		if v > 0 {
			dwRow3(v, unsafe.SliceData(src), unsafe.SliceData(w), unsafe.SliceData(dst))
		}
	}
	depthRow3Go(src[v:], w, dst[v:])
}
