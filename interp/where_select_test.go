package interp

import (
	"math"
	"math/rand"
	"testing"
)

// TestSelectBits: the branch-free select moves a's or b's bits exactly
// (NaN payloads, -0, subnormals) as the condition is zero or not, for
// conditions other than 0 and 1 too.
func TestSelectBits(t *testing.T) {
	r := rand.New(rand.NewSource(35))
	const n = 1000
	c, a, b, out := make([]int64, n), make([]float32, n), make([]float32, n), make([]float32, n)
	conds := []int64{0, 1, -1, 2, math.MinInt64, math.MaxInt64}
	for i := range c {
		c[i] = conds[r.Intn(len(conds))]
		a[i], b[i] = math.Float32frombits(r.Uint32()), math.Float32frombits(r.Uint32())
	}
	selectBits(out, c, a, b)
	for i := range out {
		want := b[i]
		if c[i] != 0 {
			want = a[i]
		}
		if math.Float32bits(out[i]) != math.Float32bits(want) {
			t.Fatalf("element %d (condition %d): %#x, want %#x", i, c[i], math.Float32bits(out[i]), math.Float32bits(want))
		}
	}
}
