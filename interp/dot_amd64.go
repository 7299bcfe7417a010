package interp

//go:noescape
func dotAVX(n int, a, b *float32) float32

// dot32 is the sum of a[i]·b[i] (len(b) >= len(a)): vector FMA over the
// multiple-of-8 part where the CPU has it, the rest (or all, without FMA)
// by dotGo.
func dot32(a, b []float32) float32 {
	n := len(a) &^ 7
	if !hasFMA || n == 0 {
		return dotGo(a, b)
	}
	b = b[:len(a)]
	return dotAVX(n, &a[0], &b[0]) + dotGo(a[n:], b[n:])
}
