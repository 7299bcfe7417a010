//go:build !noasm

package vec

// sumRowsAsm runs SumRowsF64 in sumrows_amd64.s when the CPU has it.
func sumRowsAsm(v []float32, count int, dst []float64) bool {
	if !HasFMA {
		return false
	}
	sumRowsF64AVX(len(dst), count, &v[0], &dst[0])
	return true
}

//go:noescape
func sumRowsF64AVX(rows, count int, src *float32, dst *float64)
