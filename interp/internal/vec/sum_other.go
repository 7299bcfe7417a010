//go:build !amd64 || noasm

package vec

// SumF64 is its reference without the assembly; see sum.go.
func SumF64(row []float32) float64 { return sumF64Ref(row) }

// SumSqDevF64 is its reference without the assembly; see sum.go.
func SumSqDevF64(row []float32, mean float64) float64 { return sumSqDevF64Ref(row, mean) }
