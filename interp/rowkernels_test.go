package interp

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// specialFloats fills v with random values, one in three of them a NaN (two
// payloads), ±0, ±Inf or a value at a clamp bound.
func specialFloats(r *rand.Rand, v []float32, bounds ...float32) {
	nan2 := math.Float32frombits(0x7fc00123)
	special := append([]float32{float32(math.NaN()), nan2, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1))}, bounds...)
	for i := range v {
		if r.Intn(3) == 0 {
			v[i] = special[r.Intn(len(special))]
		} else {
			v[i] = r.Float32()*16 - 8
		}
	}
}

// sameBits checks got and want equal bit for bit, except that any NaN
// matches any NaN when nanPayload is false (which NaN an addition of two
// NaNs returns depends on the order the compiler puts its operands in).
func sameBits(t *testing.T, what string, got, want []float32, nanPayload bool) {
	t.Helper()
	for i := range want {
		if !nanPayload && got[i] != got[i] && want[i] != want[i] {
			continue
		}
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s[%d] = %v (%#x), want %v (%#x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestLinearRowMatchesNaive checks one-row Linear (dot products) against
// the definition, with and without C, for lengths around the vector width.
func TestLinearRowMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for _, k := range []int{1, 7, 8, 9, 33, 100, 1280} {
		for _, withC := range []bool{false, true} {
			n := 1 + r.Intn(70)
			a := randTensor(r, "a", 1, k)
			w := randTensor(r, "w", n, k)
			w.Layout, _ = canon.LayoutFor(canon.RoleLinearWeight, 2)
			op := &canon.Linear{Alpha: 0.5, Beta: 2}
			order, inits := []string{"a", "w"}, []*canon.Tensor{w}
			if withC {
				inits = append(inits, randTensor(r, "c", n))
				order = append(order, "c")
			}
			g := graphOf(op, map[string]*canon.Tensor{"a": a}, order, inits)
			out, err := Run(g, map[string]*canon.Tensor{"a": a})
			if err != nil {
				t.Fatal(err)
			}
			av, wv := floats(t, a), floats(t, w)
			want := make([]float32, n)
			for j := range want {
				var s float64
				for i := 0; i < k; i++ {
					s += float64(av[i]) * float64(wv[j*k+i])
				}
				want[j] = float32(0.5 * s)
				if withC {
					want[j] += 2 * floats(t, inits[1])[j]
				}
			}
			assertClose(t, fmt.Sprintf("linear k=%d", k), floats(t, out["y"]), want, 1e-4)
		}
	}
}
