package vec

import "math"

// fma32 is a·b + c rounded once to float32, as a vector fused
// multiply-add gives it. The product of two float32 values is exact in
// float64; the sum, rounded to float64 and then to float32, rounds twice
// only where the float64 sum falls exactly halfway between two float32
// values, and there the sum's rounding error (TwoSum) says which way the
// exact value lies.
func fma32(a, b, c float32) float32 {
	p, c64 := float64(a)*float64(b), float64(c)
	s := p + c64
	// In float32's normal range a halfway point has exactly the top one of
	// the 29 bits float32 drops set; anything else rounds once, correctly.
	if math.Float64bits(s)&(1<<29-1) != 1<<28 && math.Abs(s) >= 0x1p-126 {
		return float32(s)
	}
	r := float32(s)
	if float64(r) == s || s != s || math.IsInf(s, 0) {
		return r
	}
	toward := math.Inf(1)
	if s < float64(r) {
		toward = math.Inf(-1)
	}
	other := math.Nextafter32(r, float32(toward))
	if mid := (float64(r) + float64(other)) / 2; s != mid {
		return r
	}
	t := s - p
	e := (p - (s - t)) + (c64 - t) // s + e is the exact sum
	switch {
	case e > 0:
		return max(r, other)
	case e < 0:
		return min(r, other)
	}
	return r
}
