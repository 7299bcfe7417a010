//go:build !amd64 || noasm

package vec

// Transpose16 is transpose16Ref.
func Transpose16(n int, dst []float32, ldd int, src []float32, lds int) {
	transpose16Ref(n, dst, ldd, src, lds)
}
