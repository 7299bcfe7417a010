//go:build !amd64 || noasm

package vec

// Quads is quadsRef.
func Quads(dst, src []float32, off []int32, w []float64, stride int) {
	checkQuads(len(dst), off, w, stride)
	quadsRef(dst, src, off, w, stride)
}
