package interp

import "github.com/modelbridge/modelbridge/interp/internal/vec"

// setVectorLevel switches the interpreter's algorithm choices and the
// kernels' vector code together to AVX-512 (avx512), AVX2 + FMA (fma
// only) or neither, as on a machine with that much; the returned function
// restores them.
func setVectorLevel(avx512, fma bool) func() {
	old512, oldFMA, oldVec512, oldVecFMA := useAVX512, hasFMA, vec.UseAVX512, vec.HasFMA
	useAVX512, hasFMA = avx512, fma
	vec.UseAVX512, vec.HasFMA = avx512, fma
	return func() {
		useAVX512, hasFMA, vec.UseAVX512, vec.HasFMA = old512, oldFMA, oldVec512, oldVecFMA
	}
}

// softmaxStridedGo is the softmax of the n values of src at base,
// base+stride, ... with the vector code off: the run gathered into a row
// for vec.SoftmaxRows32's pure-Go path, and put back.
func softmaxStridedGo(dst, src []float32, base, n, stride int) {
	defer setVectorLevel(false, false)()
	row := make([]float32, n)
	for k := range row {
		row[k] = src[base+k*stride]
	}
	vec.SoftmaxRows32(row, row, n)
	for k, v := range row {
		dst[base+k*stride] = v
	}
}
