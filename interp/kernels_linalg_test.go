package interp

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// Det against determinants known in closed form: a row swap flips the
// sign, a singular matrix gives 0, a permutation matrix ±1, and a matrix
// whose first pivot is 0 needs the row exchange.
func TestDetKnownValues(t *testing.T) {
	mats := [][]float64{
		{2, 0, 0, 0, 3, 0, 0, 0, 4},    // diagonal: 24
		{0, 1, 0, 1, 0, 0, 0, 0, 1},    // one swap: -1
		{1, 2, 3, 4, 5, 6, 7, 8, 9},    // singular: 0
		{0, 2, 1, 3, 1, 0, 1, 1, 1},    // zero first pivot: 0*(1-0) - 2*(3-0) + 1*(3-1) = -4
		{4, 3, 6, 3, 2, 1, 7, 5, 10},   // 4(20-5) - 3(30-7) + 6(15-14) = 60-69+6 = -3
		{1e-3, 1, 0, 1, 1, 0, 0, 0, 2}, // 2*(1e-3 - 1)
	}
	want := []float64{24, -1, 0, -4, -3, 2 * (1e-3 - 1)}
	var data []float64
	for _, m := range mats {
		data = append(data, m...)
	}
	x := float64Tensor("x", []int64{int64(len(mats)), 3, 3}, data)
	g := graphOf(&canon.Det{}, map[string]*canon.Tensor{"x": x}, []string{"x"}, nil)
	g.Outputs[0].DType = canon.Float64
	res, err := Run(g, map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	got, err := res["y"].Float64s()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d determinants, want %d", len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12*math.Max(1, math.Abs(want[i])) {
			t.Errorf("matrix %d: det %v, want %v", i, got[i], want[i])
		}
	}
}

// A non-square input is refused by shape inference, naming Det.
func TestDetRefusesNonSquare(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{2, 3}, make([]float32, 6))
	g := graphOf(&canon.Det{}, map[string]*canon.Tensor{"x": x}, []string{"x"}, nil)
	if _, err := Run(g, map[string]*canon.Tensor{"x": x}); err == nil {
		t.Fatal("Det of a 2×3 matrix ran")
	}
}

func float64Tensor(name string, shape []int64, v []float64) *canon.Tensor {
	b := make([]byte, 8*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(f))
	}
	return &canon.Tensor{Name: name, DType: canon.Float64, Shape: shape, Data: b}
}
