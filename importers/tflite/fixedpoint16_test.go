package tfliteimport

import (
	"math"
	"testing"
)

// The int16 sigmoid and tanh stay within a few steps of the real
// functions over every Q3.12 input. (gemmlowp's int16 Newton-Raphson
// division works in Q2.13, so its outputs move in steps of 2 (sigmoid)
// and 4 (tanh) and are not monotonic everywhere.)
func TestFixedPoint16Functions(t *testing.T) {
	var worstS, worstT float64
	for v := math.MinInt16; v <= math.MaxInt16; v++ {
		x := float64(v) / 4096
		s, th := logistic16(int16(v), 3), tanh16(int16(v), 3)
		worstS = math.Max(worstS, math.Abs(float64(s)/32768-1/(1+math.Exp(-x))))
		worstT = math.Max(worstT, math.Abs(float64(th)/32768-math.Tanh(x)))
		if logistic16(int16(-v), 3) < 0 || th != -tanh16(int16(-v), 3) && v != math.MinInt16 {
			t.Fatalf("at %d: sigmoid(-x) %d, tanh %d vs -tanh(-x) %d", v, logistic16(int16(-v), 3), th, -tanh16(int16(-v), 3))
		}
	}
	t.Logf("largest error over Q3.12 in steps of 2^-15: sigmoid %.3g, tanh %.3g", worstS*32768, worstT*32768)
	if worstS > 8.0/32768 || worstT > 16.0/32768 {
		t.Errorf("sigmoid error %g, tanh error %g steps", worstS*32768, worstT*32768)
	}
	if logistic16(0, 3) != 16384 || tanh16(0, 3) != 0 || logistic16(4096, 3) != 23952 || logistic16(-4096, 3) != 8815 {
		t.Errorf("sigmoid(0) %d, tanh(0) %d, sigmoid(±1) %d %d", logistic16(0, 3), tanh16(0, 3), logistic16(4096, 3), logistic16(-4096, 3))
	}
}
