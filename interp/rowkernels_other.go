//go:build !amd64

package interp

func clampRow(row, res []float32, bias, lo, hi float32) { clampRowGo(row, res, bias, lo, hi) }

// dwConv3Vector has no vector kernel here: it computes nothing.
func dwConv3Vector(src []float32, ld, rows, sw int, w *[9]float32, bias float32, dst []float32, acc bool) int {
	return 0
}

func poolStep(acc, src []float32, sw int, isMax bool) { poolStepGo(acc, src, sw, isMax) }
