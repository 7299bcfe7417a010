package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// Row sums taken a block of rows at a time give, bit for bit, vec.SumF64
// of each row (and its mean), over more rows than one block holds.
func TestReduceRowsSumBlocksExact(t *testing.T) {
	r := rand.New(rand.NewSource(23))
	for _, c := range []struct{ rows, count int }{{3584, 56}, {128, 3072}, {65, 7}, {130, 16}, {3, 0}} {
		v := make([]float32, c.rows*c.count)
		for i := range v {
			v[i] = float32(r.NormFloat64() * 100)
		}
		for _, fn := range []canon.ReduceFn{canon.ReduceSum, canon.ReduceMean} {
			out := make([]float32, c.rows)
			reduceRows(fn, v, out, c.count)
			for i := range out {
				want := vec.SumF64(v[i*c.count : (i+1)*c.count])
				if fn == canon.ReduceMean {
					want /= float64(c.count)
				}
				if math.Float32bits(out[i]) != math.Float32bits(float32(want)) {
					t.Fatalf("%s %d×%d: row %d is %v, want %v", fn, c.rows, c.count, i, out[i], float32(want))
				}
			}
		}
	}
}
