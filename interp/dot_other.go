//go:build !amd64

package interp

// dot32 is the sum of a[i]·b[i] (len(b) >= len(a)).
func dot32(a, b []float32) float32 { return dotGo(a, b) }
