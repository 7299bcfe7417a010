//go:build !amd64 || noasm

package vec

// sumRowsAsm: without the assembly SumRowsF64 adds row by row.
func sumRowsAsm(v []float32, count int, dst []float64) bool { return false }
