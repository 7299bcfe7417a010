//go:build !amd64

package interp

// dot32 is the sum of a[i]·b[i] (len(b) >= len(a)).
func dot32(a, b []float32) float32 { return dotGo(a, b) }

func dot32x4(a, w []float32, ldw int, out *[4]float32) { dot32x4Go(a, w, ldw, out) }
