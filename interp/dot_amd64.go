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

//go:noescape
func dot4AVX(n int, a, w *float32, ldw int, out *[4]float32)

// dot32x4 sets out[r] to dot32(a, w[r·ldw:]) for r < 4 (w holds 3·ldw +
// len(a) values or more), reading a once for the four.
func dot32x4(a, w []float32, ldw int, out *[4]float32) {
	k := len(a)
	n := k &^ 7
	if !hasFMA || n == 0 || ldw < k {
		dot32x4Go(a, w, ldw, out)
		return
	}
	w = w[:3*ldw+k]
	dot4AVX(n, &a[0], &w[0], ldw, out)
	for r := range out {
		out[r] += dotGo(a[n:], w[r*ldw+n:])
	}
}
