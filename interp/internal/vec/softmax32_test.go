package vec

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// ExpShift32 and SoftmaxRows32 equal their scalar references bit for bit
// at every width, on every length (tails included), on rows with -Inf
// (masked keys), rows masked everywhere and rows with a NaN.
func TestSoftmaxRows32MatchesReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(35))
		for _, n := range lengths[1:] {
			for _, scale := range []float64{1, 8, 60} {
				s := randF32(r, n, scale)
				m, ok := rowMax32Ref(s)
				if ok {
					got, want := guard32(n), make([]float32, n)
					ExpShift32(got, s, m)
					expShift32Ref(want, s, m)
					sameBits32(t, fmt.Sprintf("ExpShift32 n=%d", n), got, want)
					checkGuard32(t, "ExpShift32", got)
				}
				for _, rows := range [][]float32{s, masked(r, s, 0.3), masked(r, s, 1), withNaN(s)} {
					got, want := guard32(3*n), make([]float32, 3*n)
					for k := range 3 {
						copy(got[k*n:], rows)
						copy(want[k*n:], rows)
					}
					SoftmaxRows32(got, got, n)
					softmaxRows32Ref(want, want, n)
					sameBits32(t, fmt.Sprintf("SoftmaxRows32 n=%d", n), got, want)
					checkGuard32(t, "SoftmaxRows32", got)
				}
			}
		}
	})
}

// ExpShift32 equals its reference bit for bit over a sweep of every t in
// [-104, 0] (1 of 509 bit patterns: subnormal results and the scaling by
// 2^k in one step or two), below it and at NaN.
func TestExpShift32Sweep(t *testing.T) {
	var s []float32
	for b := uint32(1 << 31); b <= math.Float32bits(-104); b += 509 {
		s = append(s, math.Float32frombits(b))
	}
	s = append(s, -104.5, -200, float32(math.Inf(-1)), float32(math.NaN()))
	levels(t, func(t *testing.T) {
		got, want := make([]float32, len(s)), make([]float32, len(s))
		ExpShift32(got, s, 0)
		expShift32Ref(want, s, 0)
		sameBits32(t, "ExpShift32 sweep", got, want)
	})
}

// SoftmaxColumns32 gives each column the bits SoftmaxRows32 gives it as a
// row, for column counts around the 16-column blocks, lengths around the
// 16-row transposes, and columns with -Inf and NaN; the values between
// the columns are left alone.
func TestSoftmaxColumns32MatchesRows(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(36))
		for _, n := range []int{1, 5, 16, 17, 40} {
			for _, cols := range []int{1, 15, 16, 21, 35} {
				stride := cols + 3
				src := masked(r, randF32(r, n*stride+2, 9), 0.05)
				if n > 1 {
					src[2+stride+1] = float32(math.NaN()) // column 1
				}
				got := append([]float32(nil), src...)
				SoftmaxColumns32(got, got, 2, n, stride, cols, make([]float32, 16*n))
				for c := range stride {
					col, want := make([]float32, n), make([]float32, n)
					for k := range n {
						col[k] = src[2+k*stride+c]
					}
					if c < cols {
						SoftmaxRows32(want, col, n)
					} else {
						copy(want, col)
					}
					for k := range n {
						col[k] = got[2+k*stride+c]
					}
					sameBits32(t, fmt.Sprintf("SoftmaxColumns32 n=%d cols=%d column %d", n, cols, c), col, want)
				}
			}
		}
	})
}

// masked is s with a fraction of its values -Inf.
func masked(r *rand.Rand, s []float32, frac float64) []float32 {
	out := append([]float32(nil), s...)
	for i := range out {
		if r.Float64() < frac {
			out[i] = float32(math.Inf(-1))
		}
	}
	return out
}

func withNaN(s []float32) []float32 {
	out := append([]float32(nil), s...)
	out[len(out)/2] = float32(math.NaN())
	return out
}

// TestExpNeg32Accuracy bounds expNeg32's error against math.Exp over a
// sweep of every t in [-104, 0] (1 of 509 bit patterns): at most 1 ulp,
// subnormal results included; below -104 it is 0, as e^t rounds to 0.
func TestExpNeg32Accuracy(t *testing.T) {
	lo := math.Float32bits(-104)
	worst, at := 0.0, float32(0)
	for b := uint32(1 << 31); b <= lo; b += 509 {
		x := math.Float32frombits(b)
		if u := ulpError(expNeg32(x), math.Exp(float64(x))); u > worst {
			worst, at = u, x
		}
	}
	if worst > 1 {
		t.Errorf("expNeg32 is %.3g ulp from e^t at t = %g", worst, at)
	}
	for _, x := range []float32{-104.5, -200, float32(math.Inf(-1))} {
		if e := expNeg32(x); e != 0 {
			t.Errorf("expNeg32(%g) = %g, want 0", x, e)
		}
	}
	if e := expNeg32(float32(math.NaN())); e == e {
		t.Errorf("expNeg32(NaN) = %g", e)
	}
}

// TestSoftmaxRows32Accuracy: each probability is within 2 ulp of the
// softmax with float64 exponentials of the same float32 differences
// x - max, at most one from the exponential and one from rounding it
// before the scaling.
func TestSoftmaxRows32Accuracy(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	worst := 0.0
	for _, n := range []int{7, 16, 128, 1000} {
		for _, scale := range []float64{1, 10, 40} {
			s := make([]float32, n)
			for i := range s {
				s[i] = float32(r.NormFloat64() * scale)
			}
			exact := make([]float64, n)
			m, _ := rowMax32Ref(s)
			var sum float64
			for i, v := range s {
				exact[i] = math.Exp(float64(v - m))
				sum += exact[i]
			}
			SoftmaxRows32(s, s, n)
			for i, v := range s {
				if e := exact[i] / sum; e >= 0x1p-126 { // subnormals: absolute error below 2^-149
					worst = max(worst, ulpError(v, e))
				}
			}
		}
	}
	if worst > 2 {
		t.Errorf("softmax probabilities up to %.3g ulp from the float64 softmax of the same differences", worst)
	}
}
