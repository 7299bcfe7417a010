//go:build !noasm

package vec

// Dot is the sum of a[i]·b[i] (len(b) >= len(a)); see dot.go.
func Dot(a, b []float32) float32 {
	n := len(a) &^ 7
	if !HasFMA || n == 0 {
		return dotRef(a, b)
	}
	b = b[:len(a)]
	return dotAVX(n, &a[0], &b[0]) + dotTail(a[n:], b[n:])
}

// Dot4 sets out[r] to Dot(a, w[r·ldw:]) for r < 4 (w holds 3·ldw + len(a)
// values or more), reading a once for the four.
func Dot4(a, w []float32, ldw int, out *[4]float32) {
	k := len(a)
	n := k &^ 7
	if !HasFMA || n == 0 || ldw < k {
		dot4Ref(a, w, ldw, out)
		return
	}
	w = w[:3*ldw+k]
	dot4AVX(n, &a[0], &w[0], ldw, out)
	for r := range out {
		out[r] += dotTail(a[n:], w[r*ldw+n:])
	}
}
