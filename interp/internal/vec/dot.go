package vec

// Dot family: dot products of float32 rows.
//
// Dot(a, b) is the sum of a[i]·b[i] (len(b) >= len(a)): the multiple-of-8
// part in float32 with two 8-lane fused multiply-add accumulators (16
// values a step, then 8 into the first), the lanes summed as dotLanes
// does, plus the rest added in float64 and rounded once.
// Dot4(a, w, ldw, out) sets out[r] = Dot(a, w[r·ldw:]) for r < 4.

// dotRef is Dot's reference.
func dotRef(a, b []float32) float32 {
	b = b[:len(a)]
	n := len(a) &^ 7
	if n == 0 {
		return dotTail(a, b)
	}
	var acc0, acc1 [8]float32
	i := 0
	for ; i+16 <= n; i += 16 {
		for l := range 8 {
			acc0[l] = fma32(a[i+l], b[i+l], acc0[l])
			acc1[l] = fma32(a[i+8+l], b[i+8+l], acc1[l])
		}
	}
	if i < n {
		for l := range 8 {
			acc0[l] = fma32(a[i+l], b[i+l], acc0[l])
		}
	}
	return dotLanes(&acc0, &acc1) + dotTail(a[n:], b[n:])
}

// dotLanes adds two accumulators lane by lane, then the halves, then
// neighbours twice (VADDPS, VEXTRACTF128 + VADDPS, VHADDPS twice).
func dotLanes(acc0, acc1 *[8]float32) float32 {
	var s [8]float32
	for l := range s {
		s[l] = acc0[l] + acc1[l]
	}
	var h [4]float32
	for l := range h {
		h[l] = s[l] + s[l+4]
	}
	return (h[0] + h[1]) + (h[2] + h[3])
}

// dotTail is the sum of a[i]·b[i] accumulated in float64.
func dotTail(a, b []float32) float32 {
	b = b[:len(a)]
	var s float64
	for i, v := range a {
		s += float64(v) * float64(b[i])
	}
	return float32(s)
}

// dot4Ref is Dot4's reference.
func dot4Ref(a, w []float32, ldw int, out *[4]float32) {
	for r := range out {
		out[r] = dotRef(a, w[r*ldw:])
	}
}
