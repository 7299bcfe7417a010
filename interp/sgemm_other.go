//go:build !amd64

package interp

const hasFMA = false

// useAVX512 is false: there are no AVX-512 kernels here.
const useAVX512 = false

// microTile returns gemmMR and gemmMC; only the blocking matters here,
// since gonum runs the products.
func microTile() (mr, mc int) { return 6, 120 }

func microKernel(k int, a, b, c []float32, ldc int, add bool) {
	panic("no micro-kernel on this architecture")
}

func microKernelB(rows, k int, a, b []float32, ldb int, c []float32, ldc int, add, prefetch bool) {
	panic("no micro-kernel on this architecture")
}

func microColumn(kb, panels int, a, b []float32, ldb int, c []float32, ldc int, add bool) {
	panic("no micro-kernel on this architecture")
}
