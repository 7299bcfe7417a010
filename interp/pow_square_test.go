package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// Pow(x, 2) on float32 multiplies x by itself: bit for bit what math.Pow
// gives in float64 rounded to float32, subnormal, huge, infinite and NaN
// bases included, for an exponent of shape [] or [1], float or integer.
func TestPowSquareMatchesMathPow(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	x := make([]float32, 0, 200000)
	for range 200000 {
		x = append(x, math.Float32frombits(rng.Uint32()))
	}
	x = append(x, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), 1e-45, -1e-45, 3.4e38, 1.9e19, 1.8e19)
	in := canon.NewFloat32Tensor("", []int64{int64(len(x))}, x)
	for _, e := range []*canon.Tensor{
		canon.NewFloat32Tensor("", nil, []float32{2}),
		canon.NewFloat32Tensor("", []int64{1}, []float32{2}),
		logicTensor("", canon.Int64, []int64{1}, []int64{2}),
	} {
		out := runLogicOp(t, &canon.Pow{}, in, e)
		got, err := out.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range x {
			want := float32(math.Pow(float64(v), 2))
			if math.Float32bits(float32(got[i])) != math.Float32bits(want) && !(math.IsNaN(float64(want)) && math.IsNaN(got[i])) {
				t.Fatalf("Pow(%g, 2) = %g, math.Pow gives %g", v, got[i], want)
			}
		}
	}
}
