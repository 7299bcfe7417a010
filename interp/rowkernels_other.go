//go:build !amd64

package interp

func clampRow(row, res []float32, bias, lo, hi float32) { clampRowGo(row, res, bias, lo, hi) }
