//go:build !amd64

package interp

// depthwise3x3AVX512 has no vector kernel here: it computes nothing.
func depthwise3x3AVX512(g *geom3, x, w, bias, y []float32, n, c int, ep clampEp) bool { return false }
