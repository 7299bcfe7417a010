package vec

import (
	"math"
	"math/rand"
	"testing"
)

// BinScalar equals its reference bit for bit (NaNs, infinities, zeros and
// subnormals included) for every operation, side and length.
func TestBinScalarMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(14))
		special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-40, 3}
		for trial := range 400 {
			n := rng.Intn(150)
			a := make([]float32, n)
			for i := range a {
				a[i] = float32(rng.NormFloat64())
				if rng.Intn(20) == 0 {
					a[i] = special[rng.Intn(len(special))]
				}
			}
			k := float32(rng.NormFloat64())
			if trial%7 == 0 {
				k = special[rng.Intn(len(special))]
			}
			op, left := BinOp(trial%4), trial%8 >= 4
			got, want := make([]float32, n), make([]float32, n)
			BinScalar(op, got, a, k, left)
			binScalarRef(op, want, a, k, left)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("trial %d (op %d, left %v, k %v): d[%d] = %v, want %v (a %v)", trial, op, left, k, i, got[i], want[i], a[i])
				}
			}
			// In place.
			BinScalar(op, a, a, k, left)
			for i := range a {
				if math.Float32bits(a[i]) != math.Float32bits(want[i]) && !(a[i] != a[i] && want[i] != want[i]) {
					t.Fatalf("trial %d in place: d[%d] = %v, want %v", trial, i, a[i], want[i])
				}
			}
		}
	})
}

// BinRows equals its reference bit for bit, in place too.
func TestBinRowsMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(15))
		special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-40, 3}
		for trial := range 400 {
			n := rng.Intn(150)
			a, b := make([]float32, n), make([]float32, n)
			for _, v := range [][]float32{a, b} {
				for i := range v {
					v[i] = float32(rng.NormFloat64())
					if rng.Intn(20) == 0 {
						v[i] = special[rng.Intn(len(special))]
					}
				}
			}
			op := BinOp(trial % 4)
			got, want := make([]float32, n), make([]float32, n)
			BinRows(op, got, a, b)
			binRowsRef(op, want, a, b)
			BinRows(op, b, a, b)
			for i := range got {
				for _, g := range []float32{got[i], b[i]} {
					if math.Float32bits(g) != math.Float32bits(want[i]) && !(g != g && want[i] != want[i]) {
						t.Fatalf("trial %d (op %d): d[%d] = %v, want %v", trial, op, i, g, want[i])
					}
				}
			}
		}
	})
}

// BinPerRow gives each row binScalarRef's bits with that row's value, for
// every operation, side and row length (whole vectors, tails, both),
// in place too, and writes nothing past its rows.
func TestBinPerRowMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(16))
		special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-40, 3}
		for trial := range 400 {
			rows, n := 1+rng.Intn(9), rng.Intn(70)
			a, k := make([]float32, rows*n), make([]float32, rows)
			for _, v := range [][]float32{a, k} {
				for i := range v {
					v[i] = float32(rng.NormFloat64())
					if rng.Intn(20) == 0 {
						v[i] = special[rng.Intn(len(special))]
					}
				}
			}
			op, left := BinOp(trial%4), trial%8 >= 4
			got, want := make([]float32, rows*n+17), make([]float32, rows*n+17)
			for i := range got {
				got[i], want[i] = 7, 7
			}
			BinPerRow(op, got, a, k, n, left)
			for r := range rows {
				binScalarRef(op, want[r*n:(r+1)*n], a[r*n:(r+1)*n], k[r], left)
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("trial %d (op %d, left %v, %d rows of %d): d[%d] = %v, want %v", trial, op, left, rows, n, i, got[i], want[i])
				}
			}
			BinPerRow(op, a, a, k, n, left)
			for i := range a {
				if math.Float32bits(a[i]) != math.Float32bits(want[i]) && !(a[i] != a[i] && want[i] != want[i]) {
					t.Fatalf("trial %d in place: d[%d] = %v, want %v", trial, i, a[i], want[i])
				}
			}
		}
	})
}
