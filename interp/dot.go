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
