package interp

// dotGo is the sum of a[i]·b[i] (len(b) >= len(a)), accumulated in
// float64: the plain path dot32's vector code is checked against.
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s float64
	for i, v := range a {
		s += float64(v) * float64(b[i])
	}
	return float32(s)
}

// dot32x4Go is dot32x4 one row at a time.
func dot32x4Go(a, w []float32, ldw int, out *[4]float32) {
	for r := range out {
		out[r] = dot32(a, w[r*ldw:])
	}
}
