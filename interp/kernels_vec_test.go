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

// softmaxStridedGo is vec.SoftmaxStrided with the vector code off: its
// pure-Go reference.
func softmaxStridedGo(dst, src []float32, base, n, stride int) {
	defer setVectorLevel(false, false)()
	vec.SoftmaxStrided(dst, src, base, n, stride)
}
