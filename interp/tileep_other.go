//go:build !amd64

package interp

// canClampTile is false: there is no tile kernel here.
func canClampTile(lo, hi float32) bool { return false }

func clampTile(y []float32, ld, rows, cols int, bias, res []float32, lo, hi float32) {
	panic("no tile epilogue on this architecture")
}
